import type { Dataset } from '../../core/dataset'
import { indice, validarCnpj, validarCpf } from './route'

export const ferramentas: Dataset = {
  name: 'ferramentas',
  titulo: 'Ferramentas grátis',
  descricao: 'Validação de CNPJ (inclusive alfanumérico) e CPF: aritmética pura, sem base, sem chave, sem limite de taxa.',
  ingested: false,
  routes: [indice, validarCnpj, validarCpf],
}
