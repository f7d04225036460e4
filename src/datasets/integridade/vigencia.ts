// When a record is in force (`vigente`), reduced at load to one date per record: the last day
// (Brasília) it is in force. A screening then compares today with it, one string comparison, and
// the situation of a leniency agreement is read once per build instead of once per request.
import type { Lista } from './layout'

/** In force with no end: CEPIM and MTE rows, sanctions without an end date, agreements in effect. */
export const SEMPRE = '9999-12-31'
/** Never in force (an agreement fulfilled, breached or rescinded): no day is ≤ it. */
export const NUNCA = ''

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toUpperCase()

/**
 * The last day a record is in force (`vigente` ⇔ today ≤ it):
 * - CEIS and CNEP: the end date, or none (SEMPRE);
 * - leniency: by the situation ("Acordo em vigência", "em execução": SEMPRE; fulfilled, breached,
 *   rescinded or closed: NUNCA), the end date when the situation says neither;
 * - CEPIM and the MTE list have no end dates: being on the list published today is the sanction.
 */
export function vigenteAte(lista: Lista, fim: string | null, situacao: string | null): string {
  switch (lista) {
    case 'ceis':
    case 'cnep':
      return fim ?? SEMPRE
    case 'acordos_leniencia': {
      const s = fold(situacao ?? '')
      if (/VIGENCIA|VIGENTE|EXECUCAO|ANDAMENTO|EM CUMPRIMENTO/.test(s)) return SEMPRE
      if (/CUMPRIDO|RESCIN|ENCERRAD|EXTINT|REVOGAD|ANULAD/.test(s)) return NUNCA
      return fim ?? SEMPRE
    }
    default:
      return SEMPRE
  }
}
