// `dadosbr ingest cadeias`: the chains have no dump to rebuild; they read other datasets at request
// time and two sources of their own that the server polls (ONS's hourly energy balance for thermal
// dispatch, ANEEL's tariff flags). This command fetches those two once into the copies the server
// serves (as `dadosbr atualizar cadeias` does); its bundled sample installs recorded answers in the
// real formats, with the age they really have (test/cadeias/fixtures/cadeias-amostra, README there).
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { CADEIAS_FEEDS } from '../../src/datasets/cadeias'
import { installFeedSample } from '../lib/feed-sample'
import type { IngestDataset } from '../registry'

export const CADEIAS_SAMPLE = 'test/cadeias/fixtures/cadeias-amostra'

export const cadeiasIngest: IngestDataset = {
  name: 'cadeias',
  description: 'cadeias: consulta uma vez o balanço de energia do ONS (despacho térmico) e as bandeiras tarifárias da ANEEL',
  synopsis: 'dadosbr ingest cadeias [--data DIR]',
  specs: [],
  help:
    'As cadeias causais leem na hora do pedido as cópias de outras bases (clima, reservatórios, exportações, câmbio, fundos: rode a ingestão de cada uma)\n' +
    'e duas fontes próprias que o servidor consulta sozinho: o balanço de energia horário do ONS (diário) e as bandeiras acionadas da ANEEL (duas vezes ao dia).\n' +
    'Este comando consulta as duas agora. Uma fonte que falha mantém a última cópia boa; sai com erro só se as duas falharem.\n' +
    'Com --amostra, instala as respostas gravadas (sem internet).',
  upstreams: [...new Map(CADEIAS_FEEDS.flatMap((f) => f.upstreams).map((u) => [u.env, u])).values()],
  async run(ctx) {
    const runner = new FeedRunner(CADEIAS_FEEDS, { dataDir: ctx.dataDir, log: createLogger('silent') })
    const lines: string[] = []
    let failed = 0
    for (const feed of CADEIAS_FEEDS) {
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
    if (failed === CADEIAS_FEEDS.length) throw new Error(`nenhuma fonte das cadeias respondeu: ${lines.join('; ')}`)
    return `cadeias: ${CADEIAS_FEEDS.length - failed} de ${CADEIAS_FEEDS.length} fontes atualizadas`
  },
  sampleAssets: [CADEIAS_SAMPLE],
  async sample(ctx, onlyIfNeeded) {
    return installFeedSample({ dataDir: ctx.dataDir, feeds: CADEIAS_FEEDS, recordings: CADEIAS_SAMPLE, onlyIfNeeded })
  },
}
