// Proves the single executable: copied alone into an empty directory, with no node_modules and a
// bare environment, it ingests the real-format fixtures, serves them, and answers.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const binary = resolve('dist/dadosbr')
const dir = mkdtempSync(join(tmpdir(), 'dadosbr-bin-'))
cpSync(binary, join(dir, 'dadosbr'))
const env = { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: dir }
let passed = 0
let failed = 0
const check = (name: string, ok: boolean, detail = '') => {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `: ${detail}`}`)
}

const run = (args: string[]) => Bun.spawnSync([join(dir, 'dadosbr'), ...args], { cwd: dir, env, stderr: 'pipe', stdout: 'pipe' })
check('the directory holds only the binary', readdirSync(dir).join() === 'dadosbr', readdirSync(dir).join())
const help = run(['--help'])
check('--help', help.exitCode === 0 && help.stdout.toString().includes('dadosbr'), help.stderr.toString())
const bad = run(['serve', '--port', 'abc'])
check('a bad setting stops the start with one line', bad.exitCode === 2 && bad.stderr.toString().trim().split('\n').length === 1, bad.stderr.toString())
// The samples are embedded: an empty folder and the binary are enough.
const ingest = run(['ingest', 'todas', '--amostra', '--data', join(dir, 'data'), '--quiet'])
check('ingest todas --amostra builds every bundled sample, quietly, from inside the binary', ingest.exitCode === 0 && existsSync(join(dir, 'data', 'cnpj', 'current', 'cnpj.duckdb')) && !/malformada|erro/i.test(ingest.stderr.toString()), ingest.stderr.toString())

const port = 20000 + Math.floor(Math.random() * 20000)
const server = Bun.spawn([join(dir, 'dadosbr'), 'serve', '--gratis', '--processos', '2', '--port', String(port), '--host', '127.0.0.1', '--data', join(dir, 'data')], { cwd: dir, env, stderr: 'pipe' })
/** The server's second process: the binary started again by itself (its own path, not bun). */
let secondPid = ''
const secondProcess = () => {
  try {
    ;[secondPid = ''] = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
    return secondPid ? readFileSync(`/proc/${secondPid}/cmdline`, 'utf8').split('\0') : []
  } catch {
    return []
  }
}
try {
  let health: Response | undefined
  const started = performance.now()
  for (let i = 0; i < 100 && !health; i++) {
    health = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined)
    if (!health) await Bun.sleep(100)
  }
  check(`serve answers (first answer after ${Math.round(performance.now() - started)} ms)`, health?.status === 200)
  const body = (await health?.json()) as { base_referencia?: string; bases?: { nome: string; ok: boolean }[] }
  // The recorded feed copies of the sample are served with their true age, so health may say degradado for them; every dataset must be open.
  check('health: every dataset open, the registry month', body?.base_referencia === '2026-08' && (body.bases ?? []).length > 0 && body.bases!.every((b) => b.ok), JSON.stringify(body).slice(0, 400))
  const sample = await fetch(`http://127.0.0.1:${port}/v1/cnpj/amostra`)
  const card = (await sample.json()) as { razao_social?: string; total_socios?: number }
  check('amostra read from the card store', card.razao_social === 'SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)' && card.total_socios === 6, JSON.stringify(card).slice(0, 200))
  let second: string[] = []
  for (let i = 0; i < 50 && second[1] !== 'serve'; i++, await Bun.sleep(100)) second = secondProcess()
  check('a second serving process runs the binary itself', second[0] === join(dir, 'dadosbr') && second[1] === 'serve', second.join(' '))
  // Fresh connections, spread by the kernel over both processes: every one answers.
  const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/v1/cnpj/amostra`, { headers: { connection: 'close' } }).then((r) => r.status)))
  check('fresh connections, spread over both processes, all answer', answers.every((s) => s === 200), answers.join())
  const docs = await fetch(`http://127.0.0.1:${port}/docs/swagger-ui-bundle.js`)
  check('docs assets embedded', docs.status === 200 && (await docs.text()).length > 500_000)
} finally {
  server.kill()
  await server.exited
}
check('stopping the server stops its second process', secondPid !== '' && !existsSync(`/proc/${secondPid}`), secondPid)

// Paid mode, as an agent meets it: the 402 a Node client reads, and MCP over HTTP (the x402 libraries and the MCP SDK inside the binary).
const paidPort = port + 1
const paid = Bun.spawn([join(dir, 'dadosbr'), 'serve', '--processos', '1', '--port', String(paidPort), '--host', '127.0.0.1', '--data', join(dir, 'data'), '--pay-to', '0x000000000000000000000000000000000000dEaD', '--facilitator-url', 'http://127.0.0.1:9'], { cwd: dir, env, stderr: 'pipe' })
try {
  let challenge: Response | undefined
  for (let i = 0; i < 100 && !challenge; i++) {
    challenge = await fetch(`http://127.0.0.1:${paidPort}/v1/pacotes/brasil`).catch(() => undefined)
    if (!challenge) await Bun.sleep(100)
  }
  const header = challenge?.headers.get('payment-required') ?? ''
  const required = header ? JSON.parse(Buffer.from(header, 'base64').toString()) : {}
  check(`paid mode: a 402 whose PAYMENT-REQUIRED fits 4 KiB (${header.length} bytes) with the Bazaar extension`, challenge?.status === 402 && header.length > 0 && header.length <= 4096 && required.extensions?.bazaar?.schema !== undefined, header.slice(0, 200))
  const mcp = await fetch(`http://127.0.0.1:${paidPort}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  })
  const listed = (await mcp.text()).match(/"name":"cnpj_situacao"/)
  check('MCP over HTTP lists the tools', mcp.status === 200 && listed !== null, `${mcp.status}`)
} finally {
  paid.kill()
  await paid.exited
}
rmSync(dir, { recursive: true, force: true })
console.log(`binary: ${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
