// The commodities answers as plain functions of the AppContext: the routes call them, and so do
// other datasets in-process (the causal chains read the coffee belts' dry days and frost, the Mato
// Grosso belts' dry days, the shipped volumes and the reservoirs: no HTTP, no payment). Every part
// carries its own `fonte` with that copy's age and status.
import type { z } from 'zod'
import type { AppContext } from '../../core/context'
import { ApiError } from '../../core/errors'
import { BRIEFING_FEED, type BriefingDados } from './briefing'
import { CULTURAS } from './cinturoes'
import { CLIMA_FEED, DIA_SECO_MM, JANELA_OBSERVADA_DIAS, type ClimaDados } from './clima'
import type { ExportacoesStore } from './exportacoes'
import { FOGO_FEED, SATELITE_REFERENCIA, type FogoDados } from './fogo'
import { HIDROLOGIA_FEED, type HidrologiaDados } from './hidrologia'
import type { AmostraResposta, BriefingResposta, ClimaResposta, ExportacoesResposta, FogoResposta, HidrologiaResposta, PacoteResposta } from './model'

export type Clima = z.infer<typeof ClimaResposta>
export type Fogo = z.infer<typeof FogoResposta>
export type Exportacoes = z.infer<typeof ExportacoesResposta>
export type Hidrologia = z.infer<typeof HidrologiaResposta>
export type Briefing = z.infer<typeof BriefingResposta>
export type Pacote = z.infer<typeof PacoteResposta>
export type Amostra = z.infer<typeof AmostraResposta>

const CRITERIOS: Clima['criterios'] = {
  dia_seco_mm: DIA_SECO_MM,
  janela_observada_dias: JANELA_OBSERVADA_DIAS,
  geada_limiar_c: Object.fromEntries(Object.entries(CULTURAS).map(([k, c]) => [k, c.geada_limiar_c])),
}

/** Weather of every crop belt (empty list and fonte_indisponivel before the first copy). */
export async function clima(ctx: AppContext): Promise<Clima> {
  const { dados, fonte } = await ctx.feeds.get<ClimaDados>(CLIMA_FEED.name)
  return { referencia: dados?.referencia ?? null, cinturoes: dados?.cinturoes ?? [], criterios: CRITERIOS, avisos: dados?.avisos ?? [], fonte }
}

export async function fogo(ctx: AppContext): Promise<Fogo> {
  const { dados, fonte } = await ctx.feeds.get<FogoDados>(FOGO_FEED.name)
  return {
    satelite_referencia: SATELITE_REFERENCIA,
    periodo: dados?.periodo ?? null,
    biomas: dados?.biomas ?? [],
    estados: dados?.estados ?? [],
    dias_sem_chuva_medio: dados?.dias_sem_chuva_medio ?? null,
    focos_referencia_7d: dados?.focos_referencia_7d ?? 0,
    focos_todos_satelites_7d: dados?.focos_todos_satelites_7d ?? 0,
    fonte,
  }
}

export async function hidrologia(ctx: AppContext): Promise<Hidrologia> {
  const { dados, fonte } = await ctx.feeds.get<HidrologiaDados>(HIDROLOGIA_FEED.name)
  return { data: dados?.data ?? null, subsistemas: dados?.subsistemas ?? [], sin: dados?.sin ?? null, serie_sin: dados?.serie_sin ?? [], fonte }
}

/** The exports build in use, or null when none was built. */
export function exportacoesOuNull(ctx: AppContext): Exportacoes | null {
  const snap = (ctx.stores.get('commodities') as ExportacoesStore | null | undefined)?.peek()
  if (!snap) return null
  return { ...snap.files.dados, fonte: snap.files.fonte }
}

export async function exportacoes(ctx: AppContext): Promise<Exportacoes> {
  const e = exportacoesOuNull(ctx)
  if (!e)
    throw new ApiError('dados_indisponiveis', `As exportações não estão carregadas em ${ctx.config.dataDir}; rode 'dadosbr ingest exportacoes' (ComexStat) ou 'dadosbr ingest exportacoes --amostra' (a amostra embutida, sem internet).`)
  return e
}

export async function briefing(ctx: AppContext): Promise<Briefing> {
  const { dados, fonte } = await ctx.feeds.get<BriefingDados>(BRIEFING_FEED.name)
  if (!dados) return { data: null, idioma: 'en', dados_de: null, escrito_por: null, modelo: null, llm_erro: null, resumo: null, destaques: [], regra: '', entradas: null, fonte }
  const { impressao: _, ...rest } = dados
  return { ...rest, fonte }
}

/** The five in one; a part with no data at all is null and listed in indisponiveis, the rest still served. */
export async function pacote(ctx: AppContext): Promise<Pacote> {
  const [c, f, h, b] = await Promise.all([clima(ctx), fogo(ctx), hidrologia(ctx), briefing(ctx)])
  const e = exportacoesOuNull(ctx)
  const out: Pacote = {
    clima: c.fonte.status === 'fonte_indisponivel' ? null : c,
    fogo: f.fonte.status === 'fonte_indisponivel' ? null : f,
    exportacoes: e,
    hidrologia: h.fonte.status === 'fonte_indisponivel' ? null : h,
    briefing: b.fonte.status === 'fonte_indisponivel' ? null : b,
    indisponiveis: [],
  }
  for (const k of ['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing'] as const) if (out[k] === null) out.indisponiveis.push(k)
  return out
}

export async function amostra(ctx: AppContext): Promise<Amostra> {
  const [c, f, h, b] = await Promise.all([clima(ctx), fogo(ctx), hidrologia(ctx), briefing(ctx)])
  const e = exportacoesOuNull(ctx)
  return {
    amostra: true,
    aviso:
      'Amostra grátis: dois cinturões sem a previsão dia a dia, o total do SIN, a soja em grão do último mês, os focos de 7 dias por bioma e o resumo do briefing. ' +
      'Tudo completo em /v1/commodities/clima, /fogo, /exportacoes, /hidrologia e /briefing, ou de uma vez em /v1/commodities/pacote.',
    clima: c.cinturoes.slice(0, 2).map(({ previsao: _, ...rest }) => rest),
    hidrologia_sin: h.sin,
    exportacoes_soja: e?.grupos.find((g) => g.id === 'soja')?.ultimo_mes ?? null,
    fogo_biomas: f.biomas.map((x) => ({ bioma: x.bioma, focos_7d: x.focos_7d })),
    briefing_resumo: b.resumo,
    fontes: { clima: c.fonte, fogo: f.fonte, hidrologia: h.fonte, briefing: b.fonte, exportacoes: e ? { referencia: e.fonte.referencia } : null },
  }
}
