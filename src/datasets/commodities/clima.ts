// Crop-belt weather from Open-Meteo (SOURCES.md §8), twice a day: one forecast request and one
// archive request for every belt at once (comma-separated coordinates answer with an array of
// locations, in the order asked). Real quirks handled: parallel daily/hourly arrays with null for
// a missing value, coordinates snapped to the model grid (reported as `grade`, never our input),
// an object instead of an array for a single location, and {"error":true,"reason"} with HTTP 400.
// Observed rain = the archive (ERA5 reanalysis) where it has a value, else the forecast API's past
// days (ERA5 lags ~5 days; those days come null from the archive).
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { isRecord, readJson } from '../mercado/json'
import { CINTUROES, CULTURAS, type Cinturao, type CulturaId } from './cinturoes'
import { addDays, isoDateBrasilia, round } from './tempo'
import { OPEN_METEO, OPEN_METEO_ARQUIVO } from './upstreams'

/** A day with less rain than this (mm) is dry (the usual agrometeorological cut). */
export const DIA_SECO_MM = 1
/** Days of observed rain asked from the archive: the longest dry spell that can be counted. */
export const JANELA_OBSERVADA_DIAS = 90
export const PREVISAO_DIAS = 7
export const HORAS_TEMP_MIN = 72

export interface LocalOpenMeteo {
  latitude: number
  longitude: number
  elevation: number | null
  utcOffsetSeconds: number
  daily: { time: string[]; [v: string]: (number | null)[] | string[] }
  hourly: { time: string[]; [v: string]: (number | null)[] | string[] } | null
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/
const ISO_HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/

function series(block: unknown, vars: string[], what: string, timeRe: RegExp): LocalOpenMeteo['daily'] {
  if (!isRecord(block) || !Array.isArray(block.time)) throw new Error(`${what}: sem a lista time`)
  const time = block.time
  if (!time.every((t) => typeof t === 'string' && timeRe.test(t))) throw new Error(`${what}: datas fora do formato em time`)
  const out: LocalOpenMeteo['daily'] = { time: time as string[] }
  for (const v of vars) {
    const values = block[v]
    // Parallel arrays: one value (or null) per time, no more, no less.
    if (!Array.isArray(values) || values.length !== time.length) throw new Error(`${what}: ${v} ausente ou de tamanho diferente de time`)
    if (!values.every((x) => x === null || (typeof x === 'number' && Number.isFinite(x)))) throw new Error(`${what}: ${v} com valor que não é número nem null`)
    out[v] = values as (number | null)[]
  }
  return out
}

/**
 * Parses an Open-Meteo answer for `count` locations: an array of location objects (or one object
 * when one location was asked). Throws with the API's reason on {"error": true}.
 */
export function parseOpenMeteo(body: unknown, count: number, daily: string[], hourly: string[], what: string): LocalOpenMeteo[] {
  if (isRecord(body) && body.error === true) throw new Error(`${what}: ${typeof body.reason === 'string' ? body.reason : 'erro sem motivo'}`)
  const list = Array.isArray(body) ? body : [body]
  if (list.length !== count) throw new Error(`${what}: ${list.length} locais na resposta, ${count} pedidos`)
  return list.map((loc, i) => {
    const w = `${what} (local ${i + 1})`
    if (!isRecord(loc) || typeof loc.latitude !== 'number' || typeof loc.longitude !== 'number') throw new Error(`${w}: sem latitude/longitude`)
    return {
      latitude: loc.latitude,
      longitude: loc.longitude,
      elevation: typeof loc.elevation === 'number' ? loc.elevation : null,
      utcOffsetSeconds: typeof loc.utc_offset_seconds === 'number' ? loc.utc_offset_seconds : -10800,
      daily: series(loc.daily, daily, `${w} daily`, ISO_DAY),
      hourly: hourly.length ? series(loc.hourly, hourly, `${w} hourly`, ISO_HOUR) : null,
    }
  })
}

export interface DiaPrevisto {
  data: string
  chuva_mm: number | null
  temp_min_c: number | null
}

export interface ClimaCinturao {
  id: string
  nome: string
  uf: string
  municipio: string
  culturas: CulturaId[]
  latitude: number
  longitude: number
  /** The grid point Open-Meteo answered for (snapped), and its elevation. */
  grade: { latitude: number; longitude: number; elevacao_m: number | null }
  chuva_observada_7d_mm: number | null
  chuva_observada_30d_mm: number | null
  /** Days of the window with an observed value (archive or forecast past days). */
  dias_observados_30d: number
  chuva_prevista_7d_mm: number | null
  dias_secos_consecutivos: number | null
  /** True when the dry spell reaches the start of the observed window (it is at least that long). */
  dias_secos_no_limite: boolean
  ultima_chuva: string | null
  temp_min_72h_c: number | null
  temp_min_72h_em: string | null
  geada: { alerta: boolean; limiar_c: number; culturas_em_risco: CulturaId[] }
  previsao: DiaPrevisto[]
}

export interface ClimaDados {
  /** The day (Brasília) of the query: observed windows end the day before, the forecast starts on it. */
  referencia: string
  cinturoes: ClimaCinturao[]
  avisos: string[]
}

const sum = (xs: (number | null)[]) => {
  const vals = xs.filter((x): x is number => x !== null)
  return vals.length ? round(vals.reduce((a, b) => a + b, 0), 1) : null
}

/** The belt's signals from its forecast location and (when it came) its archive location. */
export function climaDoCinturao(c: Cinturao, prev: LocalOpenMeteo, arq: LocalOpenMeteo | null, now: number): ClimaCinturao {
  const hoje = isoDateBrasilia(now)
  const observed = new Map<string, number>()
  // Forecast past days first; the archive overwrites with its reanalysis where it has a value.
  prev.daily.time.forEach((d, i) => {
    const v = (prev.daily.precipitation_sum as (number | null)[])[i]
    if (d < hoje && v !== null && v !== undefined) observed.set(d, v)
  })
  arq?.daily.time.forEach((d, i) => {
    const v = (arq.daily.precipitation_sum as (number | null)[])[i]
    if (d < hoje && v !== null && v !== undefined) observed.set(d, v)
  })
  const window = (days: number) => Array.from({ length: days }, (_, k) => observed.get(addDays(hoje, -1 - k)) ?? null)
  const w30 = window(30)
  // Dry spell: back from yesterday until a day with rain; a day with no value is skipped, not counted.
  let secos = 0
  let ultima: string | null = null
  const start = addDays(hoje, -JANELA_OBSERVADA_DIAS)
  for (let d = addDays(hoje, -1); d >= start; d = addDays(d, -1)) {
    const v = observed.get(d)
    if (v === undefined) continue
    if (v >= DIA_SECO_MM) {
      ultima = d
      break
    }
    secos++
  }
  const previsao: DiaPrevisto[] = []
  prev.daily.time.forEach((d, i) => {
    if (d >= hoje && d < addDays(hoje, PREVISAO_DIAS))
      previsao.push({ data: d, chuva_mm: (prev.daily.precipitation_sum as (number | null)[])[i] ?? null, temp_min_c: (prev.daily.temperature_2m_min as (number | null)[])[i] ?? null })
  })
  // Minimum over the next 72 hours from the hourly series (local times, shifted by the answer's UTC offset).
  let tmin: number | null = null
  let tminAt: string | null = null
  if (prev.hourly) {
    const temps = prev.hourly.temperature_2m as (number | null)[]
    prev.hourly.time.forEach((t, i) => {
      const at = Date.parse(`${t}:00Z`) - prev.utcOffsetSeconds * 1000
      const v = temps[i]
      if (at >= now - 3600_000 && at < now + HORAS_TEMP_MIN * 3600_000 && v !== null && v !== undefined && (tmin === null || v < tmin)) ((tmin = v), (tminAt = t))
    })
  }
  const limiar = Math.max(...c.culturas.map((k) => CULTURAS[k].geada_limiar_c))
  const emRisco = tmin === null ? [] : c.culturas.filter((k) => tmin! <= CULTURAS[k].geada_limiar_c)
  return {
    id: c.id,
    nome: c.nome,
    uf: c.uf,
    municipio: c.municipio,
    culturas: c.culturas,
    latitude: c.latitude,
    longitude: c.longitude,
    grade: { latitude: prev.latitude, longitude: prev.longitude, elevacao_m: prev.elevation },
    chuva_observada_7d_mm: sum(w30.slice(0, 7)),
    chuva_observada_30d_mm: sum(w30),
    dias_observados_30d: w30.filter((x) => x !== null).length,
    chuva_prevista_7d_mm: sum(previsao.map((p) => p.chuva_mm)),
    dias_secos_consecutivos: observed.size ? secos : null,
    dias_secos_no_limite: observed.size > 0 && ultima === null,
    ultima_chuva: ultima,
    temp_min_72h_c: tmin,
    temp_min_72h_em: tminAt,
    geada: { alerta: emRisco.length > 0, limiar_c: limiar, culturas_em_risco: emRisco },
    previsao,
  }
}

const coords = (belts: Cinturao[]) => ({
  latitude: belts.map((c) => c.latitude).join(','),
  longitude: belts.map((c) => c.longitude).join(','),
})

async function openMeteo(ctx: FeedFetchContext, url: string, what: string): Promise<unknown> {
  // 400 carries {"error":true,"reason":"..."}: read it for the message.
  const response = await ctx.fetch(url, { headers: { accept: 'application/json' }, accept: [400] })
  const body = await readJson(response, response.ok ? what : `${what} (HTTP ${response.status})`)
  if (!response.ok) throw new Error(`${what} (HTTP ${response.status}): ${isRecord(body) && typeof body.reason === 'string' ? body.reason : 'erro sem motivo'}`)
  return body
}

export async function fetchClima(ctx: FeedFetchContext, belts: Cinturao[] = CINTUROES): Promise<ClimaDados> {
  const now = ctx.now()
  const hoje = isoDateBrasilia(now)
  const { latitude, longitude } = coords(belts)
  const tz = 'timezone=America%2FSao_Paulo'
  const forecastUrl =
    `${ctx.url(OPEN_METEO)}/v1/forecast?latitude=${latitude}&longitude=${longitude}` +
    `&daily=precipitation_sum,temperature_2m_min&hourly=temperature_2m&${tz}&past_days=7&forecast_days=8`
  const archiveUrl =
    `${ctx.url(OPEN_METEO_ARQUIVO)}/v1/archive?latitude=${latitude}&longitude=${longitude}` +
    `&start_date=${addDays(hoje, -JANELA_OBSERVADA_DIAS)}&end_date=${addDays(hoje, -1)}&daily=precipitation_sum&${tz}`
  const [forecast, archive] = await Promise.allSettled([openMeteo(ctx, forecastUrl, 'Open-Meteo forecast'), openMeteo(ctx, archiveUrl, 'Open-Meteo archive')])
  if (forecast.status === 'rejected') throw forecast.reason
  const prev = parseOpenMeteo(forecast.value, belts.length, ['precipitation_sum', 'temperature_2m_min'], ['temperature_2m'], 'Open-Meteo forecast')
  const avisos: string[] = []
  let arq: LocalOpenMeteo[] | null = null
  try {
    if (archive.status === 'rejected') throw archive.reason
    arq = parseOpenMeteo(archive.value, belts.length, ['precipitation_sum'], [], 'Open-Meteo archive')
  } catch (err) {
    // Without the archive, the observed windows hold only the forecast API's 7 past days.
    avisos.push(`histórico indisponível nesta consulta (${(err as Error).message}); chuva observada só dos 7 dias passados da previsão`)
  }
  return { referencia: hoje, cinturoes: belts.map((c, i) => climaDoCinturao(c, prev[i]!, arq?.[i] ?? null, now)), avisos }
}

export const CLIMA_FEED: FeedDef<ClimaDados> = {
  name: 'commodities-clima',
  dataset: 'commodities',
  base: 'Open-Meteo (forecast e archive/ERA5)',
  upstreams: [OPEN_METEO, OPEN_METEO_ARQUIVO],
  // Twice a day: the models behind the forecast run every 6-12 h; more often would repeat the same numbers.
  intervalMinutes: 720,
  timeoutMs: 30_000,
  fetch: (_key, ctx) => fetchClima(ctx),
}
