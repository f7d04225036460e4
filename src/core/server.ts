// The HTTP spine: Elysia routes built from the route table, the error envelope for every
// failure, 405 for other methods on known paths, 414 for huge URLs, CORS for browser payers.
import { Elysia } from 'elysia'
import type { AppContext } from './context'
import { ApiError, CORS_HEADERS, errorResponse, JsonText, jsonResponse } from './errors'
import { UNMATCHED, type Metrics } from './metrics'
import { pathPattern, routerPath, type RouteDef } from './route'
import { checkQueryEncoding, parseParams, parseQuery } from './validate'
import { compressDynamic, StaticBodies } from './compression'

export const MAX_URL_BYTES = 8192
const ROUTE_LABEL = Symbol('rota das métricas')

const CORS_ENTRIES = Object.entries(CORS_HEADERS)
const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'PAYMENT-SIGNATURE, X-PAYMENT, Content-Type, Access-Control-Expose-Headers, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
  'access-control-max-age': '86400',
}

/** A GET path served outside the route table: discovery documents, docs assets. */
export interface StaticRoute {
  path: string
  contentType: string
  /** The document for a request (its base URL for absolute links); another content type when it negotiates one. */
  body: (baseUrl: string, request: Request) => string | { contentType: string; body: string }
}

/** Another handler mounted on one path for every method (the MCP endpoint), outside the route table. */
export interface MountedHandler {
  path: string
  handle(request: Request, baseUrl: string): Promise<Response>
}

/** Wraps a paid route's handler; provided by the payment layer (src/core/payments). */
export interface PaymentGate {
  charge(route: RouteDef, request: Request, baseUrl: string, serve: () => Promise<Response>, rawParams: Record<string, string>): Promise<Response>
}

export interface Server {
  handle(request: Request): Promise<Response>
  /** Runs a route for a request with no payment step (MCP calls, which the payment layer charges itself). */
  run(route: RouteDef, request: Request, rawParams: Record<string, string>, baseUrl: string): Promise<Response>
}

/** Where the path of an absolute URL (scheme://host/path) starts; -1 when it has none. */
const pathStart = (url: string) => url.indexOf('/', url.indexOf('//') + 2)

const MASK_CHARS = /^[0-9A-Za-z.-]+$/

/** A pasted CNPJ mask split by the path: two parts of a CNPJ's characters around one slash, A with a dot or B with a digit. */
function slashedValue(value: string): [string, string] | null {
  const slash = value.indexOf('/')
  if (slash < 0 || value.length > 64 || value.indexOf('/', slash + 1) >= 0) return null
  const a = value.slice(0, slash)
  const b = value.slice(slash + 1)
  // A dotted first part may end at the slash (a mask cut there: 33.683.111//socios).
  if (!MASK_CHARS.test(a) || !(b === '' ? a.includes('.') : MASK_CHARS.test(b)) || !(a.includes('.') || /\d/.test(b))) return null
  return [a, b]
}

/**
 * A CNPJ pasted with its mask (33.683.111/0002-80) has a slash that splits the path. When a path
 * matches no route as written and a route's parameter position holds two parts around one slash
 * (A with a dot, or B with a digit: a mask, not a misspelt sub-route like /socio), the slash is
 * encoded so the parameter's own check sees the whole value: the CNPJ when valid, its 400 when not.
 * Routes as written come first, so /v1/fundos/consulta/123456 is that route with cnpj 123456.
 */
export function slashInParameter(routePaths: string[]): (request: Request) => Request {
  const routes = routePaths.map(pathPattern)
  // The suffixes after the parameter, by the path before it; longer suffixes first (/empresa/{cnpj}/socios before /empresa/{cnpj}).
  const byPrefix = new Map<string, string[]>()
  for (const p of routePaths.filter((r) => r.includes('{'))) {
    const prefix = p.slice(0, p.indexOf('{'))
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), p.slice(p.indexOf('}') + 1)].sort((a, b) => b.length - a.length))
  }
  const lengths = [...new Set([...byPrefix.keys()].map((k) => k.length))]
  return (request) => {
    // Checked on the path's text: a URL object per request cost more than the rest of this wrapper.
    const { url } = request
    const query = url.indexOf('?')
    const start = pathStart(url)
    const path = url.slice(start, query < 0 ? undefined : query)
    for (const n of lengths) {
      // Only a path with a slash after a parameter's start can hold a split value.
      if (path.length <= n || path.indexOf('/', n) < 0) continue
      const prefix = path.slice(0, n)
      for (const suffix of byPrefix.get(prefix) ?? []) {
        if (path.length <= n + suffix.length || !path.endsWith(suffix)) continue
        const parts = slashedValue(path.slice(n, path.length - suffix.length))
        if (!parts) continue
        if (routes.some((r) => r.test(path))) return request
        return new Request(`${url.slice(0, start)}${prefix}${parts[0]}%2F${parts[1]}${suffix}${query < 0 ? '' : url.slice(query)}`, request)
      }
    }
    return request
  }
}

/** /v1/health/ answers as /v1/health: a trailing slash is a common typo, not a different resource. */
export function withoutTrailingSlash(request: Request): Request {
  const { url } = request
  const query = url.indexOf('?')
  const end = query < 0 ? url.length : query
  if (url.charCodeAt(end - 1) !== 47) return request
  const start = pathStart(url)
  let cut = end
  while (cut - 1 > start && url.charCodeAt(cut - 1) === 47) cut--
  if (cut === end) return request
  return new Request(url.slice(0, cut) + url.slice(end), request)
}

/** The query string of an absolute request URL, as search parameters (no URL object). */
export function searchParamsOf(url: string): URLSearchParams {
  const query = url.indexOf('?')
  if (query < 0) return new URLSearchParams()
  const hash = url.indexOf('#', query)
  return new URLSearchParams(url.slice(query + 1, hash < 0 ? undefined : hash))
}

export function baseUrlOf(ctx: AppContext, request: Request): string {
  if (ctx.config.publicUrl) return ctx.config.publicUrl
  // The origin of the absolute URL the server hands over (scheme://host[:port]), without a URL object.
  const { url } = request
  const path = pathStart(url)
  return path < 0 ? url : url.slice(0, path)
}

export function createServer(ctx: AppContext, routes: RouteDef[], statics: StaticRoute[], payments: PaymentGate | null, metrics: Metrics | null = null, mounted: MountedHandler[] = []): Server {
  const patterns = [...routes.map((r) => r.path), ...statics.map((s) => s.path), ...mounted.map((m) => m.path), ...(metrics ? ['/metrics'] : [])].map(pathPattern)
  const staticBodies = new StaticBodies()
  /**
   * The metrics label of the route that answered a request, kept on the request object the router
   * saw (absent: no route matched). A symbol property costs nothing measurable; a WeakMap cost 0.2-0.3 µs a request.
   */
  const answeredBy = {
    set: (request: Request, label: number) => ((request as unknown as Record<symbol, number>)[ROUTE_LABEL] = label),
    get: (request: Request) => (request as unknown as Record<symbol, number | undefined>)[ROUTE_LABEL],
  }
  const unmatched = metrics?.indexOf(UNMATCHED) ?? 0
  const knownPath = (pathname: string) => patterns.some((p) => p.test(pathname))
  const withSlashInParameter = slashInParameter(routes.map((r) => r.path))

  /** The route's typed inputs, or the 4xx that refuses them. */
  const parseInputs = (route: RouteDef, request: Request, rawParams: Record<string, string>) => {
    checkQueryEncoding(request.url)
    return { params: parseParams(route, rawParams), query: parseQuery(route, searchParamsOf(request.url)) }
  }

  const serveRoute = async (route: RouteDef, request: Request, rawParams: Record<string, string>, baseUrl: string): Promise<Response> => {
    try {
      let body = await route.handler({ ...parseInputs(route, request, rawParams), request, baseUrl, ctx })
      if (ctx.checkResponses) body = route.response.parse(body instanceof JsonText ? body.parse() : body)
      const text = body instanceof JsonText ? body.text : JSON.stringify(body)
      const compressed = compressDynamic(text, request.headers.get('accept-encoding'))
      return compressed ? jsonResponse(new JsonText(compressed.body), 200, compressed.headers) : jsonResponse(new JsonText(text))
    } catch (err) {
      return failure(err, route.path)
    }
  }

  const failure = (err: unknown, where: string): Response => {
    if (err instanceof ApiError) return errorResponse(err)
    ctx.log.error('falha interna', { rota: where, erro: err instanceof Error ? err.message : String(err) })
    return errorResponse(new ApiError('erro_interno', 'Falha inesperada do servidor; tente de novo. O erro foi registrado.'))
  }

  const app = new Elysia({ strictPath: true })
    .onError(({ code, error, request }) => {
      if (code === 'NOT_FOUND') {
        const { pathname } = new URL(request.url)
        if (request.method !== 'GET' && request.method !== 'HEAD' && knownPath(pathname))
          return errorResponse(new ApiError('metodo_nao_permitido', `${request.method} não é aceito aqui; use GET.`, { allow: 'GET, HEAD, OPTIONS' }))
        return errorResponse(new ApiError('rota_inexistente', 'Nenhuma rota neste caminho; veja /openapi.json ou /llms.txt.'))
      }
      if (code === 'PARSE' || code === 'VALIDATION' || code === 'INVALID_COOKIE_SIGNATURE')
        return errorResponse(new ApiError('parametro_invalido', 'Pedido malformado.'))
      return failure(error, new URL(request.url).pathname)
    })

  for (const route of routes) {
    const label = metrics?.indexOf(route.path) ?? 0
    app.get(routerPath(route.path), ({ request, params }) => {
      if (metrics) answeredBy.set(request, label)
      const baseUrl = baseUrlOf(ctx, request)
      // SPEC §3: a paid route answers 402 to any request without payment, whatever its parameters;
      // with a payment, bad input is a 4xx, which is never settled (gate.ts).
      const raw = (params ?? {}) as Record<string, string>
      const serve = () => serveRoute(route, request, raw, baseUrl)
      if (route.price === null || ctx.config.free) return serve()
      if (!payments) return errorResponse(new ApiError('pagamento_indisponivel', 'Pagamentos não configurados neste servidor.'))
      return payments.charge(route, request, baseUrl, serve, raw)
    })
  }
  for (const s of statics) {
    const label = metrics?.indexOf(s.path) ?? 0
    app.get(s.path, ({ request }) => {
      if (metrics) answeredBy.set(request, label)
      const baseUrl = baseUrlOf(ctx, request)
      const made = s.body(baseUrl, request)
      const { contentType, body } = typeof made === 'string' ? { contentType: s.contentType, body: made } : made
      const out = staticBodies.body(`${s.path} ${contentType} ${baseUrl}`, body, request.headers.get('accept-encoding'))
      return new Response(out.body as BodyInit, { headers: { 'content-type': contentType, 'cache-control': 'public, max-age=300', ...out.headers } })
    })
  }
  // Off the paid path: never charged, outside the route table (not in /openapi.json); off with --metricas 0.
  if (metrics) {
    const label = metrics.indexOf('/metrics')
    app.get('/metrics', async ({ request }) => {
      answeredBy.set(request, label)
      return new Response(await metrics.render(ctx), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } })
    })
  }

  const mountedAt = (request: Request) => {
    const { url } = request
    const query = url.indexOf('?')
    const path = url.slice(pathStart(url), query < 0 ? undefined : query)
    return mounted.find((m) => m.path === path)
  }
  for (const m of mounted) {
    const label = metrics?.indexOf(m.path) ?? 0
    app.get(m.path, ({ request }) => {
      if (metrics) answeredBy.set(request, label)
      return m.handle(request, baseUrlOf(ctx, request))
    })
  }

  const handle = async (request: Request): Promise<Response> => {
    const started = performance.now()
    let response: Response
    if (request.url.length > MAX_URL_BYTES) {
      response = errorResponse(new ApiError('uri_muito_longa', `O endereço passa de ${MAX_URL_BYTES} bytes.`))
    } else if (request.method === 'OPTIONS') {
      const known = knownPath(new URL(request.url).pathname)
      response = known ? new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }) : errorResponse(new ApiError('rota_inexistente', 'Nenhuma rota neste caminho.'))
    } else if (mounted.length && request.method !== 'GET' && request.method !== 'HEAD' && mountedAt(request)) {
      // POST /mcp and the like: the handler reads the body itself (Elysia would parse it first).
      const m = mountedAt(request)!
      try {
        response = await m.handle(request, baseUrlOf(ctx, request))
      } catch (err) {
        response = failure(err, m.path)
      }
      if (metrics) metrics.request(metrics.indexOf(m.path), response.status, (performance.now() - started) / 1000)
    } else {
      const routed = withSlashInParameter(withoutTrailingSlash(request))
      try {
        response = await app.handle(routed)
      } catch (err) {
        response = failure(err, 'handle')
      }
      if (metrics) metrics.request(answeredBy.get(routed) ?? unmatched, response.status, (performance.now() - started) / 1000)
    }
    if (metrics && (request.url.length > MAX_URL_BYTES || request.method === 'OPTIONS')) metrics.request(unmatched, response.status, (performance.now() - started) / 1000)
    // JSON answers carry CORS already (jsonResponse); the others (statics, 204, Elysia's own) get it here.
    if (!response.headers.has('access-control-allow-origin')) for (const [k, v] of CORS_ENTRIES) response.headers.set(k, v)
    // HEAD answers the GET's headers without a body.
    if (request.method === 'HEAD' && response.body) response = new Response(null, { status: response.status, headers: response.headers })
    if (ctx.log.debugEnabled) ctx.log.debug('pedido', { metodo: request.method, status: response.status, ms: (performance.now() - started).toFixed(2) })
    return response
  }

  return { handle, run: serveRoute }
}
