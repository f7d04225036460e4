// Registry answers: runs the queries and maps raw rows to the SPEC's Portuguese shapes.
import type { Database } from 'bun:sqlite'
import type { z } from 'zod'
import { ApiError } from '../../core/errors'
import type { Row } from '../../core/stores/duckdb'
import { ALL_UF_SLOTS, CARD_SEPARATOR, FICHA, MAX_PREFIX_EXPANSION, PARTNER_SEPARATOR, SOCIO, type SocioField, type FichaField, docKey, filterToken, MAX_PAIR_ALTERNATIVES, MAX_RESULT_WINDOW, pairToken, rowidRange, RANK_BITS, SITUACOES, UFS, VOCABULARY_MIN_LENGTH } from './layout'
import { hasAnyWord, searchWords } from './search-text'
import type { BuscaQuery, BuscaResultado, Empresa, EmpresaCompleta, Filial, Situacao, Socio, SocioBuscaQuery, SocioBuscaResultado } from './model'
import { cnpjsByDocKey, companySearchSql, SOCIO_SEARCH, VOCABULARY } from './queries'
import type { CnpjFiles, Lookup } from './store'

type Out<T extends z.ZodType> = z.output<T>

const SITUACAO_DESCRICAO: Record<string, string> = { '01': 'Nula', '02': 'Ativa', '03': 'Suspensa', '04': 'Inapta', '08': 'Baixada' }
const SITUACAO_CODIGO: Record<string, string> = { nula: '01', ativa: '02', suspensa: '03', inapta: '04', baixada: '08' }
const PORTE: Record<string, Out<typeof Empresa>['porte']> = { '00': 'nao_informado', '01': 'micro_empresa', '03': 'empresa_pequeno_porte', '05': 'demais' }
const PORTE_CODIGO: Record<string, string> = { nao_informado: '00', micro_empresa: '01', pequeno_porte: '03', empresa_pequeno_porte: '03', demais: '05' }
const TIPO_SOCIO = { 1: 'pessoa_juridica', 2: 'pessoa_fisica', 3: 'estrangeiro' } as const
const FAIXA = ['00-12', '13-20', '21-30', '31-40', '41-50', '51-60', '61-70', '71-80', '81+']
export const MAX_FILIAIS = 1000

/**
 * What rendering a card reads: the month's code tables and its reference month. The served month's
 * files are one; the history renders a card of an earlier month with that month's tables
 * (historico.ts).
 */
export type CardView = Pick<CnpjFiles, 'lookups' | 'referencia'>

const fonte = (files: CardView) => ({ base: 'RFB/CNPJ' as const, referencia: files.referencia })
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

export type Ficha = Record<FichaField | 'cnpj', string | null>

/** A card store row (FICHA fields joined by CARD_SEPARATOR, blank = null) as named fields. */
export function decodeFicha(cnpj: string, dados: string): Ficha {
  const values = dados.split(CARD_SEPARATOR)
  const f = { cnpj } as Ficha
  for (let i = 0; i < FICHA.length; i++) f[FICHA[i]!] = values[i] || null
  return f
}

/** One establishment's card from the card store (a SQLite point read: ~1 µs with its pages in memory, measured at 1.1 M establishments). */
function ficha(files: CnpjFiles, cnpj: string): Ficha | undefined {
  const dados = files.cards.card(cnpj)
  return dados === null ? undefined : decodeFicha(cnpj, dados)
}

/** Every card of a root, in CNPJ order. */
function fichasDaRaiz(files: CnpjFiles, root: string): Ficha[] {
  return files.cards.cardsOfRoot(root).map((r) => decodeFicha(r.cnpj, r.dados))
}

/** The Receita's municipality code of every establishment abroad (its table says EXTERIOR). */
const MUNICIPIO_EXTERIOR = '9707'

/**
 * An establishment's city, the same on every route that shows one (card, search results,
 * filiais): abroad (UF EX or municipality 9707 EXTERIOR) the Receita puts the foreign city in
 * cidade_exterior, and that is the city (null when blank: "EXTERIOR" is no city); in Brazil, the
 * name of its municipality code (null for a code the month's table lacks).
 */
export function municipio(files: CardView, f: Ficha): string | null {
  if (f.uf === 'EX' || f.municipio === MUNICIPIO_EXTERIOR) return f.cidade_exterior
  return f.municipio ? (files.lookups.municipios.get(f.municipio) ?? null) : null
}

export const notFound = (files: CardView, cnpj: string) => new ApiError('nao_encontrado', `CNPJ ${cnpj} não consta na base de ${files.referencia}.`)

export async function situacao(files: CnpjFiles, cnpj: string): Promise<Out<typeof Situacao>> {
  const f = ficha(files, cnpj)
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
  const f = ficha(files, cnpj)
  if (!f) throw notFound(files, cnpj)
  return card(files, f)
}

/** The SPEC's Empresa from one card. */
export function card(files: CardView, f: Ficha): Out<typeof Empresa> {
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
      municipio: municipio(files, f),
      uf: f.uf,
      cep: f.cep,
    },
    contato: { email: f.email, telefone: telefone(f.ddd1, f.telefone1) ?? telefone(f.ddd2, f.telefone2) },
    simples: { optante: f.opcao_simples === 'true', mei: f.opcao_mei === 'true' },
    fonte: fonte(files),
  }
}

export type SocioRow = Record<SocioField, string | null>

export function socio(files: CardView, r: SocioRow): Out<typeof Socio> {
  const n = Number(r.faixa_etaria)
  return {
    nome: r.nome,
    tipo: TIPO_SOCIO[Number(r.identificador) as 1 | 2 | 3] ?? null,
    documento_mascarado: r.cpf_cnpj,
    qualificacao: cd(r.qualificacao, files.lookups.qualificacoes),
    data_entrada: r.data_entrada,
    faixa_etaria: n >= 1 && n <= 9 ? FAIXA[n - 1]! : null,
    representante_legal: r.representante_nome,
  }
}

/** A partner's values (SOCIO order, blank = null) as named fields. */
export function socioRow(values: readonly (string | null | undefined)[]): SocioRow {
  const r = {} as SocioRow
  for (let i = 0; i < SOCIO.length; i++) r[SOCIO[i]!] = values[i] || null
  return r
}

/** Every partner of a root from the card store, in /socios order (entry date, then name). */
export function socios(files: CnpjFiles, cnpj: string): Out<typeof Socio>[] {
  const root = cnpj.slice(0, 8)
  const dados = files.cards.partners(root)
  if (dados === null) return []
  return dados.split(PARTNER_SEPARATOR).map((partner) => socio(files, socioRow(partner.split(CARD_SEPARATOR))))
}

/** /socios's answer from a list already rendered. */
export const sociosAnswer = (files: CardView, cnpj: string, list: Out<typeof Socio>[]) => ({ cnpj, total: list.length, socios: list, fonte: fonte(files) })

/** 404 unless the establishment exists (partners are per root, but the path names one CNPJ). */
export async function sociosDe(files: CnpjFiles, cnpj: string) {
  if (!ficha(files, cnpj)) throw notFound(files, cnpj)
  return sociosAnswer(files, cnpj, socios(files, cnpj))
}

export async function completo(files: CnpjFiles, cnpj: string): Promise<Out<typeof EmpresaCompleta>> {
  // One read of the root's cards serves both the card and the other establishments.
  const fichas = fichasDaRaiz(files, cnpj.slice(0, 8))
  const main = fichas.find((f) => f.cnpj === cnpj)
  if (!main) throw notFound(files, cnpj)
  return completoDe(files, main, fichas, socios(files, cnpj))
}

/** /completo's answer: the card, the partners, and the root's other establishments (`fichas` in CNPJ order). */
export function completoDe(files: CardView, main: Ficha, fichas: Ficha[], list: Out<typeof Socio>[]): Out<typeof EmpresaCompleta> {
  const outros = fichas.filter((f) => f.cnpj !== main.cnpj)
  return {
    ...card(files, main),
    socios: list,
    total_socios: list.length,
    filiais: outros.slice(0, MAX_FILIAIS).map((f): Out<typeof Filial> => ({
      cnpj: f.cnpj!,
      uf: f.uf,
      municipio: municipio(files, f),
      situacao: f.situacao ? (SITUACAO_DESCRICAO[f.situacao] ?? null) : null,
    })),
    total_filiais: outros.length,
  }
}

/** Words of a typed name searched at most (the rest are dropped). */
const MAX_WORDS = 8

/** Exclusive upper bound of the words that begin with `w` (its last character's code point + 1; UTF-8 keeps code point order). */
const afterPrefix = (w: string) => {
  const last = w.codePointAt(w.length - 1)!
  return w.slice(0, last > 0xffff ? -2 : -1) + String.fromCodePoint(last + 1)
}

/**
 * One typed word (already normalized) as FTS5 syntax: every indexed word it begins. One character:
 * that word alone. 2 to 4 characters: a prefix query, one doclist of the prefix index. Longer: the
 * OR of the indexed words it begins, from the index's vocabulary (FTS5 would merge every one of
 * their whole doclists before reading the first row); nothing begins it: the word itself, which
 * matches nothing; more than MAX_PREFIX_EXPANSION words: FTS5's own prefix query.
 */
function wordMatch(index: Database, w: string): string {
  if (w.length === 1) return `"${w}"`
  if (w.length < VOCABULARY_MIN_LENGTH) return `"${w}"*`
  const terms = (index.query(VOCABULARY).values(w, afterPrefix(w), MAX_PREFIX_EXPANSION + 1) as [string][]).map(([t]) => t)
  if (terms.length === 0) return `"${w}"`
  if (terms.length > MAX_PREFIX_EXPANSION) return `"${w}"*`
  return terms.length === 1 ? `"${terms[0]}"` : `(${terms.map((t) => `"${t}"`).join(' OR ')})`
}

/** A frequent word's pair code and its rows in the build's sample (table `frequente`). */
type Frequent = Map<string, { code: number; rows: number }>
/** An index's frequent words; null for a build made before the pairs. */
const frequentByIndex = new WeakMap<Database, Frequent | null>()
function frequentWords(index: Database): Frequent | null {
  let frequent = frequentByIndex.get(index)
  if (frequent === undefined) {
    const has = index.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'frequente'").get()
    frequent = has
      ? new Map((index.query('SELECT t, codigo, linhas FROM frequente').values() as [string, number, number][]).map(([t, code, rows]) => [t, { code: Number(code), rows: Number(rows) }]))
      : null
    frequentByIndex.set(index, frequent)
  }
  return frequent
}

const quoted = (t: string) => `"${t}"`
const anyOf = (terms: string[]) => (terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`)

/**
 * The typed words with pair tokens where they help (layout.ts, pairToken), or null when fewer
 * than two typed words begin a frequent word. A typed word pairs when every indexed word it begins
 * can be listed (one character: itself; else `termo`, at most MAX_PREFIX_EXPANSION) and some are
 * frequent (F) — the others (R) are rare. The AND of the paired words is, exactly:
 *   (every word through its F) OR (some word j through its R, the others through anything),
 * and "every word through its F" is an AND of pairs covering them, each the OR of the pair tokens
 * of their frequent words (a word both begin: the word itself). The cover pairs the two rarest
 * (fewest rows in the build's sample) and then the rarest with each other one: FTS5's AND steps
 * through the shortest doclist, and a frequent word's pairs with a rarer word are short. Rows hold the pair token of every two distinct
 * frequent words they have, so this matches the rows the plain AND matches, reading pair doclists
 * (short) where the plain AND leapfrogs the frequent words' (long) ones.
 */
function pairedMatch(index: Database, frequent: Frequent, words: string[]): string | null {
  const plain: string[] = []
  const paired: { all: string[]; frequent: string[]; rare: string[]; rows: number }[] = []
  for (const w of words) {
    const all = w.length === 1 ? [w] : (index.query(VOCABULARY).values(w, afterPrefix(w), MAX_PREFIX_EXPANSION + 1) as [string][]).map(([t]) => t)
    const often = all.length <= MAX_PREFIX_EXPANSION ? all.filter((t) => frequent.has(t)) : []
    if (!often.length) plain.push(wordMatch(index, w))
    else paired.push({ all, frequent: often, rare: all.filter((t) => !frequent.has(t)), rows: often.reduce((n, t) => n + frequent.get(t)!.rows, 0) })
  }
  if (paired.length < 2) return null
  paired.sort((a, b) => a.rows - b.rows)
  const groups: string[] = []
  const [rarest] = paired
  for (const other of paired.slice(1)) {
    if (rarest!.frequent.length * other.frequent.length > MAX_PAIR_ALTERNATIVES) return null
    const alternatives = new Set<string>()
    for (const x of rarest!.frequent) for (const y of other.frequent) alternatives.add(quoted(x === y ? x : pairToken(frequent.get(x)!.code, frequent.get(y)!.code)))
    groups.push(anyOf([...alternatives]))
  }
  const throughFrequent = groups.join(' AND ')
  const throughRare = paired.flatMap((p, j) =>
    p.rare.length ? [[anyOf(p.rare.map(quoted)), ...paired.filter((_, i) => i !== j).map((o) => anyOf(o.all.map(quoted)))].join(' AND ')] : [])
  const names = throughRare.length ? `((${throughFrequent}) OR ${throughRare.map((e) => `(${e})`).join(' OR ')})` : throughFrequent
  return [...plain, names].join(' AND ')
}

/**
 * A typed name as an FTS5 expression over one name index (docs/busca.md): the words searchWords
 * gives (the same normalization the index was built with), each one matching the indexed words it
 * begins, all of them required (through pair tokens where two or more typed words begin frequent
 * words: pairedMatch). Text with no word at all, or with ignored words only (legal forms and
 * connectors), is a 400: searching without them would match everything.
 */
export function nameMatch(index: Database, text: string, options: { pairs?: boolean } = {}): string {
  const words = [...new Set(searchWords(text))].slice(0, MAX_WORDS)
  if (!words.length)
    throw new ApiError(
      'parametro_invalido',
      hasAnyWord(text)
        ? "parâmetro de consulta 'nome': só tem palavras que a busca ignora (formas jurídicas como LTDA, ME, EPP, EIRELI, S.A. e conectivos como DE, DA, DO, E); informe ao menos uma palavra do nome"
        : "parâmetro de consulta 'nome': precisa de ao menos uma palavra com letras ou números",
    )
  const frequent = options.pairs === false ? null : frequentWords(index)
  const paired = frequent && words.length > 1 ? pairedMatch(index, frequent, words) : null
  return paired ?? words.map((w) => wordMatch(index, w)).join(' AND ')
}

/** Pages reach the 10000th result at most, as the total is capped there; deeper asks for a narrower search. */
function pageOffset(pagina: number, porPagina: number): number {
  const offset = (pagina - 1) * porPagina
  if (offset + porPagina > MAX_RESULT_WINDOW)
    throw new ApiError('parametro_invalido', `A busca pagina até o ${MAX_RESULT_WINDOW}º resultado (pagina × por_pagina ≤ ${MAX_RESULT_WINDOW}); refine os filtros.`)
  return offset
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
  if (q.nome) words.push(nameMatch(files.search, q.nome))
  // The query schema checks each code's shape, so each has its token.
  if (q.cnae) words.push(`"${filterToken.cnae(q.cnae)}"`)
  if (q.municipio) words.push(`"${filterToken.municipio(q.municipio)}"`)
  if (q.porte) words.push(`"${filterToken.porte(PORTE_CODIGO[q.porte]!)}"`)
  // A search by UF or dates alone reads the word every row holds.
  if (!words.length) words.push(`"${filterToken.qualquer}"`)
  const extra: string[] = []
  const params: Record<string, string | number> = { $match: words.join(' AND ') }
  if (q.abertura_de) { extra.push('d.abertura >= $de'); params.$de = Number(q.abertura_de.replace(/-/g, '')) }
  if (q.abertura_ate) { extra.push('d.abertura <= $ate'); params.$ate = Number(q.abertura_ate.replace(/-/g, '')) }
  const sql = companySearchSql(extra)

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
    let pageIds: number[]
    if (ids.length <= MAX_RESULT_WINDOW) pageIds = ids.sort(byRank).slice(offset, offset + q.por_pagina)
    else {
      // Many matches: each UF partition is already in rank order; take each one's first
      // offset+limit ids and merge. Ids only, then the page's CNPJs in one read: the join in
      // each of the 29 partition reads was 0.65 of their 1.07 ms (common word, 10 M companies).
      const merged: number[] = []
      for (const slot of ufSlots) {
        const [plo, phi] = rowidRange(situacaoSlot, slot)
        for (const [id] of files.search.query(sql.pageIds).values({ ...params, $lo: plo, $hi: phi, $limit: offset + q.por_pagina }) as [number][]) merged.push(Number(id))
      }
      pageIds = merged.sort(byRank).slice(offset, offset + q.por_pagina)
    }
    const found = new Map((files.search.query(cnpjsByDocKey(pageIds.length)).all(...pageIds.map(docKey)) as Row[]).map((r) => [Number(r.chave), r.cnpj]))
    rows = pageIds.filter((id) => found.has(docKey(id))).map((id) => ({ id, cnpj: found.get(docKey(id)) }))
  } else {
    const [lo, hi] = ufSlots.length ? rowidRange(situacaoSlot, ufSlots[0]!) : [1, 0]
    total = (files.search.query(sql.count).get({ ...params, $lo: lo, $hi: hi }) as { n: number }).n
    rows = files.search.query(sql.page).all({ ...params, $lo: lo, $hi: hi, $limit: offset + q.por_pagina }).slice(offset) as Row[]
  }
  return {
    total: capTotal(total),
    pagina: q.pagina,
    resultados: rows.map((r) => {
      const f = ficha(files, String(r.cnpj))
      return {
        cnpj: String(r.cnpj),
        razao_social: f?.razao_social ?? null,
        nome_fantasia: f?.nome_fantasia ?? null,
        // The card's own values, as /empresa shows them (the rowid's UF slot lumps unknown UFs together).
        uf: f ? f.uf : (UFS[Math.floor(Number(r.id) / RANK_BITS) % 32] ?? null),
        municipio: f ? municipio(files, f) : null,
        cnae_principal: f?.cnae_principal ?? null,
        situacao: SITUACAO_DESCRICAO[situacaoCodigo]!,
      }
    }),
    fonte: fonte(files),
  }
}

/** A company's legal name: from any card of its root, else from the companies without establishment. */
function razaoSocial(files: CnpjFiles, root: string): string | null {
  const row = files.cards.anyCardOfRoot(root)
  return row ? decodeFicha(row.cnpj, row.dados).razao_social : files.cards.companyWithoutEstablishment(root)
}

export async function socioBusca(files: CnpjFiles, q: Out<typeof SocioBuscaQuery>): Promise<Out<typeof SocioBuscaResultado>> {
  const match = nameMatch(files.partnerSearch, q.nome)
  const offset = pageOffset(q.pagina, q.por_pagina)
  const count = files.partnerSearch.query(SOCIO_SEARCH.count).get({ $match: match }) as { n: number }
  const rows = files.partnerSearch.query(SOCIO_SEARCH.page).all({ $match: match, $limit: q.por_pagina, $offset: offset }) as Row[]
  const roots = [...new Set(rows.map((r) => String(r.cnpj_basico)))]
  const names = new Map(roots.map((root) => [root, razaoSocial(files, root)]))
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
