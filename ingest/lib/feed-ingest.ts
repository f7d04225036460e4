// `dadosbr ingest <base>` for a dataset made only of polled sources (markets, commodities, chains):
// no dump to rebuild, so the command refreshes each feed once into the copies the server serves (as
// `dadosbr atualizar <base>` does), and its bundled sample installs recorded upstream answers.
import { FeedRunner, type FeedDef } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { installFeedSample } from './feed-sample'
import type { IngestDataset } from './dataset'

export interface FeedIngestSpec {
  name: string
  description: string
  help: string
  feeds: FeedDef[]
  /** Folder of the recorded answers (relative to the repository), embedded in the executable. */
  sample: string
  /** How the one-line error names the dataset: "do mercado", "de commodities", "das cadeias". */
  ofTheDataset: string
}

export function feedIngest(spec: FeedIngestSpec): IngestDataset {
  const { name, feeds } = spec
  return {
    name,
    description: spec.description,
    synopsis: `dadosbr ingest ${name} [--data DIR]`,
    specs: [],
    help: spec.help,
    upstreams: [...new Map(feeds.flatMap((f) => f.upstreams).map((u) => [u.env, u])).values()],
    async run(ctx) {
      const runner = new FeedRunner(feeds, { dataDir: ctx.dataDir, log: createLogger('silent') })
      const lines: string[] = []
      let failed = 0
      for (const feed of feeds) {
        const started = performance.now()
        try {
          await runner.refresh(feed.name)
          lines.push(`${feed.name}: ok em ${((performance.now() - started) / 1000).toFixed(1)} s`)
        } catch (err) {
          failed++
          const kept = runner.copy(feed.name)?.consultado_em
          lines.push(`${feed.name}: falhou: ${(err as Error).message}${kept ? ` (fica a cópia de ${kept})` : ' (nenhuma cópia ainda)'}`)
        }
        if (!ctx.quiet) ctx.log(lines[lines.length - 1]!)
      }
      // One failing source keeps its last good copy; only all of them failing is an error.
      if (failed === feeds.length) throw new Error(`nenhuma fonte ${spec.ofTheDataset} respondeu: ${lines.join('; ')}`)
      return `${name}: ${feeds.length - failed} de ${feeds.length} fontes atualizadas`
    },
    sampleAssets: [spec.sample],
    sample: (ctx, onlyIfNeeded) => installFeedSample({ dataDir: ctx.dataDir, feeds, recordings: spec.sample, onlyIfNeeded }),
  }
}
