// Value rules shared by the Brazilian sources: what counts as null, dates, decimals, documents.

/** Texts that mean "no value" in the government files: blank, `Sem informação` (any case/accents), `-`, `NULL`. */
const NULL_TEXTS = new Set(['', '-', '--', 'SEM INFORMACAO', 'NAO INFORMADO', 'NULL', 'N/A', 'NA', 'ND'])

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toUpperCase()

/** Trimmed text, or null when it means "no value". Inner runs of spaces collapse (`ITAU  ON` -> `ITAU ON`). */
export function textOrNull(raw: string | undefined): string | null {
  if (raw === undefined) return null
  const s = raw.replace(/\u0000/g, '').replace(/[ \t\u00a0]+/g, ' ').trim()
  return NULL_TEXTS.has(fold(s)) ? null : s
}

/** `dd/mm/yyyy` -> `yyyy-mm-dd`; `yyyy-mm-dd` kept; null for empty, `Sem informação` or an impossible date. */
export function dateOrNull(raw: string | undefined): string | null {
  const s = textOrNull(raw)
  if (!s) return null
  let m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s)
  let iso: string | null = null
  if (m) iso = `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`
  else if ((m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(s))) iso = `${m[1]}-${m[2]}-${m[3]}`
  if (!iso || !validIsoDate(iso)) return null
  return iso
}

/** Every `dd/mm/yyyy` in a text, as ISO dates, in order (inclusion periods: `05/10/2022 a 13/01/2023, 11/11/2024`). */
export function datesIn(raw: string | undefined): string[] {
  const out: string[] = []
  for (const m of (raw ?? '').matchAll(/(\d{1,2})\/(\d{1,2})\/(\d{4})/g)) {
    const iso = `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`
    if (validIsoDate(iso)) out.push(iso)
  }
  return out
}

export function validIsoDate(iso: string): boolean {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number]
  if (!(y >= 1800 && y <= 2200 && m >= 1 && m <= 12 && d >= 1)) return false
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate()
}

/**
 * Brazilian decimal: comma for decimals, dots for thousands (`1.234.567,89`, `500000,00`, `0,00`).
 * A value with a dot and no comma is read as a decimal point only when it cannot be thousands
 * (`12.5`); `1.234` (three digits after a single dot) is one thousand two hundred thirty-four.
 * Null for empty or unparseable text.
 */
export function brDecimalOrNull(raw: string | undefined): number | null {
  let s = textOrNull(raw)
  if (!s) return null
  s = s.replace(/^R\$\s*/i, '').replace(/\s/g, '')
  if (s.includes(',')) s = s.replace(/\./g, '').replace(',', '.')
  else if (/^-?\d{1,3}(\.\d{3})+$/.test(s)) s = s.replace(/\./g, '')
  if (!/^-?\d+(\.\d+)?$/.test(s)) return null
  return Number(s)
}

/** Dot-decimal number (CVM, ComexStat, ONS, INPE); null for empty or unparseable text. */
export function decimalOrNull(raw: string | undefined): number | null {
  const s = textOrNull(raw)
  if (!s) return null
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return null
  return Number(s)
}

/** Whole number, or null (`12`, ` 12 `; not `12.5`). */
export function intOrNull(raw: string | undefined): number | null {
  const s = textOrNull(raw)
  if (!s || !/^-?\d+$/.test(s)) return null
  return Number(s)
}

export type DocumentKind = 'cnpj' | 'cpf' | 'outro'

/**
 * A document as published (punctuated or not, CPF masked or full): its kind and its digits.
 * A CNPJ is 14 characters (digits, or letters for the alphanumeric CNPJ) once `.`, `/`, `-` and
 * spaces are gone; a CPF is 11 digits or the Receita's mask `***NNNNNN**`. The caller decides
 * what to keep: the CPF itself is never stored (LGPD).
 */
export function classifyDocument(raw: string | undefined): { kind: DocumentKind; value: string } {
  const s = (raw ?? '').replace(/[.\/\-\s]/g, '').toUpperCase()
  if (/^[0-9A-Z]{12}\d{2}$/.test(s) && /\d/.test(s)) return { kind: 'cnpj', value: s }
  if (/^\d{11}$/.test(s) || /^\*{3}\d{6}\*{2}$/.test(s)) return { kind: 'cpf', value: '' }
  return { kind: 'outro', value: s }
}

/**
 * A name as a source publishes it, with a CPF that ends it masked as the Receita masks partner
 * CPFs (three asterisks, the 4th to 9th digits, two asterisks). An individual entrepreneur's
 * registered name can end in the owner's CPF ("MARIA DA SILVA 12345678909"), and sanctions lists
 * copy it: no file or answer may hold it in full (LGPD). Eleven digits ending the name, with or
 * without the CPF's dots and dash; the check digits are not required.
 */
export function maskTrailingCpf(name: string): string {
  return name.replace(/(^| )(\d{3})\.?(\d{3})\.?(\d{3})-?(\d{2})$/, '$1***$3$4**')
}
