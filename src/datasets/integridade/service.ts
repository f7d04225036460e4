// The screening itself, as plain functions over the open build, so another route (the enriched
// profile, /v1/empresa/enriquecer) gets exactly this answer without an HTTP call:
//   triagem(files, cnpj)            with the files of an open build (tests, batch use)
//   consultarIntegridade(ctx, cnpj) with the server's context (503 dados_indisponiveis when not loaded)
// The route itself sends the same answer as JSON bytes (triagemJson), written without objects.
import { storeOf, type AppContext } from '../../core/context'
import { JsonText } from '../../core/errors'
import type { Lote } from '../../core/lote'
import { LISTAS } from './layout'
import type { TriagemResultado } from './model'
import type { IntegridadeFiles, IntegridadeStore } from './store'

let today = { until: 0, date: '' }

/**
 * Today in Brasília (UTC-3 all year since 2019, when Brazil dropped daylight saving): a sanction
 * whose end date is today is still in force today. Worked out once a second, not per request.
 */
export function hojeEmBrasilia(now = Date.now()): string {
  if (now < today.until && now >= today.until - 1000) return today.date
  const date = new Date(now - 3 * 3600_000).toISOString().slice(0, 10)
  today = { until: now + 1000, date }
  return date
}

const LIST_OPEN = LISTAS.map((l, i) => Buffer.from(`${i ? '],' : ''}"${l}":[`, 'latin1'))
const COMMA = Buffer.from(',')
const TRUE = Buffer.from('true,')
const FALSE = Buffer.from('false,')
const CLOSE_LISTS = Buffer.from(']},"fonte":')

/**
 * The screening's answer as UTF-8 JSON: what /v1/integridade/consulta/{cnpj} sends, put together
 * from the records' bytes as cut at open (store.ts), never decoded to strings (decoding and parsing
 * them, then stringifying the objects, cost most of a lookup). Always the JSON of triagem(...),
 * which parses it.
 */
export function triagemJson(files: IntegridadeFiles, cnpj: string, hoje = hojeEmBrasilia()): Uint8Array {
  const daRaiz = files.porRaiz.get(cnpj.slice(0, 8))
  if (!daRaiz) return join(`{"cnpj":"${cnpj}",`, [files.limpaJson], '')
  let total = 0
  let vigentes = 0
  const pieces: Uint8Array[] = []
  for (let l = 0; l < LISTAS.length; l++) {
    pieces.push(LIST_OPEN[l]!)
    const list = daRaiz[l]!
    // In build order (newest first); the matches filed under this CNPJ go first, then those of
    // other establishments of the root, each group in that order.
    for (let pass = 0; pass < 2; pass++)
      for (const a of list) {
        if ((a.cnpj === cnpj) !== (pass === 0)) continue
        const v = hoje <= a.vigenteAte
        if (v) vigentes++
        if (pieces[pieces.length - 1] !== LIST_OPEN[l]) pieces.push(COMMA)
        total++
        pieces.push(pass === 0 ? a.cabecaCnpj : a.cabecaRaiz, v ? TRUE : FALSE, a.campos)
      }
  }
  pieces.push(CLOSE_LISTS, files.fonteJson)
  return join(`{"cnpj":"${cnpj}","total_apontamentos":${total},"ficha_limpa":${vigentes === 0},"apontamentos":{`, pieces, '}')
}

/** An ASCII head, byte pieces and an ASCII tail, written once into a buffer of the exact size. */
function join(head: string, pieces: Uint8Array[], tail: string): Uint8Array {
  let size = head.length + tail.length
  for (const p of pieces) size += p.length
  const out = Buffer.allocUnsafe(size)
  let at = out.write(head, 0, 'latin1')
  for (const p of pieces) (out.set(p, at), (at += p.length))
  out.write(tail, at, 'latin1')
  return out
}

/**
 * Screens a (valid, normalized) CNPJ in the five lists, as an object (for routes that combine it
 * with other data, like the enriched profile). A sanction binds the legal entity, so every record
 * of the same 8-character root is returned, those filed under this very CNPJ first.
 */
export function triagem(files: IntegridadeFiles, cnpj: string, hoje = hojeEmBrasilia()): TriagemResultado {
  return JSON.parse(new TextDecoder().decode(triagemJson(files, cnpj, hoje))) as TriagemResultado
}

/** The screening from the server's loaded build, as an object (503 dados_indisponiveis when not loaded). */
export function consultarIntegridade(ctx: AppContext, cnpj: string): Promise<TriagemResultado> {
  return storeOf<IntegridadeStore>(ctx, 'integridade').use((s) => triagem(s.files, cnpj))
}

/** The same, as the JSON bytes the route sends. */
export function consultarIntegridadeJson(ctx: AppContext, cnpj: string): Promise<JsonText> {
  return storeOf<IntegridadeStore>(ctx, 'integridade').use((s) => new JsonText(triagemJson(s.files, cnpj)))
}

const ITEM_CLOSE = Buffer.from('}')
const SEP = Buffer.from(',')

/**
 * /v1/integridade/lote: each CNPJ's screening, the bytes /v1/integridade/consulta/{cnpj} sends, in
 * the order listed (lerListaDeCnpjs in src/core/lote.ts); an invalid one with the single route's
 * error. encontrado: the root has a record on some list.
 */
export function triagemLoteJson(files: IntegridadeFiles, lista: Lote, hoje = hojeEmBrasilia()): Uint8Array {
  const pieces: Uint8Array[] = []
  let encontrados = 0
  for (const item of lista.itens) {
    if (pieces.length) pieces.push(SEP)
    if (item.cnpj === null) {
      pieces.push(Buffer.from(JSON.stringify({ cnpj: item.entrada, encontrado: false, erro: item.erro })))
      continue
    }
    const encontrado = files.porRaiz.has(item.cnpj.slice(0, 8))
    if (encontrado) encontrados++
    pieces.push(Buffer.from(`{"cnpj":"${item.cnpj}","encontrado":${encontrado},"resultado":`, 'latin1'), triagemJson(files, item.cnpj, hoje), ITEM_CLOSE)
  }
  pieces.push(Buffer.from('],"fonte":', 'latin1'), files.fonteJson)
  return join(`{"total":${lista.itens.length},"validos":${lista.validos.length},"encontrados":${encontrados},"itens":[`, pieces, '}')
}

/** The same from the server's loaded build (503 dados_indisponiveis when not loaded). */
export function consultarLoteJson(ctx: AppContext, lista: Lote): Promise<JsonText> {
  return storeOf<IntegridadeStore>(ctx, 'integridade').use((s) => new JsonText(triagemLoteJson(s.files, lista)))
}
