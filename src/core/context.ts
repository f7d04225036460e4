import type { Config } from './config'
import type { Dataset, DatasetStore } from './dataset'
import type { Logger } from './log'
import { ApiError } from './errors'
import type { FeedRunner } from './feeds/feed'

/** Everything a request handler may need, built once at start. */
export interface AppContext {
  config: Config
  log: Logger
  datasets: Dataset[]
  stores: Map<string, DatasetStore | null>
  /** Why a dataset whose store is null did not open (missing files, a build of another version). */
  openFailures: Map<string, string>
  /** Parse every response with its route's zod schema (on in tests; off in production for speed). */
  checkResponses: boolean
  /** The payment layer; null in --free mode. */
  payments: { available(): Promise<boolean> } | null
  /** The polled sources (src/core/feeds). */
  feeds: FeedRunner
}

/** The open store of a dataset, or a 503 saying how to build it. */
export function storeOf<S extends DatasetStore>(ctx: AppContext, name: string): S {
  const store = ctx.stores.get(name)
  if (!store)
    throw new ApiError('dados_indisponiveis', `A base '${name}' não está carregada em ${ctx.config.dataDir}; rode 'dadosbr ingest ${name}' (dados oficiais) ou 'dadosbr ingest ${name} --amostra' (a amostra embutida, sem internet).`)
  return store as S
}

/**
 * Why a dataset cannot serve right now: its files are missing or did not open at start, or its
 * build did not open or was dropped as damaged since; null while it serves.
 */
export function whyUnavailable(ctx: AppContext, name: string): string | null {
  const store = ctx.stores.get(name)
  if (!store) return ctx.openFailures.get(name) ?? `arquivo de dados ausente em ${ctx.config.dataDir}`
  return store.unavailable?.() ?? null
}

/** The store of a dataset while it serves, else null (for answers with a fallback: the free samples, the enrichment's parts). */
export function servingStore<S extends DatasetStore>(ctx: AppContext, name: string): S | null {
  return whyUnavailable(ctx, name) === null ? (ctx.stores.get(name) as S) : null
}
