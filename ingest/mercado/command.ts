// `dadosbr ingest mercado`: the markets dataset has no dump to rebuild, only polled sources, so
// its ingest refreshes each feed once into the copies the server serves (as `dadosbr atualizar
// mercado` does), and its bundled sample installs recorded answers of every upstream, in the real
// formats, with the age they really have (test/mercado/fixtures/amostra, README there).
import { MERCADO_FEEDS } from '../../src/datasets/mercado'
import { feedIngest } from '../lib/feed-ingest'

export const MERCADO_SAMPLE = 'test/mercado/fixtures/amostra'

export const mercadoIngest = feedIngest({
  name: 'mercado',
  description: 'mercado: consulta uma vez notícias (RSS/Atom), SGS, PTAX, Focus e corretoras e grava as cópias que o servidor serve',
  help:
    'As fontes do mercado são consultadas pelo próprio servidor (notícias a cada 15 min, PTAX a cada hora, SGS diário, Focus semanal, cripto na hora do pedido);\n' +
    'este comando faz uma consulta de cada uma agora. Uma fonte que falha mantém a última cópia boa; sai com erro só se todas falharem.\n' +
    'Lista de feeds de notícias: MERCADO_NOTICIAS_FONTES (ids padrão e pares Veículo=https://..., separados por vírgula).\n' +
    'Classificação por LLM (opcional, compatível com a API da OpenAI): LLM_URL, LLM_MODEL, LLM_API_KEY; sem elas, o léxico (docs/mercado.md).\n' +
    'Com --amostra, instala as respostas gravadas (sem internet).',
  feeds: MERCADO_FEEDS,
  sample: MERCADO_SAMPLE,
  ofTheDataset: 'do mercado',
})
