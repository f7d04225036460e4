// ANEEL's tariff flag ("bandeira tarifária") in force each month: the open-data CSV
// bandeira-tarifaria-acionamento.csv (one row per competence month since January 2015), as published:
// `;`, LF, no quotes, in windows-1252 ("Escassez H\xEDdrica") though UTF-8 is accepted too;
// `DatGeracaoConjuntoDados;DatCompetencia;NomBandeiraAcionada;VlrAdicionalBandeira`, dates YYYY-MM-DD
// (the first day of the competence month), the surcharge in R$/MWh with a decimal comma and ",00" for
// zero. ANEEL announces next month's flag in the last days of a month, so the file may already hold it.
// Columns are picked by name; a flag name this code does not know fails the refresh (the last good
// copy stays, and the chain reads it as stale): a new flag level needs a new rule, not a guess.
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { csvRows, isBlankRow, sniffEncoding } from '../../core/text/csv'
import { columnIndex, HeaderError, normalizeHeader } from '../../core/text/header'
import { ISO_DAY, validIso } from './tempo'
import { ANEEL_BANDEIRAS } from './upstreams'

export const ARQUIVO_BANDEIRAS = 'bandeira-tarifaria-acionamento.csv'

/** The flag levels, mildest first; `patamar` is the position (the chain's rules read the name). */
export const BANDEIRAS = ['Verde', 'Amarela', 'Vermelha P1', 'Vermelha P2', 'Escassez Hídrica'] as const
export type Bandeira = (typeof BANDEIRAS)[number]

/** The spellings seen in the file's versions and in clients of it, normalized (accents off, upper case). */
const NOMES: Record<string, Bandeira> = {
  VERDE: 'Verde',
  AMARELA: 'Amarela',
  'VERMELHA P1': 'Vermelha P1',
  'VERMELHA 1': 'Vermelha P1',
  'VERMELHA PATAMAR 1': 'Vermelha P1',
  'VERMELHA P2': 'Vermelha P2',
  'VERMELHA 2': 'Vermelha P2',
  'VERMELHA PATAMAR 2': 'Vermelha P2',
  'ESCASSEZ HIDRICA': 'Escassez Hídrica',
}

export function bandeiraDe(raw: string): Bandeira | null {
  return NOMES[normalizeHeader(raw).replace(/ ?- ?/g, ' ').replace(/\s+/g, ' ')] ?? null
}

export interface MesBandeira {
  /** YYYY-MM */
  competencia: string
  bandeira: Bandeira
  patamar: number
  /** Surcharge in R$/MWh (ANEEL's unit; ÷ 10 = R$ per 100 kWh). */
  adicional_rs_mwh: number | null
}

export interface BandeirasDados {
  /** DatGeracaoConjuntoDados: when ANEEL generated the file (YYYY-MM-DD), the newest in it. */
  gerado_em: string | null
  /** Every competence month in the file, oldest first (a month listed twice keeps its last row). */
  meses: MesBandeira[]
}

const COLUNAS = {
  gerado: 'DatGeracaoConjuntoDados',
  competencia: 'DatCompetencia',
  bandeira: 'NomBandeiraAcionada',
  adicional: 'VlrAdicionalBandeira',
}

/** "18,85", ",00", "1.420,00" (Brazilian) or "18.85"; null when empty. */
function valorBr(field: string): number | null {
  const t = field.trim()
  if (!t) return null
  const plain = t.includes(',') ? t.replace(/\./g, '').replace(',', '.') : t
  const normalized = plain.startsWith('.') ? `0${plain}` : plain
  if (!/^-?\d+(\.\d+)?$/.test(normalized)) throw new Error(`valor do adicional fora do formato: "${t}"`)
  return Number(normalized)
}

/** YYYY-MM-DD or dd/mm/yyyy to YYYY-MM-DD; null when it is neither. */
function dia(field: string): string | null {
  const t = field.trim().slice(0, 10)
  if (ISO_DAY.test(t)) return validIso(t) ? t : null
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(t)
  if (!m) return null
  const iso = `${m[3]}-${m[2]}-${m[1]}`
  return validIso(iso) ? iso : null
}

export async function parseBandeiras(bytes: Uint8Array, what = ARQUIVO_BANDEIRAS): Promise<BandeirasDados> {
  const text = new TextDecoder(sniffEncoding(bytes)).decode(bytes)
  let idx: ReturnType<typeof columnIndex<typeof COLUNAS>> | null = null
  const porMes = new Map<string, MesBandeira>()
  let gerado: string | null = null
  let linha = 0
  for await (const row of csvRows([text], ';')) {
    linha++
    if (!idx) {
      try {
        idx = columnIndex(row, COLUNAS, ['gerado'])
      } catch (err) {
        const start = text.slice(0, 60).replace(/\s+/g, ' ').trim()
        throw new Error(`${what}: não é o CSV de bandeiras acionadas da ANEEL (${err instanceof HeaderError ? err.message : String(err)}; começa com "${start}")`)
      }
      continue
    }
    if (isBlankRow(row)) continue
    const competencia = dia(row[idx.competencia] ?? '')
    const nome = row[idx.bandeira] ?? ''
    const bandeira = bandeiraDe(nome)
    if (!competencia) throw new Error(`${what}, linha ${linha}: DatCompetencia fora do formato: "${(row[idx.competencia] ?? '').slice(0, 20)}"`)
    if (!bandeira) throw new Error(`${what}, linha ${linha}: bandeira desconhecida "${nome.slice(0, 40)}" (conhecidas: ${BANDEIRAS.join(', ')}); a regra da cadeia energia_br precisa dela antes de lê-la`)
    let adicional: number | null
    try {
      adicional = valorBr(row[idx.adicional] ?? '')
    } catch (err) {
      throw new Error(`${what}, linha ${linha}: ${(err as Error).message}`)
    }
    if (idx.gerado >= 0) {
      const g = dia(row[idx.gerado] ?? '')
      if (g && (!gerado || g > gerado)) gerado = g
    }
    const mes = competencia.slice(0, 7)
    porMes.set(mes, { competencia: mes, bandeira, patamar: BANDEIRAS.indexOf(bandeira), adicional_rs_mwh: adicional })
  }
  if (!idx) throw new Error(`${what}: arquivo vazio`)
  if (!porMes.size) throw new Error(`${what}: nenhuma competência no arquivo`)
  return { gerado_em: gerado, meses: [...porMes.values()].sort((a, b) => a.competencia.localeCompare(b.competencia)) }
}

export async function fetchBandeiras(ctx: FeedFetchContext): Promise<BandeirasDados> {
  const response = await ctx.fetch(`${ctx.url(ANEEL_BANDEIRAS)}/${ARQUIVO_BANDEIRAS}`)
  return parseBandeiras(new Uint8Array(await response.arrayBuffer()))
}

export const BANDEIRA_FEED: FeedDef<BandeirasDados> = {
  name: 'cadeias-bandeira',
  dataset: 'cadeias',
  base: 'ANEEL (bandeiras tarifárias acionadas, dados abertos)',
  upstreams: [ANEEL_BANDEIRAS],
  // The flag changes once a month, announced in the month's last days: twice a day finds it within hours.
  intervalMinutes: 720,
  timeoutMs: 60_000,
  fetch: (_key, ctx) => fetchBandeiras(ctx),
}
