import type { Dataset } from '../../core/dataset'
import { FOCUS_FEED, PTAX_FEED, SGS_FEED } from './bcb'
import { CRIPTO_FEED } from './cripto'
import { NOTICIAS_FEED } from './noticias/feed'
import { amostra, cambio, indicadores, noticias, pacote } from './route'

/** The polled sources of the markets dataset (`dadosbr atualizar mercado` refreshes them all). */
export const MERCADO_FEEDS = [NOTICIAS_FEED, SGS_FEED, PTAX_FEED, FOCUS_FEED, CRIPTO_FEED]

export const mercado: Dataset = {
  name: 'mercado',
  titulo: 'Mercado: notícias, indicadores e câmbio',
  tags: ['markets', 'fx', 'news', 'crypto'],
  descricao: 'Manchetes financeiras com tema, sentimento e relevância; Selic, IPCA, PTAX e Focus do Banco Central; PTAX, bitcoin e USDT em reais e o prêmio cripto.',
  amostra: '/v1/mercado/amostra',
  ingested: false,
  routes: [noticias, indicadores, cambio, pacote, amostra],
  feeds: MERCADO_FEEDS,
}
