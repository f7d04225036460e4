import type { Dataset } from '../../core/dataset'
import { BRIEFING_FEED } from './briefing'
import { CLIMA_FEED } from './clima'
import { openExportacoesStore } from './exportacoes'
import { FOGO_FEED } from './fogo'
import { HIDROLOGIA_FEED } from './hidrologia'
import { amostra, briefing, clima, exportacoes, fogo, hidrologia, pacote } from './route'
import { COMEXSTAT } from './upstreams'

/** The polled sources (`dadosbr atualizar commodities`); the briefing last, as it reads the others. */
export const COMMODITIES_FEEDS = [CLIMA_FEED, FOGO_FEED, HIDROLOGIA_FEED, BRIEFING_FEED]

export const commodities: Dataset = {
  name: 'commodities',
  titulo: 'Commodities: clima dos cinturões, queimadas, exportações, reservatórios e briefing',
  tags: ['commodities', 'weather', 'agriculture', 'exports'],
  descricao:
    'Chuva, estiagem e geada nos cinturões de soja, milho, café, cana e algodão (Open-Meteo); focos de queimada por bioma (INPE); exportações mensais por commodity (ComexStat); energia armazenada por subsistema (ONS); e um briefing diário em inglês.',
  amostra: '/v1/commodities/amostra',
  // The exports are rebuilt by `dadosbr ingest exportacoes` (data/exportacoes); the rest are feeds.
  ingested: true,
  routes: [clima, fogo, exportacoes, hidrologia, briefing, pacote, amostra],
  open: openExportacoesStore,
  feeds: COMMODITIES_FEEDS,
  upstreams: [COMEXSTAT],
}
