import type { Dataset } from '../../core/dataset'
import { amostra, buscaRoute, calendarioRoute, ncmRoute } from './route'
import { openTributosStore } from './store'
import { SISCOMEX_CLASSIF } from './upstreams'

export const tributos: Dataset = {
  name: 'tributos',
  titulo: 'Reforma tributária: IBS/CBS por NCM, anexos da LC 214/2025 e transição 2026-2033',
  tags: ['tax', 'ncm', 'tax-reform', 'brazil'],
  descricao: 'O regime de IBS e CBS de cada código NCM (alíquota zero, redução de 60% ou alíquotas-padrão) com o item dos anexos da LC 214/2025 que o fundamenta, a busca nos anexos e o calendário da transição de 2026 a 2033; a tabela NCM vem do Portal Único Siscomex.',
  amostra: '/v1/tributos/amostra',
  ingested: true,
  routes: [ncmRoute, buscaRoute, calendarioRoute, amostra],
  open: openTributosStore,
  upstreams: [SISCOMEX_CLASSIF],
}
