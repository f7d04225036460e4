// What a dataset folder under src/datasets/ exports. The registry collects these into
// the one route table; the registry test checks each has routes, prices, fixtures and a README line.
import type { RouteDef } from './route'
import type { Config } from './config'
import type { Logger } from './log'
import type { FeedDef } from './feeds/feed'
import type { UpstreamSetting } from './upstream'

export interface DatasetHealth {
  ok: boolean
  /** Why the dataset cannot serve, in Portuguese, when ok is false. */
  motivo?: string
  /** A part of a dataset that serves, but not whole (the registry's history damaged), in Portuguese: the service is degraded. */
  aviso?: string
  /** Reference date (YYYY-MM-DD) or month (YYYY-MM) of the loaded data, when known. */
  referencia?: string | null
}

/** The open data files of one dataset. */
export interface DatasetStore {
  health(): Promise<DatasetHealth>
  /**
   * Why it cannot serve right now (its build did not open, or was dropped when a file gave a read
   * error), or null while it serves; absent: always serves once open.
   */
  unavailable?(): string | null
  close(): Promise<void>
}

export interface Dataset<S extends DatasetStore | null = DatasetStore | null> {
  /** Folder name under src/datasets/ (and ingest/, test/). */
  name: string
  titulo: string
  descricao: string
  /** Catalogue tags of its paid routes in the x402 Bazaar (ASCII, what an agent searches for; 'brasil' is added). */
  tags?: string[]
  /** Free sample route of the dataset, linked from its 402 answers. */
  amostra?: string
  /** True when the dataset is rebuilt from government dumps by `dadosbr ingest <name>`. */
  ingested: boolean
  routes: RouteDef[]
  /** Opens the dataset's files under config.dataDir; absent for pure computation. */
  open?: (config: Config, log: Logger) => Promise<S>
  /** Sources the server polls itself (src/core/feeds), refreshed in the background. */
  feeds?: FeedDef[]
  /** Every upstream base URL it reads (ingest or feeds): settings with the real defaults, listed in --help. */
  upstreams?: UpstreamSetting[]
}
