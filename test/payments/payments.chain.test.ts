// Payments end to end on a real local chain: the server self-facilitates (settles on chain with
// its own key), the reference client @x402/fetch pays with a viem account.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { x402Client, wrapFetchWithPayment } from '@x402/fetch'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { toClientEvmSigner } from '@x402/evm'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type App } from '../../src/app'
import { buildFixtureData } from '../cnpj/helpers'
import { HOOK_TIMEOUT_MS, USDC, type Chain } from './chain'
import { startPaidServer, type PaidServer } from './paid-server'
import { header, signPayment } from './sign'

let chain: Chain
let app: App
let paid: PaidServer
let baseUrl: string
const logs: string[] = []
const SITUACAO = '/v1/cnpj/situacao/33683111000280'

beforeAll(async () => {
  ({ chain, app, baseUrl } = paid = await startPaidServer(await buildFixtureData(), { logs, checkResponses: true }))
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  await paid?.stop()
}, HOOK_TIMEOUT_MS)

const payingFetch = (account = chain.payer) => wrapFetchWithPayment(fetch, new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(account))))
const balances = async () => ({ payer: await chain.balance(chain.payer.address), payTo: await chain.balance(chain.payTo) })
async function requirementsFor(path: string): Promise<PaymentRequirements> {
  const r = await fetch(baseUrl + path)
  return decodePaymentRequiredHeader(r.headers.get('payment-required')!).accepts[0]!
}

describe('402 challenge', () => {
  test('header: x402 v2, exact, Base USDC, amount in 6-decimal units, payTo, Bazaar extension', async () => {
    const r = await fetch(baseUrl + SITUACAO)
    expect(r.status).toBe(402)
    const required = decodePaymentRequiredHeader(r.headers.get('payment-required')!)
    expect(required.x402Version).toBe(2)
    expect(required.resource).toEqual({ url: baseUrl + SITUACAO, description: 'Situação cadastral de um CNPJ', mimeType: 'application/json', serviceName: 'dadosbr', tags: ['brasil', 'cnpj', 'company-registry', 'kyb', 'brazil'] })
    expect(required.accepts).toEqual([{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: USDC, payTo: chain.payTo, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }])
    const bazaar = (required.extensions as any).bazaar
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET', pathParams: { cnpj: '33683111000280' } })
    expect(bazaar.routeTemplate).toBe('/v1/cnpj/situacao/:cnpj')
    expect(bazaar.info.output.type).toBe('json')
  })

  test('body: the SPEC fields plus the PaymentRequired fields', async () => {
    const r = await fetch(`${baseUrl}/v1/cnpj/busca?uf=SP`)
    const body = (await r.json()) as any
    expect(body.erro).toEqual({ codigo: 'pagamento_exigido', mensagem: 'Esta rota custa US$ 0.01 por chamada, pagos em USDC com x402.' })
    expect(body.preco_usd).toBe(0.01)
    expect(body.como_pagar.protocolo).toBe('x402')
    expect(body.como_pagar.instrucoes).toBe(`${baseUrl}/llms.txt`)
    expect(body.como_pagar.requisitos).toContain('10000 unidades')
    expect(body.gratis_agora[0]).toEqual({ url: `${baseUrl}/v1/cnpj/amostra`, descricao: 'Amostra grátis de Cadastro de empresas (CNPJ)' })
    for (const g of body.gratis_agora) expect(g.url).toStartWith(baseUrl)
    expect(body.catalogo).toBe(`${baseUrl}/openapi.json`)
    expect(body.x402Version).toBe(2)
    expect(body.accepts[0].amount).toBe('10000')
  })

  test('comes before parameter validation', async () => {
    expect((await fetch(`${baseUrl}/v1/cnpj/situacao/123`)).status).toBe(402)
    expect((await fetch(`${baseUrl}/v1/cnpj/busca?por_pagina=999`)).status).toBe(402)
  })

  test('free routes need nothing', async () => {
    expect((await fetch(`${baseUrl}/v1/cnpj/amostra`)).status).toBe(200)
    const health = (await (await fetch(`${baseUrl}/v1/health`)).json()) as any
    expect(health.pagamentos).toBe('ativos')
  })
})

describe('paying', () => {
  test('the reference client pays: 200, PAYMENT-RESPONSE, balances moved by exactly the price', async () => {
    const before = await balances()
    const r = await payingFetch()(baseUrl + SITUACAO)
    expect(r.status).toBe(200)
    expect(((await r.json()) as any).existe).toBe(true)
    const settlement = decodePaymentResponseHeader(r.headers.get('payment-response')!)
    expect(settlement.success).toBe(true)
    expect(settlement.network).toBe('eip155:8453')
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(settlement.payer?.toLowerCase()).toBe(chain.payer.address.toLowerCase())
    const after = await balances()
    expect(before.payer - after.payer).toBe(1000n)
    expect(after.payTo - before.payTo).toBe(1000n)
  })

  test('a used signature replayed: 402, no second transfer', async () => {
    const payload = await signPayment(chain.payer, await requirementsFor(SITUACAO))
    const first = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': header(payload) } })
    expect(first.status).toBe(200)
    const before = await balances()
    const replay = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': header(payload) } })
    expect(replay.status).toBe(402)
    expect(((await replay.json()) as any).erro.codigo).toBe('pagamento_exigido')
    expect(await balances()).toEqual(before)
  })

  test('the same signature twice at once: exactly one is served', async () => {
    const payload = await signPayment(chain.payer, await requirementsFor(SITUACAO))
    const before = await balances()
    const results = await Promise.all([0, 1, 2].map(() => fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': header(payload) } })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402])
    const after = await balances()
    expect(before.payer - after.payer).toBe(1000n)
  })

  test('the X-PAYMENT header name works too', async () => {
    const payload = await signPayment(chain.payer, await requirementsFor(SITUACAO))
    const r = await fetch(baseUrl + SITUACAO, { headers: { 'x-payment': header(payload) } })
    expect(r.status).toBe(200)
    expect(decodePaymentResponseHeader(r.headers.get('payment-response')!).success).toBe(true)
  })

  test('a paid request with an invalid CNPJ: 400 and no transfer', async () => {
    const before = await balances()
    const r = await payingFetch()(`${baseUrl}/v1/cnpj/situacao/33683111000281`)
    expect(r.status).toBe(400)
    expect(((await r.json()) as any).erro.codigo).toBe('cnpj_invalido')
    expect(r.headers.get('payment-response')).toBeNull()
    expect(await balances()).toEqual(before)
  })

  test('a paid request for a CNPJ not in the data: 404 and no transfer', async () => {
    const before = await balances()
    const r = await payingFetch()(`${baseUrl}/v1/cnpj/empresa/33683111000107`)
    expect(r.status).toBe(404)
    expect(await balances()).toEqual(before)
  })

  test('a paid request whose answer would carry no data (no quote fetched yet, the exchanges and the central bank down): 503 and no transfer', async () => {
    const envs = ['BCB_OLINDA_URL', 'MERCADO_BITCOIN_URL', 'FOXBIT_URL', 'NOVADAX_URL', 'COINBASE_URL', 'KRAKEN_URL']
    const saved = envs.map((e) => [e, process.env[e]] as const)
    for (const e of envs) process.env[e] = 'http://127.0.0.1:9' // nothing listens: every attempt fails at once
    try {
      const before = await balances()
      const r = await payingFetch()(`${baseUrl}/v1/mercado/cambio`)
      expect(r.status).toBe(503)
      expect(((await r.json()) as any).erro.codigo).toBe('dados_indisponiveis')
      expect(r.headers.get('payment-response')).toBeNull()
      expect(await balances()).toEqual(before)
    } finally {
      for (const [e, v] of saved) v === undefined ? delete process.env[e] : (process.env[e] = v)
    }
  })
})

describe('refused payments: 402 with the reason, no transfer', () => {
  const refused = async (make: (req: PaymentRequirements) => Promise<string>, reason: RegExp) => {
    const req = await requirementsFor(SITUACAO)
    const before = await balances()
    const r = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': await make(req) } })
    const body = (await r.json()) as any
    expect(r.status).toBe(402)
    expect(body.erro.codigo).toBe('pagamento_exigido')
    expect(`${body.erro.mensagem} ${body.error}`).toMatch(reason)
    expect(await balances()).toEqual(before)
  }

  test('tampered amount (value changed after signing)', async () => {
    await refused(async (req) => {
      const p = await signPayment(chain.payer, req)
      ;(p.payload as any).authorization.value = '1'
      return header(p)
    }, /invalid|signature|value/i)
  })

  test('amount lower than the price', async () => {
    await refused(async (req) => header(await signPayment(chain.payer, { ...req, amount: '1' })), /não corresponde/)
  })

  test('wrong payTo', async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address
    await refused(async (req) => header(await signPayment(chain.payer, { ...req, payTo: other }, { to: other })), /não corresponde/)
  })

  test('expired authorization', async () => {
    await refused(async (req) => header(await signPayment(chain.payer, req, { validBefore: Math.floor(Date.now() / 1000) - 60 })), /valid_before|expired|recusado/i)
  })

  test('wrong network', async () => {
    await refused(async (req) => header(await signPayment(chain.payer, { ...req, network: 'eip155:84532' }, { chainId: 84532 })), /não corresponde/)
  })

  test('insufficient balance', async () => {
    const poor = privateKeyToAccount(generatePrivateKey())
    await refused(async (req) => header(await signPayment(poor, req)), /insufficient/i)
  })

  test('garbage header is treated as no payment', async () => {
    await refused(async () => 'not-base64-json!!', /ilegível|PaymentPayload/)
  })
})

describe('settlement failure', () => {
  test('two payments for one balance: one settles, the other gets 402 with PAYMENT-RESPONSE success=false and no data', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    await chain.mint(payer.address, 1000n) // exactly one call of /situacao
    const req = await requirementsFor(SITUACAO)
    const [a, b] = [await signPayment(payer, req), await signPayment(payer, req)]
    const before = await chain.balance(chain.payTo)
    // Both verify against the same balance; only the first settlement can move it.
    const results = await Promise.all([a, b].map((p) => fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': header(p) } })))
    const ok = results.filter((r) => r.status === 200)
    const failed = results.filter((r) => r.status === 402)
    expect([ok.length, failed.length]).toEqual([1, 1])
    const failedBody = await failed[0]!.text()
    // Only the challenge's fields: no answer data (the Bazaar extension's example is the sample's, not this request's).
    expect(Object.keys(JSON.parse(failedBody)).filter((k) => !['erro', 'preco_usd', 'como_pagar', 'gratis_agora', 'catalogo', 'x402Version', 'resource', 'accepts', 'error', 'extensions'].includes(k))).toEqual([])
    expect(JSON.parse(failedBody).erro.mensagem).toMatch(/^A liquidação do pagamento falhou: |^Pagamento recusado: /)
    const settlement = failed[0]!.headers.get('payment-response')
    // Settlement may be refused at settle time (PAYMENT-RESPONSE success=false) or already at verify
    // time if the first transfer landed first; either way nothing is served and nothing moves twice.
    if (settlement) expect(decodePaymentResponseHeader(settlement).success).toBe(false)
    expect((await chain.balance(chain.payTo)) - before).toBe(1000n)
    expect(await chain.balance(payer.address)).toBe(0n)
  })
})

describe('facilitator down', () => {
  test('503 and no data while the chain is unreachable; paid again once it is back', async () => {
    const payload = await signPayment(chain.payer, await requirementsFor(SITUACAO))
    chain.pause()
    try {
      const r = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': header(payload) } })
      expect(r.status).toBe(503)
      const body = (await r.json()) as any
      expect(body.erro.codigo).toBe('pagamento_indisponivel')
      expect(JSON.stringify(body)).not.toContain('existe')
      expect((await fetch(`${baseUrl}/v1/ferramentas/cnpj/33683111000280`)).status).toBe(200)
    } finally {
      chain.resume()
    }
    const retry = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': header(await signPayment(chain.payer, await requirementsFor(SITUACAO))) } })
    expect(retry.status).toBe(200)
  }, 60_000)
})

describe('logs', () => {
  test('one line per paid request with route, price, payer, transaction and outcome; never a signature', () => {
    const paid = logs.filter((l) => l.includes(' pagamento ') && l.includes('resultado=liquidado'))
    expect(paid.length).toBeGreaterThan(3)
    expect(paid[0]).toMatch(/rota=\/v1\/cnpj\/situacao\/\{cnpj\} preco=0.001 resultado=liquidado ms=[\d.]+ pagador=0x[0-9a-f]{40} transacao=0x[0-9a-f]{64}/)
    for (const line of logs) expect(line).not.toMatch(/0x[0-9a-f]{130}/i) // a 65-byte signature
    expect(logs.some((l) => l.includes('resultado=nao_cobrado') && l.includes('status=400'))).toBe(true)
  })
})
