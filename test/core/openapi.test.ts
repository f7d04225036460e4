import { afterAll, describe, expect, test } from 'bun:test'
import { parse } from 'yaml'
import { ROUTES } from '../../src/app'
import { EXAMPLES } from '../../src/core/examples'
import { ERROR_CODES } from '../../src/core/errors'
import { priceAtomic } from '../../src/core/route'
import { get, testApp } from '../helpers'

const { app } = await testApp()
afterAll(() => app.close())
const doc = (await get(app, '/openapi.json')).body

describe('/openapi.json', () => {
  test('is OpenAPI 3.1 and YAML says the same', async () => {
    expect(doc.openapi).toBe('3.1.0')
    const yaml = await get(app, '/openapi.yaml')
    expect(yaml.headers.get('content-type')).toContain('yaml')
    expect(parse(yaml.text)).toEqual(doc)
  })

  test('lists exactly the routes of the route table', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(ROUTES.map((r) => r.path).sort())
  })

  test('every paid route shows its price and its 402; free ones have none', () => {
    for (const route of ROUTES) {
      const op = doc.paths[route.path].get
      if (route.planned) {
        expect(op['x-preco-usd']).toBeUndefined()
        expect(op['x-preco-previsto-usd']).toBe(route.planned.price ?? 0)
      } else if (route.price === null) {
        expect(op['x-preco-usd']).toBe(0)
        expect(op.responses[402]).toBeUndefined()
      } else {
        expect(op['x-preco-usd']).toBe(route.price)
        expect(op['x-payment-info'].amount).toBe(priceAtomic(route.price))
        expect(op.responses[402].content['application/json'].schema.$ref).toBe('#/components/schemas/PagamentoExigido')
      }
    }
  })

  test('documents every error codigo', () => {
    expect(doc.components.schemas.Erro.properties.erro.properties.codigo.enum.sort()).toEqual(Object.keys(ERROR_CODES).sort())
  })

  test('path parameters of the validation tools are declared', () => {
    const op = doc.paths['/v1/ferramentas/cnpj/{valor}'].get
    expect(op.parameters).toEqual([{ name: 'valor', in: 'path', required: true, schema: { type: 'string', maxLength: 64 }, example: '33683111000280' }])
    expect(op.responses[200].content['application/json'].schema.required).toEqual(['valido', 'motivo', 'cnpj', 'formatado', 'raiz', 'matriz'])
  })

  test('route examples (declared or recorded from the sample) satisfy their own response schemas', () => {
    for (const route of ROUTES) {
      const example = route.example ?? EXAMPLES[route.path]?.output
      if (example !== undefined) expect({ path: route.path, ok: route.response.safeParse(example).success }).toEqual({ path: route.path, ok: true })
    }
  })
})

describe('other discovery documents', () => {
  test('/.well-known/x402 lists every paid resource with its price', async () => {
    const r = await get(app, '/.well-known/x402')
    const paid = ROUTES.filter((x) => x.price !== null)
    expect(r.body.version).toBe(1)
    expect(r.body.resources).toEqual(paid.map((x) => `GET ${x.path}`))
    expect(r.body.precos_usd).toEqual(Object.fromEntries(paid.map((x) => [x.path, x.price])))
  })

  test('/llms.txt names every route with its price, and how to pay', async () => {
    const r = await get(app, '/llms.txt')
    expect(r.headers.get('content-type')).toStartWith('text/plain')
    for (const route of ROUTES) expect(r.text).toContain(route.path)
    for (const route of ROUTES.filter((x) => x.price !== null)) expect(r.text).toContain(`GET ${route.path} — US$ ${route.price}`)
    expect(r.text).toContain('PAYMENT-SIGNATURE')
  })

  test('/termos is Portuguese terms of use', async () => {
    const r = await get(app, '/termos')
    expect(r.status).toBe(200)
    expect(r.text).toContain('Termos de uso')
    expect(r.text).toContain('LGPD')
  })

  test('/docs and its assets are served locally', async () => {
    const html = await get(app, '/docs')
    expect(html.text).toContain('/docs/swagger-ui-bundle.js')
    expect(html.text).not.toMatch(/https?:\/\//)
    const js = await get(app, '/docs/swagger-ui-bundle.js')
    expect(js.status).toBe(200)
    expect(js.text.length).toBeGreaterThan(500_000)
  })
})
