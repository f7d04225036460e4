// A local HTTP server on 127.0.0.1 that stands in for an upstream: it replays real-format
// recordings (files kept under test/<dataset>/fixtures/) and can misbehave on demand: slow, down,
// 5xx, 429, garbage, 204. Tests point a dataset's upstream setting at it; the bundled sample is
// built through it (so the sample goes through the same download and parse code as production);
// the benchmarks serve synthetic files from it.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

export interface Reply {
  status?: number
  headers?: Record<string, string>
  /** The body: text, bytes, or a file path (read at each request, so big files are fine). */
  body?: string | Uint8Array
  file?: string
  /** Wait this long before answering (a slow upstream). */
  delayMs?: number
}

/** A handler computes the reply from the request (pagination, dates in the query...). */
export type Handler = (url: URL, request: Request) => Reply | Promise<Reply>

export interface Route {
  /** Path only, e.g. /v1/contratos. */
  path: string
  /** Query parameters that must be present with these values ('*' = present with any value). */
  query?: Record<string, string>
  reply: Reply | Handler
}

/** How the whole server misbehaves, on top of its routes. */
export type Fault =
  | { kind: 'none' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'garbage' }
  /** Connection accepted, then closed without an answer. */
  | { kind: 'drop' }
  /** Body cut after this many bytes (a download interrupted mid-file). */
  | { kind: 'truncate'; bytes: number }

export interface ReplayServer {
  /** Base URL, e.g. http://127.0.0.1:43123 (no trailing slash). */
  url: string
  routes: Route[]
  /** Every request received: path with query, and headers. */
  requests: { path: string; headers: Headers }[]
  fault: Fault
  /** Adds a route in front of the others (later routes win). */
  on(path: string, reply: Reply | Handler, query?: Record<string, string>): void
  /** Stops listening (connections refused) until start() is called again on the same port. */
  stop(): void
  start(): void
  close(): void
}

/** One recorded answer of an upstream, kept as a file beside the index. */
export interface Recording {
  /** The upstream's setting (environment variable), e.g. PNCP_URL: which server answered. */
  upstream: string
  path: string
  query?: Record<string, string>
  file: string
  status?: number
  headers?: Record<string, string>
}

/** A recording index (recordings.json): when it was recorded, and the answers. */
export interface RecordingIndex {
  /** When the answers were recorded (ISO 8601): the bundled sample serves them with this true age. */
  gravado_em: string
  respostas: Recording[]
}

export function readRecordingIndex(indexFile: string): RecordingIndex {
  return JSON.parse(readFileSync(indexFile, 'utf8')) as RecordingIndex
}

/** The routes replaying one upstream's recordings (all of them when `upstream` is not given). */
export function loadRecordings(indexFile: string, upstream?: string): Route[] {
  const dir = dirname(indexFile)
  return readRecordingIndex(indexFile)
    .respostas.filter((r) => upstream === undefined || r.upstream === upstream)
    .map((r) => ({ path: r.path, query: r.query, reply: { status: r.status, headers: r.headers, file: join(dir, r.file) } }))
}

function matches(route: Route, url: URL): boolean {
  if (route.path !== url.pathname) return false
  for (const [k, v] of Object.entries(route.query ?? {})) {
    const got = url.searchParams.get(k)
    if (got === null || (v !== '*' && got !== v)) return false
  }
  return true
}

const GARBAGE = '<html><body>\u0000\u0001 502 Bad Gateway }{ "data": [ \ufffd'

export function startReplay(routes: Route[] = [], port = 0): ReplayServer {
  let server: ReturnType<typeof Bun.serve> | null = null
  let boundPort = port
  const self: ReplayServer = {
    url: '',
    routes: [...routes],
    requests: [],
    fault: { kind: 'none' },
    on(path, reply, query) {
      self.routes.unshift({ path, query, reply })
    },
    stop() {
      server?.stop(true)
      server = null
    },
    start() {
      if (server) return
      server = Bun.serve({ hostname: '127.0.0.1', port: boundPort, idleTimeout: 0, fetch: handle })
      boundPort = server.port!
      self.url = `http://127.0.0.1:${boundPort}`
    },
    close() {
      self.stop()
    },
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    self.requests.push({ path: url.pathname + url.search, headers: request.headers })
    const fault = self.fault
    if (fault.kind === 'slow') await Bun.sleep(fault.delayMs)
    if (fault.kind === 'status') return new Response(fault.body ?? `erro ${fault.status}`, { status: fault.status, headers: fault.headers })
    if (fault.kind === 'garbage') return new Response(GARBAGE, { status: 200, headers: { 'content-type': 'application/json' } })
    if (fault.kind === 'drop') {
      // Bun answers a thrown error with a 500; an aborted stream closes the connection mid-answer.
      return new Response(new ReadableStream({ start: (c) => c.error(new Error('queda simulada')) }), { status: 200 })
    }
    const route = self.routes.find((r) => matches(r, url))
    if (!route) return new Response('not found', { status: 404 })
    const reply = typeof route.reply === 'function' ? await route.reply(url, request) : route.reply
    if (reply.delayMs) await Bun.sleep(reply.delayMs)
    let body: Uint8Array | string | null = reply.file ? new Uint8Array(readFileSync(reply.file)) : (reply.body ?? null)
    const status = reply.status ?? 200
    if (status === 204 || status === 304) body = null
    const headers = new Headers(reply.headers)
    if (body !== null && fault.kind === 'truncate') {
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
      // Announce the whole length, send part of it, then close: what a cut download looks like.
      const cut = bytes.subarray(0, Math.min(fault.bytes, bytes.length))
      headers.set('content-length', String(bytes.length))
      // The bytes go out first and the error on the next pull: an error raised with them queued
      // would discard them, and the client would see a cut at byte 0 whatever `bytes` says.
      let sent = false
      return new Response(new ReadableStream({ pull: async (c) => { if (sent) { await Bun.sleep(20); c.error(new Error('corte simulado')) } else { sent = true; c.enqueue(cut) } } }), { status, headers })
    }
    // Range requests (download resume).
    const range = request.headers.get('range')
    if (body !== null && range && status === 200) {
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
      const m = /^bytes=(\d+)-$/.exec(range)
      if (m) {
        const from = Number(m[1])
        if (from >= bytes.length) return new Response(null, { status: 416 })
        headers.set('content-range', `bytes ${from}-${bytes.length - 1}/${bytes.length}`)
        return new Response(bytes.subarray(from) as Uint8Array<ArrayBuffer>, { status: 206, headers })
      }
    }
    return new Response(body as BodyInit | null, { status, headers })
  }

  self.start()
  return self
}
