// The daily English briefing: a feed derived from the other copies (no upstream of its own). Every
// hour it reads the latest copies of weather, fire, hydrology, the exports build and the markets'
// PTAX; when they changed since the last edition, it writes a new one from the deterministic
// template (briefing-regras.ts) and, when an OpenAI-compatible LLM is configured (LLM_URL,
// LLM_MODEL, LLM_API_KEY: the markets news settings), asks it to rewrite the prose. The rewrite is
// kept only if it carries exactly the template's numbers; otherwise the template stands, and the
// answer says who wrote it and why.
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { FeedRunner } from '../../core/feeds/feed'
import { createLogger } from '../../core/log'
import { readManifest } from '../../core/stores/snapshot-layout'
import { PTAX_FEED, type PtaxDados } from '../mercado/bcb'
import { llmConfig, type LlmConfig } from '../mercado/classificador/llm'
import { destaques, numerosDe, REGRA_TEXTO, resumo, type Destaque, type Sinais } from './briefing-regras'
import { CLIMA_FEED, type ClimaDados } from './clima'
import { EXPORTACOES_DATASET, openExportacoesFiles, type ExportacoesManifest } from './exportacoes'
import { FOGO_FEED, type FogoDados } from './fogo'
import { HIDROLOGIA_FEED, type HidrologiaDados } from './hidrologia'
import { isoDateBrasilia } from './tempo'

export interface Entrada {
  /** When the copy read was fetched (feeds; null for the exports build, named by its month). */
  consultado_em: string | null
  /** The data's own date or month. */
  referencia: string | null
}

export interface BriefingDados {
  data: string
  /** consultado_em of the newest input read: the briefing's age. */
  dados_de: string | null
  idioma: 'en'
  escrito_por: 'template' | 'llm'
  modelo: string | null
  /** Why the LLM's rewrite was not used (down, slow, numbers changed), or null. */
  llm_erro: string | null
  resumo: string
  destaques: Destaque[]
  regra: string
  entradas: { clima: Entrada | null; fogo: Entrada | null; hidrologia: Entrada | null; exportacoes: Entrada | null; mercado_ptax: Entrada | null }
  /** Fingerprint of the template: a new edition is written only when it changes. */
  impressao: string
}

/** The inputs as the copies on disk have them (no refresh started: the briefing never waits on an upstream). */
export function lerSinais(dataDir: string, now: () => number): { sinais: Sinais; entradas: BriefingDados['entradas'] } {
  const runner = new FeedRunner([CLIMA_FEED, FOGO_FEED, HIDROLOGIA_FEED, PTAX_FEED], { dataDir, log: createLogger('silent'), now })
  const clima = runner.copy<ClimaDados>(CLIMA_FEED.name)
  const fogo = runner.copy<FogoDados>(FOGO_FEED.name)
  const hidro = runner.copy<HidrologiaDados>(HIDROLOGIA_FEED.name)
  const ptax = runner.copy<PtaxDados>(PTAX_FEED.name)
  let exportacoes: Sinais['exportacoes'] = null
  let expEntrada: Entrada | null = null
  try {
    const dir = join(dataDir, EXPORTACOES_DATASET, 'current')
    const manifest = readManifest<ExportacoesManifest>(dir)
    const files = openExportacoesFiles(dir, manifest)
    exportacoes = files.dados
    // The build time is left out: the same files give the same briefing.
    expEntrada = { consultado_em: null, referencia: manifest.referencia }
  } catch {
    // No exports build yet: the briefing goes on without them.
  }
  const entrada = (c: { consultado_em: string | null } | null, ref: string | null | undefined): Entrada | null => (c?.consultado_em ? { consultado_em: c.consultado_em, referencia: ref ?? null } : null)
  const ultimaPtax = ptax?.dados?.serie?.[ptax.dados.serie.length - 1]?.data
  return {
    sinais: { clima: clima?.dados ?? null, fogo: fogo?.dados ?? null, hidrologia: hidro?.dados ?? null, exportacoes, ptax: ptax?.dados ?? null },
    entradas: {
      clima: entrada(clima, clima?.dados?.referencia),
      fogo: entrada(fogo, fogo?.dados?.periodo.fim),
      hidrologia: entrada(hidro, hidro?.dados?.data),
      exportacoes: expEntrada,
      mercado_ptax: entrada(ptax, ultimaPtax),
    },
  }
}

const INSTRUCOES = `You edit a daily commodity briefing about Brazil for English-speaking traders. Rewrite each text so it reads as fluent, concise market prose.
Rules: keep every number exactly as written (same digits, separators and decimals); do not add, drop, round or convert any number; keep dates as written; do not add facts, opinions or forecasts; keep each text about its own commodity.
Answer only with JSON: {"resumo":"...","destaques":[{"id":"...","texto":"..."}]}`

function jsonOf(content: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content)
  const text = (fenced ? fenced[1]! : content).trim()
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  return JSON.parse(start >= 0 && end > start ? text.slice(start, end + 1) : text)
}

const sameNumbers = (a: string, b: string) => JSON.stringify(numerosDe(a)) === JSON.stringify(numerosDe(b))

/**
 * Asks the LLM to rewrite the prose; returns the rewritten texts only when every one carries exactly
 * the numbers of its template, else throws saying what went wrong (the caller keeps the template).
 */
export async function reescrever(config: LlmConfig, texto: { resumo: string; destaques: { id: string; texto: string }[] }): Promise<{ resumo: string; destaques: Map<string, string> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`
  let response: Response
  try {
    response = await fetch(`${config.url}/chat/completions`, {
      method: 'POST',
      headers,
      signal: AbortSignal.timeout(config.budgetMs),
      body: JSON.stringify({ model: config.model, temperature: 0, messages: [{ role: 'system', content: INSTRUCOES }, { role: 'user', content: JSON.stringify(texto) }] }),
    })
  } catch (err) {
    const e = err as Error
    throw new Error(e.name === 'TimeoutError' || e.name === 'AbortError' ? `LLM: sem resposta em ${config.budgetMs} ms` : `LLM: ${e.message}`)
  }
  if (!response.ok) throw new Error(`LLM: HTTP ${response.status}`)
  let content: unknown
  try {
    content = ((await response.json()) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content
  } catch {
    throw new Error('LLM: resposta não é JSON')
  }
  if (typeof content !== 'string') throw new Error('LLM: resposta sem choices[0].message.content')
  let out: unknown
  try {
    out = jsonOf(content)
  } catch {
    throw new Error('LLM: texto fora do formato pedido (não é JSON)')
  }
  const o = out as { resumo?: unknown; destaques?: { id?: unknown; texto?: unknown }[] }
  if (typeof o.resumo !== 'string' || !Array.isArray(o.destaques)) throw new Error('LLM: texto fora do formato pedido')
  if (!sameNumbers(o.resumo, texto.resumo)) throw new Error('LLM: o resumo reescrito mudou os números; ficou o texto do modelo determinístico')
  const got = new Map(o.destaques.filter((d) => typeof d?.id === 'string' && typeof d.texto === 'string').map((d) => [d.id as string, d.texto as string]))
  for (const d of texto.destaques) {
    const t = got.get(d.id)
    if (t === undefined) throw new Error(`LLM: faltou o destaque ${d.id}`)
    if (!sameNumbers(t, d.texto)) throw new Error(`LLM: o destaque ${d.id} reescrito mudou os números; ficou o texto do modelo determinístico`)
  }
  return { resumo: o.resumo, destaques: got }
}

export async function fetchBriefing(ctx: FeedFetchContext, env: Record<string, string | undefined> = process.env): Promise<BriefingDados> {
  const { sinais, entradas } = lerSinais(ctx.dataDir, ctx.now)
  if (!sinais.clima && !sinais.fogo && !sinais.hidrologia && !sinais.exportacoes && !sinais.ptax) throw new Error('nenhum sinal com cópia ainda (clima, fogo, hidrologia, exportações, PTAX): o briefing espera o primeiro')
  // The edition's day is the day of its newest polled input, not the clock: a briefing over copies of
  // 29 January is the briefing of 29 January, whenever it is read.
  const feitas = [entradas.clima, entradas.fogo, entradas.hidrologia, entradas.mercado_ptax].map((e) => e?.consultado_em).filter((x): x is string => Boolean(x))
  const dadosDe = feitas.length ? new Date(Math.max(...feitas.map((x) => Date.parse(x)))).toISOString() : null
  const data = isoDateBrasilia(dadosDe ? Date.parse(dadosDe) : ctx.now())
  const ds = destaques(sinais)
  const texto = resumo(data, ds, sinais)
  const config = llmConfig(env)
  const impressao = createHash('sha256').update(JSON.stringify([texto, ds, config?.model ?? null])).digest('hex').slice(0, 16)
  const previous = ctx.previous as BriefingDados | null
  // Same signals, same template: the edition stands (no LLM call), read from the inputs as they are now.
  if (previous?.impressao === impressao && previous.data === data) return { ...previous, dados_de: dadosDe, entradas }
  const base: BriefingDados = { data, dados_de: dadosDe, idioma: 'en', escrito_por: 'template', modelo: null, llm_erro: null, resumo: texto, destaques: ds, regra: REGRA_TEXTO, entradas, impressao }
  if (!config) return base
  try {
    const r = await reescrever(config, { resumo: texto, destaques: ds.map((d) => ({ id: d.id, texto: d.texto })) })
    return { ...base, escrito_por: 'llm', modelo: config.model, resumo: r.resumo, destaques: ds.map((d) => ({ ...d, texto: r.destaques.get(d.id)! })) }
  } catch (err) {
    ctx.log.warn('briefing: reescrita do LLM descartada; vale o texto do modelo determinístico', { erro: (err as Error).message })
    return { ...base, llm_erro: (err as Error).message }
  }
}

export const BRIEFING_FEED: FeedDef<BriefingDados> = {
  name: 'commodities-briefing',
  dataset: 'commodities',
  base: 'dadosbr: briefing dos sinais de clima, fogo, exportações, hidrologia e PTAX',
  upstreams: [],
  // One edition a day is the promise; its inputs are checked hourly, and a new edition is written only
  // when they changed (they change at most a few times a day).
  intervalMinutes: 1440,
  refreshMinutes: 60,
  // The briefing is as old as its newest input, not as its last hourly check.
  dataTime: (dados) => dados.dados_de,
  timeoutMs: 60_000,
  fetch: (_key, ctx) => fetchBriefing(ctx),
}

