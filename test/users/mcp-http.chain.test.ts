// MCP over Streamable HTTP at /mcp, paid in-band with the x402 MCP transport, on a real local chain:
// the MCP SDK hosts ship (1.x) run by Node, and the official v2 client run by Bun. A free tool
// answers; an unpaid paid tool returns the PaymentRequired in structuredContent; the paid retry
// (_meta["x402/payment"]) is charged exactly once and returns the settlement in _meta; a 4xx and a
// refused payment are not charged.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createApp, ROUTES, type App } from '../../src/app'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { toolName } from '../../src/mcp/tools'
import { buildFixtureData } from '../cnpj/helpers'
import { HOOK_TIMEOUT_MS, type Chain } from '../payments/chain'
import { startPaidServer, type PaidServer } from '../payments/paid-server'

let chain: Chain
let app: App
let paid: PaidServer
let baseUrl: string

beforeAll(async () => {
  ({ chain, app, baseUrl } = paid = await startPaidServer(await buildFixtureData()))
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  await paid?.stop()
}, HOOK_TIMEOUT_MS)

async function payer() {
  const key = generatePrivateKey()
  await chain.mint(privateKeyToAccount(key).address, 1_000_000n)
  return key
}

describe('/mcp with the MCP SDK 1.x run by Node', () => {
  test('free tool, paid tool paid exactly once, no charge for a 4xx or a refused payment', async () => {
    const key = await payer()
    const before = await chain.balance(chain.payTo)
    const proc = Bun.spawn(['node', join(import.meta.dir, '..', 'clients', 'mcp-pay.mjs'), baseUrl], { env: { ...process.env, X402_PAYER_KEY: key }, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, err: err.slice(-500) }).toEqual({ code: 0, err: '' })
    const r = JSON.parse(out)
    expect([...r.tools].sort()).toEqual(ROUTES.map((x) => toolName(x.path)).sort())
    expect(r.free.isError).toBe(false)
    expect(JSON.parse(r.free.text)).toMatchObject({ valido: true, cnpj: '33683111000280' })

    expect(r.unpaid.isError).toBe(true)
    expect(r.unpaid.required.x402Version).toBe(2)
    expect(r.unpaid.required.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:8453', amount: '1000', payTo: chain.payTo })
    expect(r.unpaid.required.resource.url).toBe(`${baseUrl}/mcp`)
    expect(r.unpaid.required.extensions.bazaar.info.input).toMatchObject({ type: 'mcp', toolName: 'cnpj_situacao', transport: 'streamable-http' })

    expect(r.paid.isError).toBe(false)
    expect(JSON.parse(r.paid.text)).toMatchObject({ cnpj: '33683111000280', existe: true })
    expect(r.paid.settlement).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(r.paid.settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/)

    expect(r.notFound.isError).toBe(true)
    expect(JSON.parse(r.notFound.text).erro.codigo).toBe('nao_encontrado')
    expect(r.notFound.settlement).toBeNull()

    expect(r.refused.isError).toBe(true)
    expect(r.refused.settlement).toBeNull()
    expect(r.refused.required.accepts[0].amount).toBe('1000')
    expect(r.refused.required.error).toMatch(/invalid|signature|value/i)

    expect((await chain.balance(chain.payTo)) - before).toBe(1000n)
  }, 120_000)
})

describe('/mcp with the official v2 client run by Bun', () => {
  test('lists the tools, and a paid call with the payment in _meta settles once', async () => {
    const client = new Client({ name: 'teste-bun', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)))
    try {
      const { tools } = await client.listTools()
      expect(tools.length).toBe(ROUTES.length)
      const empresa = tools.find((t) => t.name === 'cnpj_empresa')!
      expect(empresa.description).toContain('US$ 0.005 por chamada')
      const unpaid = await client.callTool({ name: 'cnpj_empresa', arguments: { cnpj: '33.683.111/0002-80' } })
      expect(unpaid.isError).toBe(true)
      const required = unpaid.structuredContent as any
      expect(required.accepts[0].amount).toBe('5000')
      const payments = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(await payer()))))
      const before = await chain.balance(chain.payTo)
      const paid = await client.callTool({ name: 'cnpj_empresa', arguments: { cnpj: '33.683.111/0002-80' }, _meta: { 'x402/payment': await payments.createPaymentPayload(required) } })
      expect(paid.isError ?? false).toBe(false)
      expect(JSON.parse((paid.content as any)[0].text).razao_social).toBe('SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)')
      expect((paid._meta as any)['x402/payment-response'].success).toBe(true)
      expect((await chain.balance(chain.payTo)) - before).toBe(5000n)
      // An unknown tool and a missing path parameter: an error in the API's envelope, no charge.
      const unknown = await client.callTool({ name: 'nao_existe', arguments: {} })
      expect([unknown.isError, (unknown.structuredContent as any).erro.codigo]).toEqual([true, 'parametro_invalido'])
      const missing = await client.callTool({ name: 'cnpj_empresa', arguments: {} })
      expect([missing.isError, (missing.structuredContent as any).erro.codigo]).toEqual([true, 'parametro_invalido'])
    } finally {
      await client.close()
    }
  }, 60_000)

  test('in --gratis mode every tool answers without payment', async () => {
    const free = await createApp(loadConfig({ free: true, dataDir: await buildFixtureData(), logLevel: 'silent' }, {}), { log: createLogger('silent') })
    const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: free.handle })
    const client = new Client({ name: 'teste-bun', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.port}/mcp`)))
      const r = await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '33683111000280' } })
      expect(r.isError ?? false).toBe(false)
      expect(JSON.parse((r.content as any)[0].text).existe).toBe(true)
    } finally {
      await client.close()
      s.stop(true)
      await free.close()
    }
  }, 60_000)
})
