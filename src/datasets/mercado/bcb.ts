// The Banco Central's sources, as three feeds: SGS series (Selic target, IPCA), PTAX (Olinda
// OData) and the Focus survey's annual medians (Olinda OData). Real formats and quirks in
// SOURCES.md §4.2-4.4: `valor` as a string, dd/mm/yyyy, daily series refused without a window
// (at most 10 years), OData dates 'MM-DD-YYYY' in quotes, "value": [] on days without PTAX.
import type { FeedDef, FeedFetchContext } from '../../core/feeds/feed'
import { BCB_OLINDA, BCB_SGS } from './upstreams'
import { decimal, isRecord, readJson } from './json'
import { brasilia, brDate, daysBefore, fromBrDate, isoDateBrasilia, odataDate, sgsDate, validIso, weekday } from './tempo'

// ---------------------------------------------------------------- SGS

export interface SgsSerieDef {
  codigo: number
  chave: 'selic_meta' | 'ipca_mensal' | 'ipca_12_meses'
  /** Days back asked for: short for the daily Selic target (a daily series needs a window), ~3 months for the monthly ones (always the last two). */
  janelaDias: number
}

export const SGS_SERIES: SgsSerieDef[] = [
  { codigo: 432, chave: 'selic_meta', janelaDias: 20 },
  { codigo: 433, chave: 'ipca_mensal', janelaDias: 100 },
  { codigo: 13522, chave: 'ipca_12_meses', janelaDias: 100 },
]

export interface SgsPonto {
  data: string
  valor: number
}

export interface SgsSerie extends SgsPonto {
  codigo: number
  anterior: SgsPonto | null
  /** When this series was last fetched (a series that failed keeps its previous copy). */
  obtido_em: string
}

export interface SgsDados {
  series: Partial<Record<SgsSerieDef['chave'], SgsSerie>>
  /** The last error of each series that failed in the last refresh. */
  erros: Partial<Record<SgsSerieDef['chave'], string>>
}

/**
 * Parses an SGS answer: [{"data":"dd/mm/aaaa","valor":"13.75"}, ...], oldest first. Throws on
 * anything else. Days after `hoje` are dropped: the Selic target series is published ahead, up to
 * the next Copom meeting.
 */
export function parseSgs(body: unknown, codigo: number | string, hoje?: string): SgsPonto[] {
  if (isRecord(body)) {
    // Refusals come as an object: {"error": "O sistema aceita uma janela de consulta de, no máximo, 10 anos..."}
    // or {"erro": {"statusCode": 404, "detail": "Value(s) not found"}}.
    const raw = body.error ?? body.erro ?? body.message
    const message = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.detail === 'string' ? `${raw.statusCode ?? ''} ${raw.detail}`.trim() : null
    throw new Error(`SGS ${codigo}: ${message ?? 'resposta inesperada (um objeto, não uma lista)'}`)
  }
  if (!Array.isArray(body)) throw new Error(`SGS ${codigo}: resposta inesperada (não é uma lista)`)
  const points: SgsPonto[] = []
  for (const row of body) {
    const data = isRecord(row) ? fromBrDate(row.data) : null
    const valor = isRecord(row) ? decimal(row.valor) : null
    if (data === null || valor === null) throw new Error(`SGS ${codigo}: linha fora do formato: ${JSON.stringify(row).slice(0, 80)}`)
    if (!hoje || data <= hoje) points.push({ data, valor })
  }
  if (!points.length) throw new Error(`SGS ${codigo}: nenhum valor na janela pedida`)
  return points.sort((a, b) => a.data.localeCompare(b.data))
}

async function fetchSerie(def: SgsSerieDef, ctx: FeedFetchContext, now: number): Promise<Omit<SgsSerie, 'obtido_em'>> {
  const url =
    `${ctx.url(BCB_SGS)}/bcdata.sgs.${def.codigo}/dados?formato=json` +
    `&dataInicial=${encodeURIComponent(sgsDate(daysBefore(now, def.janelaDias)))}&dataFinal=${encodeURIComponent(sgsDate(now))}`
  // 404 and 406 carry the API's own message in a JSON body ("Value(s) not found", the 10-year window rule).
  const response = await ctx.fetch(url, { headers: { accept: 'application/json' }, accept: [400, 404, 406] })
  const what = response.ok ? `SGS ${def.codigo}` : `SGS ${def.codigo} (HTTP ${response.status})`
  const body = await readJson(response, what)
  if (!response.ok && !isRecord(body)) throw new Error(`${what}: resposta de erro sem mensagem`)
  const points = parseSgs(body, response.ok ? def.codigo : `${def.codigo} (HTTP ${response.status})`, isoDateBrasilia(now))
  const last = points[points.length - 1]!
  const before = points.length > 1 ? points[points.length - 2]! : null
  return { codigo: def.codigo, data: last.data, valor: last.valor, anterior: before }
}

export const SGS_FEED: FeedDef<SgsDados> = {
  name: 'mercado-sgs',
  dataset: 'mercado',
  base: 'BCB/SGS (séries 432, 433 e 13522)',
  upstreams: [BCB_SGS],
  intervalMinutes: 1440,
  timeoutMs: 30_000,
  async fetch(_key, ctx) {
    const now = ctx.now()
    const previous = ctx.previous as SgsDados | null
    const results = await Promise.allSettled(SGS_SERIES.map((def) => fetchSerie(def, ctx, now)))
    const dados: SgsDados = { series: {}, erros: {} }
    results.forEach((r, i) => {
      const def = SGS_SERIES[i]!
      if (r.status === 'fulfilled') dados.series[def.chave] = { ...r.value, obtido_em: new Date(now).toISOString() }
      else {
        dados.erros[def.chave] = r.reason instanceof Error ? r.reason.message : String(r.reason)
        // One series down keeps its last good value (with its own obtido_em); the others refresh.
        const kept = previous?.series?.[def.chave]
        if (kept) dados.series[def.chave] = kept
      }
    })
    if (results.every((r) => r.status === 'rejected')) throw new Error(Object.values(dados.erros).join('; '))
    return dados
  },
}

// ---------------------------------------------------------------- PTAX

/** Days back asked for: covers a weekend plus Carnival (Saturday to Ash Wednesday) and gives the week's trend. */
export const PTAX_JANELA_DIAS = 7

export interface PtaxDia {
  data: string
  compra: number
  venda: number
  /** dataHoraCotacao as published (Brasília time), e.g. "2026-01-28 13:04:27.532". */
  boletim: string
}

export interface PtaxDados {
  /** Closing PTAX of each business day in the window, oldest first. */
  serie: PtaxDia[]
  /** The day (Brasília) the query was made for. */
  consultado_para: string
  /** Why the latest PTAX is not of that day (weekend, holiday, not published yet), or null. */
  nota: string | null
}

const BOLETIM = /^(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}:\d{2}(\.\d{1,7})?$/

/** Parses CotacaoDolarPeriodo/CotacaoDolarDia: {"value":[{cotacaoCompra, cotacaoVenda, dataHoraCotacao}]}. */
export function parsePtax(body: unknown): PtaxDia[] {
  if (!isRecord(body) || !Array.isArray(body.value)) throw new Error('PTAX: resposta sem a lista "value"')
  const byDay = new Map<string, PtaxDia>()
  for (const row of body.value) {
    const compra = isRecord(row) ? decimal(row.cotacaoCompra) : null
    const venda = isRecord(row) ? decimal(row.cotacaoVenda) : null
    const boletim = isRecord(row) && typeof row.dataHoraCotacao === 'string' ? row.dataHoraCotacao : ''
    const m = BOLETIM.exec(boletim)
    if (compra === null || venda === null || compra <= 0 || venda <= 0 || !m || !validIso(m[1]!)) throw new Error(`PTAX: linha fora do formato: ${JSON.stringify(row).slice(0, 100)}`)
    // One closing bulletin per day; if a day came twice, the later bulletin wins.
    const prev = byDay.get(m[1]!)
    if (!prev || prev.boletim < boletim) byDay.set(m[1]!, { data: m[1]!, compra, venda, boletim })
  }
  return [...byDay.values()].sort((a, b) => a.data.localeCompare(b.data))
}

/** Why the latest PTAX is older than the day asked for, in the words a user needs. */
export function ptaxNota(ultima: string, now: number): string | null {
  const hoje = isoDateBrasilia(now)
  if (ultima >= hoje) return null
  const b = brasilia(now)
  const fimDeSemana = b.diaSemana === 0 || b.diaSemana === 6
  const motivo = fimDeSemana
    ? `${weekday(hoje)}, sem PTAX`
    : b.hora * 60 + b.minuto < 13 * 60 + 30
      ? 'a PTAX do dia ainda não foi publicada; sai por volta das 13h'
      : 'sem PTAX publicada no dia (feriado ou boletim atrasado)'
  return `${brDate(hoje)}: ${motivo}; vale a do último dia útil com boletim, ${brDate(ultima)} (${weekday(ultima)})`
}

export const PTAX_FEED: FeedDef<PtaxDados> = {
  name: 'mercado-ptax',
  dataset: 'mercado',
  base: 'BCB/PTAX (Olinda, CotacaoDolarPeriodo)',
  upstreams: [BCB_OLINDA],
  // A daily rate, published around 13:00 on business days: polled hourly, it is served at most an hour late.
  intervalMinutes: 60,
  timeoutMs: 30_000,
  async fetch(_key, ctx) {
    const now = ctx.now()
    const url =
      `${ctx.url(BCB_OLINDA)}/PTAX/versao/v1/odata/CotacaoDolarPeriodo(dataInicial=@dataInicial,dataFinalCotacao=@dataFinalCotacao)` +
      `?@dataInicial=${encodeURIComponent(odataDate(daysBefore(now, PTAX_JANELA_DIAS)))}&@dataFinalCotacao=${encodeURIComponent(odataDate(now))}` +
      `&$top=100&$format=json&$select=cotacaoCompra,cotacaoVenda,dataHoraCotacao`
    const serie = parsePtax(await readJson(await ctx.fetch(url, { headers: { accept: 'application/json' } }), 'PTAX'))
    if (!serie.length) throw new Error(`PTAX: nenhuma cotação de ${brDate(isoDateBrasilia(daysBefore(now, PTAX_JANELA_DIAS)))} a ${brDate(isoDateBrasilia(now))} (a Olinda respondeu "value": [])`)
    return { serie, consultado_para: isoDateBrasilia(now), nota: ptaxNota(serie[serie.length - 1]!.data, now) }
  },
}

// ---------------------------------------------------------------- Focus

export const FOCUS_INDICADORES = { IPCA: 'ipca', Selic: 'selic', 'PIB Total': 'pib', 'Câmbio': 'cambio' } as const
export type FocusIndicador = keyof typeof FOCUS_INDICADORES

export interface FocusMediana {
  indicador: FocusIndicador
  /** The calendar year the expectation is for. */
  ano: string
  mediana: number
  /** The survey day of this median (the Monday report publishes the previous Friday's). */
  data: string
}

export interface FocusDados {
  /** The year taken as "this year" when fetched (Brasília). */
  ano_base: number
  medianas: FocusMediana[]
}

/** Parses ExpectativasMercadoAnuais rows, keeping the latest survey day of each indicator and year. */
export function parseFocus(body: unknown): FocusMediana[] {
  if (!isRecord(body) || !Array.isArray(body.value)) throw new Error('Focus: resposta sem a lista "value"')
  const latest = new Map<string, FocusMediana>()
  for (const row of body.value) {
    if (!isRecord(row)) throw new Error('Focus: linha fora do formato')
    const indicador = row.Indicador
    if (typeof indicador !== 'string' || !(indicador in FOCUS_INDICADORES)) continue
    // Indicators with a breakdown (Balança comercial: Saldo/Exportações) carry IndicadorDetalhe; these four do not.
    if (row.IndicadorDetalhe !== null && row.IndicadorDetalhe !== undefined) continue
    if (row.baseCalculo !== undefined && row.baseCalculo !== 0) continue
    const mediana = decimal(row.Mediana)
    const data = typeof row.Data === 'string' && validIso(row.Data) ? row.Data : null
    const ano = typeof row.DataReferencia === 'string' && /^\d{4}$/.test(row.DataReferencia) ? row.DataReferencia : null
    if (mediana === null || data === null || ano === null) throw new Error(`Focus: linha fora do formato: ${JSON.stringify(row).slice(0, 100)}`)
    const key = `${indicador}|${ano}`
    const prev = latest.get(key)
    if (!prev || prev.data < data) latest.set(key, { indicador: indicador as FocusIndicador, ano, mediana, data })
  }
  if (!latest.size) throw new Error('Focus: nenhuma mediana de IPCA, Selic, PIB Total ou Câmbio na resposta')
  return [...latest.values()].sort((a, b) => a.indicador.localeCompare(b.indicador) || a.ano.localeCompare(b.ano))
}

export const FOCUS_FEED: FeedDef<FocusDados> = {
  name: 'mercado-focus',
  dataset: 'mercado',
  base: 'BCB/Focus (Olinda, ExpectativasMercadoAnuais, mediana base 30 dias)',
  upstreams: [BCB_OLINDA],
  intervalMinutes: 7 * 24 * 60,
  timeoutMs: 30_000,
  async fetch(_key, ctx) {
    const ano = brasilia(ctx.now()).ano
    const filter =
      `(${Object.keys(FOCUS_INDICADORES).map((i) => `Indicador eq '${i}'`).join(' or ')}) and baseCalculo eq 0` +
      ` and (DataReferencia eq '${ano}' or DataReferencia eq '${ano + 1}')`
    const url =
      `${ctx.url(BCB_OLINDA)}/Expectativas/versao/v1/odata/ExpectativasMercadoAnuais` +
      `?$filter=${encodeURIComponent(filter)}&$orderby=${encodeURIComponent('Data desc')}&$top=100&$format=json` +
      `&$select=Indicador,IndicadorDetalhe,Data,DataReferencia,Mediana,baseCalculo`
    const medianas = parseFocus(await readJson(await ctx.fetch(url, { headers: { accept: 'application/json' } }), 'Focus'))
    return { ano_base: ano, medianas }
  },
}
