// The filters of /v1/cnpj/busca as an FTS5 expression over the company index and, for the range
// filters, checks on its doc table (docs/busca.md, "Filtros"). Equality filters (activity, city,
// legal nature, size, Simples/MEI) are words of the index (filterToken in layout.ts) and always go
// into the expression. A range (capital, opening date) is the OR of the buckets or years it
// covers, plus an exact check of the doc row where a bucket lies partly outside it; or, when it
// holds most rows, only that check, on the rows the rest of the expression reads.
import type { Database } from 'bun:sqlite'
import { capitalBucket, capitalBucketFloor, CAPITAL_BUCKETS, filterToken, FIRST_OPENING_YEAR, OPENING_YEAR_SLOTS, openingYearSlot } from './layout'

/** What an index knows of its filter words: rows holding each, and the slot of each CNAE. */
export interface FilterStats {
  rows: Map<string, number>
  cnaeSlot: Map<string, number>
  /** Rows of the index (every row holds `qualquer`). */
  total: number
}

const statsByIndex = new WeakMap<Database, FilterStats>()
export function filterStats(index: Database): FilterStats {
  let stats = statsByIndex.get(index)
  if (!stats) {
    const rows = new Map((index.query('SELECT token, linhas FROM filtro_linhas').values() as [string, number][]).map(([t, n]) => [t, Number(n)]))
    const cnaeSlot = new Map((index.query('SELECT cnae, slot FROM filtro_cnae').values() as [string, number][]).map(([c, n]) => [c, Number(n)]))
    stats = { rows, cnaeSlot, total: rows.get(filterToken.qualquer) ?? 0 }
    statsByIndex.set(index, stats)
  }
  return stats
}

/** The filters as they arrive (validated by BuscaQuery). */
export interface SearchFilters {
  cnae?: string
  cnae_secundario?: string
  cnae_qualquer?: string
  /** The Receita's municipality code (TOM, 4 digits). */
  municipio?: string
  /** The TOM codes an IBGE code maps to (municipio_ibge; empty when the month's table has none). */
  municipiosIbge?: string[]
  natureza_juridica?: string
  porte?: string
  simples?: boolean
  mei?: boolean
  capital_min?: number
  capital_max?: number
  abertura_de?: string
  abertura_ate?: string
}

/** An FTS5 expression plus doc-table conditions and their parameters; `nada` when a filter can match no row. */
export interface FilterPlan {
  /** Words the expression requires (joined by AND), besides the name's. */
  words: string[]
  /** Words no row may hold (the expression is `(...) NOT (...)`). */
  without: string[]
  /** Conditions on the doc row `d` (empresa_doc). */
  checks: string[]
  params: Record<string, number>
  nada: boolean
}

const quoted = (t: string) => `"${t}"`
const anyOf = (terms: string[]) => (terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`)

/** A range over buckets: its words, the rows they hold, and the doc conditions its partly covered edges need. */
interface Range {
  tokens: string[]
  rows: number
  /** Exact conditions for the whole range (used alone when the range is checked on the doc rows only). */
  exact: string[]
  /** The conditions still needed when the range is in the expression (edges partly covered). */
  edges: string[]
}

/**
 * A range goes into the expression as the OR of its words unless it holds half the rows or more
 * (reading `qualquer` and checking each doc row then reads at most twice what matches) or its OR
 * would be wider than this (each AND step seeks every child of the OR). Measured in docs/busca.md.
 */
const MAX_RANGE_WORDS = 32

function capitalRange(stats: FilterStats, min: number | undefined, max: number | undefined): Range {
  const b1 = min === undefined ? 0 : capitalBucket(min.toFixed(2))!
  const b2 = max === undefined ? CAPITAL_BUCKETS - 1 : capitalBucket(max.toFixed(2))!
  const tokens: string[] = []
  let rows = 0
  for (let b = b1; b <= b2; b++) {
    const t = filterToken.capital(b)
    const n = stats.rows.get(t)
    if (n) (tokens.push(t), (rows += n))
  }
  const exact: string[] = []
  const edges: string[] = []
  if (min !== undefined) {
    exact.push('d.capital >= $capital_min')
    if (Math.round(min * 100) > Math.round(capitalBucketFloor(b1) * 100)) edges.push('d.capital >= $capital_min')
  }
  if (max !== undefined) {
    exact.push('d.capital <= $capital_max')
    // In cents: the bucket holds up to its next floor minus one cent.
    if (b2 < CAPITAL_BUCKETS - 1 && Math.round(max * 100) + 1 < Math.round(capitalBucketFloor(b2 + 1) * 100)) edges.push('d.capital <= $capital_max')
  }
  return { tokens, rows, exact, edges }
}

const yyyymmdd = (iso: string) => Number(iso.replace(/-/g, ''))
/** First and last day (YYYYMMDD) of the years an opening-year slot holds. */
const slotDays = (slot: number): [number, number] => (slot === 0 ? [0, (FIRST_OPENING_YEAR - 1) * 10000 + 1231] : [(FIRST_OPENING_YEAR - 1 + slot) * 10000 + 101, (FIRST_OPENING_YEAR - 1 + slot) * 10000 + 1231])

function openingRange(stats: FilterStats, de: string | undefined, ate: string | undefined): Range {
  const from = de ? yyyymmdd(de) : 0
  const to = ate ? yyyymmdd(ate) : 99991231
  const s1 = de ? openingYearSlot(Math.floor(from / 10000)) : 0
  const s2 = ate ? openingYearSlot(Math.floor(to / 10000)) : OPENING_YEAR_SLOTS - 1
  const tokens: string[] = []
  let rows = 0
  for (let s = s1; s <= s2; s++) {
    const t = filterToken.abertura(s)
    const n = stats.rows.get(t)
    if (n) (tokens.push(t), (rows += n))
  }
  const exact: string[] = []
  const edges: string[] = []
  if (de) {
    exact.push('d.abertura >= $de')
    if (from > slotDays(s1)[0]) edges.push('d.abertura >= $de')
  }
  if (ate) {
    exact.push('d.abertura <= $ate')
    if (to < slotDays(s2)[1]) edges.push('d.abertura <= $ate')
  }
  return { tokens, rows, exact, edges }
}

/** The plan of a search's filters (the name's words, if any, are ANDed with them by matchOf). */
export function planFilters(stats: FilterStats, f: SearchFilters): FilterPlan {
  const plan: FilterPlan = { words: [], without: [], checks: [], params: {}, nada: false }
  const word = (expression: string) => plan.words.push(expression)
  const cnae = (code: string, token: (slot: number) => string): string[] => {
    const slot = stats.cnaeSlot.get(code)
    if (slot === undefined) return []
    return [token(slot)].filter((t) => stats.rows.has(t))
  }
  const require = (tokens: (string | null)[]) => {
    const present = tokens.filter((t): t is string => t !== null && stats.rows.has(t))
    if (!present.length) plan.nada = true
    else word(anyOf(present.map(quoted)))
  }
  if (f.cnae) require(cnae(f.cnae, filterToken.cnae))
  if (f.cnae_secundario) require(cnae(f.cnae_secundario, filterToken.cnaeSecundario))
  if (f.cnae_qualquer) require([...cnae(f.cnae_qualquer, filterToken.cnae), ...cnae(f.cnae_qualquer, filterToken.cnaeSecundario)])
  if (f.municipio) require([filterToken.municipio(f.municipio)])
  if (f.municipiosIbge) require(f.municipiosIbge.map((m) => filterToken.municipio(m)))
  if (f.natureza_juridica) require([filterToken.natureza(f.natureza_juridica)])
  if (f.porte) require([filterToken.porte(f.porte)])
  for (const [value, token] of [[f.simples, filterToken.simples], [f.mei, filterToken.mei]] as const) {
    if (value === true) require([token])
    else if (value === false && stats.rows.has(token)) plan.without.push(quoted(token))
  }
  if (plan.nada) return plan

  const ranges: Range[] = []
  if (f.capital_min !== undefined || f.capital_max !== undefined) {
    ranges.push(capitalRange(stats, f.capital_min, f.capital_max))
    if (f.capital_min !== undefined) plan.params.$capital_min = f.capital_min
    if (f.capital_max !== undefined) plan.params.$capital_max = f.capital_max
  }
  if (f.abertura_de || f.abertura_ate) {
    ranges.push(openingRange(stats, f.abertura_de, f.abertura_ate))
    if (f.abertura_de) plan.params.$de = yyyymmdd(f.abertura_de)
    if (f.abertura_ate) plan.params.$ate = yyyymmdd(f.abertura_ate)
  }
  for (const r of ranges) {
    if (!r.tokens.length) {
      plan.nada = true
      return plan
    }
    if (r.tokens.length <= MAX_RANGE_WORDS && r.rows < stats.total / 2) {
      word(anyOf(r.tokens.map(quoted)))
      plan.checks.push(...r.edges)
    } else plan.checks.push(...r.exact)
  }
  return plan
}

/** The FTS5 expression of a plan with the name's expression (if any); `qualquer` when nothing else is required. */
export function matchOf(plan: FilterPlan, name: string | null): string {
  const required = [...(name ? [name] : []), ...plan.words]
  const positive = required.length ? required.join(' AND ') : quoted(filterToken.qualquer)
  return plan.without.length ? `(${positive}) NOT ${anyOf(plan.without)}` : positive
}
