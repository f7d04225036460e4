// HTTP only: each registry route with its price (SPEC §4) and schemas; the work is in service.ts.
import type { z } from 'zod'
import { storeOf, type AppContext } from '../../core/context'
import { ApiError } from '../../core/errors'
import { defineRoute } from '../../core/route'
import { BuscaQuery, BuscaResultado, CnpjPath, Empresa, EmpresaAmostra, EmpresaCompleta, Historico, Mudancas, MudancasQuery, ReferenciaQuery, Situacao, SocioBuscaQuery, SocioBuscaResultado, Socios } from './model'
import * as service from './service'
import * as historico from './historico'
import type { CnpjFiles, CnpjStore } from './store'
// Embedded in the executable by `bun build --compile` (a plain JSON import).
import AMOSTRA_COPIA from './amostra.json'

/** SERPRO's Brasília branch: public, stable, and the company in the shared real-format excerpt. */
export const AMOSTRA_CNPJ = '33683111000280'

/** The name rules of both searches (search-text.ts, docs/busca.md), for their descriptions and the OpenAPI document. */
const NOME_REGRAS =
  'acentos, caixa e largura (letras de largura total) não importam; toda palavra é exigida, em qualquer ordem, e vale como começo de palavra ' +
  '(farmacia acha FARMÁCIAS, joa acha JOÃO; uma palavra de uma letra só vale inteira); abreviações com pontos ou barras são uma palavra ' +
  '(S.A. = S/A = SA); formas jurídicas (LTDA, ME, EPP, EIRELI, SA, MEI) e conectivos (DE, DA, DO, DAS, DOS, E, EM) são ignorados, e um ' +
  'nome só com elas dá 400 parametro_invalido; no máximo 8 palavras.'

const use = <R>(ctx: AppContext, fn: (files: CnpjFiles) => Promise<R>) => storeOf<CnpjStore>(ctx, 'cnpj').use(fn)
const CNPJ_NOTE = 'CNPJ com ou sem pontuação, numérico ou alfanumérico; um CNPJ inválido dá 400 cnpj_invalido antes de qualquer consulta (e não é cobrado).'
const REFERENCIA_NOTE =
  ' Com ?referencia=AAAA-MM, como estava num mês do histórico (docs/historico.md), pelo mesmo preço; um mês que o histórico não guarda dá 400 com os meses guardados, e um CNPJ que não constava naquele mês, 404.'

/**
 * The card routes' answer for the month in use, or with ?referencia= for a month of the history
 * (historico.ts; null when the month asked is the one in use). The plain path stays as it was.
 */
const atMonth = <R>(referencia: string | undefined, now: () => Promise<R>, past: () => R | null): Promise<R> =>
  referencia === undefined ? now() : Promise.resolve().then(() => past() ?? now())

export const situacao = defineRoute({
  path: '/v1/cnpj/situacao/{cnpj}',
  dataset: 'cnpj',
  summary: 'Situação cadastral de um CNPJ',
  description: `${CNPJ_NOTE} Um CNPJ válido que não consta na base responde 200 com existe=false.`,
  price: 0.001,
  params: CnpjPath,
  response: Situacao,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  handler: ({ params, ctx }) => use(ctx, (files) => service.situacao(files, params.cnpj)),
})

export const empresa = defineRoute({
  path: '/v1/cnpj/empresa/{cnpj}',
  dataset: 'cnpj',
  summary: 'Cartão CNPJ do estabelecimento',
  description: CNPJ_NOTE + REFERENCIA_NOTE,
  price: 0.005,
  params: CnpjPath,
  query: ReferenciaQuery,
  response: Empresa,
  errors: ['cnpj_invalido', 'parametro_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  handler: ({ params, query, ctx }) =>
    use(ctx, (files) => atMonth(query.referencia, () => service.empresa(files, params.cnpj), () => historico.empresaEm(files, params.cnpj, query.referencia))),
})

export const socios = defineRoute({
  path: '/v1/cnpj/empresa/{cnpj}/socios',
  dataset: 'cnpj',
  summary: 'Quadro de sócios e administradores',
  description: `${CNPJ_NOTE} O quadro é da empresa (raiz); CPFs vêm mascarados pela própria Receita.${REFERENCIA_NOTE}`,
  price: 0.005,
  params: CnpjPath,
  query: ReferenciaQuery,
  response: Socios,
  errors: ['cnpj_invalido', 'parametro_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  handler: ({ params, query, ctx }) =>
    use(ctx, (files) => atMonth(query.referencia, () => service.sociosDe(files, params.cnpj), () => historico.sociosEm(files, params.cnpj, query.referencia))),
})

export const completo = defineRoute({
  path: '/v1/cnpj/empresa/{cnpj}/completo',
  dataset: 'cnpj',
  summary: 'Cartão, sócios e demais estabelecimentos da mesma raiz',
  description: `${CNPJ_NOTE} filiais traz até ${service.MAX_FILIAIS} outros estabelecimentos da raiz, por CNPJ; total_filiais conta todos.${REFERENCIA_NOTE}`,
  price: 0.01,
  params: CnpjPath,
  query: ReferenciaQuery,
  response: EmpresaCompleta,
  errors: ['cnpj_invalido', 'parametro_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  handler: ({ params, query, ctx }) =>
    use(ctx, (files) => atMonth(query.referencia, () => service.completo(files, params.cnpj), () => historico.completoEm(files, params.cnpj, query.referencia))),
})

export const historicoRoute = defineRoute({
  path: '/v1/cnpj/empresa/{cnpj}/historico',
  dataset: 'cnpj',
  summary: 'Histórico de mudanças de um CNPJ, mês a mês',
  description:
    `${CNPJ_NOTE} Cada mudança que os dumps mensais mostraram desde o primeiro mês guardado, da mais nova à mais antiga: tipo, campo do cartão, antes e depois como o cartão de cada mês os mostrava. ` +
    'As mudanças da empresa (razão social, natureza jurídica, capital, porte, Simples, MEI, sócios) valem para todos os estabelecimentos da raiz. ' +
    'Um CNPJ sem histórico responde 200 com mudancas vazio. meses diz em que meses guardados ele constava do cadastro (cada um vale em ?referencia= de /empresa, /completo e /socios). Preço de /completo.',
  price: 0.01,
  params: CnpjPath,
  response: Historico,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  handler: ({ params, ctx }) => use(ctx, async (files) => historico.historico(files, params.cnpj)),
})

export const mudancas = defineRoute({
  path: '/v1/cnpj/mudancas',
  dataset: 'cnpj',
  summary: 'O que mudou no cadastro num mês: aberturas, baixas, mudanças de endereço, de atividade, de sócios...',
  description:
    'O feed de mudanças de um mês do histórico (padrão: o mais recente) contra o mês anterior guardado, com filtros que se combinam: tipo, uf, municipio (código de 4 dígitos da Receita), cnae (atividade principal). ' +
    '"Empresas abertas em SP no CNAE 6201501 no último mês" é ?tipo=abertura&uf=SP&cnae=6201501. Ordem: tipo (na ordem do enum), UF, município, CNAE, CNPJ. ' +
    'total é exato; por_pagina até 100; uma página além do fim, um mês fora do histórico ou um tipo desconhecido dão 400 (não cobrado). Preço de /busca.',
  price: 0.01,
  query: MudancasQuery,
  response: Mudancas,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  exampleInput: { query: { uf: 'DF' } },
  handler: ({ query, ctx }) => use(ctx, async (files) => historico.mudancas(files, query)),
})

export const busca = defineRoute({
  path: '/v1/cnpj/busca',
  dataset: 'cnpj',
  summary: 'Busca de empresas por nome e filtros',
  description:
    'Ao menos um filtro além de situacao. Com nome, a busca é sobre razão social e nome fantasia juntos (regras em docs/busca.md): ' +
    NOME_REGRAS +
    ' Ordem: nomes mais curtos primeiro (o que mais se aproxima do que foi digitado), matriz antes de filial; sem nome, a mesma ordem. ' +
    'total é exato até 10000; acima, "10000+"; a paginação vai até o 10000º resultado. porte aceita pequeno_porte e empresa_pequeno_porte.',
  price: 0.01,
  query: BuscaQuery,
  response: BuscaResultado,
  errors: ['parametro_invalido', 'filtro_obrigatorio', 'dados_indisponiveis'],
  exampleInput: { query: { nome: 'farmacia', uf: 'PR' } },
  handler: ({ query, ctx }) => use(ctx, (files) => service.busca(files, query)),
})

export const socioBusca = defineRoute({
  path: '/v1/cnpj/socio/busca',
  dataset: 'cnpj',
  summary: 'Empresas de que uma pessoa é sócia (busca reversa)',
  description: `nome com 3 ou mais caracteres, com as mesmas regras da busca de empresas (docs/busca.md): ${NOME_REGRAS} Nomes mais curtos primeiro. cnpj é a raiz de 8 caracteres.`,
  price: 0.02,
  query: SocioBuscaQuery,
  response: SocioBuscaResultado,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  exampleInput: { query: { nome: 'wilson' } },
  handler: ({ query, ctx }) => use(ctx, (files) => service.socioBusca(files, query)),
})

/**
 * The sample as built from the bundled sample month (test/cnpj/amostra.ts writes it; a test fails
 * when it differs from a fresh build): served when the loaded data lacks the company (a partial or
 * synthetic dump) or no data is loaded, so the free sample never fails. Its fonte.referencia is
 * the copy's own month.
 */
const amostraCopia = { ...(AMOSTRA_COPIA as Omit<z.output<typeof EmpresaAmostra>, 'origem'>), origem: 'copia_embutida' as const }

export const amostra = defineRoute({
  path: '/v1/cnpj/amostra',
  dataset: 'cnpj',
  summary: 'Amostra grátis: cadastro completo de uma empresa fixa (SERPRO, 33.683.111/0002-80)',
  description:
    'Da base carregada quando ela tem a empresa; senão (base parcial ou sintética, ou nenhuma base carregada), de uma cópia ' +
    'embutida no programa, construída da amostra do repositório: origem diz qual das duas, e fonte.referencia o mês de onde ela veio.',
  price: null,
  response: EmpresaAmostra,
  errors: [],
  handler: async ({ ctx }) => {
    const store = ctx.stores.get('cnpj') as CnpjStore | null | undefined
    const live = store
      ? await store.use(async (files) => {
          try {
            return { ...(await service.completo(files, AMOSTRA_CNPJ)), amostra: true as const, origem: 'base_carregada' as const }
          } catch (err) {
            if (err instanceof ApiError && err.codigo === 'nao_encontrado') return null
            throw err
          }
        })
      : null
    return live ?? amostraCopia
  },
})
