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
      if (route.price === null) {
        expect(op['x-preco-usd']).toBe(0)
        expect(op.responses[402]).toBeUndefined()
      } else {
        expect(op['x-preco-usd']).toBe(route.price)
        expect(op['x-payment-info']).toEqual({ price: { mode: 'fixed', currency: 'USD', amount: String(route.price) }, protocols: [{ x402: {} }] })
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
    const ref = op.responses[200].content['application/json'].schema.$ref as string
    expect(doc.components.schemas[ref.replace('#/components/schemas/', '')].required).toEqual(['valido', 'motivo', 'cnpj', 'formatado', 'raiz', 'matriz'])
  })

  test('route examples (declared or recorded from the sample) satisfy their own response schemas', () => {
    for (const route of ROUTES) {
      const example = route.example ?? EXAMPLES[route.path]?.output
      if (example !== undefined) expect({ path: route.path, ok: route.response.safeParse(example).success }).toEqual({ path: route.path, ok: true })
    }
  })
})

describe('other discovery documents', () => {
  test('/.well-known/x402 lists every paid resource as an absolute URL with a real example, and its price', async () => {
    const r = await get(app, '/.well-known/x402')
    const paid = ROUTES.filter((x) => x.price !== null)
    expect([r.body.version, r.body.x402Version, r.body.kind, r.body.name]).toEqual([1, 2, 'resource-server', 'dadosbr'])
    expect(r.body.resources).toHaveLength(paid.length)
    expect(r.body.resources).toContain('http://localhost/v1/cnpj/situacao/33683111000280')
    expect(r.body.resources).toContain('http://localhost/v1/pacotes/brasil')
    for (const url of r.body.resources) expect(url).toStartWith('http://localhost/v1/')
    expect(r.body.precos_usd).toEqual(Object.fromEntries(paid.map((x) => [x.path, x.price])))
    expect(r.body.mcp).toBe('http://localhost/mcp')
  })

  test('/.well-known/x402.json: one item per paid route with how to call it', async () => {
    const r = await get(app, '/.well-known/x402.json')
    const paid = ROUTES.filter((x) => x.price !== null)
    expect(r.body.x402Version).toBe(2)
    expect(r.body.items).toHaveLength(paid.length)
    const empresa = r.body.items.find((i: any) => i.resource.url === 'http://localhost/v1/cnpj/empresa/:cnpj')
    expect(empresa.input).toEqual({ method: 'GET', routeTemplate: '/v1/cnpj/empresa/:cnpj', pathParams: { cnpj: '33683111000280' } })
    expect(empresa.type).toBe('http')
  })

  test('GET / leads a browser to /docs and an agent to the machine-readable documents', async () => {
    const html = await get(app, '/', { headers: { accept: 'text/html,application/xhtml+xml' } })
    expect(html.headers.get('content-type')).toStartWith('text/html')
    expect(html.text).toContain('url=/docs')
    const agent = await get(app, '/')
    expect(agent.body).toMatchObject({ documentacao: 'http://localhost/docs', para_agentes: 'http://localhost/llms.txt', openapi: 'http://localhost/openapi.json', mcp: 'http://localhost/mcp' })
  })

  test('/openapi.json is compact and compressed for clients that take it', async () => {
    const plain = await get(app, '/openapi.json')
    expect(plain.text.length).toBeLessThan(700_000)
    expect(plain.text).not.toContain('\n  ')
    const br = await app.handle(new Request('http://localhost/openapi.json', { headers: { 'accept-encoding': 'gzip, deflate, br' } }))
    expect(br.headers.get('content-encoding')).toBe('br')
    const bytes = new Uint8Array(await br.arrayBuffer())
    expect(bytes.byteLength).toBeLessThan(plain.text.length / 8)
    expect(JSON.parse(require('node:zlib').brotliDecompressSync(bytes).toString())).toEqual(plain.body)
    const gz = await app.handle(new Request('http://localhost/openapi.json', { headers: { 'accept-encoding': 'gzip' } }))
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer()))))).toEqual(plain.body)
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
