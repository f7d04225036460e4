// HTTP only: the procurement routes with their prices (SPEC §4) and schemas; the work is in service.ts.
import type { z } from 'zod'
import { storeOf, type AppContext } from '../../core/context'
import { defineRoute } from '../../core/route'
import { Abertas, AbertasQuery, CnpjPath, Fornecedor, FornecedorAmostra } from './model'
import * as service from './service'
import type { ContractsStore } from './store'
import AMOSTRA_COPIA from './amostra.json'

/** MIGRA DISTRIBUIDORA LTDA: a real supplier whose real PNCP contract is in the bundled sample (test/licitacoes/fixtures/README.md). */
export const AMOSTRA_CNPJ = '48061037000156'

const CNPJ_NOTE = 'CNPJ com ou sem pontuação, numérico ou alfanumérico; um CNPJ inválido dá 400 cnpj_invalido antes de qualquer consulta (e não é cobrado).'

const contracts = (ctx: AppContext) => storeOf<ContractsStore>(ctx, 'licitacoes')

export const fornecedor = defineRoute({
  path: '/v1/licitacoes/fornecedor/{cnpj}',
  dataset: 'licitacoes',
  summary: 'Contratos públicos de um fornecedor (PNCP)',
  description:
    `${CNPJ_NOTE} Todos os estabelecimentos da raiz de 8 caracteres do CNPJ: resumo sobre todos os contratos publicados no PNCP, ` +
    'contratos com os 100 mais recentes por data de assinatura (cnpj_fornecedor diz qual estabelecimento assinou). Sem contrato: 200 com zeros. ' +
    'fonte.referencia diz até que dia de publicação o índice local tem todos os contratos; contratos de pessoa física não são guardados (LGPD).',
  price: 0.01,
  params: CnpjPath,
  exampleInput: { params: { cnpj: '48.061.037/0001-56' } },
  response: Fornecedor,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  handler: ({ params, ctx }) => contracts(ctx).use((s) => service.fornecedor(s.files, params.cnpj)),
})

export const abertas = defineRoute({
  path: '/v1/licitacoes/abertas',
  dataset: 'licitacoes',
  summary: 'Licitações com recebimento de propostas aberto (PNCP)',
  description:
    'Nunca espera o PNCP (que leva 15-22 s por consulta): a resposta vem de uma cópia local da lista inteira de cada modalidade, atualizada em segundo plano ' +
    'a cada PNCP_ABERTAS_MINUTOS minutos (padrão 30) e guardada em disco; `uf` filtra essa cópia (só sem ela uma UF tem cópia própria). ' +
    'Licitações cujo prazo de propostas já passou ficam de fora (encerradas_omitidas). fonte.status: ok (cópia dentro do intervalo), cache_servido ' +
    '(mais velha, porque a atualização falhou ou ainda roda: aviso diz de quando), amostra (a amostra embutida, conferida na data em que foi gravada). ' +
    'Sem nenhuma cópia da consulta ainda: 503 dados_indisponiveis, sem cobrança. ' +
    'Ordem: encerramento das propostas mais próximo primeiro. modalidade: código do PNCP (6 = pregão eletrônico, o padrão; 1 a 13).',
  price: 0.01,
  query: AbertasQuery,
  response: Abertas,
  errors: ['parametro_invalido'],
  handler: ({ query, ctx }) => service.abertas(ctx, query),
})

const amostraCopia = AMOSTRA_COPIA as z.output<typeof FornecedorAmostra>

export const amostra = defineRoute({
  path: '/v1/licitacoes/amostra',
  dataset: 'licitacoes',
  summary: 'Amostra grátis: contratos públicos de um fornecedor real (MIGRA DISTRIBUIDORA LTDA, 48.061.037/0001-56)',
  description: 'Do índice carregado quando ele tem o fornecedor; senão, de uma cópia embutida no programa, construída da amostra do repositório.',
  price: null,
  response: FornecedorAmostra,
  errors: [],
  example: amostraCopia,
  handler: async ({ ctx }) => {
    const store = ctx.stores.get('licitacoes') as ContractsStore | null | undefined
    const live = store ? await store.use((s) => service.fornecedor(s.files, AMOSTRA_CNPJ)) : null
    return live && live.resumo.total_contratos > 0 ? { ...live, amostra: true as const } : amostraCopia
  },
})
