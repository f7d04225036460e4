// The shape every classifier rule and every headline is compared in: lower case, no accents,
// words of letters and digits, "%" kept as a word (magnitudes matter to relevance).
export function normalize(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/%/g, ' % ')
    .replace(/[^a-z0-9%&]+/g, ' ')
    .trim()
}

export function tokens(s: string): string[] {
  const n = normalize(s)
  return n ? n.split(' ') : []
}
