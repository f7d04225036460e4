// The x402 clients people use, run by Node (not Bun): @x402/fetch over Node's built-in fetch
// (16 KiB of response headers at most) and @x402/axios, each paying one route of every dataset,
// the packs and the largest answers, on a real local chain, over a real socket. Each call must be
// a 200 with a settlement, and the payee must receive exactly the sum of the prices.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ROUTES, type App } from '../../src/app'
import { exampleRequestOf } from '../../src/core/payments/bazaar'
import { priceAtomic } from '../../src/core/route'
import { buildSampleData } from '../helpers'
import { HOOK_TIMEOUT_MS, type Chain } from '../payments/chain'
import { startPaidServer, type PaidServer } from '../payments/paid-server'

let chain: Chain
let app: App
let paid: PaidServer
let baseUrl: string

beforeAll(async () => {
  ({ chain, app, baseUrl } = paid = await startPaidServer(await buildSampleData()))
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  await paid?.stop()
}, HOOK_TIMEOUT_MS)

const paidRoutes = ROUTES.filter((r) => r.price !== null && !r.units)
const callOf = (route: (typeof paidRoutes)[number]) => {
  const example = exampleRequestOf(route)
  const query = new URLSearchParams(example.query).toString()
  return `${route.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(example.params[n]!))}${query ? `?${query}` : ''}`
}
/** One paid route of every dataset, every pack, and the answers whose 402 used to be largest. */
const CHOSEN = [
  ...new Map(paidRoutes.map((r) => [r.dataset, r])).values(),
  ...paidRoutes.filter((r) => ['/v1/pacotes/brasil', '/v1/commodities/pacote', '/v1/mercado/pacote', '/v1/commodities/exportacoes', '/v1/tributos/calendario', '/v1/empresa/enriquecer/{cnpj}', '/v1/cadeias/energia_br'].includes(r.path)),
].filter((r, i, all) => all.indexOf(r) === i)

interface Line { path: string; status?: number; settlement?: { success: boolean; transaction: string } | null; bytes?: number; codigo?: string; erro?: string }

describe.each(['fetch', 'axios'] as const)('@x402/%s on Node', (client) => {
  test(`pays ${CHOSEN.length} routes: one of every dataset, the packs and the largest answers`, async () => {
    const key = generatePrivateKey()
    const payer = privateKeyToAccount(key)
    await chain.mint(payer.address, 5_000_000n)
    const paths = CHOSEN.map(callOf)
    const before = await chain.balance(chain.payTo)
    const proc = Bun.spawn(['node', join(import.meta.dir, 'pay.mjs'), client, baseUrl, ...paths], { env: { ...process.env, X402_PAYER_KEY: key }, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, err: err.slice(-500) }).toEqual({ code: 0, err: '' })
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Line)
    expect(lines.map((l) => l.path)).toEqual(paths)
    for (const l of lines) expect({ path: l.path, status: l.status, settled: l.settlement?.success ?? false, erro: l.erro }).toEqual({ path: l.path, status: 200, settled: true, erro: undefined })
    const due = CHOSEN.reduce((sum, r) => sum + BigInt(priceAtomic(r.price!)), 0n)
    expect((await chain.balance(chain.payTo)) - before).toBe(due)
    expect(await chain.balance(payer.address)).toBe(5_000_000n - due)
  }, 180_000)
})
