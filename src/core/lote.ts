// A list of CNPJs in one request (the bulk routes, /v1/cnpj/lote and /v1/integridade/lote): how the
// `cnpjs` query parameter is read, once, by both the price (RouteDef.units: one unit per valid,
// distinct CNPJ) and the handler, so the 402 challenge of a URL states exactly what its answer holds.
// The same item rule answers each line of `dadosbr consultar` (src/cli/consultar.ts).
import { z } from 'zod'
import { checkCnpj } from './documents'
import { ApiError } from './errors'

/** Most CNPJs one request may list (counted as given, duplicates and invalid ones included). */
export const MAX_CNPJS_POR_LOTE = 100

/** What the single routes say of an invalid CNPJ (src/core/validate.ts cnpjParam), without the parameter's name. */
export const CNPJ_FORMATO_INVALIDO = 'CNPJ com formato inválido: use 14 caracteres (números ou letras A-Z, os dois últimos números), com ou sem pontuação'
export const CNPJ_DIGITO_INVALIDO = 'CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)'

/** One item as given: the normalized CNPJ when valid, else why not. */
export type ItemDoLote = { entrada: string; cnpj: string } | { entrada: string; cnpj: null; erro: { codigo: 'cnpj_invalido'; mensagem: string } }

/** One text as a list item (a line of a file, an element of `cnpjs`): trimmed, checked as the single routes check a CNPJ. */
export function itemDoLote(text: string): ItemDoLote {
  const entrada = text.trim()
  const check = checkCnpj(entrada)
  if (check.valido) return { entrada, cnpj: check.cnpj }
  return { entrada, cnpj: null, erro: { codigo: 'cnpj_invalido', mensagem: check.motivo === 'formato_invalido' ? CNPJ_FORMATO_INVALIDO : CNPJ_DIGITO_INVALIDO } }
}

/** Separators people use instead of commas: a list joined by them is refused whole (400), not read as one bad CNPJ. */
const OTHER_SEPARATOR = /[;|\t\r\n]/

export interface Lote {
  /** Each distinct item in the order given (a CNPJ listed twice, punctuated or not, once). */
  itens: ItemDoLote[]
  /** The valid, distinct CNPJs: the billable units. */
  validos: string[]
}

const bad = (mensagem: string) => new ApiError('parametro_invalido', `parâmetro de consulta 'cnpjs': ${mensagem}`)

/**
 * Reads `cnpjs`: CNPJs separated by commas (spaces around them allowed), up to MAX_CNPJS_POR_LOTE,
 * punctuated or not. An empty list, more items than allowed, another separator (; | tab, line
 * break, or a space between two CNPJs), or a list with no valid CNPJ is a 400 naming the rule;
 * each invalid item otherwise stays in the list with its error (not charged).
 */
export function lerLote(query: URLSearchParams): Lote {
  const all = query.getAll('cnpjs')
  if (all.length > 1) throw new ApiError('parametro_repetido', "parâmetro de consulta 'cnpjs' aparece mais de uma vez; junte os CNPJs num só, separados por vírgula")
  return lerListaDeCnpjs(all[0] ?? '')
}

/** Most characters `cnpjs` may have: 100 punctuated CNPJs with a comma and a space each take ~2 000. */
export const MAX_TEXTO_DO_LOTE = 4000
const TEXTO_LONGO = (n: number) => `a lista tem ${n} caracteres; o máximo é ${MAX_TEXTO_DO_LOTE} (${MAX_CNPJS_POR_LOTE} CNPJs com pontuação, vírgula e espaço cabem em ~2 000)`

/** The same rule over the parameter's text (the handler's parsed query). */
export function lerListaDeCnpjs(raw: string): Lote {
  // Checked by the price too (unidadesDoLote): a URL the handler would refuse is never priced.
  if (raw.length > MAX_TEXTO_DO_LOTE) throw bad(TEXTO_LONGO(raw.length))
  if (OTHER_SEPARATOR.test(raw)) throw bad('separe os CNPJs por vírgula (ex. cnpjs=33683111000280,33.683.111/0002-80); ponto e vírgula, barra vertical, tabulação e quebra de linha não separam')
  const given = raw.split(',').map((s) => s.trim()).filter(Boolean)
  if (!given.length) throw bad(LISTA_VAZIA)
  if (given.length > MAX_CNPJS_POR_LOTE) throw bad(`no máximo ${MAX_CNPJS_POR_LOTE} CNPJs por pedido (vieram ${given.length}); divida a lista em pedidos de até ${MAX_CNPJS_POR_LOTE}`)
  const itens: ItemDoLote[] = []
  const validos: string[] = []
  const seen = new Set<string>()
  for (const text of given) {
    // Two CNPJs with a space between them: a separator other than the comma.
    if (/\s/.test(text) && text.replace(/[^0-9A-Za-z]/g, '').length >= 28) throw bad('separe os CNPJs por vírgula (ex. cnpjs=33683111000280,33.683.111/0002-80); espaço não separa')
    const item = itemDoLote(text)
    const key = item.cnpj ?? `\u0000${item.entrada}`
    if (seen.has(key)) continue
    seen.add(key)
    itens.push(item)
    if (item.cnpj) validos.push(item.cnpj)
  }
  if (!validos.length) throw bad('nenhum CNPJ válido na lista; confira cada um em /v1/ferramentas/cnpj/{valor} (grátis). Nada foi cobrado')
  return { itens, validos }
}

/** The billable units of a bulk request (RouteDef.units): its valid, distinct CNPJs; the 400 of lerLote otherwise. */
export const unidadesDoLote = (input: { query: URLSearchParams }) => lerLote(input.query).validos.length

/** The query parameter as the OpenAPI document describes it (the route's zod schema reads it as text; lerLote checks it). */
export const CNPJS_DESCRICAO = `de 1 a ${MAX_CNPJS_POR_LOTE} CNPJs separados por vírgula, com ou sem pontuação (até ${MAX_TEXTO_DO_LOTE} caracteres); repetidos contam uma vez; cada inválido volta com o seu erro e não é cobrado`

const LISTA_VAZIA = `informe de 1 a ${MAX_CNPJS_POR_LOTE} CNPJs separados por vírgula (ex. cnpjs=33683111000280,33.683.111/0002-80)`

/** The query of a bulk route: `cnpjs` as text, required (lerListaDeCnpjs reads it, with the same message when it is empty). */
export const LoteQuery = z.object({
  cnpjs: z.string({ error: LISTA_VAZIA }).max(MAX_TEXTO_DO_LOTE, { error: (i) => TEXTO_LONGO(String(i.input ?? '').length) }).describe(CNPJS_DESCRICAO).meta({ example: '33683111000280,12.ABC.345/01DE-35,11222333000181' }),
})

/** An error of one item of a bulk answer: the code and message its single route gives. */
const ErroItem = z.object({ codigo: z.string(), mensagem: z.string() })

/**
 * A bulk answer (/v1/cnpj/lote, /v1/integridade/lote): one item per distinct CNPJ in the order
 * given, each with the single route's object or its error.
 */
export function loteDe<T extends z.ZodType>(resultado: T, encontrado: string, fonte: z.ZodType) {
  return z.object({
    total: z.number().int().describe('itens distintos da lista (válidos e inválidos)'),
    validos: z.number().int().describe('CNPJs válidos e distintos: as unidades cobradas'),
    encontrados: z.number().int(),
    itens: z.array(
      z.object({
        cnpj: z.string().describe('o CNPJ normalizado (14 caracteres); para um item inválido, o texto como veio'),
        encontrado: z.boolean().describe(encontrado),
        resultado: resultado.optional().describe('o mesmo objeto que a rota de um CNPJ responde'),
        erro: ErroItem.optional().describe('o erro que a rota de um CNPJ daria (cnpj_invalido, nao_encontrado)'),
      }),
    ),
    fonte,
  })
}
