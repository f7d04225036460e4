// One rule per kind of input, on every route that takes it, walked from the route table: a malformed
// CNPJ is 400 cnpj_invalido on every {cnpj} route (never a router 404), a `uf` that is not one of the
// 27 UFs is 400 everywhere, and every bound a query parameter enforces is declared in /openapi.json.
import { afterAll, describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { ROUTES } from '../../src/app'
import { checkCnpj, normalizeCnpj } from '../../src/core/documents'
import { ApiError } from '../../src/core/errors'
import { exampleInputOf } from '../../src/core/examples'
import { REGRA_SEM_DADOS } from '../../src/core/route'
import { MODALIDADES } from '../../src/datasets/licitacoes/pncp'
import { toolsFrom } from '../../src/mcp/tools'
import { declareToolBazaar } from '../../src/mcp/http'
import Ajv2020 from 'ajv/dist/2020'
import { validateDiscoveryExtension } from '@x402/extensions/bazaar'
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
      '/v1/cnpj/empresa/{cnpj}/historico',
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
    '/v1/cnpj/mudancas': { validator: ufOuExteriorParam, aceitas: [...UFS, 'EX'], mensagem: `deve ser a sigla de uma das 27 UFs (duas letras: ${LISTA}) ou EX (estabelecimento no exterior)` },
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

describe('every integer query parameter, found by probing the server, is declared as one in /openapi.json and the MCP tools', () => {
  /** Whether the server takes this value of the parameter (anything but a 400 about it), the others as in the route's example. */
  const takes = async (app: Awaited<ReturnType<typeof testApp>>['app'], route: (typeof served)[number], name: string, value: string) => {
    const input = exampleInputOf(route)
    const path = route.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(input.params[n] ?? ''))
    const r = await get(app, `${path}?${new URLSearchParams({ ...input.query, [name]: value })}`)
    return !(r.status === 400 && String(r.body.erro?.mensagem).startsWith(`parâmetro de consulta '${name}'`))
  }
  /** The integers the server takes for a parameter, [lowest, highest], from the probes alone; null for one that takes no integer, any text, or digits of a fixed width (a code). */
  async function probedRange(app: Awaited<ReturnType<typeof testApp>>['app'], route: (typeof served)[number], name: string): Promise<[number, number] | null> {
    if (await takes(app, route, name, 'abc')) return null
    const example = exampleInputOf(route).query[name]
    let inside: number | undefined
    for (const v of [...(example && /^\d+$/.test(example) ? [Number(example)] : []), 1, 0, 6, 10, 30, 365, 2026, 2030, 1000]) if (await takes(app, route, name, String(v))) { inside = v; break }
    // A number is the same with a leading zero; a code of fixed width (a municipality's 4 digits) is not.
    if (inside === undefined || !(await takes(app, route, name, `0${inside}`))) return null
    // A parameter that takes cents is a decimal, not an integer (declared as a number: the next test).
    if (await takes(app, route, name, `${inside}.5`)) return null
    // The edges, by bisection over what 12 digits can say: [lo, inside] for the lowest, [inside, 10^12 - 1] for the highest.
    let [a, b] = [0, inside]
    if (await takes(app, route, name, '0')) b = 0
    while (b - a > 1) {
      const m = Math.floor((a + b) / 2)
      if (await takes(app, route, name, String(m))) b = m
      else a = m
    }
    const lowest = b
    ;[a, b] = [inside, 999_999_999_999]
    if (await takes(app, route, name, String(b))) a = b
    while (b - a > 1) {
      const m = Math.floor((a + b) / 2)
      if (await takes(app, route, name, String(m))) a = m
      else b = m
    }
    return [lowest, a]
  }

  test('type integer with the minimum and maximum the server enforces (probed at min-1, min, max, max+1), and its default', async () => {
    const { app: vazio } = await testApp({ dataDir: tempDir('dadosbr-input-rules-limites-'), semFontes: true })
    const doc = (await get(vazio, '/openapi.json')).body
    const tools = new Map(toolsFrom(served).map((t) => [t.route.path, t]))
    const found: string[] = []
    const wrong: unknown[] = []
    try {
      for (const route of served) {
        if (!(route.query instanceof z.ZodObject)) continue
        const declared = new Map<string, any>(doc.paths[route.path].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p]))
        for (const name of Object.keys(route.query.shape)) {
          const range = await probedRange(vazio, route, name)
          const param = declared.get(name)
          if (!range) {
            if (param.schema.type === 'integer') wrong.push([route.path, name, 'declared integer, but the server takes no integer or takes any text'])
            continue
          }
          found.push(`${route.path}?${name}`)
          const [min, max] = range
          // What the server uses when the parameter is absent (its own parse), if anything.
          const base = { ...exampleInputOf(route).query }
          delete base[name]
          const absent = (parseQuery(route, new URLSearchParams(base)) as Record<string, unknown>)[name]
          const expected = { type: 'integer', minimum: min, maximum: max, ...(absent !== undefined ? { default: absent } : {}) }
          const { description: _d, ...tool } = tools.get(route.path)!.inputSchema.properties[name] as Record<string, unknown>
          if (JSON.stringify(param.schema) !== JSON.stringify(expected)) wrong.push([route.path, name, 'openapi', param.schema, expected])
          if (JSON.stringify(tool) !== JSON.stringify(expected)) wrong.push([route.path, name, 'mcp', tool, expected])
          if (param.example !== undefined && typeof param.example !== 'number') wrong.push([route.path, name, 'example', param.example])
        }
      }
    } finally {
      await vazio.close()
    }
    expect(wrong).toEqual([])
    expect(found).toEqual([
      '/v1/cnpj/busca?pagina', '/v1/cnpj/busca?por_pagina', '/v1/cnpj/socio/busca?pagina', '/v1/cnpj/socio/busca?por_pagina', '/v1/cnpj/mudancas?pagina', '/v1/cnpj/mudancas?por_pagina',
      '/v1/licitacoes/abertas?modalidade', '/v1/licitacoes/abertas?pagina', '/v1/licitacoes/abertas?por_pagina',
      '/v1/fundos/fluxos?dias', '/v1/fundos/ranking?dias', '/v1/fundos/ranking?limite', '/v1/fundos/movimentacoes?limite',
      '/v1/mercado/noticias?relevancia_min', '/v1/mercado/noticias?por_pagina', '/v1/tributos/ncm/{codigo}?ano', '/v1/tributos/busca?limite',
      '/v1/desmatamento/ranking?dias', '/v1/desmatamento/ranking?limite',
    ])
  })

  test('a decimal query parameter (money) is declared as a number with its bounds and example, in OpenAPI and the MCP tools', async () => {
    const doc = (await get(app, '/openapi.json')).body
    const tools = new Map(toolsFrom(served).map((t) => [t.route.path, t]))
    const declared = (name: string) => doc.paths['/v1/cnpj/busca'].get.parameters.find((p: { name: string }) => p.name === name).schema
    for (const name of ['capital_min', 'capital_max']) {
      expect(declared(name)).toMatchObject({ type: 'number', minimum: 0, maximum: 10_000_000_000_000 })
      const { description: _d, ...tool } = tools.get('/v1/cnpj/busca')!.inputSchema.properties[name] as Record<string, unknown>
      expect(tool).toEqual(declared(name))
    }
  })

  test("each paid MCP tool's discovery extension (its 402) holds example arguments that its input schema validates: integers as numbers", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    const invalid: unknown[] = []
    let withInteger = 0
    for (const tool of toolsFrom(served).filter((t) => t.price !== null)) {
      const bazaar = declareToolBazaar(tool) as { info: { input: Record<string, unknown> }; schema: object }
      const validate = ajv.compile(bazaar.schema)
      if (!validate(bazaar.info)) invalid.push([tool.name, validate.errors])
      const check = validateDiscoveryExtension(bazaar as never)
      if (!check.valid) invalid.push([tool.name, check])
      if (Object.values(tool.inputSchema.properties).some((p) => (p as { type?: string }).type === 'integer')) withInteger++
    }
    expect(invalid).toEqual([])
    expect(withInteger).toBeGreaterThanOrEqual(9)
    // The examples that carry an integer carry a number (mercado_noticias: relevancia_min and por_pagina).
    const noticias = declareToolBazaar(toolsFrom(served).find((t) => t.name === 'mercado_noticias')!) as { info: { input: { example: Record<string, unknown> } } }
    expect(noticias.info.input.example).toEqual({ tema: 'macro', relevancia_min: 5, por_pagina: 2 })
  })

  test("modalidade's range is PNCP's codes, all of them", () => {
    expect(Object.keys(MODALIDADES)).toEqual(Array.from({ length: 13 }, (_, i) => String(i + 1)))
  })
})

describe('every error a route answers is in its declaration (OpenAPI, MCP and the error examples read it)', () => {
  // Codes every route may answer, which the OpenAPI document adds by itself.
  const GENERAL = ['metodo_nao_permitido', 'erro_interno', 'parametro_desconhecido', 'parametro_repetido', 'pagamento_indisponivel']

  test('with no data at all (offline, empty data directory), each route called with its example input answers a declared code', async () => {
    const { app: vazio } = await testApp({ dataDir: tempDir('dadosbr-input-rules-vazio-'), semFontes: true })
    const undeclared: string[] = []
    const noData: string[] = []
    try {
      for (const route of served) {
        const input = exampleInputOf(route)
        const path = route.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(input.params[n] ?? ''))
        const qs = new URLSearchParams(input.query).toString()
        const r = await get(vazio, qs ? `${path}?${qs}` : path)
        const codigo: string | undefined = r.body?.erro?.codigo
        if (r.status < 400 || !codigo) continue
        if (codigo === 'dados_indisponiveis') noData.push(route.path)
        if (!GENERAL.includes(codigo) && !route.errors.includes(codigo as never)) undeclared.push(`${route.path} -> ${r.status} ${codigo}`)
      }
    } finally {
      await vazio.close()
    }
    expect(undeclared).toEqual([])
    // The paid routes over polled sources are among them (the "never paid for nothing" 503).
    for (const path of ['/v1/licitacoes/abertas', '/v1/mercado/cambio', '/v1/commodities/briefing', '/v1/cadeias/energia_br', '/v1/commodities/exportacoes']) expect(noData).toContain(path)
  })

  test('a route whose description promises the 503 of an answer with no data, or that says when it has none, declares it', () => {
    const promised = served.filter((r) => r.price !== null && (r.description?.includes(REGRA_SEM_DADOS) || typeof r.semDados === 'function'))
    expect(promised.length).toBeGreaterThanOrEqual(13)
    expect(promised.filter((r) => !r.errors.includes('dados_indisponiveis')).map((r) => r.path)).toEqual([])
  })
})
