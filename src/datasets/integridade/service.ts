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

/**
 * Pieces of an answer in one buffer: ASCII texts (keys, CNPJs, booleans, numbers) and stored UTF-8
 * JSON, written once into a buffer of the exact size (no buffer per piece).
 */
function assemble(pieces: (string | Uint8Array)[]): Uint8Array {
  let size = 0
  for (const p of pieces) size += p.length
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const p of pieces) at += typeof p === 'string' ? out.write(p, at, 'latin1') : (out.set(p, at), p.length)
  return out
}

/** The lists of a CNPJ on none of them (most screenings). */
const VAZIAS = `"total_apontamentos":0,"ficha_limpa":true,"apontamentos":{${LISTAS.map((l) => `"${l}":[]`).join(',')}},"fonte":`

/**
 * The screening's answer as UTF-8 JSON: what /v1/integridade/consulta/{cnpj} sends, put together
 * from the records' JSON bytes as stored, never decoded to strings (decoding and parsing them, then
 * stringifying the objects, cost most of a lookup). Always the JSON of triagem(...), which parses it.
 */
export function triagemJson(files: IntegridadeFiles, cnpj: string, hoje = hojeEmBrasilia()): Uint8Array {
  const root = cnpj.slice(0, 8)
  const rows = files.raizes.has(root) ? (files.porRaiz.values(root) as LinhaApontamento[]) : []
  if (rows.length === 0) return assemble([`{"cnpj":"${cnpj}",${VAZIAS}`, files.fonteJson, '}'])
  rows.sort((a, b) => a[5] - b[5])
  let vigentes = 0
  const pieces: (string | Uint8Array)[] = ['']
  for (let l = 0; l < LISTAS.length; l++) {
    pieces.push(`${l ? ',' : ''}"${LISTAS[l]}":[`)
    // Rows in build order (by list, newest first); the matches filed under this CNPJ go first, then
    // those of other establishments of the root, each group in that order.
    let first = true
    for (let pass = 0; pass < 2; pass++)
      for (const [lista, filed, fim, situacao, corpo] of rows) {
        if (lista !== LISTAS[l] || (filed === cnpj) !== (pass === 0)) continue
        const v = vigente(lista, fim, situacao, hoje)
        if (v) vigentes++
        // The three leading keys, then the stored fields without their opening brace.
        pieces.push(`${first ? '' : ','}{"correspondencia":"${pass === 0 ? 'cnpj' : 'raiz'}","cnpj":"${filed}","vigente":${v},`, corpo.subarray(1))
        first = false
      }
    pieces.push(']')
  }
  pieces[0] = `{"cnpj":"${cnpj}","total_apontamentos":${rows.length},"ficha_limpa":${vigentes === 0},"apontamentos":{`
  pieces.push('},"fonte":', files.fonteJson, '}')
  return assemble(pieces)
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
