import type { Dataset } from '../../core/dataset'
import { BANDEIRA_FEED } from './bandeira'
import { amostra, cafe, capital, energia, soja } from './route'
import { TERMICA_FEED } from './termica'

/** The chains' own polled sources (`dadosbr atualizar cadeias`); the rest they read from other datasets. */
export const CADEIAS_FEEDS = [TERMICA_FEED, BANDEIRA_FEED]

export const cadeias: Dataset = {
  name: 'cadeias',
  titulo: 'Cadeias causais: energia, café, soja e capital',
  tags: ['commodities', 'energy', 'coffee', 'soy'],
  descricao:
    'Quatro leituras determinísticas que combinam indicadores de outras bases (clima dos cinturões, reservatórios, exportações, câmbio, fundos) com o despacho térmico do ONS e a bandeira tarifária da ANEEL: cada elo com valor, data, fonte e status, a leitura em palavras, a regra aplicada e os limites declarados.',
  amostra: '/v1/cadeias/amostra',
  ingested: false,
  routes: [energia, cafe, soja, capital, amostra],
  feeds: CADEIAS_FEEDS,
}
