// One outlet's feed (RSS 0.91/2.0, RDF or Atom, already decoded to text) as plain items.
import { parseFeed } from '@rowanmanning/feed-parser'
import { cut, decodeEntities, plainText } from './texto-html'

export interface ItemBruto {
  titulo: string
  resumo: string | null
  link: string
  /** ISO 8601, or null when the item has no usable date. */
  publicado_em: string | null
}

export const RESUMO_MAX = 400
/** A date further in the future than this is a publisher's error (time zone or typo): treated as unknown. */
const FUTURE_TOLERANCE_MS = 3600_000

/** WordPress appends "O post X apareceu primeiro em Y." to descriptions: not part of the summary. */
const WORDPRESS_FOOTER = /\s*(O post|The post)\s.+?\s(apareceu primeiro em|appeared first on)\s.+$/

export function parseItems(text: string, now: number): { formato: string; itens: ItemBruto[] } {
  let feed
  try {
    feed = parseFeed(text)
  } catch {
    throw new Error('não é um feed RSS ou Atom legível')
  }
  const itens: ItemBruto[] = []
  for (const item of feed.items) {
    const titulo = item.title ? plainText(item.title) : ''
    // WordPress writes & in links as &#038;, which the parser leaves as is.
    const link = item.url ? decodeEntities(item.url.trim()) : ''
    if (!titulo || !/^https?:\/\//i.test(link)) continue
    const raw = item.description ?? item.content
    const resumo = raw ? cut(plainText(raw).replace(WORDPRESS_FOOTER, ''), RESUMO_MAX) : null
    const date = item.published ?? item.updated
    const ms = date ? date.getTime() : NaN
    const publicado_em = Number.isFinite(ms) && ms <= now + FUTURE_TOLERANCE_MS ? new Date(ms).toISOString() : null
    itens.push({ titulo, resumo: resumo && resumo !== titulo ? resumo : null, link, publicado_em })
  }
  return { formato: `${feed.meta.type} ${feed.meta.version}`, itens }
}
