// Registry answers: runs the queries and maps raw rows to the SPEC's Portuguese shapes.
import type { Database } from 'bun:sqlite'
import type { z } from 'zod'
import { ApiError, JsonText } from '../../core/errors'
import type { Row } from '../../core/stores/duckdb'
import { ALL_UF_SLOTS, CARD_SEPARATOR, documentKey, FICHA, MAX_PREFIX_EXPANSION, PARTNER_SEPARATOR, SOCIO, type SocioField, type FichaField, docKey, MAX_PAIR_ALTERNATIVES, MAX_RESULT_WINDOW, pairToken, rowidRange, RANK_BITS, SITUACOES, UFS, VOCABULARY_MIN_LENGTH } from './layout'
import { hasAnyWord, searchWords } from './search-text'
import { filterStats, matchOf, planFilters, type FilterPlan } from './search-filters'
import { filterBitmaps, searchBitmaps } from './filter-bitmaps'
import { cardJson, fonteJson, ibgeDe, matrizFilial, municipioDe, SITUACAO_DESCRICAO, type CardView } from './card-json'
import type { Lote } from '../../core/lote'
import type { BuscaQuery, BuscaResultado, Empresa, EmpresaCompleta, Filial, Situacao, Socio, SocioBuscaQuery, SocioBuscaResultado } from './model'
import { cnpjsByDocKey, companySearchSql, docValuesByKey, SOCIO_SEARCH, VOCABULARY } from './queries'
import type { CnpjFiles, Lookup } from './store'

type Out<T extends z.ZodType> = z.output<T>

const SITUACAO_CODIGO: Record<string, string> = { nula: '01', ativa: '02', suspensa: '03', inapta: '04', baixada: '08' }
const PORTE_CODIGO: Record<string, string> = { nao_informado: '00', micro_empresa: '01', pequeno_porte: '03', empresa_pequeno_porte: '03', demais: '05' }
const TIPO_SOCIO = { 1: 'pessoa_juridica', 2: 'pessoa_fisica', 3: 'estrangeiro' } as const
const FAIXA = ['00-12', '13-20', '21-30', '31-40', '41-50', '51-60', '61-70', '71-80', '81+']
export const MAX_FILIAIS = 1000

export type { CardView }

const fonte = (files: CardView) => ({ base: 'RFB/CNPJ' as const, referencia: files.referencia })
const s = (v: unknown) => (v === null || v === undefined ? null : String(v))
const cd = (codigo: unknown, lookup: Lookup) => {
  const c = s(codigo)
  return { codigo: c, descricao: c === null ? null : (lookup.get(c) ?? null) }
}

export type Ficha = Record<FichaField | 'cnpj', string | null>

/** A card's FICHA fields (CardStoreReader, blank = null) as named fields. */
export function decodeFicha(cnpj: string, values: readonly (string | null)[]): Ficha {
  const f = { cnpj } as Ficha
  for (let i = 0; i < FICHA.length; i++) f[FICHA[i]!] = values[i] || null
  return f
}

/** One establishment's card from the card store (a SQLite point read: ~1 µs with its pages in memory, measured at 1.1 M establishments). */
function ficha(files: CnpjFiles, cnpj: string): Ficha | undefined {
  const dados = files.cards.card(cnpj)
  return dados === null ? undefined : decodeFicha(cnpj, dados)
}

/** An establishment's city (card-json.ts municipioDe: the same on every route). */
export const municipio = (files: CardView, f: Ficha) => municipioDe(files, f.uf, f.municipio, f.cidade_exterior)
/** The IBGE code of its municipality (card-json.ts ibgeDe). */
const codigoMunicipioIbge = (files: CardView, f: Ficha) => ibgeDe(files, f.uf, f.municipio)

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

/** One CNPJ's card as /v1/cnpj/empresa/{cnpj} answers it (JSON text, card-json.ts), or null when the month lacks it. */
export function cartaoJson(files: CnpjFiles, cnpj: string): string | null {
  const v = files.cards.card(cnpj)
  return v === null ? null : cardJson(files, cnpj, v)
}

/** /v1/cnpj/empresa/{cnpj}: the card's JSON, or 404. */
export function empresaJson(files: CnpjFiles, cnpj: string): JsonText {
  const json = cartaoJson(files, cnpj)
  if (json === null) throw notFound(files, cnpj)
  return new JsonText(json)
}

export async function empresa(files: CnpjFiles, cnpj: string): Promise<Out<typeof Empresa>> {
  return empresaJson(files, cnpj).parse() as Out<typeof Empresa>
}

/**
 * /v1/cnpj/lote: each CNPJ's card as /v1/cnpj/empresa/{cnpj} gives it, or the error it gives (not
 * found, invalid), in the order listed (lerListaDeCnpjs in src/core/lote.ts), as JSON text. A list
 * whose valid CNPJs are all missing from the month is a 404, as the single route's answer without
 * data (nothing is charged).
 */
export function loteJson(files: CnpjFiles, lista: Lote): JsonText {
  let encontrados = 0
  const itens = lista.itens.map((item) => {
    if (item.cnpj === null) return JSON.stringify({ cnpj: item.entrada, encontrado: false, erro: item.erro })
    const json = cartaoJson(files, item.cnpj)
    if (json === null) return JSON.stringify({ cnpj: item.cnpj, encontrado: false, erro: { codigo: 'nao_encontrado', mensagem: notFound(files, item.cnpj).message } })
    encontrados++
    return `{"cnpj":"${item.cnpj}","encontrado":true,"resultado":${json}}`
  })
  if (!encontrados)
    throw new ApiError('nao_encontrado', `${lista.validos.length === 1 ? 'O CNPJ válido da lista não consta' : `Nenhum dos ${lista.validos.length} CNPJs válidos da lista consta`} na base de ${files.referencia}; nada foi cobrado.`)
  return new JsonText(`{"total":${itens.length},"validos":${lista.validos.length},"encontrados":${encontrados},"itens":[${itens.join(',')}],"fonte":${fonteJson(files)}}`)
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

/** Every partner of a root from the card store, in /socios order (entry date, then name). */
export function socios(files: CnpjFiles, cnpj: string): Out<typeof Socio>[] {
  const root = cnpj.slice(0, 8)
  const dados = files.cards.partners(root)
  if (dados === null) return []
  return dados.split(PARTNER_SEPARATOR).map((partner) => socio(files, socioRow(partner.split(CARD_SEPARATOR))))
}

/** A partner's values (SOCIO order, blank = null) as named fields. */
export function socioRow(values: readonly (string | null | undefined)[]): SocioRow {
  const r = {} as SocioRow
  for (let i = 0; i < SOCIO.length; i++) r[SOCIO[i]!] = values[i] || null
  return r
}

/** /socios's answer from a list already rendered. */
export const sociosAnswer = (files: CardView, cnpj: string, list: Out<typeof Socio>[]) => ({ cnpj, total: list.length, socios: list, fonte: fonte(files) })

/** 404 unless the establishment exists (partners are per root, but the path names one CNPJ). */
export async function sociosDe(files: CnpjFiles, cnpj: string) {
  if (!ficha(files, cnpj)) throw notFound(files, cnpj)
  return sociosAnswer(files, cnpj, socios(files, cnpj))
}

/** /v1/cnpj/empresa/{cnpj}/completo as JSON text: the card, its partners and the root's other establishments. */
export function completoJson(files: CnpjFiles, cnpj: string): JsonText {
  // One read of the root's cards serves both the card and the other establishments.
  const cards = files.cards.cardsOfRoot(cnpj.slice(0, 8))
  const main = cards.find((c) => c.cnpj === cnpj)
  if (!main) throw notFound(files, cnpj)
  const outros = cards.filter((c) => c.cnpj !== cnpj).map((c) => decodeFicha(c.cnpj, c.campos))
  return completoText(files, cnpj, main.campos, outros, socios(files, cnpj))
}

/**
 * /completo's answer as JSON text: the card (its FICHA values), the partners, and the root's other
 * establishments (`outros`, in CNPJ order). The month in use and the history's months (historico.ts) alike.
 */
export function completoText(files: CardView, cnpj: string, main: readonly (string | null)[], outros: Ficha[], list: Out<typeof Socio>[]): JsonText {
  const filiais = outros.slice(0, MAX_FILIAIS).map((f): Out<typeof Filial> => ({
    cnpj: f.cnpj!,
    matriz_filial: matrizFilial(f.matriz_filial),
    uf: f.uf,
    municipio: municipio(files, f),
    situacao: f.situacao ? (SITUACAO_DESCRICAO[f.situacao] ?? null) : null,
  }))
  const card = cardJson(files, cnpj, main)
  return new JsonText(`${card.slice(0, -1)},"socios":${JSON.stringify(list)},"total_socios":${list.length},"filiais":${JSON.stringify(filiais)},"total_filiais":${outros.length}}`)
}

export async function completo(files: CnpjFiles, cnpj: string): Promise<Out<typeof EmpresaCompleta>> {
  return completoJson(files, cnpj).parse() as Out<typeof EmpresaCompleta>
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

/** The words of a typed name a search requires (at most MAX_WORDS, once each); a 400 when it has none (see nameMatch). */
function typedWords(text: string): string[] {
  const words = [...new Set(searchWords(text))].slice(0, MAX_WORDS)
  if (!words.length)
    throw new ApiError(
      'parametro_invalido',
      hasAnyWord(text)
        ? "parâmetro de consulta 'nome': só tem palavras que a busca ignora (formas jurídicas como LTDA, ME, EPP, EIRELI, S.A. e conectivos como DE, DA, DO, E); informe ao menos uma palavra do nome"
        : "parâmetro de consulta 'nome': precisa de ao menos uma palavra com letras ou números",
    )
  return words
}

/**
 * The name index's rule, on one name in JavaScript: every typed word begins one of the name's words
 * (a one-character word must be the whole word). The index gives exactly these matches (nameMatch
 * reads prefixes, the vocabulary and pair words, which change what is read, never what matches);
 * test/cnpj/search-documento.test.ts compares the two.
 */
export function nameMatches(words: string[], name: string): boolean {
  const indexed = searchWords(name)
  return words.every((w) => indexed.some((t) => t === w || (w.length > 1 && t.startsWith(w))))
}

/**
 * A typed name as an FTS5 expression over one name index (docs/busca.md): the words searchWords
 * gives (the same normalization the index was built with), each one matching the indexed words it
 * begins, all of them required (through pair tokens where two or more typed words begin frequent
 * words: pairedMatch). Text with no word at all, or with ignored words only (legal forms and
 * connectors), is a 400: searching without them would match everything.
 */
export function nameMatch(index: Database, text: string, options: { pairs?: boolean } = {}): string {
  const words = typedWords(text)
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

/** The filters of a company search, as the query names them (BuscaQuery), for messages. */
const FILTROS = 'nome, uf, municipio, municipio_ibge, cnae, cnae_secundario, cnae_qualquer, natureza_juridica, porte, capital_min, capital_max, simples, mei, abertura_de ou abertura_ate'

export async function busca(files: CnpjFiles, q: Out<typeof BuscaQuery>): Promise<Out<typeof BuscaResultado>> {
  const hasFilter = q.nome || q.uf || q.municipio || q.municipio_ibge || q.cnae || q.cnae_secundario || q.cnae_qualquer || q.natureza_juridica || q.porte ||
    q.capital_min !== undefined || q.capital_max !== undefined || q.simples !== undefined || q.mei !== undefined || q.abertura_de || q.abertura_ate
  if (!hasFilter) throw new ApiError('filtro_obrigatorio', `Informe ao menos um filtro além de situacao: ${FILTROS}.`)
  if (q.abertura_de && q.abertura_ate && q.abertura_de > q.abertura_ate) throw new ApiError('parametro_invalido', 'abertura_de é posterior a abertura_ate.')
  if (q.capital_min !== undefined && q.capital_max !== undefined && q.capital_min > q.capital_max)
    throw new ApiError('parametro_invalido', 'capital_min é maior que capital_max; informe um intervalo com capital_min ≤ capital_max.')
  const situacaoCodigo = SITUACAO_CODIGO[q.situacao]!
  const offset = pageOffset(q.pagina, q.por_pagina)
  const empty = () => ({ total: 0, pagina: q.pagina, resultados: [], fonte: fonte(files) })

  // Names and the equality filters are words of the FTS index; ranges are buckets of it and checks
  // of its doc rows (search-filters.ts).
  const name = q.nome ? nameMatch(files.search, q.nome) : null
  const plan = planFilters(filterStats(files.search), {
    cnae: q.cnae, cnae_secundario: q.cnae_secundario, cnae_qualquer: q.cnae_qualquer, municipio: q.municipio,
    municipiosIbge: q.municipio_ibge ? (files.ibge.tomsPorIbge.get(q.municipio_ibge) ?? []) : undefined,
    natureza_juridica: q.natureza_juridica, porte: q.porte ? PORTE_CODIGO[q.porte] : undefined, simples: q.simples, mei: q.mei,
    capital_min: q.capital_min, capital_max: q.capital_max, abertura_de: q.abertura_de, abertura_ate: q.abertura_ate,
  })
  if (plan.nada) return empty()
  const params: Record<string, string | number> = { $match: matchOf(plan, name), ...plan.params }
  const sql = companySearchSql(plan.checks)

  const situacaoSlot = SITUACOES.indexOf(situacaoCodigo as (typeof SITUACOES)[number])
  const ufSlots = q.uf ? [UFS.indexOf(q.uf as (typeof UFS)[number])].filter((x) => x >= 0) : ALL_UF_SLOTS
  const rank = (id: number) => id % RANK_BITS
  const byRank = (a: number, b: number) => rank(a) - rank(b) || a - b
  const pageRows = (pageIds: number[]): Row[] => {
    const found = new Map((files.search.query(cnpjsByDocKey(pageIds.length)).all(...pageIds.map(docKey)) as Row[]).map((r) => [Number(r.chave), r.cnpj]))
    return pageIds.filter((id) => found.has(docKey(id))).map((id) => ({ id, cnpj: found.get(docKey(id)) }))
  }
  const bitmaps = name ? null : filterBitmaps(files.search)
  let total: number
  let rows: Row[]
  if (bitmaps) {
    // Filters alone: their bitmaps, each partition a range of positions (filter-bitmaps.ts); the
    // first offset+limit matches of each, merged by rank as below.
    const found = searchBitmaps(bitmaps, bitmapSearch(plan), ufSlots.map((slot) => rowidRange(situacaoSlot, slot)), offset + q.por_pagina, MAX_RESULT_WINDOW + 1, (keys) => docValues(files, keys))
    total = found.total
    rows = pageRows((ufSlots.length > 1 ? found.ids.sort(byRank) : found.ids).slice(offset, offset + q.por_pagina))
  } else if (ufSlots.length > 1) {
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
    rows = pageRows(pageIds)
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
        codigo_municipio_ibge: f ? codigoMunicipioIbge(files, f) : null,
        cnae_principal: f?.cnae_principal ?? null,
        situacao: SITUACAO_DESCRICAO[situacaoCodigo]!,
      }
    }),
    fonte: fonte(files),
  }
}

/** A plan's filters as the bitmaps read them: the same words, and the exact range checks on the rows of its edge words. */
function bitmapSearch(plan: FilterPlan) {
  const p = plan.params
  // The bounds read once, not from the params object on each row checked (a full scan checks tens of thousands).
  const [capitalMin, capitalMax] = [p.$capital_min ?? -Infinity, p.$capital_max ?? Infinity]
  const [de, ate] = [p.$de ?? -Infinity, p.$ate ?? Infinity]
  const capital = (v: number) => v >= capitalMin && v <= capitalMax
  const abertura = (v: number) => v >= de && v <= ate
  const asksCapital = p.$capital_min !== undefined || p.$capital_max !== undefined
  const asksAbertura = p.$de !== undefined || p.$ate !== undefined
  return {
    clauses: plan.clauses,
    without: plan.excluded,
    edges: plan.edgeWords,
    check: {
      capital,
      abertura,
      // A doc row: a range asked excludes a row with no value.
      row: (c: number | null, a: number | null) => (!asksCapital || (c !== null && capital(c))) && (!asksAbertura || (a !== null && abertura(a))),
    },
  }
}

/** Capital and opening date of some doc rows (empresa_doc), by doc key, for the bitmaps' exact checks. */
function docValues(files: CnpjFiles, keys: number[]): Map<number, [number | null, number | null]> {
  const out = new Map<number, [number | null, number | null]>()
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500)
    for (const [id, capital, abertura] of files.search.query(docValuesByKey(part.length)).values(...part) as [number, number | null, number | null][])
      out.set(Number(id), [capital === null ? null : Number(capital), abertura === null ? null : Number(abertura)])
  }
  return out
}

/** A company's legal name: from any card of its root, else from the companies without establishment. */
function razaoSocial(files: CnpjFiles, root: string): string | null {
  const row = files.cards.anyCardOfRoot(root)
  return row ? decodeFicha(row.cnpj, row.campos).razao_social : files.cards.companyWithoutEstablishment(root)
}

/**
 * A partner's document with a name: when the document has at most this many rows, they are read in
 * order and the name is checked on each (nameMatches); above it (the mask ***999999** that every
 * foreign partner shares, a holding in thousands of companies), the name drives and each of its
 * rows is checked for the document.
 */
const DOCUMENT_ROWS_CHECKED = 5000

export async function socioBusca(files: CnpjFiles, q: Out<typeof SocioBuscaQuery>): Promise<Out<typeof SocioBuscaResultado>> {
  if (!q.nome && !q.documento) throw new ApiError('filtro_obrigatorio', 'Informe nome (3 ou mais caracteres) ou documento (CPF mascarado ***456789** ou CNPJ do sócio), ou os dois.')
  const offset = pageOffset(q.pagina, q.por_pagina)
  const index = files.partnerSearch
  let total: number
  let rows: Row[]
  if (!q.documento) {
    const match = nameMatch(index, q.nome!)
    total = (index.query(SOCIO_SEARCH.count).get({ $match: match }) as { n: number }).n
    rows = index.query(SOCIO_SEARCH.page).all({ $match: match, $limit: q.por_pagina, $offset: offset }) as Row[]
  } else {
    const key = documentKey(q.documento)
    const $doc = key ?? 0
    const count = (index.query(SOCIO_SEARCH.byDocumentCount).get({ $doc, $limit: (q.nome ? DOCUMENT_ROWS_CHECKED : MAX_RESULT_WINDOW) + 1 }) as { n: number }).n
    if (key === null) (total = 0), (rows = [])
    else if (!q.nome) {
      total = count
      rows = index.query(SOCIO_SEARCH.byDocument).all({ $doc, $limit: q.por_pagina, $offset: offset }) as Row[]
    } else if (count <= DOCUMENT_ROWS_CHECKED) {
      const words = typedWords(q.nome)
      const matching = (index.query(SOCIO_SEARCH.byDocument).all({ $doc, $limit: DOCUMENT_ROWS_CHECKED, $offset: 0 }) as Row[]).filter((r) => nameMatches(words, String(r.nome ?? '')))
      total = matching.length
      rows = matching.slice(offset, offset + q.por_pagina)
    } else {
      const match = nameMatch(index, q.nome)
      total = (index.query(SOCIO_SEARCH.countWithDocument).get({ $match: match, $doc }) as { n: number }).n
      rows = index.query(SOCIO_SEARCH.pageWithDocument).all({ $match: match, $doc, $limit: q.por_pagina, $offset: offset }) as Row[]
    }
  }
  const roots = [...new Set(rows.map((r) => String(r.cnpj_basico)))]
  const names = new Map(roots.map((root) => [root, razaoSocial(files, root)]))
  return {
    total: capTotal(total),
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
