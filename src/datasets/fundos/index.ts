import type { Dataset } from '../../core/dataset'
import { CVM_FI_UPSTREAM } from './upstream'
import { amostra, carteira, consulta, fluxos, movimentacoes, ranking } from './route'
import { openFundosStore } from './store'

export const fundos: Dataset = {
  name: 'fundos',
  titulo: 'Fundos de investimento (CVM)',
  tags: ['funds', 'cvm', 'investments', 'brazil'],
  descricao: 'Fluxos diários por classificação, cadastro, ranking, carteiras de ações e movimentações por ação, dos dados abertos da CVM (informes diários de 12 meses, registro RCVM 175, CDA).',
  amostra: '/v1/fundos/amostra',
  ingested: true,
  routes: [fluxos, consulta, ranking, carteira, movimentacoes, amostra],
  open: openFundosStore,
  upstreams: [CVM_FI_UPSTREAM],
}
