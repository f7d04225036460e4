// NCM codes as people write them (1006.30.21, 10063021, 10.06, 0207.4) and as the table and the
// annexes are indexed (digits only). One place for the digit rules, shared by the ingest, the
// server and the annex data.

/** A level of the NCM by the number of digits of its code (chapter 2, position 4, SH subpositions 5-6, NCM item 7, subitem 8). */
export type NivelNcm = 'capitulo' | 'posicao' | 'subposicao' | 'item' | 'subitem'

export function nivelNcm(digits: string): NivelNcm | null {
  switch (digits.length) {
    case 2:
      return 'capitulo'
    case 4:
      return 'posicao'
    case 5:
    case 6:
      return 'subposicao'
    case 7:
      return 'item'
    case 8:
      return 'subitem'
    default:
      return null
  }
}

/**
 * The official dotted form, as the Siscomex table writes it: 10, 10.06, 1006.3, 1006.30, 1006.30.2,
 * 1006.30.21.
 */
export function formatarNcm(digits: string): string {
  if (digits.length <= 2) return digits
  if (digits.length === 4) return `${digits.slice(0, 2)}.${digits.slice(2)}`
  if (digits.length <= 6) return `${digits.slice(0, 4)}.${digits.slice(4)}`
  return `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}`
}

/** The codes of the levels above a code, from the chapter down (10063021 -> 10, 1006, 10063, 100630, 1006302). */
export function ancestrais(digits: string): string[] {
  const out: string[] = []
  for (const n of [2, 4, 5, 6, 7]) if (n < digits.length) out.push(digits.slice(0, n))
  return out
}

/**
 * A code typed by a user: 4 to 8 digits, dots allowed between them (1006.30.21, 10.06, 1006.3).
 * Returns the digits, or null for anything else (letters, spaces, other separators, 3 or 9 digits).
 */
export function lerCodigoNcm(value: string): string | null {
  if (!/^\d[\d.]*\d$/.test(value) || value.includes('..')) return null
  const digits = value.replace(/\./g, '')
  return digits.length >= 4 && digits.length <= 8 ? digits : null
}
