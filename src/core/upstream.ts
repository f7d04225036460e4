// Every upstream a dataset reads (government APIs and file servers) is a setting: an environment
// variable with the real default, listed in `--help` and the docs, so a mirror, a proxy or a local
// recording (tests) can stand in. Requests to them share one client: a browser-like User-Agent
// (gov.br answers 403 to some bots), a timeout, and retries with backoff on network errors, 429 and 5xx.

export interface UpstreamSetting {
  /** Environment variable, e.g. PNCP_URL. */
  env: string
  /** The real base URL, without a trailing slash. */
  padrao: string
  /** What it is, in Portuguese, for --help and the docs. */
  descricao: string
}

export function defineUpstream(env: string, padrao: string, descricao: string): UpstreamSetting {
  return { env, padrao, descricao }
}

export class UpstreamConfigError extends Error {}

/** The base URL in use for an upstream: the environment variable when set, else the real default; no trailing slash. */
export function upstreamUrl(u: UpstreamSetting, env: Record<string, string | undefined> = process.env): string {
  const value = env[u.env]?.trim() || u.padrao
  try {
    const url = new URL(value)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocolo')
  } catch {
    throw new UpstreamConfigError(`configuração inválida: ${u.env}: deve ser uma URL http(s), ex. ${u.padrao}`)
  }
  return value.replace(/\/+$/, '')
}

/** Help lines for a list of upstream settings: `  PNCP_URL  descrição (padrão https://...)`. */
export function upstreamHelp(settings: UpstreamSetting[]): string {
  if (!settings.length) return ''
  const width = Math.max(...settings.map((s) => s.env.length))
  return settings.map((s) => `  ${s.env.padEnd(width + 2)}${s.descricao} (padrão ${s.padrao})`).join('\n')
}

/** A current desktop browser's User-Agent: some gov.br servers refuse unknown clients. */
export const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 dadosbr'

export class UpstreamError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 for a network error or timeout. */
    readonly status: number,
    /** Whether trying again may help (network, timeout, 429, 5xx). */
    readonly retryable: boolean,
  ) {
    super(message)
  }
}

export interface FetchOptions {
  headers?: Record<string, string>
  /** Per attempt. */
  timeoutMs?: number
  /** Attempts after the first (default 0). */
  retries?: number
  /** First backoff delay, doubled each retry, plus up to 25 % jitter (default 1000). */
  backoffMs?: number
  /** Statuses returned to the caller instead of thrown (e.g. 204, 304, 404). */
  accept?: number[]
  signal?: AbortSignal
  method?: string
  redirect?: RequestRedirect
  /** Called before each retry, for progress lines. */
  onRetry?: (attempt: number, err: UpstreamError, delayMs: number) => void
}

/** Reads Retry-After (seconds or an HTTP date) as milliseconds, capped. */
function retryAfterMs(response: Response, capMs: number): number | null {
  const h = response.headers.get('retry-after')
  if (!h) return null
  const seconds = Number(h)
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(h) - Date.now()
  return Number.isFinite(ms) ? Math.max(0, Math.min(ms, capMs)) : null
}

/**
 * GET (or `method`) with a timeout and retries. Returns the response for 2xx and for the `accept`
 * statuses; throws UpstreamError otherwise (after the retries, for the retryable ones).
 */
export async function fetchUpstream(url: string, options: FetchOptions = {}): Promise<Response> {
  const retries = options.retries ?? 0
  const backoff = options.backoffMs ?? 1000
  for (let attempt = 0; ; attempt++) {
    let err: UpstreamError
    let wait: number | null = null
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000)
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
    try {
      const response = await fetch(url, {
        method: options.method ?? 'GET',
        headers: { 'user-agent': BROWSER_USER_AGENT, accept: '*/*', ...options.headers },
        signal,
        redirect: options.redirect ?? 'follow',
      })
      if (response.ok || options.accept?.includes(response.status)) return response
      await response.body?.cancel().catch(() => {})
      const retryable = response.status === 429 || response.status === 408 || response.status >= 500
      err = new UpstreamError(`${describeUrl(url)}: HTTP ${response.status}`, response.status, retryable)
      if (retryable) wait = retryAfterMs(response, 60_000)
    } catch (e) {
      if (options.signal?.aborted) throw new UpstreamError(`${describeUrl(url)}: cancelado`, 0, false)
      const timedOut = timeout.aborted
      err = new UpstreamError(`${describeUrl(url)}: ${timedOut ? `sem resposta em ${Math.round((options.timeoutMs ?? 30_000) / 1000)} s` : e instanceof Error ? e.message : String(e)}`, 0, true)
    }
    if (!err.retryable || attempt >= retries) throw err
    const delay = wait ?? Math.round(backoff * 2 ** attempt * (1 + Math.random() * 0.25))
    options.onRetry?.(attempt + 1, err, delay)
    await Bun.sleep(delay)
    if (options.signal?.aborted) throw new UpstreamError(`${describeUrl(url)}: cancelado`, 0, false)
  }
}

/**
 * The URL without its query string nor any user:password (an upstream setting may carry a proxy's credentials), for
 * messages: they reach the log, /v1/health and the `fonte.ultimo_erro` of answers.
 */
export function describeUrl(url: string): string {
  const q = url.indexOf('?')
  const bare = q < 0 ? url : url.slice(0, q)
  return bare.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
}
