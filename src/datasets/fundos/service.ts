// The fund routes' answers, as plain functions over the open files (no HTTP): the routes call
// them, and so can other datasets in the same process (the causal chains read the flows) through
// the `ler*` functions, which take the app context. Every answer is read from what the ingest
// stored (rankings and movements are computed there, not per call).
import type { z } from 'zod'
import { storeOf, type AppContext } from '../../core/context'
import { ApiError } from '../../core/errors'
import { cents, consultaNaoEncontrada, unpackCarteira } from './layout'
import type { Amostra, Carteira, Consulta, Fluxos, Movimentacoes, POR, Ranking } from './model'
import { rankingKey, type FundosFiles, type FundosStore } from './store'

export type FluxosBody = z.output<typeof Fluxos>
export type ConsultaBody = z.output<typeof Consulta>
export type RankingBody = z.output<typeof Ranking>
export type CarteiraBody = z.output<typeof Carteira>
export type MovimentacoesBody = z.output<typeof Movimentacoes>
export type AmostraBody = z.output<typeof Amostra>

const DAY = 86_400_000
const dayNumber = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY
const isoOf = (day: number) => new Date(day * DAY).toISOString().slice(0, 10)
/** The first day of a window of `dias` calendar days that ends on `last` (inclusive). */
const windowStart = (last: string, dias: number) => isoOf(dayNumber(last) - dias + 1)

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[_\-\s]+/g, ' ').trim()

function memo<T>(files: FundosFiles, key: string, make: () => T): T {
  if (files.memo.has(key)) return files.memo.get(key) as T
  const value = make()
  files.memo.set(key, value)
  return value
}

// --- fluxos ------------------------------------------------------------------------------------------

export const NOTA_FLUXOS =
  'Captação e resgates diários informados pelas classes à CVM (informe diário), em reais, por classificação CVM. ' +
  'Classes de fundos de cotas (FIC) ficam fora das somas, porque o dinheiro que captam é captado de novo pelos fundos que compram. ' +
  'O último dia consolidado é o mais recente em que informou ao menos 80 % do número usual de classes; os dias seguintes ainda estão chegando e não entram.'

export function fluxos(files: FundosFiles, query: { dias: number }): FluxosBody {
  return memo(files, `fluxos:${query.dias}`, () => {
    const { meta } = files
    const last = meta.dia_consolidado
    const from = windowStart(last, query.dias)
    const days = meta.dias.filter((d) => d >= from)
    const point = (data: string, rows: { captacao: number; resgates: number; patrimonio_liquido: number; classes: number }[]) => {
      const sum = (f: 'captacao' | 'resgates' | 'patrimonio_liquido') => cents(rows.reduce((n, r) => n + r[f], 0))
      const captacao = sum('captacao')
      const resgates = sum('resgates')
      return { data, captacao, resgates, liquido: cents(captacao - resgates), patrimonio_liquido: sum('patrimonio_liquido'), classes: rows.reduce((n, r) => n + r.classes, 0) }
    }
    const labels = new Map<string, number>()
    for (const d of days) for (const r of files.fluxos.get(d) ?? []) if (!labels.has(r.classificacao)) labels.set(r.classificacao, 0)
    for (const r of files.fluxos.get(last) ?? []) labels.set(r.classificacao, r.patrimonio_liquido)
    const classificacoes = [...labels]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([classificacao]) => {
        const serie = days.flatMap((d) => {
          const rows = (files.fluxos.get(d) ?? []).filter((r) => r.classificacao === classificacao)
          return rows.length ? [point(d, rows)] : []
        })
        const captacao = cents(serie.reduce((n, p) => n + p.captacao, 0))
        const resgates = cents(serie.reduce((n, p) => n + p.resgates, 0))
        return { classificacao, captacao, resgates, liquido: cents(captacao - resgates), serie }
      })
    return {
      dia: point(last, files.fluxos.get(last) ?? []),
      janela: { dias: query.dias, de: from, ate: last, dias_com_dados: days.length },
      classificacoes,
      serie_total: days.map((d) => point(d, files.fluxos.get(d) ?? [])),
      nota: NOTA_FLUXOS,
      fonte: files.fonte,
    }
  })
}

// --- consulta ------------------------------------------------------------------------------------------

export function consulta(files: FundosFiles, cnpj: string): ConsultaBody {
  const row = files.sql.consulta.get(cnpj) as { corpo: string } | null
  if (row) return { ...(JSON.parse(row.corpo) as Omit<ConsultaBody, 'fonte'>), fonte: files.fonte }
  const months = files.meta.dias.length ? `${files.meta.dias[0]!.slice(0, 7)} a ${files.meta.dia_consolidado.slice(0, 7)}` : ''
  return {
    ...consultaNaoEncontrada(cnpj, `CNPJ válido, mas não consta no cadastro de fundos da CVM nem nos informes diários carregados (${months}); confira se é o CNPJ do fundo ou da classe`),
    fonte: files.fonte,
  }
}

// --- ranking --------------------------------------------------------------------------------------------

/** The classification as stored, from what the user typed (accents, case, `_` or `-` for spaces); 400 with the list when unknown. */
export function classificacaoDe(files: FundosFiles, raw: string): string {
  const wanted = fold(raw)
  const found = files.meta.classificacoes.find((c) => fold(c) === wanted)
  if (!found)
    throw new ApiError('parametro_invalido', `parâmetro de consulta 'classificacao': '${raw.slice(0, 80)}' não existe na base carregada; use uma destas: ${files.meta.classificacoes.join(', ')} (sem distinguir acentos nem caixa)`)
  return found
}

/** The window's first trading-day index, and whether the loaded days cover the whole window. */
function windowOf(files: FundosFiles, dias: number) {
  const { meta } = files
  const from = windowStart(meta.dia_consolidado, dias)
  let s = meta.dias.findIndex((d) => d >= from)
  if (s < 0) s = meta.dias.length - 1
  return { s, de: meta.inicio_cobertura > from ? meta.dias[0]! : from, completa: meta.inicio_cobertura <= from }
}

export function ranking(files: FundosFiles, query: { por: (typeof POR)[number]; classificacao?: string; dias: number; limite: number }): RankingBody {
  const classificacao = query.classificacao === undefined ? null : classificacaoDe(files, query.classificacao)
  const { s, de, completa } = windowOf(files, query.dias)
  const T = files.meta.dias.length - 1
  const ids = files.rankings.get(rankingKey(query.por, classificacao ?? '*', query.por === 'captacao' ? s : -1)) ?? new Int32Array(0)
  const fundos = [...ids.subarray(0, query.limite)].map((id, i) => {
    const { corpo: c, fluxos } = files.classes[id]!
    // Prefix sums: captacao[0..T] then resgates[0..T].
    const captacao = cents(fluxos[T]! - (s > 0 ? fluxos[s - 1]! : 0))
    const resgates = cents(fluxos[2 * T + 1]! - (s > 0 ? fluxos[T + s]! : 0))
    return {
      posicao: i + 1, cnpj: c.cnpj, nome: c.nome, fundo: c.fundo, gestor: c.gestor, classificacao: c.classificacao, cotas_de_fundos: c.cotas_de_fundos,
      data: c.data, cota: c.cota, patrimonio_liquido: c.patrimonio_liquido === null ? null : cents(c.patrimonio_liquido), cotistas: c.cotistas,
      captacao, resgates, captacao_liquida: cents(captacao - resgates),
    }
  })
  return { por: query.por, classificacao, dias: query.dias, janela: { de, ate: files.meta.dia_consolidado, completa }, fundos, fonte: files.fonte }
}

// --- carteira --------------------------------------------------------------------------------------------

export const NOTA_DEFASAGEM =
  'A CVM publica a carteira mensal (CDA) com atraso: o fundo a entrega até 10 dias depois do fim do mês, e pode manter posições em sigilo ' +
  'por até 90 dias, que só aparecem em competências posteriores. Aqui estão as ações, units e BDRs da competência mais recente que o fundo divulgou.'

/** Portfolio answers kept per build (the most asked funds); cleared when full, so memory stays bounded. */
const CARTEIRAS_EM_MEMORIA = 2000

export function carteira(files: FundosFiles, cnpj: string): CarteiraBody {
  const key = `carteira:${cnpj}`
  const kept = files.memo.get(key) as CarteiraBody | undefined
  if (kept) return kept
  const body = carteiraDe(files, cnpj)
  if (files.memo.size >= CARTEIRAS_EM_MEMORIA + 100) for (const k of files.memo.keys()) if (k.startsWith('carteira:')) files.memo.delete(k)
  files.memo.set(key, body)
  return body
}

function carteiraDe(files: FundosFiles, cnpj: string): CarteiraBody {
  const loaded = files.meta.competencias.map((c) => c.competencia)
  const row = files.sql.carteira.get(cnpj) as { competencia: string; corpo: string } | null
  const tail = { competencias_carregadas: loaded, fonte: files.fonte }
  if (!row) {
    const known = files.sql.consulta.get(cnpj) as { corpo: string } | null
    const nome = known ? (JSON.parse(known.corpo) as { nome: string | null }).nome : null
    const where = loaded.length ? `nas competências carregadas (${loaded.join(', ')})` : 'porque nenhuma competência de carteira está carregada'
    return {
      cnpj, encontrado: false,
      mensagem: known ? `o fundo consta no cadastro, mas não divulgou carteira (CDA) ${where}` : `CNPJ válido, mas sem carteira (CDA) ${where} e fora do cadastro de fundos`,
      nome, competencia: null, data_posicao: null, defasagem: { dias: null, nota: NOTA_DEFASAGEM }, patrimonio_liquido: null, valor_acoes_bdrs: 0,
      percentual_pl: null, total_ativos: 0, ativos: [], ...tail,
    }
  }
  const c = unpackCarteira(row.corpo)
  const valor = cents(c.ativos.reduce((n, a) => n + a.valor_mercado, 0))
  return {
    cnpj, encontrado: true, mensagem: c.ativos.length ? null : 'o fundo divulgou a carteira da competência, mas sem ações, units nem BDRs',
    nome: c.nome, competencia: row.competencia, data_posicao: c.data,
    defasagem: { dias: c.data ? Math.round(dayNumber(files.meta.dia_consolidado) - dayNumber(c.data)) : null, nota: NOTA_DEFASAGEM },
    patrimonio_liquido: c.patrimonio_liquido === null ? null : cents(c.patrimonio_liquido), valor_acoes_bdrs: valor,
    percentual_pl: c.patrimonio_liquido ? Math.round((valor / c.patrimonio_liquido) * 1e6) / 1e4 : null,
    total_ativos: c.ativos.length, ativos: c.ativos, ...tail,
  }
}

// --- movimentacoes ----------------------------------------------------------------------------------------

/** The latest consolidated month (the latest loaded when none is). */
export function competenciaPadrao(files: FundosFiles): string | null {
  const list = files.meta.competencias
  return ([...list].reverse().find((c) => c.consolidada) ?? list.at(-1))?.competencia ?? null
}

export function movimentacoes(files: FundosFiles, query: { competencia?: string; limite: number }): MovimentacoesBody {
  const list = files.meta.competencias
  if (!list.length) throw new ApiError('dados_indisponiveis', "nenhuma competência de carteira (CDA) está carregada; rode 'dadosbr ingest fundos' sem --parcial")
  const competencia = query.competencia ?? competenciaPadrao(files)!
  const info = list.find((c) => c.competencia === competencia)
  if (!info)
    throw new ApiError('parametro_invalido', `parâmetro de consulta 'competencia': ${competencia} não está carregada; carregadas: ${list.map((c) => c.competencia + (c.consolidada ? '' : ' (parcial)')).join(', ')}; sem o parâmetro, vale a mais recente consolidada (${competenciaPadrao(files)})`)
  const rows = (files.movimentacoes.get(competencia) ?? []).slice(0, query.limite)
  return {
    competencia, data_posicao: info.data, consolidada: info.consolidada,
    competencias_carregadas: list.map((c) => ({ competencia: c.competencia, consolidada: c.consolidada })),
    fundos_informantes: info.fundos_informantes, fundos_com_acoes: info.fundos_com_acoes, total_ativos: info.ativos,
    ativos: rows.map((m, i) => ({ posicao: i + 1, ...m })),
    fonte: files.fonte,
  }
}

// --- amostra ------------------------------------------------------------------------------------------------

export const AMOSTRA_DESCRICAO =
  'Amostra grátis da base de fundos: os fluxos dos últimos 7 dias, os 5 maiores fundos por patrimônio, o cadastro e a carteira do maior ' +
  'fundo que divulgou ações, e as 5 ações com maior fluxo líquido dos fundos na competência consolidada mais recente.'

/** The largest ranked class with a portfolio disclosure (else the largest ranked class). */
function amostraCnpj(files: FundosFiles): string | null {
  const top = files.rankings.get(rankingKey('patrimonio', '*', -1)) ?? new Int32Array(0)
  const cnpjs = [...top].map((id) => files.classes[id]!.corpo.cnpj)
  const withPortfolio = cnpjs.find((c) => {
    const row = files.sql.carteira.get(c) as { corpo: string } | null
    return row !== null && unpackCarteira(row.corpo).ativos.length > 0
  })
  return withPortfolio ?? cnpjs[0] ?? null
}

export function amostra(files: FundosFiles): AmostraBody | null {
  return memo(files, 'amostra', () => {
    const cnpj = amostraCnpj(files)
    if (!cnpj || !files.meta.competencias.length) return null
    return {
      amostra: true as const,
      descricao: AMOSTRA_DESCRICAO,
      fluxos: fluxos(files, { dias: 7 }),
      ranking: ranking(files, { por: 'patrimonio', dias: 30, limite: 5 }),
      consulta: consulta(files, cnpj),
      carteira: carteira(files, cnpj),
      movimentacoes: movimentacoes(files, { limite: 5 }),
    }
  })
}

// --- in-process callers (other datasets) -----------------------------------------------------------------------

const use = <R>(ctx: AppContext, fn: (files: FundosFiles) => R) => storeOf<FundosStore>(ctx, 'fundos').use((s) => fn(s.files))

/** The /v1/fundos/fluxos body, without HTTP (503 ApiError when the base is not loaded). */
export const lerFluxos = (ctx: AppContext, query: { dias: number } = { dias: 30 }) => use(ctx, (f) => fluxos(f, query))
export const lerConsulta = (ctx: AppContext, cnpj: string) => use(ctx, (f) => consulta(f, cnpj))
export const lerRanking = (ctx: AppContext, query: Parameters<typeof ranking>[1]) => use(ctx, (f) => ranking(f, query))
export const lerCarteira = (ctx: AppContext, cnpj: string) => use(ctx, (f) => carteira(f, cnpj))
export const lerMovimentacoes = (ctx: AppContext, query: { competencia?: string; limite: number } = { limite: 20 }) => use(ctx, (f) => movimentacoes(f, query))
