// ONS stored energy (EAR) per subsystem (SOURCES.md §7.2), daily: the year's CSV
// (EAR_DIARIO_SUBSISTEMA_AAAA.csv, `;`, UTF-8, dot decimals). Real quirks: `id_subsistema` with a
// trailing space ("SE "), no SIN row (the national total is computed: Σ MWmês / Σ máximo), the
// current year's file growing a day at a time (D-1), and early January needing last year's file
// for the 7-day delta.
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { csvRows, isBlankRow } from '../../core/text/csv'
import { columnIndex, HeaderError } from '../../core/text/header'
import { addDays, isoDateBrasilia, round, validIso } from './tempo'
import { ONS_EAR } from './upstreams'

export const SUBSISTEMAS = ['SE', 'S', 'NE', 'N'] as const
export type Subsistema = (typeof SUBSISTEMAS)[number]
const NOMES: Record<Subsistema, string> = { SE: 'Sudeste/Centro-Oeste', S: 'Sul', NE: 'Nordeste', N: 'Norte' }

export interface LinhaEar {
  id: Subsistema
  data: string
  max_mwmes: number
  mwmes: number
  percentual: number
}

const COLUNAS = {
  id: 'id_subsistema',
  data: 'ear_data',
  max: 'ear_max_subsistema',
  mwmes: 'ear_verif_subsistema_mwmes',
  pct: 'ear_verif_subsistema_percentual',
}

/** A decimal with a dot (the CSV) or a comma (some years' exports). */
function decimalOns(field: string | undefined): number | null {
  const t = (field ?? '').trim().replace(',', '.')
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null
  return Number(t)
}

export async function parseEar(text: string, what: string): Promise<LinhaEar[]> {
  const out: LinhaEar[] = []
  let idx: ReturnType<typeof columnIndex<typeof COLUNAS>> | null = null
  for await (const row of csvRows([text], ';')) {
    if (!idx) {
      try {
        idx = columnIndex(row, COLUNAS)
      } catch (err) {
        const start = text.slice(0, 60).replace(/\s+/g, ' ').trim()
        throw new Error(`${what}: não é o CSV de EAR por subsistema (${err instanceof HeaderError ? err.message : String(err)}; começa com "${start}")`)
      }
      continue
    }
    if (isBlankRow(row)) continue
    const id = row[idx.id]!.trim().toUpperCase() as Subsistema
    const data = row[idx.data]!.trim().slice(0, 10)
    const max = decimalOns(row[idx.max])
    const mwmes = decimalOns(row[idx.mwmes])
    const pct = decimalOns(row[idx.pct])
    if (!SUBSISTEMAS.includes(id) || !validIso(data) || max === null || mwmes === null || pct === null || max <= 0)
      throw new Error(`${what}: linha fora do formato: ${row.join(';').slice(0, 100)}`)
    out.push({ id, data, max_mwmes: max, mwmes, percentual: pct })
  }
  if (!idx) throw new Error(`${what}: arquivo vazio`)
  return out
}

export interface EarSubsistema {
  id: string
  nome: string
  ear_percentual: number
  ear_mwmes: number
  ear_max_mwmes: number
  /** Percentage points against 7 days before (null when that day is missing). */
  delta_7d_pp: number | null
  ear_percentual_7d_antes: number | null
}

export interface HidrologiaDados {
  data: string
  subsistemas: EarSubsistema[]
  sin: EarSubsistema
  serie_sin: { data: string; ear_percentual: number }[]
}

/** The answer from the rows: the latest day with all four subsystems, the delta against 7 days before, and the SIN total. */
export function resumoEar(rows: LinhaEar[]): HidrologiaDados {
  const byDay = new Map<string, Map<Subsistema, LinhaEar>>()
  for (const r of rows) {
    let m = byDay.get(r.data)
    if (!m) byDay.set(r.data, (m = new Map()))
    m.set(r.id, r)
  }
  const completos = [...byDay.keys()].filter((d) => byDay.get(d)!.size === SUBSISTEMAS.length).sort()
  const data = completos[completos.length - 1]
  if (!data) throw new Error('ONS: nenhum dia com os quatro subsistemas')
  const antes = byDay.get(addDays(data, -7))
  const sinOf = (m: Map<Subsistema, LinhaEar>) => {
    const mw = SUBSISTEMAS.reduce((a, s) => a + m.get(s)!.mwmes, 0)
    const max = SUBSISTEMAS.reduce((a, s) => a + m.get(s)!.max_mwmes, 0)
    return { mw, max, pct: (mw / max) * 100 }
  }
  const hoje = byDay.get(data)!
  const subsistemas = SUBSISTEMAS.map((s): EarSubsistema => {
    const r = hoje.get(s)!
    const a = antes?.get(s)
    return {
      id: s,
      nome: NOMES[s],
      ear_percentual: round(r.percentual, 2),
      ear_mwmes: round(r.mwmes, 1),
      ear_max_mwmes: round(r.max_mwmes, 1),
      delta_7d_pp: a ? round(r.percentual - a.percentual, 2) : null,
      ear_percentual_7d_antes: a ? round(a.percentual, 2) : null,
    }
  })
  const sin = sinOf(hoje)
  const sinAntes = antes?.size === SUBSISTEMAS.length ? sinOf(antes) : null
  return {
    data,
    subsistemas,
    sin: {
      id: 'SIN',
      nome: 'Sistema Interligado Nacional (Σ MWmês ÷ Σ máximo)',
      ear_percentual: round(sin.pct, 2),
      ear_mwmes: round(sin.mw, 1),
      ear_max_mwmes: round(sin.max, 1),
      delta_7d_pp: sinAntes ? round(sin.pct - sinAntes.pct, 2) : null,
      ear_percentual_7d_antes: sinAntes ? round(sinAntes.pct, 2) : null,
    },
    serie_sin: completos.slice(-8).map((d) => ({ data: d, ear_percentual: round(sinOf(byDay.get(d)!).pct, 2) })),
  }
}

async function fetchAno(ctx: FeedFetchContext, ano: number): Promise<LinhaEar[] | null> {
  const response = await ctx.fetch(`${ctx.url(ONS_EAR)}/EAR_DIARIO_SUBSISTEMA_${ano}.csv`, { accept: [403, 404] })
  // S3 answers 403 (not 404) for a key that does not exist when listing is off.
  if (response.status === 403 || response.status === 404) {
    await response.body?.cancel().catch(() => {})
    return null
  }
  return parseEar(new TextDecoder('utf-8').decode(await response.arrayBuffer()), `ONS EAR ${ano}`)
}

export async function fetchHidrologia(ctx: FeedFetchContext): Promise<HidrologiaDados> {
  const ano = Number(isoDateBrasilia(ctx.now()).slice(0, 4))
  let rows = (await fetchAno(ctx, ano)) ?? []
  const dias = new Set(rows.map((r) => r.data))
  // Early January: the 7-day delta needs the end of last year's file.
  if (dias.size < 8) rows = [...((await fetchAno(ctx, ano - 1)) ?? []), ...rows]
  if (!rows.length) throw new Error(`ONS: nem EAR_DIARIO_SUBSISTEMA_${ano}.csv nem o de ${ano - 1} foram encontrados`)
  return resumoEar(rows)
}

export const HIDROLOGIA_FEED: FeedDef<HidrologiaDados> = {
  name: 'commodities-hidrologia',
  dataset: 'commodities',
  base: 'ONS (EAR diário por subsistema)',
  upstreams: [ONS_EAR],
  intervalMinutes: 1440,
  timeoutMs: 60_000,
  fetch: (_key, ctx) => fetchHidrologia(ctx),
}
