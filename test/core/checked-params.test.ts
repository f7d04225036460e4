// Path parameters made by checkedParam are checked by one function two ways: by zod (OpenAPI,
// any schema use) and directly by parseParams (the fast path). Both must give the same value or
// the same error, for every route of the table whose parameters are all checked this way.
import { describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { ROUTES } from '../../src/app'
import { ApiError } from '../../src/core/errors'
import { checkedDirectly, parseParams } from '../../src/core/validate'

/** Inputs of every kind: valid, punctuated, lower case, alphanumeric, roots, NCM codes, wrong check digits, garbage. */
const INPUTS = [
  '00638595000105', '00.638.595/0001-05', '00 638 595 0001 05', '12ABC34501DE35', '12abc34501de35', '00638595000106', '11111111111111',
  '00638595', '00.638.595', 'ABCDEFGH', '1234567', '006385950001', '', ' ', '%', 'x'.repeat(200), '00638595000105/', 'ção',
  '1006.30.21', '10063021', '10.06', '1006', '100', '1006302100', 'abc.def',
]

/** What the zod schema says for one parameter, as the server would answer it. */
function viaZod(schema: z.ZodType, raw: Record<string, string>): unknown {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return { ok: parsed.data }
  const issue = parsed.error.issues[0]!
  return { erro: [(issue as { params?: { codigo?: string } }).params?.codigo ?? 'parametro_invalido', `parâmetro de caminho '${String(issue.path[0])}': ${issue.message}`] }
}

function viaServer(route: (typeof ROUTES)[number], raw: Record<string, string>): unknown {
  try {
    return { ok: parseParams(route, raw) }
  } catch (err) {
    if (err instanceof ApiError) return { erro: [err.codigo, err.message] }
    throw err
  }
}

const checked = ROUTES.filter((r) => r.params instanceof z.ZodObject && /cnpj|codigo/.test(Object.keys(r.params.shape).join()))

describe('checked path parameters', () => {
  test('the routes taking a CNPJ, a root or an NCM code are found', () => {
    expect(checked.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/integridade/consulta/{cnpj}', '/v1/bcb/instituicao/{cnpj}', '/v1/cnpj/empresa/{cnpj}', '/v1/tributos/ncm/{codigo}']))
    // The fast path is the one taken: otherwise the comparison below would be zod against itself.
    for (const r of checked) expect([r.path, checkedDirectly(r.params!)]).toEqual([r.path, true])
  })

  for (const route of checked)
    test(`${route.path}: the direct check and zod agree on every input`, () => {
      const name = Object.keys((route.params as z.ZodObject).shape)[0]!
      for (const value of INPUTS) expect([value, viaServer(route, { [name]: value })]).toEqual([value, viaZod(route.params!, { [name]: value })])
    })

  test('a valid CNPJ, a root and a bad one, exactly', () => {
    const screening = ROUTES.find((r) => r.path === '/v1/integridade/consulta/{cnpj}')!
    const bcb = ROUTES.find((r) => r.path === '/v1/bcb/instituicao/{cnpj}')!
    expect(viaServer(screening, { cnpj: '00.638.595/0001-05' })).toEqual({ ok: { cnpj: '00638595000105' } })
    expect(viaServer(bcb, { cnpj: '00.638.595' })).toEqual({ ok: { cnpj: '00638595' } })
    expect(viaServer(screening, { cnpj: '00638595000106' })).toEqual({
      erro: ['cnpj_invalido', "parâmetro de caminho 'cnpj': CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)"],
    })
  })
})
