// Thermal dispatch from ONS's hourly energy balance per subsystem ("Balanço de Energia nos
// Subsistemas", BALANCO_ENERGIA_SUBSISTEMA_AAAA.csv, one file a year growing a day at a time, D-1):
// `;`, UTF-8, dot decimals, `din_instante` in Brasília wall-clock time labelled by the hour's start.
// Real quirks: `id_subsistema` padded with spaces ("N  ", "SE "), a ready-made `SIN` row per hour in
// recent years (2026) beside the four subsystems, empty measures on some rows (missing, never zero),
// `0E-8` for zero in old years. Thermal generation includes nuclear (ONS's `val_gertermica`).
// The SIN hour is its own row when complete, else the sum of the four subsystems when all four
// are; a day counts only with its 24 hours. The answer: the last 7 complete days against the 7
// before (thermal generation, load, and thermal's share of the load), and the 14 days.
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { csvRows, isBlankRow } from '../../core/text/csv'
import { columnIndex, HeaderError } from '../../core/text/header'
import { addDays, isoDateBrasilia, round, validIso } from './tempo'
import { ONS_BALANCO } from './upstreams'

const SUBSISTEMAS = ['N', 'NE', 'S', 'SE'] as const
const MEDIDAS = ['termica', 'hidraulica', 'eolica', 'solar', 'carga'] as const
type Medida = (typeof MEDIDAS)[number]
type Hora = Record<Medida, number>

const COLUNAS = {
  id: 'id_subsistema',
  instante: 'din_instante',
  hidraulica: 'val_gerhidraulica',
  termica: 'val_gertermica',
  eolica: 'val_gereolica',
  solar: 'val_gersolar',
  carga: 'val_carga',
}

/** Days in each window compared. */
export const JANELA_DIAS = 7

export interface DiaBalanco {
  data: string
  termica_mwmed: number
  hidraulica_mwmed: number
  eolica_mwmed: number
  solar_mwmed: number
  carga_mwmed: number
  /** Thermal generation ÷ load × 100. */
  participacao_termica_pct: number
}

export interface JanelaTermica {
  de: string
  ate: string
  termica_mwmed: number
  carga_mwmed: number
  participacao_termica_pct: number
}

export interface TermicaDados {
  /** Last complete day (24 hours of the SIN). */
  dia: string
  janela: JanelaTermica
  /** The 7 complete days before the window; null when the files hold fewer than 14. */
  anterior: JanelaTermica | null
  /** Share in the window minus share in the 7 days before, in percentage points. */
  variacao_participacao_pp: number | null
  /** The last 14 complete days (or fewer), oldest first. */
  serie: DiaBalanco[]
  /** Rows dropped for a broken date or number (counted, never read as zero). */
  linhas_descartadas: number
}

/** Per day and hour: the SIN row and each subsystem's row, as read. */
export type Balanco = Map<string, Map<number, { sin?: Partial<Hora>; subs: Map<string, Partial<Hora>> }>>

/** "1234.567", "0E-8", "1234,5"; null for an empty field; undefined for garbage. */
function numero(field: string | undefined): number | null | undefined {
  const t = (field ?? '').trim()
  if (!t) return null
  const n = Number(t.replace(',', '.'))
  return Number.isFinite(n) ? n : undefined
}

/** Reads one year's file into `into`; returns the rows dropped. */
export async function parseBalanco(text: string, what: string, into: Balanco): Promise<number> {
  let idx: ReturnType<typeof columnIndex<typeof COLUNAS>> | null = null
  let descartadas = 0
  for await (const row of csvRows([text], ';')) {
    if (!idx) {
      try {
        idx = columnIndex(row, COLUNAS)
      } catch (err) {
        const start = text.slice(0, 60).replace(/\s+/g, ' ').trim()
        throw new Error(`${what}: não é o CSV do balanço de energia por subsistema (${err instanceof HeaderError ? err.message : String(err)}; começa com "${start}")`)
      }
      continue
    }
    if (isBlankRow(row)) continue
    const id = (row[idx.id] ?? '').trim().toUpperCase()
    const instante = (row[idx.instante] ?? '').trim()
    const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}):00(:00)?$/.exec(instante)
    if (!m || !validIso(m[1]!) || Number(m[2]) > 23 || (id !== 'SIN' && !(SUBSISTEMAS as readonly string[]).includes(id))) {
      descartadas++
      continue
    }
    const valores: Partial<Hora> = {}
    let quebrada = false
    for (const k of MEDIDAS) {
      const v = numero(row[idx[k]])
      if (v === undefined) quebrada = true
      else if (v !== null) valores[k] = v
    }
    if (quebrada) {
      descartadas++
      continue
    }
    const day = m[1]!
    const hour = Number(m[2])
    let horas = into.get(day)
    if (!horas) into.set(day, (horas = new Map()))
    let h = horas.get(hour)
    if (!h) horas.set(hour, (h = { subs: new Map() }))
    if (id === 'SIN') h.sin = valores
    else h.subs.set(id, valores)
  }
  if (!idx) throw new Error(`${what}: arquivo vazio`)
  return descartadas
}

const completo = (v: Partial<Hora> | undefined): v is Hora => v !== undefined && MEDIDAS.every((k) => typeof v[k] === 'number')

/** The SIN values of an hour: its own row when complete, else the four subsystems summed when all are. */
function horaSin(h: { sin?: Partial<Hora>; subs: Map<string, Partial<Hora>> }): Hora | null {
  if (completo(h.sin)) return h.sin
  const subs = SUBSISTEMAS.map((s) => h.subs.get(s))
  if (!subs.every(completo)) return null
  const out = {} as Hora
  for (const k of MEDIDAS) out[k] = subs.reduce((a, s) => a + (s as Hora)[k], 0)
  return out
}

/** Daily means of the complete days (24 SIN hours), oldest first. */
export function diasCompletos(balanco: Balanco): DiaBalanco[] {
  const out: DiaBalanco[] = []
  for (const day of [...balanco.keys()].sort()) {
    const horas = balanco.get(day)!
    const sums = { termica: 0, hidraulica: 0, eolica: 0, solar: 0, carga: 0 }
    let n = 0
    for (let hour = 0; hour < 24; hour++) {
      const h = horas.get(hour)
      const v = h ? horaSin(h) : null
      if (!v) break
      for (const k of MEDIDAS) sums[k] += v[k]
      n++
    }
    if (n < 24) continue
    out.push({
      data: day,
      termica_mwmed: round(sums.termica / 24, 1),
      hidraulica_mwmed: round(sums.hidraulica / 24, 1),
      eolica_mwmed: round(sums.eolica / 24, 1),
      solar_mwmed: round(sums.solar / 24, 1),
      carga_mwmed: round(sums.carga / 24, 1),
      participacao_termica_pct: round((sums.termica / sums.carga) * 100, 2),
    })
  }
  return out
}

function janela(dias: DiaBalanco[]): JanelaTermica {
  // Means of the unrounded daily means would differ in the last digit only; the daily values are what the answer shows.
  const termica = dias.reduce((a, d) => a + d.termica_mwmed, 0) / dias.length
  const carga = dias.reduce((a, d) => a + d.carga_mwmed, 0) / dias.length
  return { de: dias[0]!.data, ate: dias[dias.length - 1]!.data, termica_mwmed: round(termica, 1), carga_mwmed: round(carga, 1), participacao_termica_pct: round((termica / carga) * 100, 2) }
}

/** The window of the last 7 complete days (consecutive calendar days ending at the last one) and the 7 before. */
export function resumoTermica(dias: DiaBalanco[], descartadas = 0): TermicaDados {
  const ultimo = dias[dias.length - 1]
  if (!ultimo) throw new Error('ONS balanço: nenhum dia com as 24 horas do SIN')
  const porData = new Map(dias.map((d) => [d.data, d]))
  const periodo = (fim: string) => {
    const out: DiaBalanco[] = []
    for (let i = JANELA_DIAS - 1; i >= 0; i--) {
      const d = porData.get(addDays(fim, -i))
      if (!d) return null
      out.push(d)
    }
    return out
  }
  const atual = periodo(ultimo.data)
  if (!atual) throw new Error(`ONS balanço: os 7 dias até ${ultimo.data} não estão completos no arquivo`)
  const antes = periodo(addDays(ultimo.data, -JANELA_DIAS))
  const j = janela(atual)
  const a = antes ? janela(antes) : null
  return {
    dia: ultimo.data,
    janela: j,
    anterior: a,
    variacao_participacao_pp: a ? round(j.participacao_termica_pct - a.participacao_termica_pct, 2) : null,
    serie: dias.filter((d) => d.data > addDays(ultimo.data, -2 * JANELA_DIAS)),
    linhas_descartadas: descartadas,
  }
}

async function lerAno(ctx: FeedFetchContext, ano: number, into: Balanco): Promise<number | null> {
  const response = await ctx.fetch(`${ctx.url(ONS_BALANCO)}/BALANCO_ENERGIA_SUBSISTEMA_${ano}.csv`, { accept: [403, 404] })
  // S3 answers 403 (not 404) for a key that does not exist when listing is off.
  if (response.status === 403 || response.status === 404) {
    await response.body?.cancel().catch(() => {})
    return null
  }
  return parseBalanco(new TextDecoder('utf-8').decode(await response.arrayBuffer()), `ONS balanço ${ano}`, into)
}

export async function fetchTermica(ctx: FeedFetchContext): Promise<TermicaDados> {
  const ano = Number(isoDateBrasilia(ctx.now()).slice(0, 4))
  const balanco: Balanco = new Map()
  let descartadas = 0
  const atual = await lerAno(ctx, ano, balanco)
  descartadas += atual ?? 0
  // Early January: the two windows reach into last year's file.
  if (diasCompletos(balanco).length < 2 * JANELA_DIAS) {
    const antes = await lerAno(ctx, ano - 1, balanco)
    if (atual === null && antes === null) throw new Error(`ONS: nem BALANCO_ENERGIA_SUBSISTEMA_${ano}.csv nem o de ${ano - 1} foram encontrados`)
    descartadas += antes ?? 0
  }
  const dias = diasCompletos(balanco)
  const linhas = [...balanco.values()].reduce((a, h) => a + h.size, 0) * 5
  if (descartadas > Math.max(10, linhas * 0.01)) throw new Error(`ONS balanço: ${descartadas} linhas fora do formato (mais de 1 %); a cópia anterior fica`)
  return resumoTermica(dias, descartadas)
}

export const TERMICA_FEED: FeedDef<TermicaDados> = {
  name: 'cadeias-termica',
  dataset: 'cadeias',
  base: 'ONS (balanço de energia horário por subsistema)',
  upstreams: [ONS_BALANCO],
  // ONS adds the previous day once a day; a daily check is enough (the file reaches ~4 MB by December).
  intervalMinutes: 1440,
  timeoutMs: 120_000,
  fetch: (_key, ctx) => fetchTermica(ctx),
}
