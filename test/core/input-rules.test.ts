// One rule per kind of input, on every route that takes it, walked from the route table: a malformed
// CNPJ is 400 cnpj_invalido on every {cnpj} route (never a router 404), a `uf` that is not one of the
// 27 UFs is 400 everywhere, and every bound a query parameter enforces is declared in /openapi.json.
import { afterAll, describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { ROUTES } from '../../src/app'
import { checkCnpj, normalizeCnpj } from '../../src/core/documents'
import { ApiError } from '../../src/core/errors'
import { exampleInputOf } from '../../src/core/examples'
import { parseQuery, UFS, ufOuExteriorParam, ufParam } from '../../src/core/validate'
import { get, tempDir, testApp } from '../helpers'

// No data: every input check runs before a route touches its data, so a refusal here is the check's.
const { app } = await testApp({ dataDir: tempDir('dadosbr-input-rules-') })
afterAll(() => app.close())

const served = ROUTES
const cnpjRoutes = served.filter((r) => r.path.includes('{cnpj}'))
const pathFor = (route: string, value: string) => route.replace('{cnpj}', value)

/** Malformed CNPJs of every length 1 to 20, in every shape a user types or pastes (raw path text). */
function malformedCnpjs(): string[] {
  const shapes = [
    '98765432109876543210', // digits
    'AB12CD34EF56GH78IJ90', // alphanumeric
    'ABCDEFGHIJKLMNOPQRST', // letters
    'consultacarteira1234', // lower case, a route's own words
    '33.683.111/0002-8012', // the mask, cut (its slash in the path, as pasted)
    '33.683.111%2F0002-8012', // the mask with its slash encoded
    '33%20683%20111%200002', // spaces
    '12.ABC.345/01DE-3599', // an alphanumeric mask
  ]
  const out = new Set<string>()
  for (const shape of shapes)
    for (let n = 1; n <= 20; n++) {
      // Not cut inside a percent-escape.
      const v = shape.slice(0, n).replace(/%[0-9A-F]?$/, '')
      if (v) out.add(v)
    }
  for (const v of ['33.683.111/0002-81', '33683111000281', '00000000000000', '33.683.111/0002', '3368/3111000280', '33683111/000280', '33.683.111/000', '123', '123456'])
    out.add(v)
  return [...out].filter((v) => !checkCnpj(decodeURIComponent(v.replace(/\/$/, ''))).valido)
}

/** What /v1/bcb/instituicao also takes: the 8-character root of a CNPJ. */
const isRoot = (raw: string) => {
  const s = normalizeCnpj(decodeURIComponent(raw.replace(/\/+$/, '')))
  return /^[0-9A-Z]{8}$/.test(s) && /\d/.test(s)
}

describe('a malformed CNPJ on every route with a {cnpj} parameter', () => {
  test('the routes walked', () => {
    expect(cnpjRoutes.map((r) => r.path)).toEqual([
      '/v1/cnpj/situacao/{cnpj}',
      '/v1/cnpj/empresa/{cnpj}',
      '/v1/cnpj/empresa/{cnpj}/socios',
      '/v1/cnpj/empresa/{cnpj}/completo',
      '/v1/licitacoes/fornecedor/{cnpj}',
      '/v1/integridade/consulta/{cnpj}',
      '/v1/fundos/consulta/{cnpj}',
      '/v1/fundos/carteira/{cnpj}',
      '/v1/bcb/instituicao/{cnpj}',
      '/v1/empresa/enriquecer/{cnpj}',
      '/v1/desmatamento/fornecedor/{cnpj}',
    ])
  })

  test('400 cnpj_invalido, every length 1 to 20 and every shape, on every route (never a router 404)', async () => {
    const values = malformedCnpjs()
    expect(values.length).toBe(140)
    const wrong: string[] = []
    for (const route of cnpjRoutes)
      for (const v of values) {
        if (route.path.startsWith('/v1/bcb/') && isRoot(v)) continue
        const r = await get(app, pathFor(route.path, v))
        if (r.status !== 400 || r.body.erro?.codigo !== 'cnpj_invalido') wrong.push(`${pathFor(route.path, v)} -> ${r.status} ${r.body.erro?.codigo}`)
      }
    expect(wrong).toEqual([])
  })

  test('the examples of #29: the same answer as /v1/cnpj/situacao/123', async () => {
    const situacao = await get(app, '/v1/cnpj/situacao/123')
    expect([situacao.status, situacao.body.erro.codigo]).toEqual([400, 'cnpj_invalido'])
    for (const path of ['/v1/fundos/consulta/123456', '/v1/fundos/carteira/123456', '/v1/cnpj/situacao/123456', '/v1/integridade/consulta/123456'])
      expect([path, (await get(app, path)).body]).toEqual([path, situacao.body])
  })

  test('a valid CNPJ pasted with its mask reaches every route (here: the data is not loaded, 503)', async () => {
    for (const route of cnpjRoutes) {
      const r = await get(app, pathFor(route.path, '33.683.111/0002-80'))
      expect([route.path, r.status, r.body.erro?.codigo]).toEqual([route.path, 503, 'dados_indisponiveis'])
    }
  })

  test('the free validator answers valido=false for the same values, never a 404', async () => {
    for (const v of malformedCnpjs()) {
      const r = await get(app, `/v1/ferramentas/cnpj/${v}`)
      expect([v, r.status, r.body.valido]).toEqual([v, 200, false])
    }
  })
})

describe('a `uf` parameter, wherever one is taken', () => {
  const ufRoutes = served.filter((r) => r.query instanceof z.ZodObject && 'uf' in r.query.shape)
  const LISTA = 'AC, AL, AM, AP, BA, CE, DF, ES, GO, MA, MG, MS, MT, PA, PB, PE, PI, PR, RJ, RN, RO, RR, RS, SC, SE, SP, TO'
  // The registry's UF field also holds EX (establishments abroad): its search takes it too.
  const RULES: Record<string, { validator: z.ZodType; aceitas: readonly string[]; mensagem: string }> = {
    '/v1/cnpj/busca': { validator: ufOuExteriorParam, aceitas: [...UFS, 'EX'], mensagem: `deve ser a sigla de uma das 27 UFs (duas letras: ${LISTA}) ou EX (estabelecimento no exterior)` },
    '/v1/licitacoes/abertas': { validator: ufParam, aceitas: UFS, mensagem: `deve ser a sigla de uma das 27 UFs (duas letras: ${LISTA})` },
  }

  test('every one uses the shared validator', () => {
    expect(ufRoutes.map((r) => r.path)).toEqual(Object.keys(RULES))
    for (const r of ufRoutes) {
      const field = (r.query as z.ZodObject).shape.uf as z.ZodType
      expect(field instanceof z.ZodOptional ? field.unwrap() : field).toBe(RULES[r.path]!.validator)
    }
  })

  test('XX, a name, three letters: 400 with the list; the 27 UFs in either case are taken', async () => {
    expect(UFS.join(', ')).toBe(LISTA)
    for (const route of ufRoutes) {
      const { aceitas, mensagem } = RULES[route.path]!
      const base = exampleInputOf(route).query
      for (const bad of ['XX', 'xx', 'S', 'SPP', 'Sao%20Paulo', '', '12', 'BR', ...(aceitas.includes('EX') ? [] : ['EX'])]) {
        const r = await get(app, `${route.path}?${new URLSearchParams({ ...base, uf: '' }).toString().replace('uf=', `uf=${bad}`)}`)
        expect([route.path, bad, r.status, r.body.erro]).toEqual([route.path, bad, 400, { codigo: 'parametro_invalido', mensagem: `parâmetro de consulta 'uf': ${mensagem}` }])
      }
      for (const uf of [...aceitas, ...aceitas.map((u) => u.toLowerCase())]) expect((parseQuery(route, new URLSearchParams({ ...base, uf })) as { uf: string }).uf).toBe(uf.toUpperCase())
    }
  })
})

describe('the bounds of every query parameter, declared in /openapi.json', () => {
  const BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'enum'] as const
  type Schema = Partial<Record<(typeof BOUNDS)[number] | 'type', unknown>>

  test('each bound the server enforces (the schema of the value it turns the text into) is in the parameter declared', async () => {
    const doc = (await get(app, '/openapi.json')).body
    let checked = 0
    const missing: string[] = []
    for (const route of served) {
      if (!(route.query instanceof z.ZodObject)) continue
      const declared = new Map<string, Schema>(doc.paths[route.path].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]))
      for (const [name, field] of Object.entries(route.query.shape as Record<string, z.ZodType>)) {
        const enforced = z.toJSONSchema(field, { io: 'output', unrepresentable: 'any' }) as Schema
        for (const bound of BOUNDS) {
          if (enforced[bound] === undefined) continue
          checked++
          if (JSON.stringify(declared.get(name)?.[bound]) !== JSON.stringify(enforced[bound])) missing.push(`${route.path} ${name} ${bound}`)
        }
      }
    }
    expect(missing).toEqual([])
    expect(checked).toBeGreaterThan(40)
  })

  test('and the server refuses a value just past each declared integer bound, and takes the bound itself', async () => {
    const doc = (await get(app, '/openapi.json')).body
    const refused = (route: (typeof served)[number], query: Record<string, string>) => {
      try {
        parseQuery(route, new URLSearchParams(query))
        return null
      } catch (e) {
        return e instanceof ApiError ? e.message : String(e)
      }
    }
    const seen: string[] = []
    for (const route of served)
      for (const p of doc.paths[route.path].get.parameters.filter((x: any) => x.in === 'query' && x.schema.minimum !== undefined && x.schema.maximum !== undefined)) {
        const { minimum: min, maximum: max } = p.schema as { minimum: number; maximum: number }
        const base = exampleInputOf(route).query
        const message = `parâmetro de consulta '${p.name}': deve ser um número inteiro de ${min} a ${max}`
        expect([route.path, p.name, refused(route, { ...base, [p.name]: String(max) }), refused(route, { ...base, [p.name]: String(min) })]).toEqual([route.path, p.name, null, null])
        expect([route.path, p.name, refused(route, { ...base, [p.name]: String(max + 1) })]).toEqual([route.path, p.name, message])
        if (min > 0) expect([route.path, p.name, refused(route, { ...base, [p.name]: String(min - 1) })]).toEqual([route.path, p.name, message])
        seen.push(`${route.path}?${p.name}`)
      }
    expect(seen.length).toBe(16)
    expect(new Set(seen.map((s) => s.split('?')[0])).size).toBe(10)
  })
})
