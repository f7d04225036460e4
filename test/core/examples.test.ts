// The examples /docs shows are real answers of the bundled sample: regenerated here, they must
// equal the committed src/core/examples.json (rewrite it with `bun scripts/examples.ts`), and the
// OpenAPI document must carry them (parameter examples, the 200 example, one example per error code).
import { describe, expect, test } from 'bun:test'
import { recordExamples } from '../../scripts/examples'
import { EXAMPLES } from '../../src/core/examples'
import { ROUTES } from '../../src/app'
import { buildOpenApi } from '../../src/core/openapi'
import { DATASETS } from '../../src/datasets/registry'
import { buildSampleData } from '../helpers'

/** What changes with the clock: the age and status of polled sources (also said in words: "há 302 dias"), and health's reasons. */
function steady(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\(há \d+ (s|min|h|dias)\)/g, '(há …)')
  if (Array.isArray(value)) return value.map(steady)
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>
    const timed = 'consultado_em' in o
    return Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'defasagem_segundos' && k !== 'motivos' && !(timed && k === 'status') && k !== 'status_geral').map(([k, v]) => [k, steady(v)]))
  }
  return value
}

describe('OpenAPI examples', () => {
  test('src/core/examples.json is what the bundled sample answers (run `bun scripts/examples.ts` after changing a route or a sample)', async () => {
    const fresh = await recordExamples(await buildSampleData())
    const strip = (all: Record<string, unknown>) => Object.fromEntries(Object.entries(all).map(([p, e]) => [p, p === '/v1/health' ? { ...(e as object), output: undefined } : steady(e)]))
    expect(strip(fresh)).toEqual(strip(EXAMPLES))
  })

  test('every served route has a 200 example; every error example carries the code it documents', () => {
    const doc = buildOpenApi(ROUTES, DATASETS) as any
    for (const route of ROUTES) {
      const op = doc.paths[route.path].get
      expect({ path: route.path, example: op.responses[200].content['application/json'].example !== undefined }).toEqual({ path: route.path, example: true })
      for (const p of op.parameters.filter((x: any) => x.in === 'path')) expect(p.example).toBeDefined()
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400 || Number(status) === 402) continue
        for (const [codigo, ex] of Object.entries<any>(r.content['application/json'].examples)) expect(ex.value.erro.codigo).toBe(codigo)
      }
    }
  })
})
