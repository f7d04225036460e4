// The one text normalization of the name searches (docs/busca.md): the ingest runs it over every
// indexed name (ingest/cnpj/search-index.ts) and the server over every `nome` typed, so a word is
// the same word on both sides. Rules, in order:
//  1. NFKC (full-width ｆａｒｍａｃｉａ is farmacia, ª is a, ² is 2), then upper case, then accents
//     dropped (NFD without combining marks): FARMÁCIA = farmacia = FARMACIA.
//  2. An abbreviation written as single letters with dots or slashes is one word: S.A. = S/A = SA,
//     M.E. = ME, E.P.P. = EPP.
//  3. Words are runs of letters and digits; anything else separates them (format characters such
//     as a soft hyphen are dropped first).
//  4. Legal forms and connectors (IGNORED) are dropped: they are neither indexed nor searched.
//     So are words of an internal filter token's old shape (cnae4781400...): a name holding one
//     never matched a filter, and a query typing one is no filter either.

/** Legal forms and connectors: in most names, so searching by them finds nothing useful (NOTES §1). */
export const LEGAL_FORMS = ['LTDA', 'ME', 'EPP', 'EIRELI', 'SA', 'MEI'] as const
export const CONNECTORS = ['DE', 'DA', 'DO', 'DAS', 'DOS', 'E', 'EM', 'S', 'A'] as const
export const IGNORED = new Set<string>([...LEGAL_FORMS, ...CONNECTORS])
const FILTER_TOKEN_SHAPE = /^(CNAE|MUN|PORTE|QUALQUER)\d+$/

/** Format characters (soft hyphen, zero-width joiners...): removed, not separators. */
const FORMAT_CHARS = /\p{Cf}/gu
const MARKS = /\p{M}/gu
const WORD_CHAR = /[\p{L}\p{N}]/u

/** Rule 1 and 3 for any text: every character folded, letters and digits kept, '.' and '/' kept for rule 2, the rest a space. */
function foldSlow(text: string): string {
  const folded = text.replace(FORMAT_CHARS, '').normalize('NFKC').toUpperCase().normalize('NFD').replace(MARKS, '')
  let out = ''
  for (const ch of folded) out += WORD_CHAR.test(ch) || ch === '.' || ch === '/' ? ch : ' '
  return out
}

/**
 * The same fold, one character at a time, for the 256 characters of latin-1 (the dump's encoding:
 * every name the ingest indexes is made of them). NFKC, case and accents act on each of these
 * characters alone (latin-1 holds no combining mark, so nothing composes across two of them), so
 * folding a latin-1 text character by character gives foldSlow's result (test/cnpj/search-text.test.ts
 * checks every character), at a fraction of the cost.
 */
const LATIN1 = Array.from({ length: 256 }, (_, c) => foldSlow(String.fromCharCode(c)))
/** Characters a folded text keeps as they are: A-Z, 0-9, space, '.', '/'. Anything else goes through LATIN1 or foldSlow. */
const NOT_PLAIN = /[^A-Z0-9 ./]/g
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/

function fold(text: string): string {
  if (BEYOND_LATIN1.test(text)) return foldSlow(text)
  return text.replace(NOT_PLAIN, (ch) => LATIN1[ch.charCodeAt(0)]!)
}

/** Single letters joined by '.' or '/' (spaces allowed around them): S.A, S/A, S. A, M.E, E.P.P. */
const ABBREVIATION = /(?<![\p{L}\p{N}])\p{L}(?: *[./] *\p{L}(?![\p{L}\p{N}]))+/gu
const SEPARATORS = /[ ./]+/

/**
 * The words of a text as the name searches see them (rules 1 to 4 above), in order, repeats kept.
 * `IGNORED` words and filter-token shapes are left out.
 */
export function searchWords(text: string): string[] {
  let folded = fold(text)
  if (folded.includes('.') || folded.includes('/')) folded = folded.replace(ABBREVIATION, (m) => m.replace(/[ ./]/g, ''))
  const words: string[] = []
  for (const w of folded.split(SEPARATORS)) if (w && !IGNORED.has(w) && !FILTER_TOKEN_SHAPE.test(w)) words.push(w)
  return words
}

/** The two folds, for the test that they agree on latin-1. */
export const foldsForTests = { fold, foldSlow }

/** Whether a text has words at all before the ignored ones are dropped (for a clearer error). */
export const hasAnyWord = (text: string) => fold(text).split(SEPARATORS).some(Boolean)
