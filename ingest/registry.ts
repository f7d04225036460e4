// Every dataset `dadosbr ingest` can build, each from its own folder under ingest/. A dataset
// declares its command (flags, what it downloads) and its bundled sample: the real-format files
// (or upstream recordings, for polled sources) that `--amostra` builds from through the same code,
// embedded in the executable so `dadosbr ingest <base> --amostra` works anywhere.
import type { FlagSpec } from '../src/cli/args'
import type { UpstreamSetting } from '../src/core/upstream'
import { bcbIngest } from './bcb/command'
import { cadeiasIngest } from './cadeias/command'
import { cnpjIngest } from './cnpj/command'
import { commoditiesIngest, exportacoesIngest } from './commodities/command'
import { desmatamentoIngest } from './desmatamento/command'
import { fundosIngest } from './fundos/command'
import { integridadeIngest } from './integridade/command'
import { licitacoesIngest } from './licitacoes/command'
import { mercadoIngest } from './mercado/command'
import { tributosIngest } from './tributos/command'

export interface IngestContext {
  /** The command's own flags, parsed (names with their dashes). */
  flags: Record<string, string | boolean>
  dataDir: string
  quiet: boolean
  /** One line on stderr. */
  log: (line: string) => void
}

export interface IngestDataset {
  /** `dadosbr ingest <name>`; also the folder under data/ and src/datasets/. */
  name: string
  /** One line for `dadosbr ingest --help`. */
  description: string
  /** Usage line and the command's own flags (the dispatcher adds --data, --quiet, --amostra, --help). */
  synopsis: string
  specs: FlagSpec[]
  /** More help text (what it downloads, how the swap works...). */
  help?: string
  /** Upstream settings it reads, listed in --help. */
  upstreams?: UpstreamSetting[]
  /** Builds from the official source (or --from): returns a one-line summary. */
  run(ctx: IngestContext): Promise<string>
  /**
   * Paths (relative to the repository) of the bundled sample's files, embedded in the executable.
   * `sample` builds them into ctx.dataDir through the same ingest and returns a one-line summary;
   * with `onlyIfNeeded`, it does nothing when the data in use already is this sample in this layout.
   */
  sampleAssets: string[]
  sample(ctx: IngestContext, onlyIfNeeded: boolean): Promise<string>
}

export const INGESTS: IngestDataset[] = [cnpjIngest, licitacoesIngest, integridadeIngest, fundosIngest, bcbIngest, mercadoIngest, exportacoesIngest, commoditiesIngest, tributosIngest, desmatamentoIngest, cadeiasIngest]

export function ingestNamed(name: string): IngestDataset | undefined {
  return INGESTS.find((i) => i.name === name)
}
