// What a dataset's `dadosbr ingest <base>` command is: the types every ingest/<base>/command.ts
// implements and ingest/registry.ts lists. They live here, below both, so a dataset's folder
// depends only on ingest/lib/ and src/ (never on the registry or a sibling).
import type { FlagSpec } from '../../src/cli/args'
import type { UpstreamSetting } from '../../src/core/upstream'

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
