// Registry answers: runs the queries and maps raw rows to the SPEC's Portuguese shapes.
import type { z } from 'zod'
import { ApiError } from '../../core/errors'
import type { Row } from '../../core/stores/duckdb'
import { ALL_UF_SLOTS, FICHA, FILTER_TOKEN_SHAPE, type FichaField, filterToken, MAX_RESULT_WINDOW, rowidRange, RANK_BITS, SITUACOES, STOPWORDS, UFS } from './layout'
import type { BuscaQuery, BuscaResultado, Empresa, EmpresaCompleta, Filial, Situacao, Socio, SocioBuscaQuery, SocioBuscaResultado } from './model'
import { companySearchSql, docsById, rootRange, SOCIO_SEARCH, SQL } from './queries'
import type { CnpjFiles, Lookup } from './store'

type Out<T extends z.ZodType> = z.output<T>

const SITUACAO_DESCRICAO: Record<string, string> = { '01': 'Nula', '02': 'Ativa', '03': 'Suspensa', '04': 'Inapta', '08': 'Baixada' }
const SITUACAO_CODIGO: Record<string, string> = { nula: '01', ativa: '02', suspensa: '03', inapta: '04', baixada: '08' }
const PORTE: Record<string, Out<typeof Empresa>['porte']> = { '00': 'nao_informado', '01': 'micro_empresa', '03': 'empresa_pequeno_porte', '05': 'demais' }
const PORTE_CODIGO: Record<string, string> = { nao_informado: '00', micro_empresa: '01', pequeno_porte: '03', empresa_pequeno_porte: '03', demais: '05' }
const TIPO_SOCIO = { 1: 'pessoa_juridica', 2: 'pessoa_fisica', 3: 'estrangeiro' } as const
const FAIXA = ['00-12', '13-20', '21-30', '31-40', '41-50', '51-60', '61-70', '71-80', '81+']
export const MAX_FILIAIS = 1000

const fonte = (files: CnpjFiles) => ({ base: 'RFB/CNPJ' as const, referencia: files.referencia })
const s = (v: unknown) => (v === null || v === undefined ? null : String(v))
const cd = (codigo: unknown, lookup: Lookup) => {
  const c = s(codigo)
  return { codigo: c, descricao: c === null ? null : (lookup.get(c) ?? null) }
}
const matrizFilial = (v: string | null) => (v === '1' ? 'matriz' : v === '2' ? 'filial' : null)

function telefone(ddd: unknown, numero: unknown): string | null {
  if (!numero) return null
  return ddd ? `(${String(ddd).trim()}) ${String(numero).trim()}` : String(numero).trim()
}

/**
 * A point query through the build's cache. Lookups are the paid hot path and DuckDB spends
 * ~1 ms of CPU on each; a repeated CNPJ is answered from memory. Roots with many establishments
 * are not kept, so one entry stays small (the cache holds config.cache entries).
 */
async function lookup(files: CnpjFiles, sql: string, params: string[]): Promise<Row[]> {
  const key = `${sql}\u0000${params.join('\u0000')}`
  const hit = files.cache.get(key)
  if (hit) return hit
  const rows = await files.duck.query(sql, params)
  if (rows.length <= MAX_CACHED_ROWS) files.cache.set(key, rows)
  return rows
}
const MAX_CACHED_ROWS = 50

type Ficha = Record<FichaField, string | null>

/** A `ficha` JSON array (FICHA order) as named fields. */
function decodeFicha(json: unknown): Ficha {
  const values = JSON.parse(String(json)) as (string | null)[]
  return Object.fromEntries(FICHA.map((field, i) => [field, values[i] ?? null])) as Ficha
}

async function ficha(files: CnpjFiles, cnpj: string): Promise<Ficha | undefined> {
  const root = cnpj.slice(0, 8)
  const row = (await lookup(files, SQL.ficha(root), [cnpj]))[0]
  return row ? decodeFicha(row.ficha) : undefined
}

const notFound = (files: CnpjFiles, cnpj: string) => new ApiError('nao_encontrado', `CNPJ ${cnpj} não consta na base de ${files.referencia}.`)

export async function situacao(files: CnpjFiles, cnpj: string): Promise<Out<typeof Situacao>> {
  const f = await ficha(files, cnpj)
  if (!f) return { cnpj, existe: false, situacao_cadastral: null, matriz_filial: null, uf: null, fonte: fonte(files) }
  return {
    cnpj,
    existe: true,
    situacao_cadastral: { codigo: f.situacao, descricao: f.situacao ? (SITUACAO_DESCRICAO[f.situacao] ?? null) : null, data: f.data_situacao },
    matriz_filial: matrizFilial(f.matriz_filial),
    uf: f.uf,
    fonte: fonte(files),
  }
}

export async function empresa(files: CnpjFiles, cnpj: string): Promise<Out<typeof Empresa>> {
  const f = await ficha(files, cnpj)
  if (!f) throw notFound(files, cnpj)
  return card(files, f)
}

/** The SPEC's Empresa from one card. */
function card(files: CnpjFiles, f: Ficha): Out<typeof Empresa> {
  const { lookups } = files
  const codigo = f.situacao
  const motivo = f.motivo
  const logradouro = [f.tipo_logradouro, f.logradouro].filter(Boolean).join(' ') || null
  return {
    cnpj: f.cnpj!,
    razao_social: f.razao_social,
    nome_fantasia: f.nome_fantasia,
    matriz_filial: matrizFilial(f.matriz_filial),
    situacao_cadastral: {
      codigo,
      descricao: codigo ? (SITUACAO_DESCRICAO[codigo] ?? null) : null,
      data: f.data_situacao,
      motivo: motivo && motivo !== '00' ? (lookups.motivos.get(motivo) ?? motivo) : null,
    },
    data_inicio_atividade: f.data_inicio,
    natureza_juridica: cd(f.natureza_juridica, lookups.naturezas),
    porte: f.porte ? (PORTE[f.porte] ?? null) : null,
    capital_social: f.capital_social === null ? null : Number(f.capital_social),
    cnae_principal: cd(f.cnae_principal, lookups.cnaes),
    cnae_secundarios: f.cnaes_secundarios ? f.cnaes_secundarios.split(',').filter(Boolean).map((c) => cd(c.padStart(7, '0'), lookups.cnaes)) : [],
    endereco: {
      logradouro,
      numero: f.numero,
      complemento: f.complemento,
      bairro: f.bairro,
      municipio: f.municipio ? (lookups.municipios.get(f.municipio) ?? f.cidade_exterior) : f.cidade_exterior,
      uf: f.uf,
      cep: f.cep,
    },
    contato: { email: f.email, telefone: telefone(f.ddd1, f.telefone1) ?? telefone(f.ddd2, f.telefone2) },
    simples: { optante: f.opcao_simples === 'true', mei: f.opcao_mei === 'true' },
    fonte: fonte(files),
  }
}

function socio(files: CnpjFiles, r: Row): Out<typeof Socio> {
  const faixa = typeof r.faixa_etaria === 'number' && r.faixa_etaria >= 1 && r.faixa_etaria <= 9 ? FAIXA[r.faixa_etaria - 1]! : null
  return {
    nome: s(r.nome),
    tipo: TIPO_SOCIO[r.identificador as 1 | 2 | 3] ?? null,
    documento_mascarado: s(r.cpf_cnpj),
    qualificacao: cd(r.qualificacao, files.lookups.qualificacoes),
    data_entrada: s(r.data_entrada),
    faixa_etaria: faixa,
    representante_legal: s(r.representante_nome),
  }
}

export async function socios(files: CnpjFiles, cnpj: string): Promise<Out<typeof Socio>[]> {
  const root = cnpj.slice(0, 8)
  return (await lookup(files, SQL.socios(root), [root])).map((r) => socio(files, r))
}

/** 404 unless the establishment exists (partners are per root, but the path names one CNPJ). */
export async function sociosDe(files: CnpjFiles, cnpj: string) {
  const [f, list] = await Promise.all([ficha(files, cnpj), socios(files, cnpj)])
  if (!f) throw notFound(files, cnpj)
  return { cnpj, total: list.length, socios: list, fonte: fonte(files) }
}

export async function completo(files: CnpjFiles, cnpj: string): Promise<Out<typeof EmpresaCompleta>> {
  // One read of the root's cards serves both the card and the other establishments.
  const root = cnpj.slice(0, 8)
  const [rows, list] = await Promise.all([lookup(files, SQL.fichasDaRaiz(root), rootRange(root)), socios(files, cnpj)])
  const fichas = rows.map((r) => decodeFicha(r.ficha))
  const main = fichas.find((f) => f.cnpj === cnpj)
  if (!main) throw notFound(files, cnpj)
  const outros = fichas.filter((f) => f.cnpj !== cnpj).sort((a, b) => (a.cnpj! < b.cnpj! ? -1 : 1))
  return {
    ...card(files, main),
    socios: list,
    total_socios: list.length,
    filiais: outros.slice(0, MAX_FILIAIS).map((f): Out<typeof Filial> => ({
      cnpj: f.cnpj!,
      uf: f.uf,
      municipio: f.municipio ? (files.lookups.municipios.get(f.municipio) ?? null) : null,
      situacao: f.situacao ? (SITUACAO_DESCRICAO[f.situacao] ?? null) : null,
    })),
    total_filiais: outros.length,
  }
}

/** FTS5 query from free text: accents and case folded, legal-form words dropped, every word required. */
export function matchExpression(text: string): string | null {
  const words = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !FILTER_TOKEN_SHAPE.test(w))
  const useful = words.filter((w) => !STOPWORDS.has(w))
  const chosen = (useful.length ? useful : words).slice(0, 8)
  return chosen.length ? chosen.map((w) => `"${w}"`).join(' ') : null
}

/** Pages reach the 10000th result at most, as the total is capped there; deeper asks for a narrower search. */
function pageOffset(pagina: number, porPagina: number): number {
  const offset = (pagina - 1) * porPagina
  if (offset + porPagina > MAX_RESULT_WINDOW)
    throw new ApiError('parametro_invalido', `A busca pagina até o ${MAX_RESULT_WINDOW}º resultado (pagina × por_pagina ≤ ${MAX_RESULT_WINDOW}); refine os filtros.`)
  return offset
}

function requiredMatch(text: string): string {
  const match = matchExpression(text)
  if (!match) throw new ApiError('parametro_invalido', "parâmetro de consulta 'nome': precisa de ao menos uma palavra com letras ou números")
  return match
}

const capTotal = (n: number) => (n > 10000 ? ('10000+' as const) : n)

export async function busca(files: CnpjFiles, q: Out<typeof BuscaQuery>): Promise<Out<typeof BuscaResultado>> {
  const hasFilter = q.nome || q.uf || q.municipio || q.cnae || q.porte || q.abertura_de || q.abertura_ate
  if (!hasFilter) throw new ApiError('filtro_obrigatorio', 'Informe ao menos um filtro: nome, uf, municipio, cnae, porte, abertura_de ou abertura_ate.')
  if (q.abertura_de && q.abertura_ate && q.abertura_de > q.abertura_ate) throw new ApiError('parametro_invalido', 'abertura_de é posterior a abertura_ate.')
  const situacaoCodigo = SITUACAO_CODIGO[q.situacao]!
  const offset = pageOffset(q.pagina, q.por_pagina)

  // Names and the cnae/município/porte filters are all words of the FTS index.
  const words: string[] = []
  if (q.nome) {
    words.push(requiredMatch(q.nome))
  }
  if (q.cnae) words.push(`"${filterToken.cnae(q.cnae)}"`)
  if (q.municipio) words.push(`"${filterToken.municipio(q.municipio)}"`)
  if (q.porte) words.push(`"${filterToken.porte(PORTE_CODIGO[q.porte]!)}"`)
  const extra: string[] = []
  const params: Record<string, string | number> = {}
  if (words.length) params.$match = words.join(' ')
  if (q.abertura_de) { extra.push('d.abertura >= $de'); params.$de = Number(q.abertura_de.replace(/-/g, '')) }
  if (q.abertura_ate) { extra.push('d.abertura <= $ate'); params.$ate = Number(q.abertura_ate.replace(/-/g, '')) }
  const sql = companySearchSql(words.length > 0, extra)

  const situacaoSlot = SITUACOES.indexOf(situacaoCodigo as (typeof SITUACOES)[number])
  const ufSlots = q.uf ? [UFS.indexOf(q.uf as (typeof UFS)[number])].filter((x) => x >= 0) : ALL_UF_SLOTS
  const rank = (id: number) => id % RANK_BITS
  const byRank = (a: number, b: number) => rank(a) - rank(b) || a - b
  let total: number
  let rows: Row[]
  if (ufSlots.length > 1) {
    // Every UF: situação is the high part of the rowid, so all matches are one contiguous range.
    // Up to the 10000 that can be paged, their ids are read in one pass and sorted by rank here
    // (the rank is in the id), and only the page's rows are read. Measured nationally: a full
    // legal name without UF went from p95 223 ms (one read per UF partition) to 37-50 ms.
    const [lo, hi] = [rowidRange(situacaoSlot, 0)[0], rowidRange(situacaoSlot, 31)[1]]
    const ids = (files.search.query(sql.ids).values({ ...params, $lo: lo, $hi: hi }) as [number][]).map(([id]) => Number(id))
    total = ids.length
    if (ids.length <= MAX_RESULT_WINDOW) {
      const pageIds = ids.sort(byRank).slice(offset, offset + q.por_pagina)
      const found = new Map((files.search.query(docsById(pageIds.length)).all(...pageIds) as Row[]).map((r) => [Number(r.id), r]))
      rows = pageIds.map((id) => found.get(id)).filter((r): r is Row => r !== undefined)
    } else {
      // Many matches: each UF partition is already in rank order; take each one's first
      // offset+limit rows and merge.
      const page: Row[] = []
      for (const slot of ufSlots) {
        const [plo, phi] = rowidRange(situacaoSlot, slot)
        page.push(...(files.search.query(sql.page).all({ ...params, $lo: plo, $hi: phi, $limit: offset + q.por_pagina }) as Row[]))
      }
      rows = page.sort((x, y) => byRank(Number(x.id), Number(y.id))).slice(offset, offset + q.por_pagina)
    }
  } else {
    const [lo, hi] = ufSlots.length ? rowidRange(situacaoSlot, ufSlots[0]!) : [1, 0]
    total = (files.search.query(sql.count).get({ ...params, $lo: lo, $hi: hi }) as { n: number }).n
    rows = files.search.query(sql.page).all({ ...params, $lo: lo, $hi: hi, $limit: offset + q.por_pagina }).slice(offset) as Row[]
  }
  return {
    total: capTotal(total),
    pagina: q.pagina,
    resultados: rows.map((r) => ({
      cnpj: String(r.cnpj),
      razao_social: s(r.razao_social),
      nome_fantasia: s(r.nome_fantasia),
      uf: UFS[Math.floor(Number(r.id) / RANK_BITS) % 32] ?? null,
      municipio: r.municipio ? (files.lookups.municipios.get(String(r.municipio)) ?? null) : null,
      cnae_principal: s(r.cnae),
      situacao: SITUACAO_DESCRICAO[situacaoCodigo]!,
    })),
    fonte: fonte(files),
  }
}

export async function socioBusca(files: CnpjFiles, q: Out<typeof SocioBuscaQuery>): Promise<Out<typeof SocioBuscaResultado>> {
  const match = requiredMatch(q.nome)
  const offset = pageOffset(q.pagina, q.por_pagina)
  const count = files.search.query(SOCIO_SEARCH.count).get({ $match: match }) as { n: number }
  const rows = files.search.query(SOCIO_SEARCH.page).all({ $match: match, $limit: q.por_pagina, $offset: offset }) as Row[]
  // One indexed point query per root (an IN list would scan the companies table).
  const roots = [...new Set(rows.map((r) => String(r.cnpj_basico)))]
  const names = new Map(await Promise.all(roots.map(async (root) => [root, s((await lookup(files, SQL.razaoSocial(root), [root]))[0]?.razao_social)] as const)))
  return {
    total: capTotal(count.n),
    pagina: q.pagina,
    resultados: rows.map((r) => ({
      nome_socio: s(r.nome),
      cnpj: String(r.cnpj_basico),
      razao_social: names.get(String(r.cnpj_basico)) ?? null,
      qualificacao: cd(r.qualificacao, files.lookups.qualificacoes),
      data_entrada: s(r.data_entrada),
    })),
    fonte: fonte(files),
  }
}
