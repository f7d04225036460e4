// A route is declared once, with its price and zod schemas; the server, the payment
// layer, the OpenAPI document, /llms.txt and /.well-known/x402 all read this declaration.
import { z } from 'zod'
import type { ErrorCode, JsonText } from './errors'
import type { AppContext } from './context'

export interface RouteInput<P, Q> {
  params: P
  query: Q
  request: Request
  /** Absolute base URL of this server as the client sees it (no trailing slash). */
  baseUrl: string
  ctx: AppContext
}

export interface RouteDef<P = any, Q = any, R = any> {
  /** OpenAPI-style path, e.g. /v1/cnpj/empresa/{cnpj}. */
  path: string
  /** Dataset (folder under src/datasets) that owns the route; used as the OpenAPI tag. */
  dataset: string
  summary: string
  description?: string
  /** Price in USD per call, paid in USDC; null for a free route. For a route with `units`, the price of one unit. */
  price: number | null
  /**
   * For routes priced per item (bulk lookups): how many billable units this request holds (e.g. valid, distinct
   * CNPJs), read from the raw request before payment. The x402 amount of the request is price x units, so the 402
   * challenge of that exact URL states it. Throws an ApiError (4xx) when the request holds no billable unit: then
   * no challenge is made and nothing can be charged.
   */
  units?: (input: { params: Record<string, string>; query: URLSearchParams }) => number
  /** The most units one request may hold (with `units`): the price range /openapi.json states. */
  maxUnits?: number
  params?: z.ZodType<P>
  query?: z.ZodType<Q>
  response: z.ZodType<R>
  /** Error codes this route can answer besides 402/405/500/503, for the OpenAPI document. */
  errors: ErrorCode[]
  /** An example response, shown in the OpenAPI document and in the 402 discovery extension (else the generated one, src/core/examples.ts). */
  example?: R
  /**
   * The input of the route's example: values that exist in the bundled sample. `scripts/examples.ts` calls the
   * route with it on the sample and records the answer as the example the OpenAPI document and /docs show.
   * Path parameters named cnpj default to the registry sample's CNPJ.
   */
  exampleInput?: { params?: Record<string, string>; query?: Record<string, string> }
  /** The answer, or its JSON already written (JsonText, for routes that store it serialized). */
  handler: (input: RouteInput<P, Q>) => R | JsonText | Promise<R | JsonText>
}

/** Identity helper that keeps the generic types of a route declaration. */
export function defineRoute<P, Q, R>(def: RouteDef<P, Q, R>): RouteDef<P, Q, R> {
  return def
}

/** /v1/a/{b} -> /v1/a/:b for the router. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1')
}

/** A regex matching concrete paths of a route, for 405 detection. */
export function pathPattern(path: string): RegExp {
  const source = path
    .split(/\{\w+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+')
  return new RegExp(`^${source}$`)
}

/** Price in USDC base units (6 decimals) as the x402 `amount` string: 0.001 -> "1000". */
export function priceAtomic(price: number): string {
  return String(Math.round(price * 1_000_000))
}
