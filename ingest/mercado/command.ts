// `dadosbr ingest mercado`: the markets dataset has no dump to rebuild, only polled sources, so
// its ingest refreshes each feed once into the copies the server serves (as `dadosbr atualizar
// mercado` does), and its bundled sample installs recorded answers of every upstream, in the real
// formats, with the age they really have (test/mercado/fixtures/amostra, README there).
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { MERCADO_FEEDS } from '../../src/datasets/mercado'
import { installFeedSample } from '../lib/feed-sample'
import type { IngestDataset } from '../registry'

export const MERCADO_SAMPLE = 'test/mercado/fixtures/amostra'

export const mercadoIngest: IngestDataset = {
  name: 'mercado',
  description: 'mercado: consulta uma vez notícias (RSS/Atom), SGS, PTAX, Focus e corretoras e grava as cópias que o servidor serve',
  synopsis: 'dadosbr ingest mercado [--data DIR]',
  specs: [],
  help:
    'As fontes do mercado são consultadas pelo próprio servidor (notícias a cada 15 min, PTAX a cada hora, SGS diário, Focus semanal, cripto na hora do pedido);\n' +
    'este comando faz uma consulta de cada uma agora. Uma fonte que falha mantém a última cópia boa; sai com erro só se todas falharem.\n' +
    'Lista de feeds de notícias: MERCADO_NOTICIAS_FONTES (ids padrão e pares Veículo=https://..., separados por vírgula).\n' +
    'Classificação por LLM (opcional, compatível com a API da OpenAI): LLM_URL, LLM_MODEL, LLM_API_KEY; sem elas, o léxico (docs/mercado.md).\n' +
    'Com --amostra, instala as respostas gravadas (sem internet).',
  upstreams: [...new Map(MERCADO_FEEDS.flatMap((f) => f.upstreams).map((u) => [u.env, u])).values()],
  async run(ctx) {
    const runner = new FeedRunner(MERCADO_FEEDS, { dataDir: ctx.dataDir, log: createLogger('silent') })
    const lines: string[] = []
    let failed = 0
    for (const feed of MERCADO_FEEDS) {
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
    if (failed === MERCADO_FEEDS.length) throw new Error(`nenhuma fonte do mercado respondeu: ${lines.join('; ')}`)
    return `mercado: ${MERCADO_FEEDS.length - failed} de ${MERCADO_FEEDS.length} fontes atualizadas`
  },
  sampleAssets: [MERCADO_SAMPLE],
  async sample(ctx, onlyIfNeeded) {
    return installFeedSample({ dataDir: ctx.dataDir, feeds: MERCADO_FEEDS, recordings: MERCADO_SAMPLE, onlyIfNeeded })
  },
}
