// A real local chain for payment tests: anvil (from npm) with chain id 8453, a small EIP-3009
// token planted at the real Base USDC address and Multicall3 at its canonical address, so the
// production configuration runs unchanged against it.
import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { createPublicClient, createWalletClient, http, parseAbi, publicActions, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import contracts from './fixtures/contracts.json'

/** For the hooks that start the chain (and build fixture data): seconds on a busy machine, past bun's 5 s hook default (a clean CI run timed out). */
export const HOOK_TIMEOUT_MS = 60_000
/** anvil prints its address in well under a second; past this it is stuck and the hook should fail with its output. */
const START_TIMEOUT_MS = 20_000

export const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11' as const
/** anvil's first default account: pays the gas of self-facilitated settlements. */
export const FACILITATOR_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const
const ABI = parseAbi(['function mint(address to, uint256 value)', 'function balanceOf(address) view returns (uint256)', 'function authorizationState(address, bytes32) view returns (bool)'])

export interface Chain {
  rpcUrl: string
  payer: PrivateKeyAccount
  payTo: Hex
  balance(address: Hex): Promise<bigint>
  mint(to: Hex, amount: bigint): Promise<void>
  blockNumber(): Promise<bigint>
  stop(): Promise<void>
  /** Suspends the chain process (an RPC outage); resume() continues it. */
  pause(): void
  resume(): void
}

/**
 * Starts anvil on a port the OS picks (`--port 0`) and returns once it listens. A random port of
 * our own could be in use, and the old readiness loop (viem calls with retries) then ran past the
 * hook timeout: a CI run failed that way with no message. Now a failed start throws anvil's own error.
 */
async function spawnAnvil(): Promise<{ proc: ReturnType<typeof Bun.spawn>; rpcUrl: string }> {
  // The platform binary itself, not the npm launcher script: signals (pause/resume) must reach anvil.
  const bin = join(import.meta.dir, '..', '..', 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil')
  const proc = Bun.spawn([bin, '--chain-id', '8453', '--port', '0', '--host', '127.0.0.1'], { stdout: 'pipe', stderr: 'pipe' })
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let printed = ''
  const deadline = setTimeout(() => proc.kill(), START_TIMEOUT_MS)
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`anvil não subiu (saiu com ${await proc.exited}): ${(await new Response(proc.stderr).text()).trim() || printed.slice(-500)}`)
      printed += decoder.decode(value, { stream: true })
      const listening = /Listening on (127\.0\.0\.1:\d+)/.exec(printed)
      if (listening) {
        void (async () => { while (!(await reader.read()).done); })() // keep draining: a full pipe would block anvil's request logging
        return { proc, rpcUrl: `http://${listening[1]}` }
      }
    }
  } finally {
    clearTimeout(deadline)
  }
}

/**
 * Stops a process and returns once every one of its threads is stopped. kill(SIGSTOP) only queues
 * the stop: measured under load (load average 5-7 on 2 cores), anvil still answered a request sent
 * right after it in 53 of 100 tries, which let a "chain down" test be paid (200 instead of 503).
 */
export function stopProcess(pid: number): void {
  process.kill(pid, 'SIGSTOP')
  const deadline = Date.now() + 10_000
  const stopped = () =>
    readdirSync(`/proc/${pid}/task`).every((tid) => {
      try {
        // Field 3 of stat is the state; T (stopped) or t (traced).
        return /^\d+ \(.*\) [Tt] /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))
      } catch {
        return true // the thread ended
      }
    })
  while (!stopped()) {
    if (Date.now() > deadline) throw new Error(`o processo ${pid} não parou com SIGSTOP em 10 s`)
    Bun.sleepSync(1)
  }
}

export async function startChain(): Promise<Chain> {
  const { proc, rpcUrl } = await spawnAnvil()
  const transport = http(rpcUrl)
  const chain = { ...base, rpcUrls: { default: { http: [rpcUrl] } } }
  const pub = createPublicClient({ chain, transport })
  const rpc = (method: string, params: unknown[]) =>
    fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) => r.json())
  await rpc('anvil_setCode', [USDC, contracts.TestUSDC])
  await rpc('anvil_setCode', [MULTICALL3, contracts.Multicall3])
  const minter = createWalletClient({ account: privateKeyToAccount(generatePrivateKey()), chain, transport })
  await rpc('anvil_setBalance', [minter.account.address, '0x56BC75E2D63100000'])
  const mint = async (to: Hex, amount: bigint) => {
    const hash = await minter.writeContract({ address: USDC, abi: ABI, functionName: 'mint', args: [to, amount] })
    await pub.waitForTransactionReceipt({ hash })
  }
  const payer = privateKeyToAccount(generatePrivateKey())
  await mint(payer.address, 10_000_000n) // 10 USDC
  return {
    rpcUrl,
    payer,
    payTo: privateKeyToAccount(generatePrivateKey()).address,
    balance: (address) => pub.readContract({ address: USDC, abi: ABI, functionName: 'balanceOf', args: [address] }),
    mint,
    blockNumber: () => pub.getBlockNumber({ cacheTime: 0 }),
    pause: () => stopProcess(proc.pid),
    resume: () => proc.kill('SIGCONT'),
    async stop() {
      proc.kill('SIGCONT')
      proc.kill()
      await proc.exited
    },
  }
}

/**
 * A remote x402 facilitator over HTTP on 127.0.0.1 (/supported, /verify, /settle): the reference
 * x402Facilitator settling on the local chain with the facilitator key. `seenAuth` records each
 * request's Authorization header.
 */
export function startFacilitatorServer(chain: Chain) {
  const account = privateKeyToAccount(FACILITATOR_KEY)
  const wallet = createWalletClient({ account, chain: { ...base, rpcUrls: { default: { http: [chain.rpcUrl] } } }, transport: http(chain.rpcUrl) }).extend(publicActions)
  const facilitator = new x402Facilitator().register('eip155:8453', new ExactEvmScheme(toFacilitatorEvmSigner(Object.assign(wallet, { address: account.address }) as any)))
  const seenAuth: string[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      seenAuth.push(req.headers.get('authorization') ?? '')
      const path = new URL(req.url).pathname
      if (path === '/supported') return Response.json(facilitator.getSupported())
      const body = (await req.json()) as { paymentPayload: any; paymentRequirements: any }
      if (path === '/verify') return Response.json(await facilitator.verify(body.paymentPayload, body.paymentRequirements))
      if (path === '/settle') return Response.json(await facilitator.settle(body.paymentPayload, body.paymentRequirements))
      return new Response('not found', { status: 404 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, port: server.port, seenAuth, stop: () => server.stop(true) }
}
