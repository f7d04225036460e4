// The words of the annex search (docs/tributos.md, "Busca"): the same rules for the indexed
// wording and for the term typed, so a word is the same word on both sides.
//  1. NFKC, lower case, accents dropped: Feijões = feijoes, PÃO = pao.
//  2. Words are runs of letters and digits; anything else separates them.
//  3. Articles, prepositions and conjunctions (STOPWORDS) and one-letter words are dropped.
//  4. A light plural fold, the same on both sides: feijoes -> feijao, paes -> pao, animais ->
//     animal, papeis -> papel, bens -> bem, ovos -> ovo, sementes -> semente. It is not a stemmer:
//     it only makes singular and plural meet.

const MARKS = /\p{M}/gu
const NON_WORD = /[^\p{L}\p{N}]+/u

export const STOPWORDS = new Set(['de', 'da', 'do', 'das', 'dos', 'e', 'em', 'a', 'o', 'as', 'os', 'para', 'com', 'por', 'no', 'na', 'nos', 'nas', 'ou', 'ao', 'aos', 'um', 'uma', 'que', 'se', 'sem', 'seus', 'suas', 'seu', 'sua'])

/** Rule 1: the text folded (NFKC, lower case, no accents). */
export function dobrar(texto: string): string {
  return texto.normalize('NFKC').toLowerCase().normalize('NFD').replace(MARKS, '')
}

/** Rule 4 on one folded word. */
export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('oes')) return w.slice(0, -3) + 'ao'
  if (w.length > 3 && w.endsWith('aes')) return w.slice(0, -3) + 'ao'
  if (w.length > 4 && w.endsWith('ais')) return w.slice(0, -3) + 'al'
  if (w.length > 4 && w.endsWith('eis')) return w.slice(0, -3) + 'el'
  if (w.length > 3 && w.endsWith('ns')) return w.slice(0, -2) + 'm'
  if (w.length > 5 && /(?:r|z)es$/.test(w)) return w.slice(0, -2)
  if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1)
  return w
}

/** The searchable words of a text, in order (rules 1 to 4); digits-only words are kept (codes cited in the wording). */
export function palavras(texto: string): string[] {
  const out: string[] = []
  for (const w of dobrar(texto).split(NON_WORD)) {
    if (w.length < 2 || STOPWORDS.has(w)) continue
    out.push(/^\d+$/.test(w) ? w : singular(w))
  }
  return out
}
