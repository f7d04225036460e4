// One mechanism for every source the server polls itself (open tenders, news, indicators, FX,
// weather, fire, reservoirs...). A feed is fetched in the background on its cadence and on first
// need; its last good copy lives on disk (data/feeds/<feed>/<key>.json), so a restart during an
// outage still serves it; a request never waits on the upstream except, briefly, when no copy was
// ever fetched. With several serving processes, a lock file per copy lets one refresh while all
// serve the same file. Every answer says where its data came from and how old it is (fonte).
//
// One record per source (FeedState: last attempt, last success, age, interval, status, error) is
// computed here and only here: each route's `fonte`, /v1/health and /metrics all read it, so they
// never disagree about a source. Offline (`serve --sem-fontes`) nothing is fetched: the copies on
// disk (the bundled sample, status `amostra`) are served as they are.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../log'
import { fetchUpstream, upstreamUrl, type FetchOptions, type UpstreamSetting } from '../upstream'

export const FEEDS_DIR = 'feeds'

export interface FeedFetchContext {
  /** The base URL of an upstream (its setting, else the real default). */
  url(upstream: UpstreamSetting): string
  /** fetchUpstream with the feed's timeout and the refresh's cancellation. */
  fetch(url: string, options?: FetchOptions): Promise<Response>
  log: Logger
  /** The previous good copy, for sources that answer in increments. */
  previous: unknown
  /** The feed clock (ms since epoch): "today" for date windows; the recording time when a bundled sample is installed. */
  now(): number
  /** The runner's data directory: a feed derived from other copies (a briefing) reads them there. */
  dataDir: string
}

export interface FeedDef<T = unknown> {
  /** Unique name, used in `dadosbr atualizar <nome>`, on disk and in /v1/health. */
  name: string
  /** The dataset (folder under src/datasets) that owns it. */
  dataset: string
  /** `fonte.base`: the source, named as a user would look it up. */
  base: string
  upstreams: UpstreamSetting[]
  /**
   * The promise, in minutes (fractions allowed: 0.25 = 15 s): a copy up to this old is `ok`, an older
   * one `cache_servido`. Also the cadence of refresh, unless refreshMinutes says otherwise.
   */
  intervalMinutes: number
  /** How often a refresh runs when it differs from the promise (a derived feed checks its inputs more often than it promises a new edition). */
  refreshMinutes?: number
  /**
   * When the data was obtained from the real sources, when that is not the fetch: a feed derived
   * from other copies (the briefing) is as old as its newest input. Ages and statuses count from it.
   */
  dataTime?(dados: T): string | null
  /** Keys refreshed in the background and by `dadosbr atualizar` (default ['']: a feed with one copy). */
  defaultKeys?: string[]
  /** Per attempt; a background refresh may be slow (PNCP takes 15-22 s). Default 60 s. */
  timeoutMs?: number
  /**
   * Request-time feeds (prices): a request that finds the copy older than its interval waits up to
   * this long, counted from the start of the refresh it joins, for the fresh copy, unless the last
   * attempt failed (an upstream known to be down or slow is never waited on). Such a feed is also
   * refreshed ahead, without waiting, once its copy is two thirds of the interval old, so steady
   * traffic never finds it stale.
   */
  waitOnStaleMs?: number
  /** How long a request waits for the first copy of a key when none was ever fetched (default FIRST_NEED_WAIT_MS); 0: never (PNCP takes 15-22 s). */
  firstNeedWaitMs?: number
  /** Fetches and parses one copy; throws on garbage, so the last good copy stays. */
  fetch(key: string, ctx: FeedFetchContext): Promise<T>
}

export type FeedStatus = 'ok' | 'cache_servido' | 'fonte_indisponivel' | 'amostra'

/** The `fonte` of an answer: the source's record as routes show it (schema FonteFeed). */
export interface Fonte {
  base: string
  consultado_em: string | null
  defasagem_segundos: number | null
  atualiza_a_cada_minutos: number
  cache: boolean
  status: FeedStatus
  tentado_em: string | null
  ultimo_erro: string | null
}

/** The one record of a source (one copy of it): what its routes, /v1/health and /metrics report. */
export interface FeedState extends Fonte {
  nome: string
  chave: string
  /** Consecutive failed attempts since the last success. */
  falhas: number
  /** Why this source makes the service `degradado` in /v1/health, or null. */
  problema: string | null
}

/** A refresh failure that carries what failed, part by part (each exchange, each outlet), for the routes to show. */
export class FeedFailure extends Error {
  constructor(
    message: string,
    readonly detalhe: unknown,
  ) {
    super(message)
  }
}

/** What is on disk for one copy: the last good data, and the last attempt. */
export interface FeedCopy<T = unknown> {
  feed: string
  chave: string
  consultado_em: string | null
  dados: T | null
  tentado_em: string | null
  ultimo_erro: string | null
  /** Consecutive failed attempts since the last success. */
  falhas: number
  /** What the last failed attempt reported part by part (FeedFailure), or absent. */
  erro_detalhe?: unknown
  /** True when this copy is the bundled sample (recorded answers installed by `ingest --amostra`), not a fetch of this server. */
  amostra?: boolean
}

export interface FeedAnswer<T> {
  dados: T | null
  fonte: Fonte
  /** The part-by-part detail of the last attempt when it failed (FeedFailure.detalhe), else null. */
  falha: unknown
}

/** How long a request waits for a copy when none was ever fetched (and no attempt failed lately). */
export const FIRST_NEED_WAIT_MS = 1500
/** A refresh lock older than this is abandoned (its holder died or hung). */
const LOCK_STALE_MS = 10 * 60_000
/** How often a process re-checks the file on disk for a copy another process wrote. */
const DISK_CHECK_MS = 1000

const fileKey = (key: string) => (key === '' ? '_' : encodeURIComponent(key).replace(/\./g, '%2E'))

export interface FeedRunnerOptions {
  dataDir: string
  log: Logger
  /** Clock, for tests. */
  now?: () => number
  /** Never fetch (`serve --sem-fontes`): the copies on disk are served as they are, and nothing leaves the machine. */
  offline?: boolean
  /** The copies this runner writes are the bundled sample (ingest --amostra). */
  sample?: boolean
}

interface Slot {
  copy: FeedCopy | null
  checkedAt: number
  mtimeMs: number
  refreshing: Promise<void> | null
  /** performance.now() when the running refresh started (the waitOnStaleMs bound counts from it). */
  refreshStarted: number
}

/** The feeds of one process: reads copies, refreshes them, and keeps the one record of each source. */
export class FeedRunner {
  private readonly slots = new Map<string, Slot>()
  private readonly byName: Map<string, FeedDef>
  private timer: ReturnType<typeof setInterval> | null = null
  /** Keys asked for by requests, kept fresh in the background too (parametrized feeds). */
  private readonly asked = new Map<string, Set<string>>()
  /** The feed clock (ms since epoch): ages, and "now" for answers that filter by time. */
  readonly now: () => number

  constructor(
    readonly feeds: FeedDef[],
    private readonly options: FeedRunnerOptions,
  ) {
    this.byName = new Map(feeds.map((f) => [f.name, f]))
    this.now = options.now ?? Date.now
  }

  /** True when nothing is fetched (`serve --sem-fontes`). */
  get offline(): boolean {
    return this.options.offline === true
  }

  def(name: string): FeedDef {
    const f = this.byName.get(name)
    if (!f) throw new Error(`fonte desconhecida: ${name}`)
    return f
  }

  /** The key whose record stands for the whole source in /v1/health and /metrics: its first default key. */
  mainKey(feed: FeedDef): string {
    return (feed.defaultKeys ?? [''])[0]!
  }

  private dir(feed: FeedDef): string {
    return join(this.options.dataDir, FEEDS_DIR, feed.name)
  }

  private path(feed: FeedDef, key: string): string {
    return join(this.dir(feed), `${fileKey(key)}.json`)
  }

  private slot(feed: FeedDef, key: string): Slot {
    const id = `${feed.name}\u0000${key}`
    let s = this.slots.get(id)
    if (!s) {
      s = { copy: null, checkedAt: -Infinity, mtimeMs: 0, refreshing: null, refreshStarted: 0 }
      this.slots.set(id, s)
    }
    // Real time, not the feed clock: this throttles file reads, it does not age data.
    const now = performance.now()
    if (now - s.checkedAt >= DISK_CHECK_MS) {
      s.checkedAt = now
      try {
        const path = this.path(feed, key)
        const { mtimeMs } = statSync(path)
        if (mtimeMs !== s.mtimeMs) {
          s.copy = JSON.parse(readFileSync(path, 'utf8')) as FeedCopy
          s.mtimeMs = mtimeMs
        }
      } catch {
        // No copy yet (or a file being replaced: the rename is atomic, the next check reads it).
      }
    }
    return s
  }

  /** The copy on disk, as it is (tests, `dadosbr atualizar`, derived feeds). */
  copy<T>(name: string, key = ''): FeedCopy<T> | null {
    return this.slot(this.def(name), key).copy as FeedCopy<T> | null
  }

  private intervalMs(feed: FeedDef): number {
    return feed.intervalMinutes * 60_000
  }

  private refreshMs(feed: FeedDef): number {
    return (feed.refreshMinutes ?? feed.intervalMinutes) * 60_000
  }

  /** A feed fetched only when asked (prices): never polled unasked. */
  private onRequest(feed: FeedDef): boolean {
    return feed.intervalMinutes < 1
  }

  /** When the served data was obtained from its sources: the fetch, or for a derived feed its newest input. */
  private dataAt(feed: FeedDef, copy: FeedCopy | null): string | null {
    if (!copy?.consultado_em || copy.dados === null || copy.dados === undefined) return null
    return (feed.dataTime ? feed.dataTime(copy.dados) : null) ?? copy.consultado_em
  }

  private since(iso: string | null): number | null {
    return iso === null ? null : Math.max(0, this.now() - Date.parse(iso))
  }

  /** ms since the last successful fetch (the refresh cadence counts from it), or null when none. */
  private fetchAgeMs(copy: FeedCopy | null): number | null {
    return this.since(copy?.consultado_em ?? null)
  }

  /** When a failed attempt may be retried: backoff from 30 s, doubling, at most the feed's refresh interval. */
  private retryDue(feed: FeedDef, copy: FeedCopy | null): boolean {
    if (!copy?.tentado_em || !copy.ultimo_erro) return true
    const wait = Math.min(this.refreshMs(feed), 30_000 * 2 ** Math.max(0, copy.falhas - 1))
    return this.now() - Date.parse(copy.tentado_em) >= wait
  }

  /** Whether a refresh of this copy is due: none yet or older than the cadence, and not in a failure's backoff. */
  private due(feed: FeedDef, copy: FeedCopy | null): boolean {
    if (this.offline) return false
    const age = this.fetchAgeMs(copy)
    return (age === null || age > this.refreshMs(feed)) && this.retryDue(feed, copy)
  }

  /** The one record of a copy of a source: every `fonte`, /v1/health and /metrics are read from here. */
  stateOf(feed: FeedDef, key: string, copy: FeedCopy | null): FeedState {
    const consultado = this.dataAt(feed, copy)
    const age = this.since(consultado)
    const interval = this.intervalMs(feed)
    const status: FeedStatus = age === null ? 'fonte_indisponivel' : copy?.amostra ? 'amostra' : age <= interval ? 'ok' : 'cache_servido'
    const state: FeedState = {
      nome: feed.name,
      chave: key,
      base: feed.base,
      consultado_em: consultado,
      defasagem_segundos: age === null ? null : Math.round(age / 1000),
      atualiza_a_cada_minutos: feed.intervalMinutes,
      cache: age !== null,
      status,
      tentado_em: copy?.tentado_em ?? null,
      ultimo_erro: copy?.ultimo_erro ?? null,
      falhas: copy?.falhas ?? 0,
      problema: null,
    }
    state.problema = this.problemOf(feed, state, age)
    return state
  }

  /**
   * Why a source makes the service `degradado`: no copy at all; a polled one whose copy is older
   * than three intervals (its refreshes are not landing); a request-time one (prices, which age
   * while nobody asks) whose last attempt failed. Offline, only a missing copy counts: not
   * fetching is what was asked for.
   */
  private problemOf(feed: FeedDef, s: FeedState, age: number | null): string | null {
    const erro = s.ultimo_erro ? ` (último erro: ${s.ultimo_erro})` : ''
    if (age === null) return `nenhuma cópia obtida ainda${this.offline ? ' (servidor sem fontes: rode dadosbr ingest --amostra ou dadosbr atualizar)' : ''}${erro}`
    if (this.offline) return null
    if (this.onRequest(feed)) return s.ultimo_erro ? `a última consulta falhou${erro}` : null
    if (age > 3 * this.intervalMs(feed)) {
      const what = s.status === 'amostra' ? `amostra gravada em ${s.consultado_em}` : `cópia de ${Math.round(age / 60_000)} min`
      return `${what}, mais velha que três intervalos (${feed.intervalMinutes} min)${erro}`
    }
    return null
  }

  /** A source's record as routes show it. */
  fonteOf(state: FeedState): Fonte {
    const { base, consultado_em, defasagem_segundos, atualiza_a_cada_minutos, cache, status, tentado_em, ultimo_erro } = state
    return { base, consultado_em, defasagem_segundos, atualiza_a_cada_minutos, cache, status, tentado_em, ultimo_erro }
  }

  /** The record of one copy of a source as it is now, without starting a refresh. */
  state(name: string, key?: string): FeedState {
    const feed = this.def(name)
    const k = key ?? this.mainKey(feed)
    return this.stateOf(feed, k, this.slot(feed, k).copy)
  }

  /** The copy and its `fonte` as they are now, without starting a refresh (a route choosing between copies). */
  peek<T>(name: string, key = ''): FeedAnswer<T> {
    const feed = this.def(name)
    return this.answer<T>(feed, key, this.slot(feed, key).copy)
  }

  private answer<T>(feed: FeedDef, key: string, copy: FeedCopy | null): FeedAnswer<T> {
    return {
      dados: (copy?.dados ?? null) as T | null,
      fonte: this.fonteOf(this.stateOf(feed, key, copy)),
      falha: copy?.ultimo_erro ? (copy.erro_detalhe ?? null) : null,
    }
  }

  /**
   * The copy for a request: served at once; refreshed in the background when due. Only when no copy
   * was ever fetched (and no attempt failed lately) does the request wait, at most
   * FIRST_NEED_WAIT_MS, for the first one. Offline, the copy on disk as it is.
   */
  async get<T>(name: string, key = ''): Promise<FeedAnswer<T>> {
    const feed = this.def(name)
    this.remember(feed, key)
    const s = this.slot(feed, key)
    const age = this.fetchAgeMs(s.copy)
    if (this.due(feed, s.copy)) {
      const running = this.startRefresh(feed, key)
      if (running && age === null) {
        const wait = feed.firstNeedWaitMs ?? FIRST_NEED_WAIT_MS
        if (wait > 0) await Promise.race([running, Bun.sleep(wait)])
      } else if (running && feed.waitOnStaleMs && !s.copy?.ultimo_erro) {
        const left = s.refreshStarted + feed.waitOnStaleMs - performance.now()
        if (left > 0) await Promise.race([running, Bun.sleep(left)])
      }
    } else if (!this.offline && feed.waitOnStaleMs && age !== null && age > (this.refreshMs(feed) * 2) / 3) this.startRefresh(feed, key, true)
    return this.answer<T>(feed, key, this.slot(feed, key).copy)
  }

  private remember(feed: FeedDef, key: string): void {
    if ((feed.defaultKeys ?? ['']).includes(key)) return
    let set = this.asked.get(feed.name)
    if (!set) this.asked.set(feed.name, (set = new Set()))
    if (set.size < 1000) set.add(key)
  }

  /** Starts a refresh unless one runs (in this process or, by its lock, in another); returns it, or null. */
  private startRefresh(feed: FeedDef, key: string, ahead = false): Promise<void> | null {
    const s = this.slot(feed, key)
    if (s.refreshing) return s.refreshing
    const release = this.lock(feed, key)
    if (!release) return null
    // With the lock, read the copy on disk again: another process may have just refreshed it, or
    // just failed to (this process's view can be a second old). Refreshing again would duplicate
    // that work, and a request-time feed would make its requests wait on an upstream known to fail.
    s.checkedAt = -Infinity
    const copy = this.slot(feed, key).copy
    const age = this.fetchAgeMs(copy)
    const stillDue = ahead ? age === null || age > (this.refreshMs(feed) * 2) / 3 : this.due(feed, copy)
    if (!stillDue) {
      release()
      return null
    }
    s.refreshStarted = performance.now()
    s.refreshing = this.runRefresh(feed, key)
      .then(() => {}, () => {})
      .finally(() => {
        release()
        s.refreshing = null
      })
    return s.refreshing
  }

  /**
   * Refreshes one copy now (background, `dadosbr atualizar`, tests). Throws the upstream's error
   * after recording it; the last good copy stays on disk either way.
   */
  async refresh(name: string, key = ''): Promise<FeedCopy> {
    const feed = this.def(name)
    const s = this.slot(feed, key)
    if (s.refreshing) await s.refreshing
    const release = this.lock(feed, key, true)!
    try {
      const copy = await this.runRefresh(feed, key)
      if (copy.ultimo_erro) throw new Error(copy.ultimo_erro)
      return copy
    } finally {
      release()
    }
  }

  /** One attempt: the new copy on success; on failure the previous good data with the error recorded. */
  private async runRefresh(feed: FeedDef, key: string): Promise<FeedCopy> {
    const s = this.slot(feed, key)
    const previous = s.copy
    const started = new Date(this.now()).toISOString()
    const timeoutMs = feed.timeoutMs ?? 60_000
    const ctx: FeedFetchContext = {
      url: (u) => upstreamUrl(u),
      fetch: (url, options) => fetchUpstream(url, { timeoutMs, ...options }),
      log: this.options.log,
      previous: previous?.dados ?? null,
      now: this.now,
      dataDir: this.options.dataDir,
    }
    let next: FeedCopy
    try {
      const dados = await feed.fetch(key, ctx)
      next = { feed: feed.name, chave: key, consultado_em: started, dados, tentado_em: started, ultimo_erro: null, falhas: 0 }
      if (this.options.sample) next.amostra = true
      if (previous?.ultimo_erro) this.options.log.info('fonte voltou', { fonte: feed.name, chave: key || undefined })
    } catch (err) {
      const erro = err instanceof Error ? err.message : String(err)
      next = { feed: feed.name, chave: key, consultado_em: previous?.consultado_em ?? null, dados: previous?.dados ?? null, tentado_em: started, ultimo_erro: erro, falhas: (previous?.falhas ?? 0) + 1 }
      if (err instanceof FeedFailure) next.erro_detalhe = err.detalhe
      // The data kept is still the bundled sample when it was.
      if (previous?.amostra) next.amostra = true
      // One line when a source starts failing, not one per attempt.
      if (!previous?.ultimo_erro) this.options.log.warn('fonte falhou; servida a última cópia', { fonte: feed.name, chave: key || undefined, erro })
    }
    this.write(feed, key, next)
    s.copy = next
    s.checkedAt = performance.now()
    return next
  }

  /** Writes a copy atomically (temp file + rename): readers in other processes never see half a file. */
  write(feed: FeedDef, key: string, copy: FeedCopy): void {
    mkdirSync(this.dir(feed), { recursive: true })
    const path = this.path(feed, key)
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(copy))
    renameSync(tmp, path)
    try {
      const s = this.slot(feed, key)
      s.copy = copy
      s.mtimeMs = statSync(path).mtimeMs
    } catch {}
  }

  /**
   * The refresh lock of one copy, across processes: a file created exclusively. Returns its
   * release, or null when another live refresh holds it. `wait` (the CLI) takes it over even then.
   */
  private lock(feed: FeedDef, key: string, force = false): (() => void) | null {
    mkdirSync(this.dir(feed), { recursive: true })
    const path = `${this.path(feed, key)}.lock`
    const take = () => {
      const fd = openSync(path, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(path, { force: true })
    }
    try {
      return take()
    } catch {
      let stale = force
      try {
        const holder = Number(readFileSync(path, 'utf8'))
        stale ||= Date.now() - statSync(path).mtimeMs > LOCK_STALE_MS || !holder || !alive(holder)
      } catch {
        stale = true
      }
      if (!stale) return null
      rmSync(path, { force: true })
      try {
        return take()
      } catch {
        return null
      }
    }
  }

  /** Keys with a copy on disk (query variants fetched before), for `dadosbr atualizar`. */
  keysOnDisk(name: string): string[] {
    const dir = this.dir(this.def(name))
    if (!existsSync(dir)) return []
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .map((k) => (k === '_' ? '' : decodeURIComponent(k)))
  }

  /**
   * Background refresh: every feed's default keys and the keys requests asked for, when due. A
   * request-time feed (prices) is tried once at start, so its record says whether its sources answer,
   * and afterwards only on request: polling it unasked costs CPU for nothing. Offline: nothing.
   */
  startBackground(tickMs = 15_000): void {
    if (this.timer || this.offline) return
    let first = true
    const tick = () => {
      for (const feed of this.feeds) {
        if (this.onRequest(feed) && !first) continue
        const keys = new Set([...(feed.defaultKeys ?? ['']), ...(this.asked.get(feed.name) ?? [])])
        for (const key of keys) if (this.due(feed, this.slot(feed, key).copy)) this.startRefresh(feed, key)
      }
      first = false
    }
    tick()
    this.timer = setInterval(tick, tickMs)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Every source's record (its main key's copy), for /v1/health and /metrics. */
  health(): FeedState[] {
    return this.feeds.map((feed) => this.state(feed.name))
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
