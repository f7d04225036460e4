// The 402 of every paid route as standard clients and facilitators read it: a PAYMENT-REQUIRED
// header within 4 KiB (Node's fetch refuses 16 KiB of headers; proxies buffer 4-8 KiB), and a
// Bazaar extension that a facilitator accepts: `info` valid against `schema` (a real Draft 2020-12
// validator), the library's own spec checks, and the facilitator-side extraction of the x402
// library run on a payment the real client signed from this 402.
import { afterAll, describe, expect, test } from 'bun:test'
import Ajv2020 from 'ajv/dist/2020'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { x402Client } from '@x402/core/client'
import type { PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { extractDiscoveryInfo, validateDiscoveryExtension, validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ROUTES } from '../../src/app'
import { exampleRequestOf, HEADER_BUDGET } from '../../src/core/payments/bazaar'
import { get, testApp } from '../helpers'

/** A public address of realistic length: the resource URL is part of the header. */
const PUBLIC_URL = 'https://dados-publicos.exemplo-de-empresa.com.br'
const { app } = await testApp({ free: false, payTo: '0x000000000000000000000000000000000000dEaD', facilitatorUrl: 'http://127.0.0.1:9', publicUrl: PUBLIC_URL })
afterAll(() => app.close())

const paid = ROUTES.filter((r) => r.price !== null)
const pathOf = (path: string, params: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(params[n]!))
const exampleCall = (route: (typeof paid)[number]) => {
  const example = exampleRequestOf(route)
  const query = new URLSearchParams(example.query).toString()
  return `${pathOf(route.path, example.params)}${query ? `?${query}` : ''}`
}
async function challenge(path: string): Promise<{ header: string; required: PaymentRequired }> {
  const r = await get(app, path)
  expect(r.status).toBe(402)
  const header = r.headers.get('payment-required')!
  return { header, required: decodePaymentRequiredHeader(header) }
}
const ajv = new Ajv2020({ strict: false, allErrors: true })

describe('PAYMENT-REQUIRED of every paid route', () => {
  test(`is at most ${HEADER_BUDGET} bytes, for the route's example call and for one with a long query`, async () => {
    const sizes: Record<string, number> = {}
    for (const route of paid) {
      sizes[route.path] = (await challenge(exampleCall(route))).header.length
      // 600 more bytes of URL (unknown parameters are refused only after payment, SPEC §3): still within the budget.
      const long = `${exampleCall(route)}${exampleCall(route).includes('?') ? '&' : '?'}nota=${'x'.repeat(600)}`
      expect({ path: route.path, ok: (await challenge(long)).header.length <= HEADER_BUDGET }).toEqual({ path: route.path, ok: true })
    }
    for (const [path, size] of Object.entries(sizes)) expect({ path, ok: size <= HEADER_BUDGET }).toEqual({ path, ok: true })
    expect(Object.keys(sizes)).toHaveLength(paid.length)
  })

  test('carries the terms, the canonical resource and the catalogue metadata', async () => {
    const { required } = await challenge('/v1/cnpj/empresa/33.683.111%2F0002-80')
    expect(required.x402Version).toBe(2)
    expect(required.resource).toEqual({
      url: `${PUBLIC_URL}/v1/cnpj/empresa/33683111000280`,
      description: 'Cartão CNPJ do estabelecimento',
      mimeType: 'application/json',
      serviceName: 'dadosbr',
      tags: ['brasil', 'cnpj', 'company-registry', 'kyb', 'brazil'],
    })
    expect(required.accepts).toEqual([{ scheme: 'exact', network: 'eip155:8453', amount: '5000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x000000000000000000000000000000000000dEaD', maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }])
    expect((required.extensions as any)['payment-identifier'].info).toEqual({ required: false })
  })

  test('Bazaar: info validates against its schema (Draft 2020-12), and the library accepts it as the spec requires', async () => {
    for (const route of paid) {
      const { required } = await challenge(exampleCall(route))
      const bazaar = (required.extensions as any).bazaar
      expect(bazaar.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
      expect(bazaar.schema.required).toContain('input')
      const validate = ajv.compile(bazaar.schema)
      expect({ path: route.path, valid: validate(bazaar.info), errors: validate.errors ?? null }).toEqual({ path: route.path, valid: true, errors: null })
      expect({ path: route.path, ...validateDiscoveryExtension(bazaar) }).toEqual({ path: route.path, valid: true })
      expect({ path: route.path, ...validateDiscoveryExtensionSpec(bazaar) }).toEqual({ path: route.path, valid: true })
      expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' })
      // Concrete example values, never a schema, in queryParams.
      for (const value of Object.values(bazaar.info.input.queryParams ?? {})) expect(typeof value).toBe('string')
      for (const tag of required.resource.tags ?? []) expect(tag).toMatch(/^[\x21-\x7e]+$/)
      expect((required.resource.tags ?? []).length).toBeLessThanOrEqual(5)
    }
  })

  test('routeTemplate and this call\'s path values for every route with path parameters', async () => {
    for (const route of paid.filter((r) => r.path.includes('{'))) {
      const example = exampleRequestOf(route)
      const { required } = await challenge(exampleCall(route))
      const bazaar = (required.extensions as any).bazaar
      expect(bazaar.routeTemplate).toBe(route.path.replace(/\{(\w+)\}/g, ':$1'))
      expect(Object.keys(bazaar.info.input.pathParams)).toEqual(Object.keys(example.params))
    }
    const { required } = await challenge('/v1/cnpj/situacao/33.683.111%2F0002-80')
    expect((required.extensions as any).bazaar.info.input.pathParams).toEqual({ cnpj: '33683111000280' })
    for (const route of paid.filter((r) => !r.path.includes('{'))) expect((await challenge(exampleCall(route))).required.extensions!.bazaar).not.toHaveProperty('routeTemplate')
  })

  test('a facilitator catalogues it: the x402 library extracts one entry per route from a payment the real client signed', async () => {
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(generatePrivateKey()))))
    for (const [path, template] of [['/v1/cnpj/empresa/33.683.111%2F0002-80', '/v1/cnpj/empresa/:cnpj'], ['/v1/cnpj/busca?uf=SP&nome=serpro', null]] as const) {
      const { required } = await challenge(path)
      const payload = await client.createPaymentPayload(required)
      const found = extractDiscoveryInfo(payload, payload.accepted) as any
      expect(found).not.toBeNull()
      expect(found.method).toBe('GET')
      expect(found.resourceUrl).toBe(template ? `${PUBLIC_URL}${template}` : `${PUBLIC_URL}/v1/cnpj/busca`)
      expect(found.serviceName).toBe('dadosbr')
    }
  })

  test('the body stays rich: the SPEC fields and the same PaymentRequired', async () => {
    const r = await get(app, '/v1/pacotes/brasil')
    expect(r.body.erro.codigo).toBe('pagamento_exigido')
    expect(r.body.preco_usd).toBe(0.09)
    expect(r.body.accepts).toEqual(decodePaymentRequiredHeader(r.headers.get('payment-required')!).accepts)
  })
})

describe('bad payment headers: the documented answer with the envelope, never a 5xx, never a charge', () => {
  const SITUACAO = '/v1/cnpj/situacao/33683111000280'
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')
  const accepted = { scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x000000000000000000000000000000000000dEaD', maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }
  const authorization = { from: '0x1111111111111111111111111111111111111111', to: accepted.payTo, value: '1000', validAfter: '0', validBefore: '9999999999', nonce: `0x${'11'.repeat(32)}` }
  const withId = (id: unknown) => b64({ x402Version: 2, accepted, payload: { signature: '0x00', authorization }, extensions: { 'payment-identifier': { info: { required: false, id } } } })
  const cases: [string, string, number, string][] = [
    ['JSON null', b64(null), 402, 'invalid_payment_header'],
    ['a payload whose payload is null', b64({ x402Version: 2, accepted, payload: null }), 402, 'invalid_payment_header'],
    ['a JSON number', b64(42), 402, 'invalid_payment_header'],
    ['an array', b64([1, 2]), 402, 'invalid_payment_header'],
    ['not base64', 'not-base64-json!!', 402, 'invalid_payment_header'],
    ['truncated base64 JSON', b64({ x402Version: 2, accepted, payload: { authorization } }).slice(0, 40), 402, 'invalid_payment_header'],
    ['60 KB of garbage', 'A'.repeat(60_000), 402, 'invalid_payment_header'],
    ['x402 version 1', b64({ x402Version: 1, scheme: 'exact', network: 'base', payload: { signature: '0x00', authorization } }), 402, 'unsupported_x402_version'],
    ['a payment identifier too short', withId('curto'), 400, 'pagamento_invalido'],
    ['a payment identifier with spaces', withId('pay id with spaces 1234'), 400, 'pagamento_invalido'],
    ['a payment identifier that is a number', withId(12345678901234567890), 400, 'pagamento_invalido'],
  ]
  for (const [name, value, status, what] of cases)
    test(name, async () => {
      for (const headerName of ['payment-signature', 'x-payment']) {
        const r = await get(app, SITUACAO, { headers: { [headerName]: value } })
        expect(r.status).toBe(status)
        expect(Object.keys(r.body).includes('erro')).toBe(true)
        if (status === 402) {
          expect(r.body.erro.codigo).toBe('pagamento_exigido')
          expect(r.body.error).toBe(what)
          expect(decodePaymentRequiredHeader(r.headers.get('payment-required')!).error).toBe(what)
        } else expect(r.body.erro.codigo).toBe(what)
        expect(r.headers.get('payment-response')).toBeNull()
        // No answer data: only the challenge's (or the error's) own fields.
        const CHALLENGE = ['erro', 'preco_usd', 'como_pagar', 'gratis_agora', 'catalogo', 'x402Version', 'error', 'resource', 'accepts', 'extensions']
        expect(Object.keys(r.body).filter((k) => !CHALLENGE.includes(k))).toEqual([])
      }
    })
})
