// Columns picked by header name, never by position: sources reorder and add columns, change
// accents and case, and carry typos (`ABRAGÊNCIA`, `LENIÊNICA`) that must be matched as published.

/**
 * The comparable form of a header: accents stripped, upper case, dashes (including the cp1252 en
 * dash) and underscores as spaces, runs of spaces collapsed. `RAZÃO SOCIAL – CADASTRO RECEITA` and
 * `razao social - cadastro receita` compare equal.
 */
export function normalizeHeader(h: string): string {
  return h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[\u2010-\u2015_\-]/g, ' ')
    .replace(/[^\S\n]+/g, ' ')
    .trim()
}

export class HeaderError extends Error {}

/** A column wanted by a parser: its key and the header spellings it may have (normalized on comparison). */
export type ColumnSpec = Record<string, string | readonly string[]>

export type ColumnIndex<K extends string> = Record<K, number>

/**
 * Where each wanted column is in this header. Throws HeaderError naming the missing columns
 * (optional ones, given in `optional`, come back as -1).
 */
export function columnIndex<S extends ColumnSpec>(header: string[], wanted: S, optional: readonly (keyof S)[] = []): ColumnIndex<Extract<keyof S, string>> {
  const normalized = header.map(normalizeHeader)
  const out = {} as Record<string, number>
  const missing: string[] = []
  for (const [key, spellings] of Object.entries(wanted)) {
    const names = (typeof spellings === 'string' ? [spellings] : spellings).map(normalizeHeader)
    const at = normalized.findIndex((h) => names.includes(h))
    if (at < 0 && !optional.includes(key)) missing.push(typeof spellings === 'string' ? spellings : spellings[0]!)
    out[key] = at
  }
  if (missing.length) throw new HeaderError(`colunas ausentes: ${missing.join(', ')}`)
  return out as ColumnIndex<Extract<keyof S, string>>
}

/** True when every wanted column (optional ones aside) is in the header: recognizes a file by its header. */
export function headerMatches(header: string[], wanted: ColumnSpec, optional: readonly string[] = []): boolean {
  try {
    columnIndex(header, wanted, optional)
    return true
  } catch {
    return false
  }
}

/** The row's value of a column as an object keyed like the spec ('' for an optional absent column). */
export function pick<K extends string>(row: string[], index: ColumnIndex<K>): Record<K, string> {
  const out = {} as Record<K, string>
  for (const key in index) {
    const at = index[key]
    out[key] = at >= 0 ? (row[at] ?? '') : ''
  }
  return out
}
