// `dadosbr mcp` driven by the official MCP client (@modelcontextprotocol/client) over stdio, as an
// agent runs it, against a dadosbr server charging on a real local chain (anvil with the USDC
// token, test/payments/chain.ts): every served route is a tool, a free tool answers, a paid tool is
// paid exactly its price, the per-call and per-session limits refuse before anything is signed,
// and /metrics counts the payments.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { join } from 'node:path'
import { ROUTES, type App } from '../../src/app'
import { toolName } from '../../src/mcp/tools'
import { buildFixtureData } from '../cnpj/helpers'
import { HOOK_TIMEOUT_MS, type Chain } from '../payments/chain'
import { startPaidServer, type PaidServer } from '../payments/paid-server'
import { parseExposition, valueOf } from './prometheus'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
let chain: Chain
let app: App
let paid: PaidServer
let baseUrl: string
const clients: Client[] = []

beforeAll(async () => {
  ({ chain, app, baseUrl } = paid = await startPaidServer(await buildFixtureData()))
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {})
  await paid?.stop()
}, HOOK_TIMEOUT_MS)

/** `dadosbr mcp` started by the official client, as an MCP host does. */
async function connect(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--url', baseUrl, ...args],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'teste-dadosbr', version: '1.0.0' })
  await client.connect(transport)
  clients.push(client)
  return client
}

const balances = async () => ({ payer: await chain.balance(chain.payer.address), payTo: await chain.balance(chain.payTo) })
const text = (r: any) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n')
const payerKey = () => {
  // The payer's key is not kept by chain.ts: a fresh payer is funded here.
  return PAYER_KEY
}
let PAYER_KEY = ''

describe('dadosbr mcp', () => {
  test('lists every served route as a tool, with its description, parameters and price', async () => {
    const client = await connect([])
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(ROUTES.map((r) => toolName(r.path)).sort())
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length)
    const situacao = tools.find((t) => t.name === 'cnpj_situacao')!
    expect(situacao.description).toContain('Situação cadastral de um CNPJ')
    expect(situacao.description).toContain('US$ 0.001 por chamada')
    expect(situacao.inputSchema.required).toEqual(['cnpj'])
    expect(Object.keys(situacao.inputSchema.properties ?? {})).toEqual(['cnpj'])
    expect(situacao._meta).toEqual({ 'dadosbr/rota': '/v1/cnpj/situacao/{cnpj}', 'dadosbr/preco_usd': 0.001 })
    const busca = tools.find((t) => t.name === 'cnpj_busca')!
    expect(Object.keys(busca.inputSchema.properties ?? {})).toContain('nome')
    expect(busca.inputSchema.required ?? []).toEqual([])
    expect(tools.find((t) => t.name === 'ferramentas_cnpj')!.description).toContain('Grátis.')
  }, 30_000)

  test('a free tool answers without a payer key; a paid one says its price and charges nothing', async () => {
    const client = await connect([])
    const free = await client.callTool({ name: 'ferramentas_cnpj', arguments: { valor: '33.683.111/0002-80' } })
    expect(free.isError).toBe(false)
    expect(JSON.parse(text(free))).toMatchObject({ valido: true, cnpj: '33683111000280', matriz: false })
    const before = await balances()
    const paid = await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '33683111000280' } })
    expect(paid.isError).toBe(true)
    expect(text(paid)).toContain('Defina DADOSBR_PAYER_KEY')
    expect(text(paid)).toContain('pagamento_exigido')
    expect(await balances()).toEqual(before)
    // The server's own error, in its words, for bad input.
    const bad = await client.callTool({ name: 'ferramentas_cnpj', arguments: { valor: '123' } })
    expect(JSON.parse(text(bad)).valido).toBe(false)
  }, 30_000)

  test('a paid tool is paid exactly its price, once, and /metrics counts the settlement', async () => {
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts')
    PAYER_KEY = generatePrivateKey()
    await chain.mint(privateKeyToAccount(PAYER_KEY as `0x${string}`).address, 1_000_000n) // 1 USDC
    const payer = privateKeyToAccount(payerKey() as `0x${string}`).address
    const client = await connect(['--limite-chamada', '0.01', '--limite-sessao', '0.015'], { DADOSBR_PAYER_KEY: payerKey() })
    const scrape = async () => parseExposition(await (await fetch(`${baseUrl}/metrics`)).text()).samples
    const metricsBefore = await scrape()
    const payerBefore = await chain.balance(payer)
    const payToBefore = await chain.balance(chain.payTo)
    const r = await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '33683111000280' } })
    expect(r.isError).toBe(false)
    const body = JSON.parse(text(r).split('\n(pago')[0]!)
    expect(body).toMatchObject({ cnpj: '33683111000280', existe: true, situacao_cadastral: { codigo: '02', descricao: 'Ativa' } })
    const pagamento = (r._meta as any)['dadosbr/pagamento']
    expect(pagamento.usd).toBe('0.001')
    expect(pagamento.transacao).toMatch(/^0x[0-9a-f]{64}$/)
    expect(pagamento.rede).toBe('eip155:8453')
    expect(payerBefore - (await chain.balance(payer))).toBe(1000n)
    expect((await chain.balance(chain.payTo)) - payToBefore).toBe(1000n)
    expect((r._meta as any)['dadosbr/gasto_sessao_usd']).toBe('0.001')

    const metrics = await scrape()
    const rota = '/v1/cnpj/situacao/{cnpj}'
    expect(valueOf(metrics, 'dadosbr_payments_total', { rota, resultado: 'liquidado' }) - valueOf(metricsBefore, 'dadosbr_payments_total', { rota, resultado: 'liquidado' })).toBe(1)
    expect(valueOf(metrics, 'dadosbr_payments_settled_usd_total', { rota }) - valueOf(metricsBefore, 'dadosbr_payments_settled_usd_total', { rota })).toBeCloseTo(0.001, 9)
    expect(valueOf(metrics, 'dadosbr_http_requests_total', { rota, status: '402' }) - valueOf(metricsBefore, 'dadosbr_http_requests_total', { rota, status: '402' })).toBe(1)

    // A 4xx of a paid route is never charged, and does not count against the session.
    const invalid = await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '11111111111111' } })
    expect(invalid.isError).toBe(true)
    expect(JSON.parse(text(invalid)).erro.codigo).toBe('cnpj_invalido')
    expect((invalid._meta as any)['dadosbr/gasto_sessao_usd']).toBe('0.001')
    expect(payerBefore - (await chain.balance(payer))).toBe(1000n)
  }, 60_000)

  test('limits: above the per-call limit, or past the session limit, refused before signing; nothing paid', async () => {
    const payer = () => chain.balance(chain.payer.address)
    // Same payer key, a fresh session with small limits: US$ 0.005 per call, US$ 0.006 for the session.
    const client = await connect(['--limite-chamada', '0.005', '--limite-sessao', '0.006'], { DADOSBR_PAYER_KEY: payerKey() })
    const { privateKeyToAccount } = await import('viem/accounts')
    const address = privateKeyToAccount(payerKey() as `0x${string}`).address
    const start = await chain.balance(address)
    // cnpj_busca costs US$ 0.01: above the per-call limit.
    const tooDear = await client.callTool({ name: 'cnpj_busca', arguments: { nome: 'serpro' } })
    expect(tooDear.isError).toBe(true)
    expect(text(tooDear)).toContain('a chamada custa US$ 0.01, acima do limite por chamada de US$ 0.005')
    expect(await chain.balance(address)).toBe(start)
    // cnpj_empresa costs US$ 0.005: the first fits, the second would pass US$ 0.006.
    const first = await client.callTool({ name: 'cnpj_empresa', arguments: { cnpj: '33683111000280' } })
    expect(first.isError).toBe(false)
    expect(start - (await chain.balance(address))).toBe(5000n)
    const second = await client.callTool({ name: 'cnpj_empresa', arguments: { cnpj: '33683111000280' } })
    expect(second.isError).toBe(true)
    expect(text(second)).toContain('a sessão já gastou US$ 0.005, de um limite de US$ 0.006 por sessão')
    expect(start - (await chain.balance(address))).toBe(5000n)
    // A free tool still answers past the limit.
    expect((await client.callTool({ name: 'cnpj_amostra', arguments: {} })).isError).toBe(false)
    expect(await payer()).toBeGreaterThan(0n)
  }, 60_000)

  test('a bad payer key or limit stops the start with one line', () => {
    const run = (args: string[], env: Record<string, string>) => Bun.spawnSync([process.execPath, CLI, 'mcp', ...args], { env: { ...process.env, ...env }, stdin: 'ignore' })
    const badKey = run([], { DADOSBR_PAYER_KEY: '0x12' })
    expect(badKey.exitCode).toBe(2)
    expect(badKey.stderr.toString()).toBe('dadosbr mcp: DADOSBR_PAYER_KEY precisa ser uma chave privada 0x seguida de 64 dígitos hexadecimais\n')
    const badLimit = run(['--limite-sessao', 'dez'], {})
    expect(badLimit.exitCode).toBe(2)
    expect(badLimit.stderr.toString()).toContain("--limite-sessao / DADOSBR_MCP_LIMITE_SESSAO: valor em dólares inválido: 'dez'")
  })
})
