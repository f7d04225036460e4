// The Bazaar discovery extension of each paid route, built with the x402 project's own library
// (@x402/extensions/bazaar), so a facilitator that validates `info` against `schema` before
// cataloguing accepts it: concrete example values for the query, path values and `routeTemplate`
// filled per request by the library's enrichment, `resource.serviceName` and `tags`.
//
// It travels in the PAYMENT-REQUIRED header, which Node's fetch (16 KiB for all headers) and
// reverse proxies (4-8 KiB) must read: the whole output schema and the full example stay in
// /openapi.json; the header keeps what the x402 spec and the Bazaar need, within HEADER_BUDGET.
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { z } from 'zod'
import { EXAMPLES, exampleInputOf } from '../examples'
import { routerPath, type RouteDef } from '../route'

/** The largest PAYMENT-REQUIRED header value this server sends (bytes of base64). */
export const HEADER_BUDGET = 4096

/** The catalogue name of this service (resource.serviceName: printable ASCII, at most 32). */
export const SERVICE_NAME = 'dadosbr'

export type Json = Record<string, unknown>

/**
 * How much of a route's description goes into the header, from richest to leanest; the first
 * level whose header fits the budget is used (chosen once per route, checked again per request).
 */
export const DETAIL_LEVELS = ['completo', 'exemplo_reduzido', 'sem_exemplo', 'sem_descricoes'] as const
export type DetailLevel = (typeof DETAIL_LEVELS)[number]

const LONG_TEXT = 120

/**
 * A smaller example of the same shape: every list cut to its first item, long texts cut. Agents
 * read the shape and a real value; the whole answer is in /openapi.json.
 */
export function compactExample(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [compactExample(value[0])] : []
  if (typeof value === 'string') return value.length > LONG_TEXT ? `${value.slice(0, LONG_TEXT)}…` : value
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compactExample(v)]))
  return value
}

/** The JSON Schema properties of a params or query object, as the request carries them (text). */
function properties(schema: z.ZodType | undefined, withDescriptions: boolean): { properties: Record<string, Json>; required: string[] } {
  if (!(schema instanceof z.ZodObject)) return { properties: {}, required: [] }
  const whole = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json>; required?: string[] }
  const props: Record<string, Json> = {}
  for (const [name, prop] of Object.entries(whole.properties ?? {})) {
    const { description, default: _default, ...rest } = prop
    // A date's format says it; zod's calendar regex beside it is 300 bytes of header.
    if (rest.format === 'date') delete rest.pattern
    props[name] = withDescriptions && description ? { ...rest, description } : rest
  }
  return { properties: props, required: whole.required ?? [] }
}

/** The input of the route's example: values present in the bundled sample (recorded with its answer). */
export function exampleRequestOf(route: RouteDef): { params: Record<string, string>; query: Record<string, string> } {
  return EXAMPLES[route.path]?.input ?? exampleInputOf(route)
}

/** The route's example: its input and its recorded answer. */
function exampleOf(route: RouteDef): { query: Record<string, string>; output: unknown } {
  return { query: exampleRequestOf(route).query, output: route.example ?? EXAMPLES[route.path]?.output }
}

/** The declaration of a route's Bazaar extension (before the per-request enrichment), at one level of detail. */
export function declareBazaar(route: RouteDef, level: DetailLevel): Json {
  const example = exampleOf(route)
  const withDescriptions = level !== 'sem_descricoes'
  const query = properties(route.query, withDescriptions)
  const path = properties(route.params, withDescriptions)
  const output =
    level === 'completo' ? example.output : level === 'exemplo_reduzido' ? compactExample(example.output) : undefined
  const declared = declareDiscoveryExtension({
    input: example.query,
    // zod's required parameters stay required: every route's example carries them (a test validates each).
    inputSchema: { properties: query.properties, ...(query.required.length ? { required: query.required } : {}) },
    ...(route.params ? { pathParamsSchema: { properties: path.properties, required: path.required } } : {}),
    ...(output !== undefined ? { output: { example: output } } : {}),
  })
  return declared.bazaar as unknown as Json
}

/**
 * The library's request-time enrichment: the method, and for a route with path parameters the
 * concrete values of this request and `routeTemplate` (`/v1/cnpj/empresa/:cnpj`), the catalogue
 * key that maps every CNPJ to one entry.
 */
export function enrichBazaar(declaration: Json, route: RouteDef, canonicalPath: string): Json {
  const context = { method: 'GET', routePattern: routerPath(route.path), adapter: { getPath: () => canonicalPath } }
  return bazaarResourceServerExtension.enrichDeclaration!(declaration, context) as Json
}

/** Catalogue tags of a dataset: at most 5, ASCII, what an agent would search for. */
export function tagsOf(datasetTags: string[] | undefined): string[] {
  const tags = ['brasil', ...(datasetTags ?? [])].filter((t, i, all) => /^[\x21-\x7e]{1,32}$/.test(t) && all.indexOf(t) === i)
  return tags.slice(0, 5)
}
