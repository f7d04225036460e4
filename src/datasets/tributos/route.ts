// HTTP only: the tax-reform routes (SPEC §4 "Tax reform", §8) and the free sample; the work is in
// service.ts. The NCM lookup needs the NCM table (dadosbr ingest tributos); the search and the
// calendar read only the annex data the program carries, so they answer without it.
import type { z } from 'zod'
import type { AppContext } from '../../core/context'
import { storeOf } from '../../core/context'
import { JsonText } from '../../core/errors'
import { defineRoute } from '../../core/route'
import { BuscaQuery, BuscaResultado, CalendarioResultado, NcmAmostra, NcmPath, NcmQuery, NcmResultado } from './model'
import { anoPadrao, buscar, calendarioJson, consultarNcmJson } from './service'
import type { TributosFiles, TributosStore } from './store'
// Embedded in the executable; rewritten by `bun test/tributos/amostra.ts`.
import AMOSTRA_COPIA from './amostra.json'

/** The sample's code (rice, Annex I item 1) and year: fixed, so the sample and the examples do not change with the calendar. */
export const AMOSTRA_NCM = '10063021'
export const AMOSTRA_ANO = 2026

/** The build in use, when there is one: the search and the calendar only quote its table's date. */
function filesOf(ctx: AppContext): TributosFiles | null {
  return (ctx.stores.get('tributos') as TributosStore | null | undefined)?.peek()?.files ?? null
}

export const ncmRoute = defineRoute({
  path: '/v1/tributos/ncm/{codigo}',
  dataset: 'tributos',
  summary: 'Regime de IBS/CBS de um código NCM, com o fundamento nos anexos da LC 214/2025 e o contexto da transição',
  description:
    'codigo: NCM de 4 a 8 dígitos, com ou sem pontos (1006.30.21, 10063021, 10.06). ano: 2026 a 2033 (padrão: o ano corrente). ' +
    'Responde a descrição do código na tabela NCM vigente (Siscomex) e seus níveis acima; o regime principal (alíquota zero, ' +
    'redução de 60% ou alíquotas-padrão) com o item do Anexo que o fundamenta (redação literal, condições); todos os itens que ' +
    'alcançam o código (por prefixo: capítulo, posição, subposição, item ou código), as exceções ("exceto") e ressalvas que o ' +
    'deixam de fora; o Imposto Seletivo (Anexo XVII); e, para o ano, os tributos em vigor com as alíquotas que a lei fixa e a ' +
    'que sobra para este código. Código com menos de 8 dígitos: os subitens abaixo dele agrupados por regime (desdobramento). ' +
    'Código que não consta da tabela: 200 com existe=false e o que os Anexos dizem dele (eles valem pelo código escrito); o que sem a tabela não se sabe sai indeterminado, nunca um não. Formato inválido: 400 ncm_invalido, sem cobrança.',
  price: 0.005,
  params: NcmPath,
  query: NcmQuery,
  response: NcmResultado,
  errors: ['ncm_invalido', 'parametro_invalido', 'dados_indisponiveis'],
  exampleInput: { params: { codigo: '1006.30.21' }, query: { ano: '2026' } },
  handler: ({ params, query, ctx }) => storeOf<TributosStore>(ctx, 'tributos').use((s) => new JsonText(consultarNcmJson(s.files, params.codigo, query.ano ?? anoPadrao()))),
})

export const buscaRoute = defineRoute({
  path: '/v1/tributos/busca',
  dataset: 'tributos',
  summary: 'Busca nos anexos da LC 214/2025 (itens com regime, NCM/NBS citados e redação)',
  description:
    'termo: ao menos 3 caracteres. Palavras: cada palavra do termo precisa iniciar uma palavra do item (da redação, ou do ' +
    'assunto do Anexo), sem diferença de acentos, maiúsculas e singular/plural ("feijao" acha "Feijões"); artigos e preposições ' +
    'são ignorados. Um termo só de dígitos e pontos é um código: NCM (itens que citam o código, um nível acima ou abaixo dele) ' +
    'ou NBS (quando começa com "1." ou tem 9 dígitos). Ordem: itens cuja redação tem todas as palavras, palavras inteiras, a ' +
    'expressão inteira, depois a ordem dos Anexos. limite: 1 a 30 (padrão 10); total diz quantos itens acharam.',
  price: 0.005,
  query: BuscaQuery,
  response: BuscaResultado,
  errors: ['parametro_invalido'],
  exampleInput: { query: { termo: 'arroz', limite: '5' } },
  handler: ({ query, ctx }) => buscar(filesOf(ctx), query.termo, query.limite),
})

export const calendarioRoute = defineRoute({
  path: '/v1/tributos/calendario',
  dataset: 'tributos',
  summary: 'Calendário da transição 2026-2033: tributos em vigor a cada ano, alíquotas fixadas em lei e extinções, com fundamento',
  description:
    'Para cada ano de 2026 a 2033: CBS, IBS (parcelas estadual e municipal), Imposto Seletivo, PIS/Cofins, IPI, ICMS e ISS, com ' +
    'a situação, a alíquota quando a lei a fixa (2026: CBS 0,9% e IBS 0,1%; 2027-2028: IBS 0,05% + 0,05%), as reduções de ICMS e ' +
    'ISS de 2029 a 2032 e os dispositivos (LC 214/2025 e EC 132/2023). Alíquotas que a lei deixa para resolução do Senado ou lei ' +
    'ordinária vêm null com o artigo que as delega. extincoes: PIS/Cofins (2027), ICMS e ISS (2033), e o IPI reduzido a zero.',
  price: 0.002,
  response: CalendarioResultado,
  errors: [],
  handler: ({ ctx }) => new JsonText(calendarioJson(filesOf(ctx))),
})

const amostraCopia = AMOSTRA_COPIA as z.output<typeof NcmAmostra>
const amostraCopiaJson = JSON.stringify(amostraCopia)

export const amostra = defineRoute({
  path: '/v1/tributos/amostra',
  dataset: 'tributos',
  summary: 'Amostra grátis: regime do arroz (NCM 1006.30.21, Anexo I, item 1) em 2026',
  description:
    'A mesma resposta de /v1/tributos/ncm/1006.30.21?ano=2026, com amostra=true. Da base carregada quando ela tem o código; ' +
    'senão (ou sem base carregada), de uma cópia embutida no programa, construída da amostra do repositório.',
  price: null,
  response: NcmAmostra,
  errors: [],
  example: amostraCopia,
  handler: async ({ ctx }) => {
    const store = ctx.stores.get('tributos') as TributosStore | null | undefined
    const live = store ? await store.use((s) => (s.files.porCodigo.has(AMOSTRA_NCM) ? consultarNcmJson(s.files, AMOSTRA_NCM, AMOSTRA_ANO) : null)) : null
    return new JsonText(live ? `${live.slice(0, -1)},"amostra":true}` : amostraCopiaJson)
  },
})
