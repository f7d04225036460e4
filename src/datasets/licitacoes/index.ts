import type { Dataset } from '../../core/dataset'
import { abertasFeed } from './feed'
import { PNCP } from './pncp'
import { abertas, amostra, fornecedor } from './route'
import { openContractsStore } from './store'

export const licitacoes: Dataset = {
  name: 'licitacoes',
  titulo: 'Compras públicas (PNCP): contratos por fornecedor e licitações abertas',
  tags: ['procurement', 'tenders', 'government', 'cnpj'],
  descricao: 'Todos os contratos publicados no PNCP, num índice local por fornecedor (dadosbr ingest licitacoes), e as licitações com propostas abertas, de uma cópia local atualizada a cada 30 minutos.',
  amostra: '/v1/licitacoes/amostra',
  ingested: true,
  routes: [fornecedor, abertas, amostra],
  open: openContractsStore,
  feeds: [abertasFeed],
  upstreams: [PNCP],
}
