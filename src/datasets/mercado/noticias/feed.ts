// The news feed: every configured outlet fetched in parallel every 15 minutes, decoded (charset),
// parsed (RSS/Atom), classified (lexicon, or the LLM when configured), merged and sorted. An
// outlet that fails keeps its previous items (marked in `veiculos`); only when every outlet fails
// is the refresh a failure (the last good copy is served).
import { createHash } from 'node:crypto'
import { FeedFailure, type FeedDef, type FeedFetchContext } from '../../../core/feeds/feed'
import { classificarLexico, LEXICO_VERSAO } from '../classificador/lexico'
import { classificarLlm, llmConfig } from '../classificador/llm'
import { decodeFeed } from './charset'
import { feedsConfigurados, VEICULOS_PADRAO, type FeedConfigurado } from './fontes'
import { canonicalLink, mergeStories, type Noticia, type NoticiaClassificada } from './merge'
import { parseItems, type ItemBruto } from './parse'

export interface VeiculoEstado {
  id: string
  veiculo: string
  status: 'ok' | 'falhou'
  /** Items of this outlet in the copy. */
  itens: number
  /** Format and charset of the last good answer ("rss 2.0", "utf-8"). */
  formato: string | null
  charset: string | null
  /** When its items were last fetched (a failed outlet keeps older ones). */
  atualizado_em: string | null
  erro: string | null
}

export interface NoticiasDados {
  itens: Noticia[]
  /** Each outlet's own items, classified, before merging (kept to carry an outlet through its outages). */
  por_veiculo: Record<string, NoticiaClassificada[]>
  veiculos: VeiculoEstado[]
  classificacao: { lexico: string; llm_modelo: string | null; llm_erros: string[] }
}

export const ITENS_POR_VEICULO = 60
export const ITENS_MAX = 300
/** Older items are dropped: the route serves the latest headlines, not an archive. */
export const IDADE_MAX_MS = 7 * 86_400_000

const idOf = (link: string) => createHash('sha1').update(canonicalLink(link)).digest('hex').slice(0, 16)

async function fetchOutlet(feed: FeedConfigurado, ctx: FeedFetchContext, now: number): Promise<{ itens: ItemBruto[]; formato: string; charset: string }> {
  const response = await ctx.fetch(feed.url, { headers: { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.5' } })
  const { text, charset } = decodeFeed(new Uint8Array(await response.arrayBuffer()), response.headers.get('content-type'))
  if (/^\s*(<!doctype html|<html)/i.test(text)) throw new Error(`${feed.veiculo}: a resposta é uma página HTML, não um feed`)
  const { formato, itens } = parseItems(text, now)
  const recent = itens
    .filter((i) => !i.publicado_em || now - Date.parse(i.publicado_em) <= IDADE_MAX_MS)
    .sort((a, b) => (b.publicado_em ?? '').localeCompare(a.publicado_em ?? ''))
    .slice(0, ITENS_POR_VEICULO)
  return { itens: recent, formato, charset }
}

export const NOTICIAS_FEED: FeedDef<NoticiasDados> = {
  name: 'mercado-noticias',
  dataset: 'mercado',
  base: 'feeds RSS e Atom de veículos brasileiros (MERCADO_NOTICIAS_FONTES)',
  upstreams: VEICULOS_PADRAO.map((v) => v.upstream),
  intervalMinutes: 15,
  timeoutMs: 20_000,
  async fetch(_key, ctx) {
    const now = ctx.now()
    const nowIso = new Date(now).toISOString()
    const feeds = feedsConfigurados()
    const previous = ctx.previous as NoticiasDados | null
    const results = await Promise.allSettled(feeds.map((f) => fetchOutlet(f, ctx, now)))
    const porVeiculo: Record<string, NoticiaClassificada[]> = {}
    const veiculos: VeiculoEstado[] = []
    // Grades already given to an unchanged item (same link and title) are kept: the LLM is asked only about new items.
    const known = new Map<string, NoticiaClassificada>()
    for (const list of Object.values(previous?.por_veiculo ?? {})) for (const i of list) known.set(`${i.id}|${i.titulo}`, i)
    results.forEach((r, n) => {
      const feed = feeds[n]!
      const before = previous?.veiculos.find((v) => v.id === feed.id)
      if (r.status === 'rejected') {
        const kept = previous?.por_veiculo[feed.id] ?? []
        porVeiculo[feed.id] = kept
        const erro = r.reason instanceof Error ? r.reason.message : String(r.reason)
        veiculos.push({ id: feed.id, veiculo: feed.veiculo, status: 'falhou', itens: kept.length, formato: before?.formato ?? null, charset: before?.charset ?? null, atualizado_em: before?.atualizado_em ?? null, erro })
        return
      }
      porVeiculo[feed.id] = r.value.itens.map((item) => {
        const id = idOf(item.link)
        const prior = known.get(`${id}|${item.titulo}`)
        if (prior) return { ...prior, ...item, id, veiculo: feed.veiculo }
        return { ...item, id, veiculo: feed.veiculo, ...classificarLexico(item.titulo, item.resumo), classificador: 'lexico' as const }
      })
      veiculos.push({ id: feed.id, veiculo: feed.veiculo, status: 'ok', itens: r.value.itens.length, formato: r.value.formato, charset: r.value.charset, atualizado_em: nowIso, erro: null })
    })
    // Every outlet failed: the last good copy stays, and the route shows each outlet's failure (the detail).
    if (results.every((r) => r.status === 'rejected')) throw new FeedFailure(`nenhum feed respondeu: ${veiculos.map((v) => v.erro).join('; ')}`, veiculos)
    const llm = llmConfig()
    let llmErros: string[] = []
    if (llm) {
      const pending = Object.values(porVeiculo).flat().filter((i) => i.classificador !== 'llm')
      if (pending.length) {
        const { notas, erros } = await classificarLlm(llm, pending.map((i) => ({ id: i.id, titulo: i.titulo, resumo: i.resumo })))
        llmErros = erros
        for (const list of Object.values(porVeiculo))
          for (let k = 0; k < list.length; k++) {
            const nota = notas.get(list[k]!.id)
            if (nota) list[k] = { ...list[k]!, ...nota, classificador: 'llm' }
          }
      }
    }
    return {
      itens: mergeStories(Object.values(porVeiculo).flat(), ITENS_MAX),
      por_veiculo: porVeiculo,
      veiculos,
      classificacao: { lexico: LEXICO_VERSAO, llm_modelo: llm?.model ?? null, llm_erros: llmErros },
    }
  },
}
