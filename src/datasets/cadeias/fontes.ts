// Where the chains read their links: the answers of other datasets' routes, built in-process by
// their service functions (no HTTP, no payment), and the two sources of this dataset (the ONS
// thermal balance and ANEEL's tariff flag). Each source gives its answer (with its `fonte`), the
// instant its data was known at the latest (for the chain's reference time), or why it has none.
import type { AppContext } from '../../core/context'
import { ApiError } from '../../core/errors'
import type { Fonte } from '../../core/feeds/feed'
import * as commodities from '../commodities/service'
import * as fundos from '../fundos/service'
import * as mercado from '../mercado/service'
import { BANDEIRA_FEED, type BandeirasDados, type MesBandeira } from './bandeira'
import type { FonteId } from './regras'
import { addMonths, instantOf, isoMonthBrasilia } from './tempo'
import { TERMICA_FEED, type TermicaDados } from './termica'

export interface Lida {
  /** The route's answer (or the copy's data, for this dataset's sources), with its `fonte`; null when there is none. */
  corpo: Record<string, unknown> | null
  /** Why there is no answer. */
  motivo: string | null
  /** Latest instant the data was known (ms): a copy's consultado_em, or the end of an ingested day or month. */
  instante: number | null
  /** The answer's `fonte` even when it has no data (a feed never fetched says so in it). */
  fonte?: unknown
  /** A view of the answer that depends on the reference time (the flag in force that month). */
  vista?: (avaliadaEm: number) => Record<string, unknown>
}

export interface FonteDef {
  id: FonteId
  /** The route whose answer this is; null for this dataset's own sources (not served alone). */
  rota: string | null
  /** What `campo` paths read when rota is null. */
  descricao: string
  ler(ctx: AppContext): Promise<Lida>
}

const semCopia = (nome: string, fonte: Fonte) =>
  fonte.status === 'fonte_indisponivel' ? `nenhuma cópia de ${nome} obtida ainda (${fonte.base})` : `${nome} sem dados na última cópia`

const instanteDe = (...datas: (string | null | undefined)[]) => {
  const ts = datas.map((d) => (d ? instantOf(d) : null)).filter((t): t is number => t !== null)
  return ts.length ? Math.max(...ts) : null
}

/** A feed-backed route answer: usable when its copy has data. */
function deFeed(corpo: { fonte: Fonte } & object, temDados: boolean, nome: string): Lida {
  if (!temDados) return { corpo: null, motivo: semCopia(nome, corpo.fonte), instante: null, fonte: corpo.fonte }
  return { corpo: corpo as Record<string, unknown>, motivo: null, instante: instanteDe(corpo.fonte.consultado_em) }
}

/** A route that throws a 503 when its base is not built: the reason becomes the link's. */
async function ouMotivo<T>(f: () => T | Promise<T>): Promise<{ corpo: T | null; motivo: string | null }> {
  try {
    return { corpo: await f(), motivo: null }
  } catch (err) {
    if (err instanceof ApiError) return { corpo: null, motivo: err.message }
    throw err
  }
}

/** The flag in force in the month of the reference time (the latest competence up to it), the month before it, and the next one if announced. */
export function bandeiraNoMes(dados: BandeirasDados, mes: string) {
  const ate = dados.meses.filter((m) => m.competencia <= mes)
  const vigente: MesBandeira | null = ate[ate.length - 1] ?? null
  const anterior = vigente ? (dados.meses.find((m) => m.competencia === addMonths(vigente.competencia, -1)) ?? null) : null
  return {
    vigente,
    anterior,
    variacao_patamar: vigente && anterior ? vigente.patamar - anterior.patamar : null,
    proxima: dados.meses.find((m) => m.competencia > mes) ?? null,
    gerado_em: dados.gerado_em,
  }
}

export const FONTES_DEF: Record<FonteId, FonteDef> = {
  'commodities/clima': {
    id: 'commodities/clima',
    rota: '/v1/commodities/clima',
    descricao: 'a resposta de /v1/commodities/clima',
    async ler(ctx) {
      const c = await commodities.clima(ctx)
      return deFeed(c, c.cinturoes.length > 0, 'clima dos cinturões')
    },
  },
  'commodities/hidrologia': {
    id: 'commodities/hidrologia',
    rota: '/v1/commodities/hidrologia',
    descricao: 'a resposta de /v1/commodities/hidrologia',
    async ler(ctx) {
      const h = await commodities.hidrologia(ctx)
      return deFeed(h, h.sin !== null, 'EAR do ONS')
    },
  },
  'commodities/exportacoes': {
    id: 'commodities/exportacoes',
    rota: '/v1/commodities/exportacoes',
    descricao: 'a resposta de /v1/commodities/exportacoes',
    async ler(ctx) {
      const e = commodities.exportacoesOuNull(ctx)
      if (!e) return { corpo: null, motivo: `as exportações não estão carregadas em ${ctx.config.dataDir}; rode 'dadosbr ingest exportacoes'`, instante: null }
      return { corpo: e as unknown as Record<string, unknown>, motivo: null, instante: instanteDe(e.referencia) }
    },
  },
  'mercado/cambio': {
    id: 'mercado/cambio',
    rota: '/v1/mercado/cambio',
    descricao: 'a resposta de /v1/mercado/cambio',
    async ler(ctx) {
      const c = await mercado.cambio(ctx)
      const temDados = c.ptax !== null || c.usdt_brl !== null
      if (!temDados) return { corpo: null, motivo: semCopia('PTAX e cotações', c.fontes.ptax), instante: null, fonte: c.fontes.ptax }
      return { corpo: c as unknown as Record<string, unknown>, motivo: null, instante: instanteDe(c.fontes.ptax.consultado_em, c.fontes.cripto.consultado_em) }
    },
  },
  'fundos/fluxos': {
    id: 'fundos/fluxos',
    rota: '/v1/fundos/fluxos',
    descricao: 'a resposta de /v1/fundos/fluxos com dias=30',
    async ler(ctx) {
      const { corpo, motivo } = await ouMotivo(() => fundos.lerFluxos(ctx, { dias: 30 }))
      return { corpo: corpo as unknown as Record<string, unknown> | null, motivo, instante: corpo ? instanteDe(corpo.fonte.referencia) : null }
    },
  },
  'cadeias/termica': {
    id: 'cadeias/termica',
    rota: null,
    descricao: `a cópia da fonte ${TERMICA_FEED.name} (balanço de energia do ONS resumido: dia, janela, anterior, variacao_participacao_pp, serie)`,
    async ler(ctx) {
      const { dados, fonte } = await ctx.feeds.get<TermicaDados>(TERMICA_FEED.name)
      return deFeed({ ...(dados ?? {}), fonte }, dados !== null, 'balanço de energia do ONS')
    },
  },
  'cadeias/bandeira': {
    id: 'cadeias/bandeira',
    rota: null,
    descricao: `a cópia da fonte ${BANDEIRA_FEED.name} lida no mês de avaliada_em: vigente (a bandeira da última competência até esse mês), anterior (a do mês antes dela), variacao_patamar, proxima (já anunciada)`,
    async ler(ctx) {
      const { dados, fonte } = await ctx.feeds.get<BandeirasDados>(BANDEIRA_FEED.name)
      const lida = deFeed({ fonte }, dados !== null, 'bandeiras da ANEEL')
      if (!dados) return lida
      return { ...lida, vista: (avaliadaEm) => ({ ...bandeiraNoMes(dados, isoMonthBrasilia(avaliadaEm)), fonte }) }
    },
  },
}
