// HTTP only: each registry route with its price (SPEC §4) and schemas; the work is in service.ts.
import type { z } from 'zod'
import { servingStore, storeOf, type AppContext } from '../../core/context'
import { ApiError } from '../../core/errors'
import { defineRoute } from '../../core/route'
import { BuscaQuery, BuscaResultado, CnpjPath, Empresa, EmpresaAmostra, EmpresaCompleta, Historico, Lote, Mudancas, MudancasQuery, ReferenciaQuery, Situacao, SocioBuscaQuery, SocioBuscaResultado, Socios } from './model'
import { CNPJS_DESCRICAO, lerListaDeCnpjs, LoteQuery, MAX_CNPJS_POR_LOTE, unidadesDoLote } from '../../core/lote'
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

const use = <R>(ctx: AppContext, fn: (files: CnpjFiles) => R | Promise<R>) => storeOf<CnpjStore>(ctx, 'cnpj').use(fn)
const CNPJ_NOTE = 'CNPJ com ou sem pontuação, numérico ou alfanumérico; um CNPJ inválido dá 400 cnpj_invalido antes de qualquer consulta (e não é cobrado).'
const REFERENCIA_NOTE =
  ' Com ?referencia=AAAA-MM, como estava num mês do histórico (docs/historico.md), pelo mesmo preço; um mês que o histórico não guarda dá 400 com os meses guardados, e um CNPJ que não constava naquele mês, 404.'

/**
 * The card routes' answer for the month in use, or with ?referencia= for a month of the history
 * (historico.ts; null when the month asked is the one in use). The plain path stays as it was.
 */
const atMonth = async <R>(referencia: string | undefined, now: () => R | Promise<R>, past: () => R | null): Promise<R> =>
  referencia === undefined ? now() : (past() ?? now())

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
    use(ctx, (files) => atMonth(query.referencia, () => service.empresaJson(files, params.cnpj), () => historico.empresaEm(files, params.cnpj, query.referencia))),
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
    use(ctx, (files) => atMonth(query.referencia, () => service.completoJson(files, params.cnpj), () => historico.completoEm(files, params.cnpj, query.referencia))),
})

export const lote = defineRoute({
  path: '/v1/cnpj/lote',
  dataset: 'cnpj',
  summary: 'Cartões de até 100 CNPJs numa chamada, cobrados por CNPJ',
  description:
    `cnpjs: ${CNPJS_DESCRICAO}. Cada item traz cnpj, encontrado e o cartão de /v1/cnpj/empresa/{cnpj} (resultado) ou o erro que essa rota daria ` +
    '(erro: cnpj_invalido, nao_encontrado), na ordem dada. O preço é o de /v1/cnpj/empresa por CNPJ válido e distinto (o 402 deste endereço diz o total); ' +
    'um CNPJ válido que não consta também conta. Lista vazia, mais de 100 itens, outro separador que não a vírgula ou nenhum CNPJ válido: 400, sem cobrança; ' +
    'nenhum dos válidos na base: 404, sem cobrança. Sem servidor: dadosbr consultar cnpj --arquivo lista.txt.',
  price: 0.005,
  units: unidadesDoLote,
  maxUnits: MAX_CNPJS_POR_LOTE,
  query: LoteQuery,
  response: Lote,
  errors: ['parametro_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  exampleInput: { query: { cnpjs: '33683111000280,12.ABC.345/01DE-35,11222333000181,33683111000107,123' } },
  handler: ({ query, ctx }) => use(ctx, (files) => service.loteJson(files, lerListaDeCnpjs(query.cnpjs))),
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
    'Ao menos um filtro além de situacao; todos valem juntos (E), com o nome e entre si. Com nome, a busca é sobre razão social e nome fantasia juntos (regras em docs/busca.md): ' +
    NOME_REGRAS +
    ' Filtros: uf; municipio (código TOM da Receita) ou municipio_ibge (7 dígitos, dígito verificador conferido); cnae (atividade principal), ' +
    'cnae_secundario (uma das secundárias) ou cnae_qualquer (principal ou secundária); natureza_juridica (4 dígitos); porte; ' +
    'capital_min e capital_max (reais, inclusive); simples e mei (true/false); abertura_de e abertura_ate (início de atividade, inclusive; ' +
    'uma data em branco ou impossível no cadastro não entra em nenhuma janela). ' +
    'Ordem: nomes mais curtos primeiro (o que mais se aproxima do que foi digitado), matriz antes de filial; sem nome, a mesma ordem. ' +
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
  description:
    `nome com 3 ou mais caracteres, com as mesmas regras da busca de empresas (docs/busca.md): ${NOME_REGRAS} ` +
    'documento: o do sócio como a Receita publica, CPF mascarado (***456789**: três asteriscos, os 6 dígitos do meio, dois asteriscos; ' +
    'o mesmo miolo pode ser de várias pessoas, e o nome separa) ou CNPJ completo, com ou sem pontuação (as participações de uma empresa em outras); ' +
    'com ou sem nome, ao menos um dos dois. Nomes mais curtos primeiro. cnpj é a raiz de 8 caracteres.',
  price: 0.02,
  query: SocioBuscaQuery,
  response: SocioBuscaResultado,
  errors: ['parametro_invalido', 'filtro_obrigatorio', 'dados_indisponiveis'],
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
    const store = servingStore<CnpjStore>(ctx, 'cnpj')
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
