// HTTP only: the deforestation routes (SPEC §4 Deforestation) and the free sample; the work is in service.ts.
import type { z } from 'zod'
import { defineRoute } from '../../core/route'
import { Amostra, CnpjPath, Fornecedor, IbgePath, MunicipioDesmatamento, RankingQuery, RankingResposta } from './model'
import { amostra, consultarMunicipio, consultarRanking, fornecedor } from './service'
import type { DesmatamentoStore } from './store'
// Embedded in the executable; rewritten by `bun test/desmatamento/amostra.ts`.
import AMOSTRA_COPIA from './amostra.json'

const LIMITES =
  'Os alertas são do DETER (INPE), o sistema de alerta rápido por satélite, nos projetos Amazônia e Cerrado; contam ' +
  'os vistos a partir de 2021-01-01 (corte do regulamento europeu EUDR: 2020-12-31). Área = AREAMUNKM, a parte de cada ' +
  'alerta dentro do município. "Desmatamento" soma corte raso, desmatamento com vegetação e mineração; degradação, ' +
  'cicatriz de incêndio e corte seletivo entram só em area_km2. As janelas terminam na data do alerta mais recente da ' +
  'base (fonte.referencia), não no dia da consulta: a mesma base dá sempre a mesma resposta.'

export const municipioRoute = defineRoute({
  path: '/v1/desmatamento/municipio/{ibge}',
  dataset: 'desmatamento',
  summary: 'Alertas de desmatamento de um município desde o corte da EUDR (2020-12-31)',
  description:
    'Área e número de alertas desde 2021-01-01, nos últimos 30, 90 e 365 dias, por classe e por bioma, e a posição do ' +
    'município no ranking nacional e no do bioma (por área de desmatamento desde o corte). Código IBGE de 7 dígitos; um ' +
    'município sem alertas responde 200 com zeros e uma nota; formato, UF ou dígito verificador inválidos: 400; código bem ' +
    'formado de nenhum município: 404 (nada é cobrado por um 4xx). ' +
    LIMITES,
  price: 0.01,
  params: IbgePath,
  response: MunicipioDesmatamento,
  errors: ['parametro_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  exampleInput: { params: { ibge: '3523206' } },
  handler: ({ params, ctx }) => consultarMunicipio(ctx, params.ibge),
})

export const fornecedorRoute = defineRoute({
  path: '/v1/desmatamento/fornecedor/{cnpj}',
  dataset: 'desmatamento',
  summary: 'Exposição de um fornecedor ao desmatamento: os municípios dos seus estabelecimentos ativos e as microrregiões deles',
  description:
    'A ficha do CNPJ no cadastro da Receita, o município de cada estabelecimento ativo da mesma raiz (código TOM do ' +
    'cadastro → código IBGE pela tabela da Receita), os alertas desde o corte e nas janelas em cada um desses municípios e ' +
    'na sua microrregião do IBGE, e as limitações do método (os alertas são do município, não das terras da empresa). ' +
    'CNPJ que não consta do cadastro: 404. Precisa das bases desmatamento e cnpj carregadas. ' +
    LIMITES,
  price: 0.02,
  params: CnpjPath,
  response: Fornecedor,
  errors: ['cnpj_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  exampleInput: { params: { cnpj: '77888999000181' } },
  handler: ({ params, ctx }) => fornecedor(ctx, params.cnpj),
})

export const rankingRoute = defineRoute({
  path: '/v1/desmatamento/ranking',
  dataset: 'desmatamento',
  summary: 'Onde o desmatamento se concentra: municípios ou UFs por área desmatada',
  description:
    'Municípios (por=municipio) ou UFs (por=uf) em ordem de área de desmatamento na janela: os últimos `dias` dias até a ' +
    'data de referência (1 a 2000; sem dias, desde 2021-01-01), num bioma ou nos dois; até `limite` (1 a 50, padrão 20). ' +
    'total diz quantos têm área de desmatamento na janela. ' +
    LIMITES,
  price: 0.01,
  query: RankingQuery,
  response: RankingResposta,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  exampleInput: { query: { por: 'municipio', dias: '90', limite: '5' } },
  handler: ({ query, ctx }) => consultarRanking(ctx, query),
})

const amostraCopia = AMOSTRA_COPIA as z.output<typeof Amostra>

export const amostraRoute = defineRoute({
  path: '/v1/desmatamento/amostra',
  dataset: 'desmatamento',
  summary: 'Amostra grátis: totais nacionais de alertas por bioma desde 2021-01-01 e o município com mais área desmatada',
  description:
    'Da base carregada; sem base carregada, de uma cópia embutida no programa, construída da amostra do repositório ' +
    '(fonte diz de quando ela é). ' +
    LIMITES,
  price: null,
  response: Amostra,
  errors: [],
  example: amostraCopia,
  handler: async ({ ctx }) => {
    const store = ctx.stores.get('desmatamento') as DesmatamentoStore | null | undefined
    return store ? store.use((s) => amostra(s.files)) : amostraCopia
  },
})
