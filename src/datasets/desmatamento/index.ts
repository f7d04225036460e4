import type { Dataset } from '../../core/dataset'
import { amostraRoute, fornecedorRoute, municipioRoute, rankingRoute } from './route'
import { openDesmatamentoStore } from './store'
import { DETER_DOWNLOAD, RFB_MUNICIPIOS } from './upstreams'

export const desmatamento: Dataset = {
  name: 'desmatamento',
  titulo: 'Desmatamento: alertas DETER (Amazônia e Cerrado) por município, por fornecedor e em ranking',
  tags: ['deforestation', 'eudr', 'esg', 'amazon'],
  descricao:
    'Alertas de desmatamento e degradação do DETER (INPE) desde o corte do regulamento europeu (2020-12-31), por município: ' +
    'área e alertas desde o corte e nos últimos 30, 90 e 365 dias, classes e posição no ranking; a exposição de um CNPJ pelos ' +
    'municípios dos seus estabelecimentos ativos e as microrregiões deles; rankings de municípios e UFs em qualquer janela.',
  amostra: '/v1/desmatamento/amostra',
  ingested: true,
  routes: [municipioRoute, fornecedorRoute, rankingRoute, amostraRoute],
  open: openDesmatamentoStore,
  upstreams: [DETER_DOWNLOAD, RFB_MUNICIPIOS],
}
