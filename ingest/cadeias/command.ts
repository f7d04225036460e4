// `dadosbr ingest cadeias`: the chains have no dump to rebuild; they read other datasets at request
// time and two sources of their own that the server polls (ONS's hourly energy balance for thermal
// dispatch, ANEEL's tariff flags). This command fetches those two once into the copies the server
// serves (as `dadosbr atualizar cadeias` does); its bundled sample installs recorded answers in the
// real formats, with the age they really have (test/cadeias/fixtures/cadeias-amostra, README there).
import { CADEIAS_FEEDS } from '../../src/datasets/cadeias'
import { feedIngest } from '../lib/feed-ingest'

export const CADEIAS_SAMPLE = 'test/cadeias/fixtures/cadeias-amostra'

export const cadeiasIngest = feedIngest({
  name: 'cadeias',
  description: 'cadeias: consulta uma vez o balanço de energia do ONS (despacho térmico) e as bandeiras tarifárias da ANEEL',
  help:
    'As cadeias causais leem na hora do pedido as cópias de outras bases (clima, reservatórios, exportações, câmbio, fundos: rode a ingestão de cada uma)\n' +
    'e duas fontes próprias que o servidor consulta sozinho: o balanço de energia horário do ONS (diário) e as bandeiras acionadas da ANEEL (duas vezes ao dia).\n' +
    'Este comando consulta as duas agora. Uma fonte que falha mantém a última cópia boa; sai com erro só se as duas falharem.\n' +
    'Com --amostra, instala as respostas gravadas (sem internet).',
  feeds: CADEIAS_FEEDS,
  sample: CADEIAS_SAMPLE,
  ofTheDataset: 'das cadeias',
})
