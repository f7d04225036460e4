// INPE fire hotspots (SOURCES.md §6.2), daily: the daily CSV of Brazil for each of the last 7 days
// (focos_diario_br_AAAAMMDD.csv), reduced to per-day counts by biome and state from the reference
// satellite. Real quirks: leading spaces in lat/lon (`  -3.272800`, even `   -.878200`), empty met
// fields for geostationary satellites, -999 in older exports, UTF-8 with a latin-1 fallback,
// `estado` as the full upper-case name.
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { csvRows, isBlankRow } from '../../core/text/csv'
import { columnIndex, HeaderError } from '../../core/text/header'
import { addDays, compact, isoDateBrasilia, round } from './tempo'
import { INPE_QUEIMADAS } from './upstreams'

/**
 * The reference satellite: the one INPE uses for its comparable series (the afternoon pass of
 * AQUA/MODIS since 2002). Counts from all satellites double-count the same fire and change as
 * satellites come and go, so series and rankings count only this one; `focos_todos_satelites`
 * says how many rows the files had in all.
 */
export const SATELITE_REFERENCIA = 'AQUA_M-T'
export const JANELA_FOGO_DIAS = 7
/** The days re-read every refresh (INPE completes a day's file during the next day); older ones are kept from the last copy. */
const DIAS_RELIDOS = 2

export const UF_POR_ESTADO: Record<string, string> = {
  ACRE: 'AC', ALAGOAS: 'AL', 'AMAPÁ': 'AP', AMAZONAS: 'AM', BAHIA: 'BA', 'CEARÁ': 'CE', 'DISTRITO FEDERAL': 'DF', 'ESPÍRITO SANTO': 'ES',
  'GOIÁS': 'GO', 'MARANHÃO': 'MA', 'MATO GROSSO': 'MT', 'MATO GROSSO DO SUL': 'MS', 'MINAS GERAIS': 'MG', 'PARÁ': 'PA', 'PARAÍBA': 'PB',
  'PARANÁ': 'PR', PERNAMBUCO: 'PE', 'PIAUÍ': 'PI', 'RIO DE JANEIRO': 'RJ', 'RIO GRANDE DO NORTE': 'RN', 'RIO GRANDE DO SUL': 'RS',
  'RONDÔNIA': 'RO', RORAIMA: 'RR', 'SANTA CATARINA': 'SC', 'SÃO PAULO': 'SP', SERGIPE: 'SE', TOCANTINS: 'TO',
}

/** One day's file reduced: the reference satellite's hotspots by biome and state. */
export interface DiaFogo {
  data: string
  linhas: number
  focos_referencia: number
  /** bioma -> [hotspots, sum of FRP, hotspots with FRP] */
  por_bioma: Record<string, [number, number, number]>
  por_estado: Record<string, number>
  /** Sum and count of numero_dias_sem_chuva over the reference hotspots that carry it. */
  dias_sem_chuva: [number, number]
}

const COLUNAS = {
  satelite: 'satelite',
  estado: 'estado',
  bioma: 'bioma',
  frp: 'frp',
  dias_sem_chuva: ['numero_dias_sem_chuva', 'diasemchuva', 'diasemchuv'],
  data_hora: ['data_hora_gmt', 'datahora'],
}

/** A number from an INPE field: spaces trimmed, empty and the -999 sentinel are null. */
export function numeroInpe(field: string | undefined): number | null {
  const t = field?.trim() ?? ''
  if (!t) return null
  const n = Number(t)
  return Number.isFinite(n) && n !== -999 ? n : null
}

/** UTF-8 when the bytes are valid UTF-8, else latin-1 (windows-1252): some days came that way. */
export function decodeInpe(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return new TextDecoder('windows-1252').decode(bytes)
  }
}

export async function parseFocosDia(bytes: Uint8Array, data: string): Promise<DiaFogo> {
  const text = decodeInpe(bytes)
  const dia: DiaFogo = { data, linhas: 0, focos_referencia: 0, por_bioma: {}, por_estado: {}, dias_sem_chuva: [0, 0] }
  let idx: ReturnType<typeof columnIndex<typeof COLUNAS>> | null = null
  for await (const row of csvRows([text], ',')) {
    if (!idx) {
      try {
        idx = columnIndex(row, COLUNAS, ['dias_sem_chuva', 'data_hora'])
      } catch (err) {
        const start = text.slice(0, 60).replace(/\s+/g, ' ').trim()
        throw new Error(`INPE ${data}: não é o CSV de focos (${err instanceof HeaderError ? err.message : String(err)}; começa com "${start}")`)
      }
      continue
    }
    if (isBlankRow(row)) continue
    dia.linhas++
    if (row[idx.satelite]?.trim() !== SATELITE_REFERENCIA) continue
    dia.focos_referencia++
    const bioma = row[idx.bioma]?.trim() || 'não informado'
    const b = (dia.por_bioma[bioma] ??= [0, 0, 0])
    b[0]++
    const frp = numeroInpe(row[idx.frp])
    if (frp !== null) ((b[1] += frp), b[2]++)
    const estado = row[idx.estado]?.trim().toUpperCase() || 'NÃO INFORMADO'
    dia.por_estado[estado] = (dia.por_estado[estado] ?? 0) + 1
    const dsc = idx.dias_sem_chuva >= 0 ? numeroInpe(row[idx.dias_sem_chuva]) : null
    if (dsc !== null && dsc >= 0) ((dia.dias_sem_chuva[0] += dsc), dia.dias_sem_chuva[1]++)
  }
  if (!idx) throw new Error(`INPE ${data}: arquivo vazio`)
  for (const b of Object.values(dia.por_bioma)) b[1] = round(b[1], 1)
  return dia
}

export interface SerieBioma {
  bioma: string
  focos_7d: number
  frp_medio_7d_mw: number | null
  serie: { data: string; focos: number; frp_medio_mw: number | null }[]
}

export interface FogoDados {
  satelite_referencia: string
  periodo: { inicio: string; fim: string }
  biomas: SerieBioma[]
  estados: { estado: string; uf: string | null; focos_7d: number }[]
  dias_sem_chuva_medio: number | null
  focos_referencia_7d: number
  focos_todos_satelites_7d: number
  dias: DiaFogo[]
}

/** The 7-day answer from the days' reductions (oldest first). */
export function resumoFogo(dias: DiaFogo[]): FogoDados {
  const biomas = new Set(dias.flatMap((d) => Object.keys(d.por_bioma)))
  const series: SerieBioma[] = [...biomas].map((bioma) => {
    const serie = dias.map((d) => {
      const b = d.por_bioma[bioma]
      return { data: d.data, focos: b?.[0] ?? 0, frp_medio_mw: b && b[2] ? round(b[1] / b[2], 1) : null }
    })
    const tot = dias.reduce((acc, d) => {
      const b = d.por_bioma[bioma]
      return b ? [acc[0]! + b[0], acc[1]! + b[1], acc[2]! + b[2]] : acc
    }, [0, 0, 0])
    return { bioma, focos_7d: tot[0]!, frp_medio_7d_mw: tot[2] ? round(tot[1]! / tot[2], 1) : null, serie }
  })
  series.sort((a, b) => b.focos_7d - a.focos_7d || a.bioma.localeCompare(b.bioma))
  const porEstado = new Map<string, number>()
  for (const d of dias) for (const [e, n] of Object.entries(d.por_estado)) porEstado.set(e, (porEstado.get(e) ?? 0) + n)
  const estados = [...porEstado]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 10)
    .map(([estado, focos_7d]) => ({ estado, uf: UF_POR_ESTADO[estado] ?? null, focos_7d }))
  const dsc = dias.reduce((acc, d) => [acc[0]! + d.dias_sem_chuva[0], acc[1]! + d.dias_sem_chuva[1]], [0, 0])
  return {
    satelite_referencia: SATELITE_REFERENCIA,
    periodo: { inicio: dias[0]!.data, fim: dias[dias.length - 1]!.data },
    biomas: series,
    estados,
    dias_sem_chuva_medio: dsc[1] ? round(dsc[0]! / dsc[1], 1) : null,
    focos_referencia_7d: dias.reduce((a, d) => a + d.focos_referencia, 0),
    focos_todos_satelites_7d: dias.reduce((a, d) => a + d.linhas, 0),
    dias,
  }
}

async function fetchDia(ctx: FeedFetchContext, data: string): Promise<DiaFogo | null> {
  const url = `${ctx.url(INPE_QUEIMADAS)}/diario/Brasil/focos_diario_br_${compact(data)}.csv`
  const response = await ctx.fetch(url, { accept: [404] })
  if (response.status === 404) {
    await response.body?.cancel().catch(() => {})
    return null
  }
  return parseFocosDia(new Uint8Array(await response.arrayBuffer()), data)
}

export async function fetchFogo(ctx: FeedFetchContext): Promise<FogoDados> {
  const hoje = isoDateBrasilia(ctx.now())
  const previous = ctx.previous as FogoDados | null
  const kept = new Map((previous?.dias ?? []).map((d) => [d.data, d]))
  // Yesterday's file may not be there yet early in the day: then the window ends the day before.
  let fim = addDays(hoje, -1)
  let ultimo = await fetchDia(ctx, fim)
  if (!ultimo) {
    fim = addDays(hoje, -2)
    ultimo = await fetchDia(ctx, fim)
    if (!ultimo) throw new Error(`INPE: nem o arquivo de ${addDays(hoje, -1)} nem o de ${fim} estão publicados (HTTP 404)`)
  }
  const dias: DiaFogo[] = [ultimo]
  for (let k = 1; k < JANELA_FOGO_DIAS; k++) {
    const data = addDays(fim, -k)
    const reuse = k >= DIAS_RELIDOS ? kept.get(data) : undefined
    const dia = reuse ?? (await fetchDia(ctx, data))
    if (!dia) throw new Error(`INPE: arquivo diário de ${data} não encontrado (HTTP 404)`)
    dias.unshift(dia)
  }
  return resumoFogo(dias)
}

export const FOGO_FEED: FeedDef<FogoDados> = {
  name: 'commodities-fogo',
  dataset: 'commodities',
  base: `INPE/Queimadas (focos diários, satélite de referência ${SATELITE_REFERENCIA})`,
  upstreams: [INPE_QUEIMADAS],
  intervalMinutes: 1440,
  // Seven files of up to ~10 MB each in the fire season.
  timeoutMs: 120_000,
  fetch: (_key, ctx) => fetchFogo(ctx),
}
