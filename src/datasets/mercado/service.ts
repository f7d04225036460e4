// The markets answers as plain functions of the AppContext: the routes call them, and so do other
// datasets in-process (the causal chains and packs read the indicators and FX: no HTTP, no payment).
// Every answer carries the `fonte` of each feed it read, with that copy's age and status.
import type { z } from 'zod'
import type { AppContext } from '../../core/context'
import { avisoDaFonte } from '../../core/feeds/aviso'
import type { Fonte } from '../../core/feeds/feed'
import type { VeiculoEstado } from './noticias/feed'
import { FOCUS_FEED, PTAX_FEED, SGS_FEED, type FocusDados, type FocusIndicador, type PtaxDados, type SgsDados } from './bcb'
import { CRIPTO_FEED, type CriptoDados, type ParCotado } from './cripto'
import { LEXICO_VERSAO, type Sentimento, type Tema } from './classificador/lexico'
import type { AmostraResposta, CambioResposta, IndicadorChave, Indicador, IndicadoresResposta, NoticiasResposta, PacoteResposta } from './model'
import { INDICADORES } from './model'
import { NOTICIAS_FEED, type NoticiasDados } from './noticias/feed'
import { brDate } from './tempo'

export type Noticias = z.infer<typeof NoticiasResposta>
export type Indicadores = z.infer<typeof IndicadoresResposta>
export type Cambio = z.infer<typeof CambioResposta>
export type Pacote = z.infer<typeof PacoteResposta>
export type Amostra = z.infer<typeof AmostraResposta>
type IndicadorValor = z.infer<typeof Indicador>
type Indisponivel = { item: string; motivo: string }

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

/** Why a feed has nothing to give, for `indisponiveis`. */
function semCopia(nome: string, fonte: Fonte): string {
  return fonte.status === 'fonte_indisponivel' ? `nenhuma cópia de ${nome} obtida ainda (a fonte não respondeu)` : `${nome} não trouxe este valor na última consulta`
}

// ------------------------------------------------------------------ news

export interface FiltrosNoticias {
  tema?: Tema
  sentimento?: Sentimento
  relevancia_min?: number
  por_pagina?: number
}

export async function noticias(ctx: AppContext, filtros: FiltrosNoticias = {}): Promise<Noticias> {
  const { dados, fonte, falha } = await ctx.feeds.get<NoticiasDados>(NOTICIAS_FEED.name)
  const porPagina = filtros.por_pagina ?? 20
  const all = dados?.itens ?? []
  const matching = all.filter(
    (n) => (!filtros.tema || n.tema === filtros.tema) && (!filtros.sentimento || n.sentimento === filtros.sentimento) && (filtros.relevancia_min === undefined || n.relevancia >= filtros.relevancia_min),
  )
  return {
    total: matching.length,
    por_pagina: porPagina,
    noticias: matching.slice(0, porPagina),
    // When the last attempt failed as a whole, each outlet's state is that attempt's (all failed), not the older copy's.
    veiculos: (falha as VeiculoEstado[] | null) ?? dados?.veiculos ?? [],
    classificacao: dados?.classificacao ?? { lexico: LEXICO_VERSAO, llm_modelo: null, llm_erros: [] },
    fonte,
  }
}

// ------------------------------------------------------------------ indicators

const SGS_META: Record<keyof SgsDados['series'], { descricao: string; unidade: string; mensal: boolean; origem: string }> = {
  selic_meta: { descricao: 'Meta da taxa Selic definida pelo Copom', unidade: '% a.a.', mensal: false, origem: 'BCB/SGS série 432' },
  ipca_mensal: { descricao: 'IPCA: variação mensal', unidade: '%', mensal: true, origem: 'BCB/SGS série 433 (IBGE)' },
  ipca_12_meses: { descricao: 'IPCA acumulado em 12 meses', unidade: '%', mensal: true, origem: 'BCB/SGS série 13522 (IBGE)' },
}

const FOCUS_META: Record<FocusIndicador, { chave: string; nome: string; unidade: string }> = {
  IPCA: { chave: 'ipca', nome: 'o IPCA', unidade: '%' },
  Selic: { chave: 'selic', nome: 'a Selic no fim do ano', unidade: '% a.a.' },
  'PIB Total': { chave: 'pib', nome: 'o crescimento do PIB', unidade: '%' },
  'Câmbio': { chave: 'cambio', nome: 'o dólar no fim do ano', unidade: 'R$/US$' },
}

function indicadoresDe(sgs: SgsDados | null, ptax: PtaxDados | null, focus: FocusDados | null, fontes: Indicadores['fontes']) {
  const map = Object.fromEntries(INDICADORES.map((k) => [k, null])) as Record<IndicadorChave, IndicadorValor | null>
  const indisponiveis: Indisponivel[] = []
  for (const [chave, meta] of Object.entries(SGS_META) as [keyof SgsDados['series'], (typeof SGS_META)['selic_meta']][]) {
    const s = sgs?.series[chave]
    if (!s) {
      indisponiveis.push({ item: chave, motivo: sgs?.erros[chave] ?? semCopia('BCB/SGS', fontes.sgs) })
      continue
    }
    const erro = sgs?.erros[chave]
    map[chave] = {
      descricao: meta.descricao,
      valor: s.valor,
      unidade: meta.unidade,
      referencia: meta.mensal ? s.data.slice(0, 7) : s.data,
      data_pesquisa: null,
      origem: meta.origem,
      nota: erro ? `valor da consulta de ${s.obtido_em}; a última consulta desta série falhou: ${erro}` : null,
    }
  }
  const last = ptax?.serie[ptax.serie.length - 1]
  if (last) {
    for (const lado of ['compra', 'venda'] as const)
      map[`ptax_${lado}`] = { descricao: `PTAX de ${lado} do dólar (boletim de fechamento)`, valor: last[lado], unidade: 'R$/US$', referencia: last.data, data_pesquisa: null, origem: 'BCB/PTAX (Olinda, CotacaoDolarPeriodo)', nota: ptax!.nota }
  } else for (const k of ['ptax_compra', 'ptax_venda']) indisponiveis.push({ item: k, motivo: semCopia('BCB/PTAX', fontes.ptax) })
  for (const [indicador, meta] of Object.entries(FOCUS_META) as [FocusIndicador, (typeof FOCUS_META)['IPCA']][]) {
    for (const [sufixo, delta] of [['ano_atual', 0], ['ano_seguinte', 1]] as const) {
      const chave = `focus_${meta.chave}_${sufixo}` as IndicadorChave
      const ano = focus ? String(focus.ano_base + delta) : null
      const m = focus?.medianas.find((x) => x.indicador === indicador && x.ano === ano)
      if (!m) {
        indisponiveis.push({ item: chave, motivo: semCopia('BCB/Focus', fontes.focus) })
        continue
      }
      map[chave] = {
        descricao: `Focus: mediana das expectativas para ${meta.nome} de ${m.ano}`,
        valor: m.mediana,
        unidade: meta.unidade,
        referencia: m.ano,
        data_pesquisa: m.data,
        origem: 'BCB/Focus (ExpectativasMercadoAnuais, mediana, base de cálculo de 30 dias)',
        nota: null,
      }
    }
  }
  return { indicadores: map, indisponiveis }
}

export async function indicadores(ctx: AppContext): Promise<Indicadores> {
  const [sgs, ptax, focus] = await Promise.all([ctx.feeds.get<SgsDados>(SGS_FEED.name), ctx.feeds.get<PtaxDados>(PTAX_FEED.name), ctx.feeds.get<FocusDados>(FOCUS_FEED.name)])
  const fontes = { sgs: sgs.fonte, ptax: ptax.fonte, focus: focus.fonte }
  return { ...indicadoresDe(sgs.dados, ptax.dados, focus.dados, fontes), fontes }
}

// ------------------------------------------------------------------ FX

const roundPair = (p: ParCotado | null): ParCotado | null => (p ? { mediana: round(p.mediana, 4), cotacoes: p.cotacoes } : null)

export async function cambio(ctx: AppContext): Promise<Cambio> {
  const [ptax, cripto] = await Promise.all([ctx.feeds.get<PtaxDados>(PTAX_FEED.name), ctx.feeds.get<CriptoDados>(CRIPTO_FEED.name)])
  const indisponiveis: Indisponivel[] = []
  const serie = ptax.dados?.serie ?? []
  const last = serie[serie.length - 1]
  const ptaxOut: Cambio['ptax'] = last
    ? {
        compra: last.compra,
        venda: last.venda,
        data: last.data,
        boletim: last.boletim,
        nota: ptax.dados!.nota,
        variacao_pct: serie.length >= 2 ? round((last.venda / serie[0]!.venda - 1) * 100, 3) : null,
        variacao_desde: serie.length >= 2 ? serie[0]!.data : null,
        serie: serie.map((d) => ({ data: d.data, compra: d.compra, venda: d.venda })),
      }
    : null
  if (!ptaxOut) indisponiveis.push({ item: 'ptax', motivo: semCopia('BCB/PTAX', ptax.fonte) })
  const pares = cripto.dados?.pares
  for (const par of ['btc_brl', 'usdt_brl', 'btc_usd'] as const)
    if (!pares?.[par]) indisponiveis.push({ item: par, motivo: cripto.dados ? `nenhuma fonte respondeu ${par.replace('_', '/').toUpperCase()} na última consulta` : semCopia('as corretoras', cripto.fonte) })
  const venda = ptaxOut?.venda ?? null
  const usdt = pares?.usdt_brl?.mediana ?? null
  const btcBrl = pares?.btc_brl?.mediana ?? null
  const btcUsd = pares?.btc_usd?.mediana ?? null
  const paridade = btcUsd !== null && venda !== null ? btcUsd * venda : null
  const premios = {
    usdt_sobre_ptax_pct: usdt !== null && venda !== null ? round((usdt / venda - 1) * 100, 3) : null,
    btc_sobre_paridade_pct: btcBrl !== null && paridade !== null ? round((btcBrl / paridade - 1) * 100, 3) : null,
    btc_paridade_brl: paridade !== null ? round(paridade, 2) : null,
  }
  if (premios.usdt_sobre_ptax_pct === null) indisponiveis.push({ item: 'usdt_sobre_ptax_pct', motivo: 'falta a PTAX ou a cotação de USDT/BRL' })
  if (premios.btc_sobre_paridade_pct === null) indisponiveis.push({ item: 'btc_sobre_paridade_pct', motivo: 'falta a PTAX, BTC/BRL ou BTC/USD' })
  return {
    ptax: ptaxOut,
    btc_brl: roundPair(pares?.btc_brl ?? null),
    usdt_brl: roundPair(pares?.usdt_brl ?? null),
    btc_usd: roundPair(pares?.btc_usd ?? null),
    premios,
    // The exchanges that failed in the last attempt: when it failed as a whole, its own list (every one), not the older copy's.
    falhas: (cripto.falha as CriptoDados['falhas'] | null) ?? (cripto.fonte.ultimo_erro ? [{ fonte: cripto.fonte.base, erro: cripto.fonte.ultimo_erro }] : (cripto.dados?.falhas ?? [])),
    indisponiveis,
    // Quotes older than their promise (15 s for the exchanges, the hour for the PTAX copy) say so.
    avisos: [avisoDaFonte('cotações das corretoras', cripto.fonte), avisoDaFonte('PTAX', ptax.fonte)].filter((a): a is string => a !== null),
    fontes: { ptax: ptax.fonte, cripto: cripto.fonte },
  }
}

// ------------------------------------------------------------------ pack and sample

/** FX, indicators and the ten latest headlines; a part with no data at all is null and listed. */
export async function pacote(ctx: AppContext): Promise<Pacote> {
  const [c, i, n] = await Promise.all([cambio(ctx), indicadores(ctx), noticias(ctx, { por_pagina: 10 })])
  const none = (fontes: Record<string, Fonte>) => Object.values(fontes).every((f) => f.status === 'fonte_indisponivel')
  const indisponiveis: Pacote['indisponiveis'] = []
  if (none(c.fontes)) indisponiveis.push('cambio')
  if (none(i.fontes)) indisponiveis.push('indicadores')
  if (n.fonte.status === 'fonte_indisponivel') indisponiveis.push('noticias')
  return {
    cambio: indisponiveis.includes('cambio') ? null : c,
    indicadores: indisponiveis.includes('indicadores') ? null : i,
    noticias: indisponiveis.includes('noticias') ? null : n,
    indisponiveis,
  }
}

export async function amostra(ctx: AppContext): Promise<Amostra> {
  const [n, i] = await Promise.all([noticias(ctx, { por_pagina: 5 }), indicadores(ctx)])
  const idade = n.fonte.consultado_em ? ` (notícias consultadas em ${brDate(n.fonte.consultado_em.slice(0, 10))})` : ''
  return {
    amostra: true,
    aviso: `Amostra grátis: as 5 manchetes mais recentes e os indicadores${idade}. A lista completa com filtros está em /v1/mercado/noticias; câmbio e prêmio cripto em /v1/mercado/cambio.`,
    noticias: n.noticias,
    indicadores: i.indicadores,
    fontes: { noticias: n.fonte, ...i.fontes },
  }
}
