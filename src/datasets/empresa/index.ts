import type { Dataset } from '../../core/dataset'
import { amostra, enriquecer } from './route'

export const empresa: Dataset = {
  name: 'empresa',
  titulo: 'Perfil enriquecido (cadastro, integridade, Banco Central e contratos numa chamada)',
  tags: ['cnpj', 'kyb', 'due-diligence', 'sanctions'],
  descricao: 'Combina, dos arquivos deste servidor, o cadastro da Receita, a triagem de integridade, a consulta ao Banco Central e os contratos públicos do PNCP de uma empresa.',
  amostra: '/v1/empresa/amostra',
  // Built from the other bases' files: nothing of its own to ingest or open.
  ingested: false,
  routes: [enriquecer, amostra],
}
