// The bulk routes priced per item, on a real local chain (the server self-facilitates): the 402 of a
// bulk URL states the unit price times its valid, distinct CNPJs; a paid call moves exactly that;
// a bad list is a 400 and a list with no valid CNPJ in the month a 404, neither charged.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { x402Client, wrapFetchWithPayment } from '@x402/fetch'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { toClientEvmSigner } from '@x402/evm'
import { createApp, type App } from '../../src/app'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { buildIntegridade } from '../../ingest/integridade/load'
import { buildFixtureData } from '../cnpj/helpers'
import { SAMPLE as INTEGRIDADE_SAMPLE } from '../integridade/helpers'
import { FACILITATOR_KEY, HOOK_TIMEOUT_MS, startChain, type Chain } from './chain'

let chain: Chain
let app: App
let server: ReturnType<typeof Bun.serve>
let baseUrl: string

beforeAll(async () => {
  chain = await startChain()
  const dataDir = await buildFixtureData()
  await buildIntegridade({ dir: INTEGRIDADE_SAMPLE, dataDir, force: true })
  const config = loadConfig({ dataDir, payTo: chain.payTo, rpcUrl: chain.rpcUrl, logLevel: 'silent' }, { X402_FACILITATOR_PRIVATE_KEY: FACILITATOR_KEY })
  app = await createApp(config, { log: createLogger('silent'), checkResponses: true })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.handle, idleTimeout: 60 })
  baseUrl = `http://127.0.0.1:${server.port}`
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  server?.stop(true)
  await app?.close()
  await chain?.stop()
}, HOOK_TIMEOUT_MS)

const paying = () => wrapFetchWithPayment(fetch, new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(chain.payer))))
const balances = async () => ({ payer: await chain.balance(chain.payer.address), payTo: await chain.balance(chain.payTo) })
const amountOf = async (path: string) => {
  const r = await fetch(baseUrl + path)
  expect(r.status).toBe(402)
  return decodePaymentRequiredHeader(r.headers.get('payment-required')!).accepts[0]!.amount
}

// Two found, one valid but not in the month, one invalid, one repeated (punctuated): 3 valid distinct.
const LISTA = '33683111000280,12.ABC.345/01DE-35,33683111000107,123,33.683.111/0002-80'

describe('per-item price', () => {
  test('the 402 of each URL states the unit price times its valid, distinct CNPJs', async () => {
    // /v1/cnpj/empresa costs US$ 0.005 (5000 base units); /v1/integridade/consulta US$ 0.01.
    expect(await amountOf(`/v1/cnpj/lote?cnpjs=${LISTA}`)).toBe('15000')
    expect(await amountOf('/v1/cnpj/lote?cnpjs=33683111000280')).toBe('5000')
    expect(await amountOf(`/v1/cnpj/lote?cnpjs=${Array(100).fill('33683111000280').join(',')}`)).toBe('5000')
    expect(await amountOf(`/v1/integridade/lote?cnpjs=${LISTA}`)).toBe('30000')
    const body = await (await fetch(`${baseUrl}/v1/cnpj/lote?cnpjs=${LISTA}`)).json() as { erro: { mensagem: string } }
    expect(body.erro.mensagem).toContain('US$ 0.015 (3 itens a US$ 0.005)')
  })

  test('a list with no valid CNPJ, or of a shape refused, is a 400 before any challenge', async () => {
    for (const path of ['/v1/cnpj/lote?cnpjs=123,abc', '/v1/cnpj/lote?cnpjs=33683111000280;12ABC34501DE35', '/v1/cnpj/lote', '/v1/integridade/lote?cnpjs='])
      expect([path, (await fetch(baseUrl + path)).status]).toEqual([path, 400])
  })

  test('a paid bulk call moves exactly price × valid distinct CNPJs; its answer holds every item', async () => {
    const before = await balances()
    const r = await paying()(`${baseUrl}/v1/cnpj/lote?cnpjs=${LISTA}`)
    expect(r.status).toBe(200)
    const body = (await r.json()) as { validos: number; itens: unknown[] }
    expect([body.validos, body.itens.length]).toEqual([3, 4])
    expect(decodePaymentResponseHeader(r.headers.get('payment-response')!).success).toBe(true)
    const after = await balances()
    expect([before.payer - after.payer, after.payTo - before.payTo]).toEqual([15000n, 15000n])

    const r2 = await paying()(`${baseUrl}/v1/integridade/lote?cnpjs=${LISTA}`)
    expect(r2.status).toBe(200)
    const after2 = await balances()
    expect([after.payer - after2.payer, after2.payTo - after.payTo]).toEqual([30000n, 30000n])
  })

  test('every valid CNPJ missing from the month: 404, nothing moves', async () => {
    const before = await balances()
    const r = await paying()(`${baseUrl}/v1/cnpj/lote?cnpjs=33683111000107,123`)
    expect(r.status).toBe(404)
    expect(await balances()).toEqual(before)
  })
})
