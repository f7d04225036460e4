// The deforestation answers as plain functions over the open build (and, for a supplier, the
// registry's open files):
//   municipioJson(files, ibge)          a municipality's answer: stored whole at build time
//   rankingJson(files, query)           a ranking over any window, from the per-day running sums
//   fornecedor(ctx, cnpj)               a company's establishments, their municipalities and regions
//   amostra(files)                      national totals by biome and the worst municipality
import type { z } from 'zod'
import { storeOf, type AppContext } from '../../core/context'
import { ApiError, JsonText } from '../../core/errors'
import { CARD_SEPARATOR, FICHA } from '../cnpj/layout'
import * as cnpjService from '../cnpj/service'
import type { CnpjFiles, CnpjStore } from '../cnpj/store'
import { CORTE, PRIMEIRO_DIA, RANKING_MUNICIPIO, RANKING_UF, UFS } from './layout'
import type { Amostra, Fornecedor, MunicipioDesmatamento, RankingQuery, Regiao } from './model'
import type { DesmatamentoFiles, DesmatamentoStore, Grupo } from './store'

type Out<T extends z.ZodType> = z.output<T>
/** A municipality answer without its fonte (as stored at build time). */
export type MunicipioSemFonte = Omit<Out<typeof MunicipioDesmatamento>, 'fonte'>

const DAY_MS = 86_400_000
const FIRST = Date.parse(`${PRIMEIRO_DIA}T00:00:00Z`)
const iso = (offset: number) => new Date(FIRST + offset * DAY_MS).toISOString().slice(0, 10)
const round4 = (x: number) => Math.round(x * 1e4) / 1e4
const ascii = (s: string) => Buffer.from(s, 'utf8')
const text = new TextDecoder()

/** [start, end] day offsets of the last `dias` days up to the reference, starting no earlier than the cut-off. */
export function janela(refOffset: number, dias: number | undefined): [number, number] {
  return [dias === undefined ? 0 : Math.max(0, refOffset - dias + 1), refOffset]
}

const zeroSoma = () => ({ alertas: 0, area_km2: 0, alertas_desmatamento: 0, area_desmatamento_km2: 0 })
const periodo = (refOffset: number, dias?: number) => {
  const [a, b] = janela(refOffset, dias)
  return { inicio: iso(a), fim: iso(b) }
}

const CRITERIO = `área de desmatamento (corte raso, com vegetação e mineração) desde ${CORTE}`

/** The answer of a municipality with no alert since the cut-off (known or not), without fonte. */
function semAlertas(files: DesmatamentoFiles, ibge: string): MunicipioSemFonte {
  const info = files.municipios.get(ibge)
  const janela = (d: number) => ({ ...periodo(files.refOffset, d), ...zeroSoma() })
  const janelas = { ultimos_30_dias: janela(30), ultimos_90_dias: janela(90), ultimos_365_dias: janela(365) }
  const pos = (g: Grupo) => ({ posicao: null, de: files.ranqueados[g] })
  return {
    ibge,
    municipio: info?.nome ?? null,
    uf: info?.uf ?? null,
    microrregiao: info?.microrregiao ? { codigo: info.microrregiao, nome: nomeRegiao(files, info.microrregiao) } : null,
    desde_corte: { ...periodo(files.refOffset), ...zeroSoma() },
    janelas,
    por_classe: [],
    por_bioma: [],
    ranking: { criterio: CRITERIO, nacional: pos('todos'), amazonia: pos('amazonia'), cerrado: pos('cerrado') },
    nota: info
      ? `nenhum alerta do DETER neste município de ${PRIMEIRO_DIA} a ${files.referencia}; o DETER cobre só a Amazônia e o Cerrado`
      : `o código ${ibge} não é de nenhum município conhecido (tabela de municípios da Receita e lista do IBGE): confira o código de 7 dígitos; nenhum alerta do DETER o cita`,
  }
}

function nomeRegiao(files: DesmatamentoFiles, codigo: string): string | null {
  const row = files.regiao.get(codigo)
  return row ? (JSON.parse(text.decode(row.corpo)) as { nome: string | null }).nome : null
}

/** The municipality answer as an object without fonte (for routes that combine answers). */
export function municipioObjeto(files: DesmatamentoFiles, ibge: string): MunicipioSemFonte {
  const row = files.resposta.get(ibge)
  return row ? JSON.parse(text.decode(row.corpo)) : semAlertas(files, ibge)
}

/** What /v1/desmatamento/municipio/{ibge} answers, as JSON bytes: the stored answer plus fonte. */
export function municipioJson(files: DesmatamentoFiles, ibge: string): Uint8Array {
  const guardada = files.resposta.get(ibge)?.corpo
  // A well-formed code (state and check digit verified by the route) that no municipality has: 404, not zeros.
  if (!guardada && !files.municipios.has(ibge))
    throw new ApiError('nao_encontrado', `o código IBGE ${ibge} não é de nenhum município conhecido (lista de municípios do IBGE e tabela de municípios da Receita): confira o código`)
  const corpo = guardada ?? ascii(JSON.stringify(semAlertas(files, ibge)))
  return Buffer.concat([corpo.subarray(0, corpo.length - 1), ascii(',"fonte":'), files.fonteJson, ascii('}')])
}

/** What /v1/desmatamento/ranking answers, as JSON bytes: the ranking stored at build time, cut to `limite`. */
export function rankingJson(files: DesmatamentoFiles, q: Out<typeof RankingQuery>): Uint8Array {
  const grupo: Grupo = q.bioma ?? 'todos'
  const [from, to] = janela(files.refOffset, q.dias)
  const row = files.ranking.get(grupo, q.por, q.dias ?? 0)
  if (!row) throw new Error(`ranking ${grupo}/${q.por}/${q.dias ?? 0} ausente da base`)
  const width = q.por === 'municipio' ? RANKING_MUNICIPIO : RANKING_UF
  // Copied: a Float64Array must start at a multiple of 8, which SQLite's buffer does not promise.
  const v = new Float64Array(Math.min(row.itens.byteLength / 8, q.limite * width))
  new Uint8Array(v.buffer).set(row.itens.subarray(0, v.length * 8))
  const ranking: Record<string, unknown>[] = []
  for (let i = 0; i * width < v.length; i++) {
    const at = i * width
    const sums = { alertas: v[at + width - 4]!, area_km2: round4(v[at + width - 3]!), alertas_desmatamento: v[at + width - 2]!, area_desmatamento_km2: round4(v[at + width - 1]!) }
    if (q.por === 'municipio') {
      const ibge = String(v[at]!)
      const info = files.municipios.get(ibge)
      ranking.push({ posicao: i + 1, ibge, municipio: info?.nome ?? null, uf: info?.uf ?? null, ...sums })
    } else ranking.push({ posicao: i + 1, uf: UFS[v[at]!] ?? null, municipios_com_alertas: v[at + 1]!, ...sums })
  }
  const body = {
    por: q.por,
    bioma: q.bioma ?? null,
    dias: q.dias ?? null,
    periodo: { inicio: iso(from), fim: iso(to) },
    criterio: `área de desmatamento (corte raso, com vegetação e mineração) na janela${q.bioma ? `, DETER ${q.bioma === 'amazonia' ? 'Amazônia' : 'Cerrado'}` : ', DETER Amazônia e Cerrado'}`,
    total: row.total,
    ranking,
  }
  return Buffer.concat([ascii(JSON.stringify(body).slice(0, -1)), ascii(',"fonte":'), files.fonteJson, ascii('}')])
}

export function amostra(files: DesmatamentoFiles): Out<typeof Amostra> {
  return { amostra: true, ...(files.totais as Omit<Out<typeof Amostra>, 'amostra' | 'fonte'>), fonte: files.fonte as Out<typeof Amostra>['fonte'] }
}

export const LIMITACOES = [
  'Os alertas do DETER são contados por município: a exposição é o desmatamento detectado nos municípios onde a empresa tem estabelecimentos ativos (e nas suas microrregiões), não em terras da empresa nem de seus fornecedores; não prova nem afasta ligação da empresa com área desmatada.',
  'O município é o do endereço de cada estabelecimento no cadastro do CNPJ (sede, filial, escritório, loja); fazendas e áreas de produção muitas vezes não têm CNPJ próprio ou estão em nome de pessoas físicas.',
  'O DETER é um sistema de alerta rápido (satélites de resolução média; alertas a partir de 6,25 ha na Amazônia e 3 ha no Cerrado no arquivo público), publicado com atraso e sujeito a nuvens; a medida oficial anual do desmatamento é o PRODES.',
  'Só os projetos DETER Amazônia e DETER Cerrado são lidos; municípios de outros biomas (Mata Atlântica, Caatinga, Pampa, Pantanal) aparecem com zero.',
  'A região é a microrregião geográfica do IBGE do município (divisão territorial de 1989, ainda publicada pelo IBGE), não um raio em quilômetros.',
  `As janelas e o período desde o corte (${CORTE}, regulamento europeu 2023/1115) terminam na data do alerta mais recente da base (fonte.deter.referencia), não no dia da consulta.`,
]

const MAX_ESTABELECIMENTOS = 1000
const MAX_MUNICIPIOS = 200
const F = Object.fromEntries(FICHA.map((f, i) => [f, i])) as Record<(typeof FICHA)[number], number>
const ATIVA = '02'
const EXTERIOR = '9707'

/** The supplier answer: the registry's card and establishments, each active one placed in its municipality and microregion. */
export async function fornecedor(ctx: AppContext, cnpj: string): Promise<Out<typeof Fornecedor>> {
  const deter = storeOf<DesmatamentoStore>(ctx, 'desmatamento')
  const registry = storeOf<CnpjStore>(ctx, 'cnpj')
  return deter.use((snap) => registry.use((files) => fornecedorDe(snap.files, files, cnpj)))
}

export async function fornecedorDe(d: DesmatamentoFiles, files: CnpjFiles, cnpj: string): Promise<Out<typeof Fornecedor>> {
  // 404 (nao_encontrado) for a CNPJ the registry does not hold, as the registry's own routes.
  const empresa = await cnpjService.empresa(files, cnpj)
  const estabelecimentos: Out<typeof Fornecedor>['estabelecimentos'] = []
  const semMunicipio: Out<typeof Fornecedor>['sem_municipio'] = []
  const porMunicipio = new Map<string, number>()
  let ativos = 0
  for (const card of files.cards.cardsOfRoot(cnpj.slice(0, 8))) {
    const v = card.dados.split(CARD_SEPARATOR)
    if (v[F.situacao] !== ATIVA) continue
    ativos++
    const tom = v[F.municipio] || null
    const uf = v[F.uf] || null
    const ibge = tom && uf !== 'EX' && tom !== EXTERIOR ? (d.porTom.get(tom.padStart(4, '0')) ?? null) : null
    if (!ibge)
      semMunicipio.push({
        cnpj: card.cnpj,
        codigo_municipio_rfb: tom,
        motivo: uf === 'EX' || tom === EXTERIOR ? 'estabelecimento no exterior' : tom ? `código de município ${tom} fora da tabela de municípios da Receita` : 'estabelecimento sem município no cadastro',
      })
    else porMunicipio.set(ibge, (porMunicipio.get(ibge) ?? 0) + 1)
    if (estabelecimentos.length < MAX_ESTABELECIMENTOS) {
      const info = ibge ? d.municipios.get(ibge) : undefined
      estabelecimentos.push({
        cnpj: card.cnpj,
        matriz_filial: v[F.matriz_filial] === '1' ? 'matriz' : v[F.matriz_filial] === '2' ? 'filial' : null,
        codigo_municipio_rfb: tom,
        ibge,
        municipio: info?.nome ?? (tom ? (files.lookups.municipios.get(tom) ?? null) : null),
        uf: info?.uf ?? uf,
      })
    }
  }
  // The company's municipalities in order (cleared area, all area, code) from the totals held in
  // memory; only the first MAX_MUNICIPIOS answers are read and parsed (a chain can be in thousands).
  const chave = (ibge: string) => d.municipios.get(ibge) ?? { area_desmatamento_km2: 0, area_km2: 0, alertas: 0, microrregiao: null }
  const ordemIbge = [...porMunicipio.keys()].sort((x, y) => chave(y).area_desmatamento_km2 - chave(x).area_desmatamento_km2 || chave(y).area_km2 - chave(x).area_km2 || x.localeCompare(y))
  const municipios = ordemIbge.slice(0, MAX_MUNICIPIOS).map((ibge) => {
    const m = municipioObjeto(d, ibge)
    return { ibge: m.ibge, municipio: m.municipio, uf: m.uf, microrregiao: m.microrregiao, estabelecimentos_ativos: porMunicipio.get(ibge)!, desde_corte: m.desde_corte, janelas: m.janelas, por_bioma: m.por_bioma, ranking: m.ranking }
  })
  const areaDesm = (x: { desde_corte: { area_desmatamento_km2: number; area_km2: number } }) => x.desde_corte.area_desmatamento_km2
  const ordem = (x: { codigo: string; desde_corte: { area_desmatamento_km2: number; area_km2: number } }, y: typeof x) =>
    areaDesm(y) - areaDesm(x) || y.desde_corte.area_km2 - x.desde_corte.area_km2 || x.codigo.localeCompare(y.codigo)
  const codigos = [...new Set(ordemIbge.map((ibge) => chave(ibge).microrregiao).filter((c): c is string => !!c))]
  const regioes = codigos
    .map((c) => d.regiao.get(c))
    .filter((r): r is { corpo: Uint8Array } => !!r)
    .map((r) => JSON.parse(text.decode(r.corpo)) as Out<typeof Regiao>)
    .sort(ordem)
  const comAlertas = ordemIbge.filter((ibge) => chave(ibge).alertas > 0).length
  const pior = municipios.find((m) => m.desde_corte.area_desmatamento_km2 > 0)
  return {
    cnpj,
    empresa,
    estabelecimentos_ativos: ativos,
    estabelecimentos,
    municipios,
    total_municipios: ordemIbge.length,
    regioes: regioes.slice(0, MAX_MUNICIPIOS),
    sem_municipio: semMunicipio.slice(0, MAX_ESTABELECIMENTOS),
    resumo: {
      municipios_com_alertas: comAlertas,
      area_desmatamento_km2: round4(ordemIbge.reduce((n, ibge) => n + chave(ibge).area_desmatamento_km2, 0)),
      pior_municipio: pior ? { ibge: pior.ibge, municipio: pior.municipio, uf: pior.uf, area_desmatamento_km2: pior.desde_corte.area_desmatamento_km2 } : null,
      regioes_com_alertas: regioes.filter((r) => r.desde_corte.alertas > 0).length,
    },
    limitacoes: LIMITACOES,
    fonte: {
      deter: d.fonte as Out<typeof Fornecedor>['fonte']['deter'],
      cadastro: { base: 'RFB/CNPJ', referencia: files.referencia },
      municipios: 'tabela de municípios da Receita (código TOM do cadastro → código IBGE) e microrregiões geográficas do IBGE',
    },
  }
}

/** The municipality answer from the server's context (503 when the build is not loaded). */
export function consultarMunicipio(ctx: AppContext, ibge: string): Promise<JsonText> {
  return storeOf<DesmatamentoStore>(ctx, 'desmatamento').use((s) => new JsonText(municipioJson(s.files, ibge)))
}

export function consultarRanking(ctx: AppContext, q: Out<typeof RankingQuery>): Promise<JsonText> {
  return storeOf<DesmatamentoStore>(ctx, 'desmatamento').use((s) => new JsonText(rankingJson(s.files, q)))
}
