import { afterAll, describe, expect, test } from 'bun:test'
import { get, testApp } from '../helpers'
import { baseUrlOf, searchParamsOf, slashInParameter } from '../../src/core/server'

const { app } = await testApp()
afterAll(() => app.close())

describe('error envelope and HTTP semantics', () => {
  test('unknown path: 404 rota_inexistente', async () => {
    const r = await get(app, '/v1/nada')
    expect(r.status).toBe(404)
    expect(r.body.erro.codigo).toBe('rota_inexistente')
    expect(typeof r.body.erro.mensagem).toBe('string')
  })

  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    test(`${method} on a known path: 405 with Allow`, async () => {
      const r = await get(app, '/v1/ferramentas/cnpj/33683111000280', { method })
      expect(r.status).toBe(405)
      expect(r.body.erro.codigo).toBe('metodo_nao_permitido')
      expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    })
  }

  test('POST on an unknown path stays 404', async () => {
    expect((await get(app, '/v1/nada', { method: 'POST' })).status).toBe(404)
  })

  test('HEAD answers the GET status and headers without a body', async () => {
    const r = await get(app, '/v1/health', { method: 'HEAD' })
    expect(r.status).toBe(200)
    expect(r.text).toBe('')
    expect(r.headers.get('content-type')).toContain('application/json')
  })

  test('OPTIONS preflight lets a browser send the payment header', async () => {
    const r = await get(app, '/v1/health', { method: 'OPTIONS' })
    expect(r.status).toBe(204)
    expect(r.headers.get('access-control-allow-headers')).toContain('PAYMENT-SIGNATURE')
    expect(r.headers.get('access-control-allow-headers')).toContain('X-PAYMENT')
  })

  test('every response exposes the payment headers to browsers', async () => {
    const r = await get(app, '/v1/nada')
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
    expect(r.headers.get('access-control-expose-headers')).toBe('PAYMENT-REQUIRED, PAYMENT-RESPONSE')
  })

  test('URL over 8 KiB: 414 uri_muito_longa', async () => {
    const r = await get(app, `/v1/ferramentas/cpf/${'1'.repeat(9000)}`)
    expect(r.status).toBe(414)
    expect(r.body.erro.codigo).toBe('uri_muito_longa')
  })

  test('unknown query parameter: 400 parametro_desconhecido', async () => {
    const r = await get(app, '/v1/health?foo=1')
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ erro: { codigo: 'parametro_desconhecido', mensagem: "parâmetro de consulta 'foo' não existe nesta rota; ela não aceita nenhum" } })
  })

  test('path value over its limit: 400 parametro_invalido, not 422', async () => {
    const r = await get(app, `/v1/ferramentas/cnpj/${'9'.repeat(65)}`)
    expect(r.status).toBe(400)
    expect(r.body.erro.codigo).toBe('parametro_invalido')
    expect(r.body.erro.mensagem).toStartWith("parâmetro de caminho 'valor':")
  })

  test('broken percent-encoding: 400', async () => {
    const r = await get(app, '/v1/ferramentas/cpf/%E0%A4%A')
    expect(r.status).toBe(400)
    expect(r.body.erro.codigo).toBe('parametro_invalido')
  })

  test('health without any data: ok, payments off, no reference month', async () => {
    const r = await get(app, '/v1/health')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ servico: 'dadosbr', pagamentos: 'desligados' })
  })
})

describe('request URL helpers (string work, no URL object per request)', () => {
  test('searchParamsOf: decoded pairs, none without "?", fragment dropped', () => {
    expect([...searchParamsOf('http://h/v1/cnpj/busca?nome=S%C3%83O+JO%C3%83O&uf=SP#x')]).toEqual([['nome', 'SÃO JOÃO'], ['uf', 'SP']])
    expect([...searchParamsOf('http://h/v1/health')]).toEqual([])
  })

  test('slashInParameter: a pasted mask\'s slash joins its parameter, only where no route matches as written', () => {
    const encode = slashInParameter(['/v1/cnpj/empresa/{cnpj}', '/v1/cnpj/empresa/{cnpj}/socios', '/v1/fundos/consulta/{cnpj}', '/v1/health'])
    const url = (u: string) => encode(new Request(u)).url
    expect(url('http://h/v1/cnpj/empresa/33.683.111/0002-80')).toBe('http://h/v1/cnpj/empresa/33.683.111%2F0002-80')
    expect(url('http://h/v1/cnpj/empresa/33.683.111/0002-80/socios?x=1')).toBe('http://h/v1/cnpj/empresa/33.683.111%2F0002-80/socios?x=1')
    // Malformed masks too: the parameter's check says what is wrong (400), not the router (404).
    expect(url('http://h/v1/fundos/consulta/33.683/0')).toBe('http://h/v1/fundos/consulta/33.683%2F0')
    // A route as written is that route: 123456 is the CNPJ of /fundos/consulta, never "consulta/123456" of a shorter path.
    for (const u of ['http://h/v1/fundos/consulta/123456', 'http://h/v1/cnpj/empresa/33.683.111/socios', 'http://h/v1/cnpj/empresa/33683111000280/socio', 'http://h/v1/health'])
      expect(url(u)).toBe(u)
    const plain = new Request('http://h/v1/cnpj/busca?nome=/33.683.111/0002-80')
    expect(encode(plain)).toBe(plain)
  })

  test('baseUrlOf: the request origin with its port, or the configured public URL', () => {
    const ctx = { config: { publicUrl: undefined } } as never
    expect(baseUrlOf(ctx, new Request('http://127.0.0.1:8080/v1/health?x=1'))).toBe('http://127.0.0.1:8080')
    expect(baseUrlOf({ config: { publicUrl: 'https://api.exemplo.br' } } as never, new Request('http://h/v1/health'))).toBe('https://api.exemplo.br')
  })
})
