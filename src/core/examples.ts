// Examples for the OpenAPI document and /docs: real answers of the bundled sample, recorded by
// `bun scripts/examples.ts` into examples.json (a test regenerates them and fails when they differ),
// so /docs never shows invented values (dates like 1818-16-27, error codes that do not match).
import recorded from './examples.json'
import type { RouteDef } from './route'

export interface RouteExample {
  input: { params: Record<string, string>; query: Record<string, string> }
  /** The 200 answer for that input, when the sample has one. */
  output?: unknown
  /** One real error body per error code the route can answer. */
  errors: Record<string, { erro: { codigo: string; mensagem: string } }>
}

export const EXAMPLES = recorded as Record<string, RouteExample>

/** The registry sample's CNPJ: the default of every `{cnpj}` path parameter in the examples. */
export const SAMPLE_CNPJ = '33683111000280'

/** The input a route's example uses: its declared one, else a CNPJ path parameter set to the sample's. */
export function exampleInputOf(route: RouteDef): RouteExample['input'] {
  const params: Record<string, string> = { ...route.exampleInput?.params }
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) if (name === 'cnpj' && !params[name]) params[name] = SAMPLE_CNPJ
  return { params, query: { ...route.exampleInput?.query } }
}
