import type { Dataset } from '../../core/dataset'
import { CGU_DOWNLOADS, MTE_CADASTRO } from './upstreams'
import { amostra, consulta } from './route'
import { openIntegridadeStore } from './store'

export const integridade: Dataset = {
  name: 'integridade',
  titulo: 'Integridade: CEIS, CNEP, CEPIM, lista do trabalho escravo e acordos de leniência',
  tags: ['sanctions', 'compliance', 'kyb', 'cnpj'],
  descricao: 'Triagem de um CNPJ nas cinco listas oficiais de sanções e integridade (só pessoas jurídicas), com a raiz inteira da empresa; atualizada diariamente.',
  amostra: '/v1/integridade/amostra',
  ingested: true,
  routes: [consulta, amostra],
  open: openIntegridadeStore,
  upstreams: [CGU_DOWNLOADS, MTE_CADASTRO],
}
