// The filters of /v1/cnpj/busca as an FTS5 expression over the company index and, for the range
// filters, checks on its doc table (docs/busca.md, "Filtros"). Equality filters (activity, city,
// legal nature, size, Simples/MEI) are words of the index (filterToken in layout.ts) and always go
// into the expression. A range (capital, opening date) is the OR of the buckets or years it
// covers, plus an exact check of the doc row where a bucket lies partly outside it; or, when it
// holds most rows, only that check, on the rows the rest of the expression reads.
import type { Database } from 'bun:sqlite'
import { filterTokenId, filterTokenOf, SPANS_OF, type Term } from './filter-bitmaps'
import { capitalBucket, capitalBucketFloor, CAPITAL_BUCKETS, CAPITAL_SPAN_LEVELS, filterToken, FIRST_OPENING_YEAR, OPENING_SPAN_LEVELS, OPENING_YEAR_SLOTS, openingYearSlot } from './layout'

/** What an index knows of its filter words: rows holding each, and the slot of each CNAE. */
export interface FilterStats {
  rows: Map<string, number>
  cnaeSlot: Map<string, number>
  /** Rows of the index (every row holds `qualquer`). */
  total: number
  /** Whether its bitmaps have the span words (filterToken.capitalFaixa, aberturaFaixa; built since 2026-11-28). */
  spans: boolean
}

const statsByIndex = new WeakMap<Database, FilterStats>()
export function filterStats(index: Database): FilterStats {
  let stats = statsByIndex.get(index)
  if (!stats) {
    const rows = new Map((index.query('SELECT token, linhas FROM filtro_linhas').values() as [string, number][]).map(([t, n]) => [t, Number(n)]))
    const cnaeSlot = new Map((index.query('SELECT cnae, slot FROM filtro_cnae').values() as [string, number][]).map(([c, n]) => [c, Number(n)]))
    const spans = [...rows.keys()].some((t) => SPAN_WORDS.has(t))
    stats = { rows, cnaeSlot, total: rows.get(filterToken.qualquer) ?? 0, spans }
    statsByIndex.set(index, stats)
  }
  return stats
}

/** A family of ordered words with span words over them: capital buckets, opening-year slots. */
interface SpanFamily {
  slots: number
  levels: number
  word: (slot: number) => string
  span: (level: number, index: number) => string
}
const FAMILIES: SpanFamily[] = [
  { slots: CAPITAL_BUCKETS, levels: CAPITAL_SPAN_LEVELS, word: filterToken.capital, span: filterToken.capitalFaixa },
  { slots: OPENING_YEAR_SLOTS, levels: OPENING_SPAN_LEVELS, word: filterToken.abertura, span: filterToken.aberturaFaixa },
]
/** Each family word: its family and slot. */
const FAMILY_WORDS = new Map(FAMILIES.flatMap((f, k) => Array.from({ length: f.slots }, (_, slot) => [f.word(slot), [k, slot] as const])))
const SPAN_WORDS = new Set(FAMILIES.flatMap((f) => Array.from({ length: f.slots }, (_, slot) => (SPANS_OF[filterTokenId(f.word(slot))] ?? []).map(filterTokenOf)).flat()))

/**
 * A range's terms for the bitmaps, with every run of buckets or years it takes whole read as the
 * fewest span words (blocks of 2^k aligned slots) instead of one word each: 50 years, ORed per chunk
 * word by word, were three quarters of a search's time. A slot with no rows in the index joins
 * any run (it adds none), and a span with no rows is left out. The same rows as `terms`: the FTS
 * search keeps the plain words, and the tests compare the two (test/cnpj/search-bitmaps.test.ts).
 */
export function withSpans(stats: FilterStats, terms: Term[]): Term[] {
  if (!stats.spans) return terms
  const out: Term[] = []
  const taken = FAMILIES.map(() => new Set<number>())
  for (const t of terms) {
    const at = t.minus ? undefined : FAMILY_WORDS.get(t.token)
    if (at) taken[at[0]]!.add(at[1])
    else out.push(t)
  }
  FAMILIES.forEach((f, k) => {
    const set = taken[k]!
    if (!set.size) return
    const covered = (slot: number) => set.has(slot) || !stats.rows.has(f.word(slot))
    let slot = 0
    while (slot < f.slots) {
      if (!set.has(slot)) {
        slot++
        continue
      }
      // The run holding this slot: back over empty slots to its start, then on to its end.
      let a = slot
      while (a > 0 && covered(a - 1)) a--
      let b = slot
      while (b + 1 < f.slots && covered(b + 1)) b++
      for (let x = a; x <= b; ) {
        let level = f.levels
        while (level > 0 && (x % (1 << level) !== 0 || x + (1 << level) - 1 > b)) level--
        const word = level ? f.span(level, x >> level) : f.word(x)
        if (stats.rows.has(word)) out.push({ token: word })
        x += 1 << level
      }
      slot = b + 1
    }
  })
  return out
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

/**
 * The filters as words: an FTS5 expression plus doc-table conditions and their parameters, and the
 * same as terms for the bitmaps (filter-bitmaps.ts); `nada` when a filter can match no row.
 */
export interface FilterPlan {
  /** Words the expression requires (joined by AND), besides the name's. */
  words: string[]
  /** FTS5 expressions no row may match (the expression is `(...) NOT (...)`). */
  without: string[]
  /** Conditions on the doc row `d` (empresa_doc). */
  checks: string[]
  params: Record<string, number>
  nada: boolean
  /** `words` as terms: each clause the OR of its terms. */
  clauses: Term[][]
  /** `without` as terms. */
  excluded: Term[]
  /** Words whose rows `checks` must confirm (a bucket or month only partly inside a range); 'all' when every row. */
  edgeWords: string[] | 'all'
}

const quoted = (t: string) => `"${t}"`
const anyOf = (terms: string[]) => (terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`)
/** A term as FTS5 syntax. */
const fts = (t: Term) => (t.minus ? `(${quoted(t.token)} NOT ${quoted(t.minus)})` : quoted(t.token))

/**
 * A range as words of the index: `words` the OR of the buckets, floors, years or months inside it
 * (null when that would pass MAX_RANGE_WORDS), `outside` the OR of what lies outside it, the rows
 * with no value included (the range is then `qualquer NOT outside`; null when that is wider too).
 * Both are FTS5 expressions. `edges` are the doc-row checks the range needs in either form (a bucket
 * or month only partly inside it); `exact` checks it alone, on the rows the rest of the expression reads.
 */
interface Range {
  words: Term[] | null
  outside: Term[] | null
  rows: number
  edges: string[]
  /** The words whose rows `edges` must check (in either form). */
  edgeWords: string[]
  exact: string[]
}

/**
 * A range's words read as the OR of their doclists. A wider OR slows the AND with other words
 * (each AND step seeks every child); then the complement, or the doc-row check (docs/busca.md).
 */
const MAX_RANGE_WORDS = 32

const cents = (n: number) => Math.round(n * 100)

function capitalRange(stats: FilterStats, min: number | undefined, max: number | undefined): Range {
  const has = (t: string) => stats.rows.has(t)
  const b1 = min === undefined ? 0 : capitalBucket(min.toFixed(2))!
  const b2 = max === undefined ? CAPITAL_BUCKETS - 1 : capitalBucket(max.toFixed(2))!
  const edges: string[] = []
  const edgeWords: string[] = []
  const exact: string[] = []
  if (min !== undefined) {
    exact.push('d.capital >= $capital_min')
    if (cents(min) > cents(capitalBucketFloor(b1))) edges.push('d.capital >= $capital_min'), edgeWords.push(filterToken.capital(b1))
  }
  // A round maximum (the floor of its bucket) takes of that bucket its floor's word only: exact.
  const roundMax = max !== undefined && b2 > b1 && cents(max) === cents(capitalBucketFloor(b2))
  if (max !== undefined) {
    exact.push('d.capital <= $capital_max')
    if (!roundMax && b2 < CAPITAL_BUCKETS - 1 && cents(max) + 1 < cents(capitalBucketFloor(b2 + 1))) edges.push('d.capital <= $capital_max'), edgeWords.push(filterToken.capital(b2))
  }
  const last = roundMax ? b2 - 1 : b2
  const words: Term[] = []
  const outside: Term[] = []
  if (has(filterToken.semCapital)) outside.push({ token: filterToken.semCapital })
  for (let b = 0; b < CAPITAL_BUCKETS; b++) {
    const t = filterToken.capital(b)
    if (!has(t)) continue
    if (b >= b1 && b <= last) words.push({ token: t })
    else if (roundMax && b === b2) outside.push(has(filterToken.capitalPiso(b)) ? { token: t, minus: filterToken.capitalPiso(b) } : { token: t })
    else outside.push({ token: t })
  }
  if (roundMax && has(filterToken.capitalPiso(b2))) words.push({ token: filterToken.capitalPiso(b2) })
  const rows = [...Array(CAPITAL_BUCKETS).keys()].filter((b) => b >= b1 && b <= last).reduce((n, b) => n + (stats.rows.get(filterToken.capital(b)) ?? 0), 0)
  return { words: words.length <= MAX_RANGE_WORDS ? words : null, outside: outside.length <= MAX_RANGE_WORDS ? outside : null, rows, edges, edgeWords, exact }
}

const yyyymmdd = (iso: string) => Number(iso.replace(/-/g, ''))
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/**
 * An opening-date range in words: whole years by their year, the months of a partial year by their
 * months (from FIRST_OPENING_YEAR on; earlier years share one word, checked on the doc row), and a
 * partial month checked on the doc row.
 */
function openingRange(stats: FilterStats, de: string | undefined, ate: string | undefined): Range {
  const has = (t: string) => stats.rows.has(t)
  const LAST_YEAR = FIRST_OPENING_YEAR + OPENING_YEAR_SLOTS - 2
  const [y1, m1, d1] = de ? (de.split('-').map(Number) as [number, number, number]) : [0, 1, 1]
  const [y2, m2, d2] = ate ? (ate.split('-').map(Number) as [number, number, number]) : [LAST_YEAR, 12, 31]
  const edges: string[] = []
  const edgeWords: string[] = []
  const exact: string[] = []
  if (de) exact.push('d.abertura >= $de')
  if (ate) exact.push('d.abertura <= $ate')
  // Days inside a month, and the years before FIRST_OPENING_YEAR (one word for all), are checked on
  // the doc row: the rows of that month (every row from FIRST_OPENING_YEAR on has its month's word,
  // whether the range takes the month or its whole year) or of the early years' word.
  const edgeWord = (y: number, m: number) => (y < FIRST_OPENING_YEAR ? filterToken.abertura(0) : filterToken.aberturaMes(y, m))
  if (de && (d1 > 1 || y1 < FIRST_OPENING_YEAR)) edges.push('d.abertura >= $de'), edgeWords.push(edgeWord(y1, m1))
  if (ate && (d2 < lastDay(y2, m2) || y2 < FIRST_OPENING_YEAR)) edges.push('d.abertura <= $ate'), edgeWords.push(edgeWord(y2, m2))
  const inside: Term[] = []
  const outside: Term[] = []
  let rows = 0
  const take = (t: string, inRange: boolean) => {
    if (!has(t)) return
    if (inRange) {
      inside.push({ token: t })
      rows += stats.rows.get(t)!
    } else outside.push({ token: t })
  }
  if (has(filterToken.semAbertura)) outside.push({ token: filterToken.semAbertura })
  take(filterToken.abertura(0), y1 < FIRST_OPENING_YEAR)
  for (let y = FIRST_OPENING_YEAR; y <= LAST_YEAR; y++) {
    if (y < y1 || y > y2) take(filterToken.abertura(openingYearSlot(y)), false)
    else if ((y > y1 || m1 === 1) && (y < y2 || m2 === 12)) take(filterToken.abertura(openingYearSlot(y)), true)
    else for (let m = 1; m <= 12; m++) take(filterToken.aberturaMes(y, m), (y > y1 || m >= m1) && (y < y2 || m <= m2))
  }
  return { words: inside.length <= MAX_RANGE_WORDS ? inside : null, outside: outside.length <= MAX_RANGE_WORDS ? outside : null, rows, edges, edgeWords, exact }
}

/** The plan of a search's filters (the name's words, if any, are ANDed with them by matchOf). */
export function planFilters(stats: FilterStats, f: SearchFilters): FilterPlan {
  const plan: FilterPlan = { words: [], without: [], checks: [], params: {}, nada: false, clauses: [], excluded: [], edgeWords: [] }
  const word = (terms: Term[], bitmapTerms = terms) => {
    plan.clauses.push(bitmapTerms)
    plan.words.push(anyOf(terms.map(fts)))
  }
  const cnae = (code: string, token: (slot: number) => string): string[] => {
    const slot = stats.cnaeSlot.get(code)
    if (slot === undefined) return []
    return [token(slot)].filter((t) => stats.rows.has(t))
  }
  const require = (tokens: (string | null)[]) => {
    const present = tokens.filter((t): t is string => t !== null && stats.rows.has(t))
    if (!present.length) plan.nada = true
    else word(present.map((token) => ({ token })))
  }
  if (f.cnae) require(cnae(f.cnae, filterToken.cnae))
  if (f.cnae_secundario) require(cnae(f.cnae_secundario, filterToken.cnaeSecundario))
  if (f.cnae_qualquer) require([...cnae(f.cnae_qualquer, filterToken.cnae), ...cnae(f.cnae_qualquer, filterToken.cnaeSecundario)])
  if (f.municipio) require([filterToken.municipio(f.municipio)])
  if (f.municipiosIbge) require(f.municipiosIbge.map((m) => filterToken.municipio(m)))
  if (f.natureza_juridica) require([filterToken.natureza(f.natureza_juridica)])
  if (f.porte) require([filterToken.porte(f.porte)])
  // Simples and MEI: the states that agree with what is asked (one word per row, no NOT).
  if (f.simples !== undefined || f.mei !== undefined) {
    const states = [0, 1, 2, 3].filter((s) => (f.simples === undefined || Boolean(s & 1) === f.simples) && (f.mei === undefined || Boolean(s & 2) === f.mei))
    require(states.map((s) => filterToken.simples(s)))
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
    if (r.words && !r.words.length) {
      plan.nada = true
      return plan
    }
    // Its own words when few and holding less than half the rows; else what lies outside it, when
    // few; else only the check of each doc row read.
    if (r.words && (r.rows < stats.total / 2 || !r.outside)) {
      word(r.words, withSpans(stats, r.words))
      plan.checks.push(...r.edges)
      if (plan.edgeWords !== 'all') plan.edgeWords.push(...r.edgeWords)
    } else if (r.outside) {
      plan.excluded.push(...withSpans(stats, r.outside))
      plan.without.push(...r.outside.map(fts))
      plan.checks.push(...r.edges)
      if (plan.edgeWords !== 'all') plan.edgeWords.push(...r.edgeWords)
    } else {
      plan.checks.push(...r.exact)
      plan.edgeWords = 'all'
    }
  }
  // The bitmaps read the rarest clause first and the others only in the chunks where it has rows
  // (filter-bitmaps.ts): a city, an activity or a month leaves out most of the index.
  const rowsOf = (clause: Term[]) => clause.reduce((n, t) => n + (stats.rows.get(t.token) ?? 0), 0)
  plan.clauses.sort((a, b) => rowsOf(a) - rowsOf(b))
  return plan
}

/** The FTS5 expression of a plan with the name's expression (if any); `qualquer` when nothing else is required. */
export function matchOf(plan: FilterPlan, name: string | null): string {
  const required = [...(name ? [name] : []), ...plan.words]
  const positive = required.length ? required.join(' AND ') : quoted(filterToken.qualquer)
  return plan.without.length ? `(${positive}) NOT ${anyOf(plan.without)}` : positive
}
