// The screening itself, as plain functions over the open build, so another route (the enriched
// profile, /v1/empresa/enriquecer) gets exactly this answer without an HTTP call:
//   triagem(files, cnpj)            with the files of an open build (tests, batch use)
//   consultarIntegridade(ctx, cnpj) with the server's context (503 dados_indisponiveis when not loaded)
// The route itself sends the same answer as JSON bytes (triagemJson), written without objects.
import { storeOf, type AppContext } from '../../core/context'
import { JsonText } from '../../core/errors'
import { LISTAS, type Lista } from './layout'
import type { TriagemResultado } from './model'
import type { IntegridadeFiles, IntegridadeStore, LinhaApontamento } from './store'

/**
 * Today in Brasília (UTC-3 all year since 2019, when Brazil dropped daylight saving): a sanction
 * whose end date is today is still in force today.
 */
export function hojeEmBrasilia(now = Date.now()): string {
  return new Date(now - 3 * 3600_000).toISOString().slice(0, 10)
}

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toUpperCase()

/**
 * Whether a leniency agreement is in force, by its situation ("Acordo em vigência", "Acordo
 * cumprido", "Acordo descumprido"...): in force while in effect or being carried out; not once
 * fulfilled, breached, rescinded or closed. A situation not recognized falls back on the end date.
 */
export function acordoVigente(situacao: string | null, fim: string | null, hoje: string): boolean {
  const s = fold(situacao ?? '')
  if (/VIGENCIA|VIGENTE|EXECUCAO|ANDAMENTO|EM CUMPRIMENTO/.test(s)) return true
  if (/CUMPRIDO|RESCIN|ENCERRAD|EXTINT|REVOGAD|ANULAD/.test(s)) return false
  return fim === null || fim >= hoje
}

function vigente(lista: Lista, fim: string | null, situacao: string | null, hoje: string): boolean {
  switch (lista) {
    case 'ceis':
    case 'cnep':
      return fim === null || fim >= hoje
    case 'acordos_leniencia':
      return acordoVigente(situacao, fim, hoje)
    default:
      // CEPIM and the MTE list have no end dates: being on the list published today is the sanction.
      return true
  }
}

/** Bytes of an ASCII text (keys, CNPJs, booleans, numbers). */
const ascii = (s: string) => Buffer.from(s, 'latin1')
const COMMA = ascii(',')
const CLOSE = ascii(']')
/** `"ceis":[`, `,"cnep":[`...: the answer's fixed pieces, made once. */
const OPEN = LISTAS.map((l, i) => ascii(`${i ? ',' : ''}"${l}":[`))
const FONTE = ascii('},"fonte":')
const END = ascii('}')

/**
 * The screening's answer as UTF-8 JSON: what /v1/integridade/consulta/{cnpj} sends, put together
 * from the records' JSON bytes as stored, never decoded to strings (decoding and parsing them, then
 * stringifying the objects, cost most of a lookup). Always the JSON of triagem(...), which parses it.
 */
export function triagemJson(files: IntegridadeFiles, cnpj: string, hoje = hojeEmBrasilia()): Uint8Array {
  const rows = (files.porRaiz.values(cnpj.slice(0, 8)) as LinhaApontamento[]).sort((a, b) => a[5] - b[5])
  let vigentes = 0
  const parts: Uint8Array[] = []
  for (let l = 0; l < LISTAS.length; l++) {
    parts.push(OPEN[l]!)
    // Rows in build order (by list, newest first); the matches filed under this CNPJ go first, then
    // those of other establishments of the root, each group in that order.
    let first = true
    for (const exato of [true, false])
      for (const [lista, filed, fim, situacao, corpo] of rows) {
        if (lista !== LISTAS[l] || (filed === cnpj) !== exato) continue
        const v = vigente(lista, fim, situacao, hoje)
        if (v) vigentes++
        // The three leading keys, then the stored fields without their opening brace.
        if (!first) parts.push(COMMA)
        parts.push(ascii(`{"correspondencia":"${exato ? 'cnpj' : 'raiz'}","cnpj":"${filed}","vigente":${v},`), corpo.subarray(1))
        first = false
      }
    parts.push(CLOSE)
  }
  parts.unshift(ascii(`{"cnpj":"${cnpj}","total_apontamentos":${rows.length},"ficha_limpa":${vigentes === 0},"apontamentos":{`))
  parts.push(FONTE, files.fonteJson, END)
  return Buffer.concat(parts)
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
