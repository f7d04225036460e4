// HTTP only: each fund route with its price (SPEC §4 Funds) and schemas; the work is in service.ts.
import type { z } from 'zod'
import { servingStore, storeOf, type AppContext } from '../../core/context'
import { defineRoute } from '../../core/route'
import { Amostra, Carteira, CnpjPath, Consulta, Fluxos, FluxosQuery, Movimentacoes, MovimentacoesQuery, Ranking, RankingQuery } from './model'
import * as service from './service'
import type { FundosFiles, FundosStore } from './store'
// Embedded in the executable by `bun build --compile` (a plain JSON import).
import AMOSTRA_COPIA from './amostra.json'

/** The sample's index fund (constructed, test/fundos/fixtures): the example of the CNPJ routes in /docs. */
const EXEMPLO_CNPJ = '99.110.006/0001-89'

const use = <R>(ctx: AppContext, fn: (files: FundosFiles) => R) => storeOf<FundosStore>(ctx, 'fundos').use((s) => fn(s.files))
const CNPJ_NOTE = 'CNPJ com ou sem pontuação (o da classe, como nos informes diários, ou o do fundo); um CNPJ inválido dá 400 cnpj_invalido antes de qualquer consulta (e não é cobrado).'

export const fluxos = defineRoute({
  path: '/v1/fundos/fluxos',
  dataset: 'fundos',
  summary: 'Captação e resgates diários dos fundos, por classificação CVM',
  description:
    'O último dia consolidado (captação, resgates, líquido, patrimônio) e a série diária por classificação CVM (Renda Fixa, Ações, Multimercado, Cambial...) ' +
    'nos últimos `dias` dias corridos até ele. ' + service.NOTA_FLUXOS,
  price: 0.005,
  query: FluxosQuery,
  exampleInput: { query: { dias: '5' } },
  response: Fluxos,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  handler: ({ query, ctx }) => use(ctx, (f) => service.fluxos(f, query)),
})

export const consulta = defineRoute({
  path: '/v1/fundos/consulta/{cnpj}',
  dataset: 'fundos',
  summary: 'Cadastro de um fundo ou classe na CVM, com a última cota, patrimônio e cotistas',
  description:
    `${CNPJ_NOTE} Situação, gestor, administrador, classe, classificação CVM e ANBIMA, e do informe diário a última cota, o patrimônio líquido ` +
    'e o número de cotistas, cada um com sua data. Um CNPJ válido que a CVM não lista responde 200 com encontrado=false.',
  price: 0.005,
  params: CnpjPath,
  exampleInput: { params: { cnpj: EXEMPLO_CNPJ } },
  response: Consulta,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  handler: ({ params, ctx }) => use(ctx, (f) => service.consulta(f, params.cnpj)),
})

export const ranking = defineRoute({
  path: '/v1/fundos/ranking',
  dataset: 'fundos',
  summary: 'Fundos por patrimônio, captação líquida ou cotistas',
  description:
    'Classes em atividade (informe nos 10 dias antes do último dia consolidado), com gestor, patrimônio, cota e fluxos na janela de `dias` dias corridos. ' +
    'por=captacao ordena pela captação líquida na janela (só classes que tiveram movimento nela). classificacao filtra pela classificação CVM; ' +
    'um valor desconhecido dá 400 com a lista dos aceitos. As listas são calculadas na ingestão.',
  price: 0.01,
  query: RankingQuery,
  exampleInput: { query: { por: 'captacao', classificacao: 'Ações', dias: '30', limite: '3' } },
  response: Ranking,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  handler: ({ query, ctx }) => use(ctx, (f) => service.ranking(f, query)),
})

export const carteira = defineRoute({
  path: '/v1/fundos/carteira/{cnpj}',
  dataset: 'fundos',
  summary: 'Ações, units e BDRs da carteira de um fundo (CDA, competência mais recente divulgada)',
  description: `${CNPJ_NOTE} Ticker, ISIN, quantidade, valor de mercado, compras e vendas do mês (quantidade e valor), com a defasagem da divulgação. ${service.NOTA_DEFASAGEM} Um fundo sem carteira carregada responde 200 com encontrado=false.`,
  price: 0.01,
  params: CnpjPath,
  exampleInput: { params: { cnpj: EXEMPLO_CNPJ } },
  response: Carteira,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  handler: ({ params, ctx }) => use(ctx, (f) => service.carteira(f, params.cnpj)),
})

export const movimentacoes = defineRoute({
  path: '/v1/fundos/movimentacoes',
  dataset: 'fundos',
  summary: 'O que os fundos compraram e venderam de cada ação no mês',
  description:
    'Por ticker, somando todos os fundos que divulgaram carteira: valor e quantidade comprados e vendidos no mês, fluxo líquido e posição final; ' +
    'maior fluxo líquido em valor absoluto primeiro. competencia AAAA-MM (padrão: a mais recente consolidada, isto é, com ao menos 90 % dos fundos ' +
    'da competência mais completa carregada); um mês fora do formato ou não carregado dá 400 dizendo quais estão.',
  price: 0.02,
  query: MovimentacoesQuery,
  exampleInput: { query: { competencia: '2026-06', limite: '3' } },
  response: Movimentacoes,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  handler: ({ query, ctx }) => use(ctx, (f) => service.movimentacoes(f, query)),
})

/**
 * The sample as built from the bundled sample (test/fundos/amostra.ts writes it; a test fails when
 * it differs from a fresh build): served when no fund base is loaded, so the free sample never fails.
 */
const amostraCopia = AMOSTRA_COPIA as unknown as z.output<typeof Amostra>

export const amostra = defineRoute({
  path: '/v1/fundos/amostra',
  dataset: 'fundos',
  summary: 'Amostra grátis da base de fundos (fluxos, ranking, cadastro, carteira e movimentações)',
  description:
    'Da base carregada: fluxos de 7 dias, os 5 maiores fundos, o cadastro e a carteira do maior fundo com ações, as 5 maiores movimentações. ' +
    'Sem base carregada, de uma cópia embutida no programa, construída da amostra do repositório (fonte diz de quando).',
  price: null,
  response: Amostra,
  errors: [],
  example: amostraCopia,
  handler: async ({ ctx }) => {
    const store = servingStore<FundosStore>(ctx, 'fundos')
    const live = store ? await store.use((s) => service.amostra(s.files)) : null
    return live ?? amostraCopia
  },
})
