// The contracts sync: reads PNCP's /v1/contratos one publication day at a time, every page, and
// appends each day whole to sync.sqlite (SyncFile.stage), then /v1/contratos/atualizacao for what
// changed since the last run (a rectified contract replaces its earlier version), then compacts
// it all into a new build of the served index (compact.ts; also every hour of a long run). Days
// already read are skipped, so an interrupted sync restarts where it stopped. PNCP is slow (15-22 s a query) and
// fails often: a bounded number of requests in flight, retries with backoff on network errors,
// 429 (Retry-After) and 5xx, a malformed page read again, 204 as an empty page; a day whose pages
// disagree (PNCP changed the list while it was being paged) is read again, and left unfinished
// when it still disagrees, so the index never claims a day it does not hold whole.
import { takeBuildLock } from '../lib/snapshot'
import { progress } from '../lib/progress'
import { META } from '../../src/datasets/licitacoes/layout'
import { addDays, PNCP, pncpDate, readPage, todayBrasilia, type PncpContrato, type PncpPage } from '../../src/datasets/licitacoes/pncp'
import { fetchUpstream, upstreamUrl, UpstreamError } from '../../src/core/upstream'
import { compact, type CompactResult } from './compact'
import { contractRow, SyncFile, type ContractRow, type DropReason } from './db'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { DATASET_DIR } from '../../src/datasets/licitacoes/layout'

/** PNCP's history starts with Lei 14.133/2021; days before the first publication answer 204. */
export const FIRST_DAY = '2021-01-01'

export interface SyncOptions {
  dataDir: string
  /** First publication day (default: the index's own first day, else FIRST_DAY). */
  desde?: string
  /** Last publication day (default: today in Brasília; today is read but never marked finished). */
  ate?: string
  /** Requests to PNCP in flight at once (PNCP_CONCORRENCIA, default 4). */
  concurrency?: number
  /** Records per page asked of PNCP (default 50: larger pages are refused by some PNCP deployments). */
  pageSize?: number
  /** Per request (default 120 s: PNCP takes 15-22 s, sometimes much more). */
  timeoutMs?: number
  /** Attempts after the first for network errors, 429 and 5xx (default 6), and for a malformed page (default 3). */
  retries?: number
  /** First backoff delay (default 2 s, doubled each retry). */
  backoffMs?: number
  /** Skip /v1/contratos/atualizacao (benchmarks of the day pass alone). */
  skipUpdates?: boolean
  /** Discard an index of another layout and start over. */
  rebuild?: boolean
  /** SQLite page cache of the compaction, in MB (default 2048). */
  cacheMb?: number
  /** During a long run, compact (serve what was read so far) at most this often (default 60 minutes). */
  compactEveryMinutes?: number
  /** Staged contracts above this share of the served index rebuild it whole (default FULL_SHARE). */
  fullShare?: number
  quiet?: boolean
  log?: (line: string) => void
  /** Clock (the bundled sample runs at its recording time). */
  now?: () => number
}

export interface SyncSummary {
  dias_lidos: number
  dias_pendentes: string[]
  paginas: number
  /** Contracts read (by day and by update), before versions of the same contract are merged. */
  contratos_lidos: number
  descartados: Record<DropReason, number>
  atualizacoes: number
  repeticoes: number
  /** The last compaction of this run (the served index). */
  compactacao: CompactResult | null
  /** Contracts in the served index. */
  contratos_no_indice: number
  sincronizado_ate: string | null
  desde: string
  segundos: number
}

/** At most `n` tasks at once, started in the order they ask. */
class Semaphore {
  private active = 0
  private readonly waiting: (() => void)[] = []
  constructor(private readonly n: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve))
    this.active++
    try {
      return await task()
    } finally {
      this.active--
      this.waiting.shift()?.()
    }
  }
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/

/** Days from a to b inclusive. */
export function daysBetween(a: string, b: string): string[] {
  const out: string[] = []
  for (let d = a; d <= b; d = addDays(d, 1)) out.push(d)
  return out
}

export async function syncContracts(options: SyncOptions): Promise<SyncSummary> {
  const started = performance.now()
  const now = options.now ?? Date.now
  const today = todayBrasilia(now())
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`))
  for (const [flag, v] of [['--desde', options.desde], ['--ate', options.ate]] as const)
    if (v !== undefined && (!ISO_DAY.test(v) || addDays(v, 0) !== v)) throw new Error(`${flag} precisa ser uma data AAAA-MM-DD válida (veio ${v})`)
  const concurrency = options.concurrency ?? 4
  const pageSize = options.pageSize ?? 50
  const retries = options.retries ?? 6
  const base = upstreamUrl(PNCP)
  const release = await takeBuildLock(join(options.dataDir, DATASET_DIR), log)
  let index: SyncFile | null = null
  try {
    if (options.rebuild) for (const entry of ['current']) rmSync(join(options.dataDir, DATASET_DIR, entry), { force: true })
    index = new SyncFile(options.dataDir, { rebuild: options.rebuild })
    const ix = index
    const knownStart = ix.metaGet(META.desde)
    const desde = [options.desde ?? knownStart ?? FIRST_DAY, knownStart ?? '9999-12-31'].sort()[0]!
    const ate = options.ate ?? today
    if (ate < desde) throw new Error(`--ate (${ate}) é anterior a --desde (${desde})`)
    ix.metaSet(META.desde, desde)
    // A new index reads its updates from the day it was started: the days it fetches already hold the versions of before.
    if (!ix.metaGet(META.atualizacoesDesde)) ix.metaSet(META.atualizacoesDesde, today)

    const summary: SyncSummary = {
      dias_lidos: 0, dias_pendentes: [], paginas: 0, contratos_lidos: 0, descartados: { sem_numero: 0, fornecedor_nao_pj: 0 },
      atualizacoes: 0, repeticoes: 0, compactacao: null, contratos_no_indice: 0, sincronizado_ate: null, desde, segundos: 0,
    }
    const compactEveryMs = (options.compactEveryMinutes ?? 60) * 60_000
    let lastCompaction = performance.now()
    let compacting: Promise<void> | null = null
    /** Folds what was read into a new served build (never two at once). */
    const compactNow = async () => {
      while (compacting) await compacting
      compacting = (async () => {
        summary.compactacao = await compact(options.dataDir, ix, now(), { cacheMb: options.cacheMb, fullShare: options.fullShare, log: options.quiet ? undefined : log })
        lastCompaction = performance.now()
      })()
      try {
        await compacting
      } finally {
        compacting = null
      }
    }
    const gate = new Semaphore(concurrency)

    /** One page, read again when it does not parse (a cut or garbled answer); HTTP retries are fetchUpstream's. */
    const page = async (path: string, params: Record<string, string | number>): Promise<PncpPage<PncpContrato>> => {
      const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()
      const url = `${base}${path}?${qs}`
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await gate.run(() =>
            fetchUpstream(url, {
              timeoutMs: options.timeoutMs ?? 120_000,
              retries,
              backoffMs: options.backoffMs ?? 2000,
              accept: [204],
              onRetry: () => void summary.repeticoes++,
            }),
          )
          const parsed = await readPage<PncpContrato>(response, `${path} ${JSON.stringify(params)}`)
          summary.paginas++
          return parsed
        } catch (err) {
          // 4xx (422: PNCP refused the query) will not get better by asking again.
          if (err instanceof UpstreamError || attempt >= Math.min(retries, 3)) throw err
          summary.repeticoes++
          await Bun.sleep((options.backoffMs ?? 2000) * 2 ** attempt)
        }
      }
    }

    /** Every page of one query; `consistent` is false when the pages disagree on the list they page through. */
    const allPages = async (path: string, params: Record<string, string>) => {
      const first = await page(path, { ...params, pagina: 1, tamanhoPagina: pageSize })
      const rest = await Promise.all(
        Array.from({ length: Math.max(0, first.totalPaginas - 1) }, (_, i) => page(path, { ...params, pagina: i + 2, tamanhoPagina: pageSize })),
      )
      const pages = [first, ...rest]
      const records = pages.flatMap((p) => p.data)
      const distinct = new Set(records.map((r) => r?.numeroControlePNCP)).size
      const consistent = pages.every((p) => p.totalRegistros === first.totalRegistros && p.totalPaginas === first.totalPaginas) && records.length === first.totalRegistros && distinct === records.length
      return { records, consistent, total: first.totalRegistros }
    }

    const toRows = (records: PncpContrato[]): ContractRow[] => {
      const rows: ContractRow[] = []
      for (const record of records) {
        const row = record && typeof record === 'object' ? contractRow(record) : 'sem_numero'
        if (typeof row === 'string') summary.descartados[row]++
        else rows.push(row)
      }
      return rows
    }

    const finished = ix.finishedDays()
    const days = daysBetween(desde, ate).filter((d) => !finished.has(d))
    const bar = progress(`PNCP contratos, dias de ${desde} a ${ate}`, days.length, { unit: 'rows', quiet: options.quiet })
    const failures: string[] = []

    const syncDay = async (dia: string) => {
      const params = { dataInicial: pncpDate(dia), dataFinal: pncpDate(dia) }
      try {
        let read = await allPages('/v1/contratos', params)
        for (let again = 0; !read.consistent && again < 2; again++) read = await allPages('/v1/contratos', params)
        const rows = toRows(read.records)
        // Today is still being published: its contracts are kept, the day is read again next time.
        const whole = read.consistent && dia < today
        ix.stage(rows, { dia, registros: read.total, whole })
        summary.contratos_lidos += rows.length
        if (whole) summary.dias_lidos++
        else {
          summary.dias_pendentes.push(dia)
          if (!read.consistent) failures.push(`${dia}: as páginas do PNCP mudaram durante a leitura (${read.records.length} registros lidos, ${read.total} anunciados)`)
        }
      } catch (err) {
        summary.dias_pendentes.push(dia)
        failures.push(`${dia}: ${err instanceof Error ? err.message : String(err)}`)
      } finally {
        bar.add(1)
      }
      // A first national sync takes days of PNCP queries: serve what was read so far, now and then.
      if (performance.now() - lastCompaction > compactEveryMs) await compactNow()
    }

    // Days in order, `concurrency` at a time (their pages share the same bound of requests in flight).
    let next = 0
    await Promise.all(
      Array.from({ length: Math.min(concurrency, days.length) }, async () => {
        while (next < days.length) await syncDay(days[next++]!)
      }),
    )
    bar.done(`${summary.dias_lidos} dias lidos, ${summary.contratos_lidos.toLocaleString('pt-BR')} contratos`)

    if (!options.skipUpdates) {
      const since = ix.metaGet(META.atualizacoesDesde) ?? today
      let pendingFrom: string | null = null
      for (const dia of daysBetween(since, today)) {
        try {
          const read = await allPages('/v1/contratos/atualizacao', { dataInicial: pncpDate(dia), dataFinal: pncpDate(dia) })
          const rows = toRows(read.records)
          ix.stage(rows)
          summary.atualizacoes += rows.length
          summary.contratos_lidos += rows.length
          if (!read.consistent) pendingFrom ??= dia
        } catch (err) {
          pendingFrom ??= dia
          failures.push(`atualizações de ${dia}: ${err instanceof Error ? err.message : String(err)}`)
        }
      }
      // Today's updates are still coming: the next run reads from today again (or from the first day that failed).
      ix.metaSet(META.atualizacoesDesde, pendingFrom ?? today)
    }

    await compactNow()
    summary.sincronizado_ate = summary.compactacao?.referencia ?? null
    summary.contratos_no_indice = summary.compactacao?.contratos ?? 0
    summary.dias_pendentes.sort()
    summary.segundos = (performance.now() - started) / 1000
    for (const f of failures.slice(0, 20)) log(`aviso: ${f}`)
    if (failures.length > 20) log(`aviso: e mais ${failures.length - 20} falhas`)
    return summary
  } finally {
    index?.close()
    await release()
  }
}
