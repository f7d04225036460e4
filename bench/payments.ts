// What the payment layer adds per paid request, on a local anvil chain with self-facilitation:
// verify only (a paid request answered 404, so never settled) and verify + settle. The server's
// own overhead = total time - time inside the facilitator (verify, settle, chain) - the handler
// time measured unpaid in the same run. Also: the PAYMENT-REQUIRED header of every paid route
// (size; Node's fetch refuses 16 KiB of headers, proxies 4-8 KiB), the time of a 402, and what
// compression costs a lookup (under the threshold) and a pack (over it).
// `bun bench/payments.ts [--requests 200]`.
import { createApp } from '../src/app'
import { loadConfig } from '../src/core/config'
import { createLogger } from '../src/core/log'
import { createFacilitator } from '../src/core/payments/facilitator'
import { createPaymentGate } from '../src/core/payments/gate'
import { DATASETS } from '../src/datasets/registry'
import { ROUTES } from '../src/app'
import { buildSampleData } from '../test/helpers'
import { FACILITATOR_KEY, startChain } from '../test/payments/chain'
import { header, signPayment } from '../test/payments/sign'
import { opt } from './lib'
import { exampleRequestOf, HEADER_BUDGET } from '../src/core/payments/bazaar'
import { decodePaymentRequiredHeader } from '@x402/core/http'

const N = Number(opt('--requests', '200'))
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]! }
const f = (n: number) => n.toFixed(3)

const chain = await startChain()
await chain.mint(chain.payer.address, 1_000_000_000n)
const dataDir = await buildSampleData()
const log = createLogger('silent')
const config = loadConfig({ dataDir, payTo: chain.payTo, rpcUrl: chain.rpcUrl, logLevel: 'silent' }, { X402_FACILITATOR_PRIVATE_KEY: FACILITATOR_KEY })

// Time spent inside the facilitator, per request.
let inside = 0
const facilitator = createFacilitator(config)
const client = facilitator.client
const timedClient = {
  verify: async (...a: Parameters<typeof client.verify>) => { const t = performance.now(); try { return await client.verify(...a) } finally { inside += performance.now() - t } },
  settle: async (...a: Parameters<typeof client.settle>) => { const t = performance.now(); try { return await client.settle(...a) } finally { inside += performance.now() - t } },
  getSupported: () => client.getSupported(),
}
const payments = createPaymentGate({ config, log, datasets: DATASETS, routes: ROUTES, facilitator: { ...facilitator, client: timedClient } })
const paid = await createApp(config, { log, payments })
const free = await createApp({ ...config, free: true }, { log, payments: null })
const url = (p: string) => `http://localhost${p}`

async function handlerTimes(path: string) {
  const times: number[] = []
  for (let i = 0; i < N; i++) {
    const t = performance.now()
    await (await free.handle(new Request(url(path)))).arrayBuffer()
    times.push(performance.now() - t)
  }
  return pct(times, 0.5)
}

async function paidRun(path: string, expected: number) {
  const challenge = await paid.handle(new Request(url(path)))
  const accepted = decodePaymentRequiredHeader(challenge.headers.get('payment-required')!).accepts[0]!
  const headers = await Promise.all(Array.from({ length: N }, async () => header(await signPayment(chain.payer, accepted))))
  const totals: number[] = []
  const overheads: number[] = []
  const facilitatorTimes: number[] = []
  const handler = await handlerTimes(path)
  for (const h of headers) {
    inside = 0
    const t = performance.now()
    const r = await paid.handle(new Request(url(path), { headers: { 'payment-signature': h } }))
    await r.arrayBuffer()
    const total = performance.now() - t
    if (r.status !== expected) throw new Error(`${path}: ${r.status}`)
    totals.push(total)
    facilitatorTimes.push(inside)
    overheads.push(total - inside - handler)
  }
  return { total: totals, facilitator: facilitatorTimes, overhead: overheads, handler }
}

// The 402 of every paid route: header size for its example call (the route's real values).
const sizes: [string, number][] = []
for (const route of ROUTES.filter((r) => r.price !== null)) {
  const ex = exampleRequestOf(route)
  const q = new URLSearchParams(ex.query).toString()
  const path = route.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(ex.params[n]!)) + (q ? `?${q}` : '')
  const r = await paid.handle(new Request(`https://dados-publicos.exemplo-de-empresa.com.br${path}`))
  sizes.push([route.path, r.headers.get('payment-required')!.length])
}
sizes.sort((a, b) => b[1] - a[1])
console.log(`PAYMENT-REQUIRED: ${sizes.length} rotas pagas, maior ${sizes[0]![1]} bytes (${sizes[0]![0]}), mediana ${sizes[Math.floor(sizes.length / 2)]![1]}, ${sizes.filter(([, n]) => n <= HEADER_BUDGET).length} de ${sizes.length} dentro de ${HEADER_BUDGET} bytes; nível de detalhe do Bazaar: ${Object.entries(Object.values(payments.challenges.levels()).reduce<Record<string, number>>((acc, l) => ((acc[l] = (acc[l] ?? 0) + 1), acc), {})).map(([l, n]) => `${l} ${n}`).join(', ')}`)

// The time of a 402 (no payment), in process: the typical and the largest route.
for (const path of ['/v1/cnpj/situacao/33683111000280', sizes[0]![0].replace('{cnpj}', '33683111000280')]) {
  const times: number[] = []
  for (let i = 0; i < N * 5; i++) {
    const t = performance.now()
    await (await paid.handle(new Request(url(path)))).arrayBuffer()
    times.push(performance.now() - t)
  }
  console.log(`402 de ${path}: p50 ${f(pct(times, 0.5))} ms, p99 ${f(pct(times, 0.99))} ms (${N * 5} pedidos)`)
}

// Compression: a lookup (under the threshold: never compressed) and a pack (over it), with and without Accept-Encoding, interleaved.
for (const path of ['/v1/cnpj/empresa/33683111000280', '/v1/cnpj/empresa/33683111000280/completo', '/v1/pacotes/brasil', '/openapi.json']) {
  const runs = { sem: [] as number[], gzip: [] as number[] }
  let bytes = { sem: 0, gzip: 0 }
  for (let i = 0; i < N * 10; i++)
    for (const mode of ['sem', 'gzip'] as const) {
      const t = performance.now()
      const body = await (await free.handle(new Request(url(path), mode === 'gzip' ? { headers: { 'accept-encoding': 'gzip, deflate, br' } } : {}))).arrayBuffer()
      runs[mode].push(performance.now() - t)
      bytes[mode] = body.byteLength
    }
  console.log(`compressão ${path}: sem Accept-Encoding p50 ${f(pct(runs.sem, 0.5) * 1000)} µs (${bytes.sem} bytes), com gzip/br p50 ${f(pct(runs.gzip, 0.5) * 1000)} µs (${bytes.gzip} bytes), razão ${(pct(runs.sem, 0.5) / pct(runs.gzip, 0.5)).toFixed(3)}`)
}

// Warm-up: the first requests initialize the facilitator and JIT the paths.
await paidRun('/v1/cnpj/empresa/33683111000107', 404).catch(() => {})
const verifyOnly = await paidRun('/v1/cnpj/empresa/33683111000107', 404)
const settled = await paidRun('/v1/cnpj/situacao/33683111000280', 200)
for (const [name, r] of [['verify apenas (resposta 404, sem liquidação)', verifyOnly], ['verify + settle (resposta 200)', settled]] as const)
  console.log(`${name}: total p50 ${f(pct(r.total, 0.5))} ms, p99 ${f(pct(r.total, 0.99))} ms; facilitador/cadeia p50 ${f(pct(r.facilitator, 0.5))} ms; handler sem pagamento p50 ${f(r.handler)} ms; sobrecarga do servidor p50 ${f(pct(r.overhead, 0.5))} ms, p99 ${f(pct(r.overhead, 0.99))} ms (${N} pedidos)`)
await paid.close()
await free.close()
await chain.stop()
