import type { Dataset } from '../../core/dataset'
import { amostra, instituicaoRoute } from './route'
import { openBcbStore } from './store'
import { BCB_INSTITUICOES } from './upstreams'

export const bcb: Dataset = {
  name: 'bcb',
  titulo: 'Banco Central: instituições autorizadas e domínios verificados',
  tags: ['central-bank', 'banks', 'kyb', 'cnpj'],
  descricao: 'Se uma empresa (raiz do CNPJ) é instituição autorizada pelo Banco Central, em que listas aparece e quais os sítios oficiais que informou; da relação mensal de instituições em funcionamento.',
  amostra: '/v1/bcb/amostra',
  ingested: true,
  routes: [instituicaoRoute, amostra],
  open: openBcbStore,
  upstreams: [BCB_INSTITUICOES],
}
