// The screening itself, as plain functions over the open build, so another route (the enriched
// profile, /v1/empresa/enriquecer) gets exactly this answer without an HTTP call:
//   triagem(files, cnpj)           with the files of an open build (tests, batch use)
//   consultarIntegridade(ctx, cnpj) with the server's context (503 dados_indisponiveis when not loaded)
import { storeOf, type AppContext } from '../../core/context'
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

/**
 * Screens a (valid, normalized) CNPJ in the five lists. A sanction binds the legal entity, so
 * every record of the same 8-character root is returned, those filed under this very CNPJ first.
 */
export function triagem(files: IntegridadeFiles, cnpj: string, hoje = hojeEmBrasilia()): TriagemResultado {
  const apontamentos = { ceis: [], cnep: [], cepim: [], trabalho_escravo: [], acordos_leniencia: [] } as Record<Lista, Record<string, unknown>[]>
  const exatos = { ceis: 0, cnep: 0, cepim: 0, trabalho_escravo: 0, acordos_leniencia: 0 } as Record<Lista, number>
  let total = 0
  let vigentes = 0
  for (const [lista, filed, fim, situacao, corpo] of files.porRaiz.values(cnpj.slice(0, 8)) as LinhaApontamento[]) {
    const v = vigente(lista, fim, situacao, hoje)
    const exato = filed === cnpj
    // The three leading keys go into the stored JSON text: one parse, no object spread.
    const item = JSON.parse(`{"correspondencia":"${exato ? 'cnpj' : 'raiz'}","cnpj":"${filed}","vigente":${v},${corpo.slice(1)}`) as Record<string, unknown>
    const list = apontamentos[lista]
    // Rows come newest first within each list; exact matches move ahead of root matches, keeping that order.
    if (exato) list.splice(exatos[lista]++, 0, item)
    else list.push(item)
    total++
    if (v) vigentes++
  }
  return {
    cnpj,
    total_apontamentos: total,
    ficha_limpa: vigentes === 0,
    apontamentos: Object.fromEntries(LISTAS.map((l) => [l, apontamentos[l]])) as TriagemResultado['apontamentos'],
    fonte: files.fonte,
  }
}

/** The screening from the server's loaded build: what /v1/integridade/consulta/{cnpj} answers. */
export function consultarIntegridade(ctx: AppContext, cnpj: string): Promise<TriagemResultado> {
  return storeOf<IntegridadeStore>(ctx, 'integridade').use((s) => triagem(s.files, cnpj))
}
