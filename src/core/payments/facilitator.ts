// The facilitator that verifies and settles payments: a remote one over HTTP, or the server
// settling on chain itself (self-facilitation) with its own key and RPC.
import type { FacilitatorClient } from '@x402/core/server'
import { HTTPFacilitatorClient } from '@x402/core/server'
import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { createPublicClient, createWalletClient, http, publicActions, type Chain } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base, baseSepolia } from 'viem/chains'
import type { Config, Network } from '../config'

export interface Facilitator {
  client: FacilitatorClient
  /** True when the facilitator (or the chain, when self-facilitating) answers right now. */
  reachable(): Promise<boolean>
  /** Human description for logs (no secrets). */
  describe: string
  /** Address that pays gas when self-facilitating. */
  signer?: string
}

const CHAINS: Record<Network, Chain> = { 'eip155:8453': base, 'eip155:84532': baseSepolia }
const TIMEOUT_MS = 10_000
/** The outage probe answers fast: a paused or dead RPC must turn into a 503 quickly. */
const PROBE_TIMEOUT_MS = 3_000

export function createFacilitator(config: Config): Facilitator {
  if (config.facilitatorUrl) {
    const headers = config.facilitatorHeaders ?? {}
    const client = new HTTPFacilitatorClient({
      url: config.facilitatorUrl,
      timeoutMs: TIMEOUT_MS,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
    })
    return {
      client,
      describe: `remoto ${config.facilitatorUrl}`,
      reachable: async () => {
        try {
          await client.getSupported()
          return true
        } catch {
          return false
        }
      },
    }
  }
  if (!config.rpcUrl || !config.facilitatorPrivateKey) throw new Error('facilitador não configurado')
  const account = privateKeyToAccount(config.facilitatorPrivateKey as `0x${string}`)
  const chain = CHAINS[config.network]
  const transport = http(config.rpcUrl, { timeout: TIMEOUT_MS, retryCount: 1 })
  const wallet = createWalletClient({ account, chain, transport }).extend(publicActions)
  const probe = createPublicClient({ chain, transport: http(config.rpcUrl, { timeout: PROBE_TIMEOUT_MS, retryCount: 0 }) })
  // viem's overloaded action types are wider than the signer interface spells them; the runtime shapes match.
  const signer = toFacilitatorEvmSigner(Object.assign(wallet, { address: account.address }) as unknown as Parameters<typeof toFacilitatorEvmSigner>[0])
  const facilitator = new x402Facilitator().register(config.network, new ExactEvmScheme(signer))
  return {
    // The in-process facilitator's getSupported is synchronous; the server expects a promise.
    client: {
      verify: (payload, requirements) => facilitator.verify(payload, requirements),
      settle: (payload, requirements) => facilitator.settle(payload, requirements),
      getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
    },
    describe: `liquidação própria via ${new URL(config.rpcUrl).host}`,
    signer: account.address,
    // An RPC outage surfaces from the library as an invalid signature; ask the chain directly,
    // bypassing viem's block-number cache.
    reachable: async () => {
      try {
        await probe.getBlockNumber({ cacheTime: 0 })
        return true
      } catch {
        return false
      }
    },
  }
}
