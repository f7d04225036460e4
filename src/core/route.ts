// A route is declared once, with its price and zod schemas; the server, the payment
// layer, the OpenAPI document, /llms.txt and /.well-known/x402 all read this declaration.
import { z } from 'zod'
import { ApiError, JsonText, type ErrorCode } from './errors'
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
  /**
   * Never paid for nothing: says why an answer carries no data (every quote null, every part of a
   * pack missing), or null when it has some. Such an answer leaves as a 503 dados_indisponiveis
   * instead of a 200, so it is never charged (the payment layer settles only a 2xx), and a pack
   * counts it as a missing part. A paid route gets `semFonte` unless it says otherwise (false: never).
   */
  semDados?: ((body: R) => string | null) | false
}

/** The rule of paid answers with no data, in words, for the routes' descriptions (the OpenAPI text). */
export const REGRA_SEM_DADOS = 'Uma resposta sem nenhum dado (nenhuma cópia da fonte ainda) é um 503 dados_indisponiveis e não é cobrada.'

/**
 * The default test of a paid answer with no data: it reports its sources' state (`fonte`, or each
 * of `fontes`) and none of them has a copy yet.
 */
export function semFonte(body: unknown): string | null {
  if (!isRecord(body)) return null
  const fontes = isFonte(body.fonte) ? [body.fonte] : isRecord(body.fontes) ? Object.values(body.fontes).filter(isFonte) : []
  if (!fontes.length || !fontes.every((f) => f.status === 'fonte_indisponivel')) return null
  return `nenhuma cópia de ${fontes.map((f) => f.base).join(', ')} foi obtida ainda`
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isFonte = (v: unknown): v is { base: string; status: string } => isRecord(v) && typeof v.base === 'string' && typeof v.status === 'string'

/** The 503 of an answer with no data (semDados). */
export function semDadosErro(motivo: string): ApiError {
  return new ApiError('dados_indisponiveis', `Esta resposta não teria nenhum dado: ${motivo}. Nada foi cobrado; tente de novo em alguns minutos.`)
}

/** Declares a route: keeps its generic types, and makes its handler refuse an answer with no data (semDados). */
export function defineRoute<P, Q, R>(def: RouteDef<P, Q, R>): RouteDef<P, Q, R> {
  // The default applies to paid routes whose answer declares a polled source's state: the others have no such source.
  const check = def.semDados === false ? null : (def.semDados ?? (def.price !== null && declaraFonte(def.response) ? semFonte : null))
  if (!check) return def
  const handler = def.handler
  const verify = (body: R | JsonText) => {
    const value = body instanceof JsonText ? body.source : body
    const motivo = value === undefined ? null : check(value as R)
    if (motivo) throw semDadosErro(motivo)
    return body
  }
  // A synchronous handler stays synchronous (no promise added on the request path).
  return { ...def, handler: (input) => {
    const out = handler(input)
    return out instanceof Promise ? out.then(verify) : verify(out)
  } }
}

/** Whether a response schema carries a polled source's state: a `fonte`, or `fontes` of them, with status and cache. */
function declaraFonte(schema: z.ZodType): boolean {
  const shape = objectShape(schema)
  if (!shape) return false
  const isState = (s: z.ZodType | undefined) => {
    const inner = s && objectShape(s)
    return Boolean(inner && 'status' in inner && 'cache' in inner && 'consultado_em' in inner)
  }
  const fontes = shape.fontes && objectShape(shape.fontes)
  return isState(shape.fonte) || Boolean(fontes && Object.values(fontes).some(isState))
}

const objectShape = (schema: z.ZodType): Record<string, z.ZodType> | null => {
  const s = schema instanceof z.ZodNullable || schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema
  return s instanceof z.ZodObject ? (s.shape as Record<string, z.ZodType>) : null
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
