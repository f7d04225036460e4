import type { Dataset } from '../../core/dataset'
import { amostra, busca, completo, empresa, historicoRoute, lote, mudancas, situacao, socioBusca, socios } from './route'
import { openCnpjStore } from './store'

export const cnpj: Dataset = {
  name: 'cnpj',
  titulo: 'Cadastro de empresas (CNPJ)',
  tags: ['cnpj', 'company-registry', 'kyb', 'brazil'],
  descricao: 'Todas as empresas do cadastro público da Receita Federal, do dump mensal: situação, cartão, sócios, filiais e buscas.',
  amostra: '/v1/cnpj/amostra',
  ingested: true,
  routes: [situacao, empresa, socios, completo, historicoRoute, lote, busca, socioBusca, mudancas, amostra],
  open: openCnpjStore,
}
