import type { Dataset } from '../../core/dataset'
import { amostra, brasil } from './route'

export const pacotes: Dataset = {
  name: 'pacotes',
  titulo: 'Pacotes: todas as rotas sem parâmetros numa chamada',
  tags: ['brazil', 'markets', 'commodities', 'bundle'],
  descricao: 'Um pacote pago com todas as rotas pagas sem parâmetros do catálogo (a lista sai da tabela de rotas), por família e nome, cada parte com a sua fonte; e a lista grátis do que cada pacote contém e economiza.',
  amostra: '/v1/pacotes/amostra',
  ingested: false,
  routes: [brasil, amostra],
}
