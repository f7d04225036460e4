// The same story from several outlets (a wire piece republished, the day's dollar close) becomes
// one item: the earliest publication leads, the others are listed with their own titles and links.
import type { Classificacao } from '../classificador/lexico'
import type { ItemBruto } from './parse'
import { normalize } from '../classificador/texto'

export interface NoticiaClassificada extends ItemBruto, Classificacao {
  id: string
  veiculo: string
  classificador: 'lexico' | 'llm'
}

export interface OutraFonte {
  veiculo: string
  titulo: string
  link: string
  publicado_em: string | null
}

export interface Noticia extends NoticiaClassificada {
  outras_fontes: OutraFonte[]
}

/** Stories further apart than this are different stories, however alike their titles (daily market wraps). */
const JANELA_MS = 36 * 3600_000
const STOPWORDS = new Set('a o as os e de da do das dos em no na nos nas um uma uns umas para por com sem que se ao aos ou mais menos apos sobre entre ate como diz the of in and is'.split(' '))

/** Canonical form of a link: no query, no fragment, no trailing slash, lower-case host. */
export function canonicalLink(link: string): string {
  try {
    const u = new URL(link)
    return `${u.host.toLowerCase().replace(/^www\./, '')}${u.pathname.replace(/\/+$/, '')}`
  } catch {
    return link
  }
}

function words(title: string): Set<string> {
  return new Set(normalize(title).split(' ').filter((w) => w && !STOPWORDS.has(w)))
}

/** Whether two titles tell the same story: most words shared (Jaccard), or the shorter one almost inside the longer. */
export function sameStory(a: Set<string>, b: Set<string>): boolean {
  let common = 0
  for (const w of a) if (b.has(w)) common++
  const union = a.size + b.size - common
  if (!union) return false
  return common / union >= 0.5 || (common >= 5 && common / Math.min(a.size, b.size) >= 0.7)
}

const time = (iso: string | null) => (iso ? Date.parse(iso) : NaN)

export function mergeStories(items: NoticiaClassificada[], limit: number): Noticia[] {
  // Earliest first, so the outlet that published first leads its story.
  const sorted = [...items].sort((x, y) => (time(x.publicado_em) || Infinity) - (time(y.publicado_em) || Infinity))
  const clusters: { lead: NoticiaClassificada; words: Set<string>; link: string; others: NoticiaClassificada[] }[] = []
  const byLink = new Map<string, (typeof clusters)[number]>()
  for (const item of sorted) {
    const link = canonicalLink(item.link)
    const w = words(item.titulo)
    let home = byLink.get(link)
    if (!home) {
      const t = time(item.publicado_em)
      home = clusters.find((c) => {
        if (c.lead.veiculo === item.veiculo || c.others.some((o) => o.veiculo === item.veiculo)) return false
        const ct = time(c.lead.publicado_em)
        if (Number.isFinite(t) && Number.isFinite(ct) && Math.abs(t - ct) > JANELA_MS) return false
        return sameStory(c.words, w)
      })
    }
    if (home) {
      if (!(home.lead.veiculo === item.veiculo && canonicalLink(home.lead.link) === link) && !home.others.some((o) => o.veiculo === item.veiculo && canonicalLink(o.link) === link)) home.others.push(item)
      byLink.set(link, home)
      continue
    }
    const cluster = { lead: item, words: w, link, others: [] }
    clusters.push(cluster)
    byLink.set(link, cluster)
  }
  const merged: Noticia[] = clusters.map((c) => ({
    ...c.lead,
    // A story several outlets carry matters more: one point per other outlet, at most two.
    relevancia: Math.min(10, Math.max(c.lead.relevancia, ...c.others.map((o) => o.relevancia)) + Math.min(2, new Set(c.others.map((o) => o.veiculo)).size)),
    outras_fontes: c.others.map((o) => ({ veiculo: o.veiculo, titulo: o.titulo, link: o.link, publicado_em: o.publicado_em })),
  }))
  // Newest first; undated items last.
  merged.sort((x, y) => (time(y.publicado_em) || -Infinity) - (time(x.publicado_em) || -Infinity) || y.relevancia - x.relevancia)
  return merged.slice(0, limit)
}
