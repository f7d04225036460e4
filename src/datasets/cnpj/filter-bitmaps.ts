// A search by filters alone (no name), read from the company index's filter bitmaps instead of its
// FTS doclists (docs/busca.md, "Filtros sem nome"). FTS5 intersects two doclists by walking both:
// two wide filters whose rows rarely meet (natureza 2062 and Simples, a capital range and an
// opening year) read millions of rows to find a few, 0.1-2.4 s at 10 M companies. Here every filter
// word has, per chunk of BITMAP_CHUNK rows in rowid order, either the sorted list of its rows or a
// bitmap; an AND of filters is an AND of words per chunk, and a (situação, UF) partition, being a
// rowid range, is a range of positions. The rows, their order and the total are those of the FTS
// search (test/cnpj/search-bitmaps.test.ts compares the two); the build writes the bitmaps
// (ingest/cnpj/filter-bitmaps.ts), and an index built before them is searched through FTS.
import type { Database } from 'bun:sqlite'
import { CAPITAL_BUCKETS, DOC_KEY_UNIT, filterToken, FIRST_OPENING_YEAR, OPENING_YEAR_SLOTS, PASS_UNIT } from './layout'

/** Positions per chunk of a word's bitmap (the low 16 bits of a position address a row in its chunk). */
export const BITMAP_CHUNK = 1 << 16
/** A word with this many rows in a chunk is stored as a bitmap (8 KB), fewer as a list of 2-byte offsets. */
export const BITMAP_DENSE = BITMAP_CHUNK / 16
/** Positions per row of filtro_posicao (position -> the row's write index). */
export const MAP_BLOCK = 4096
/** Filter word ids: the offset of its private-use character (filterToken in layout.ts). */
export const FILTER_TOKEN_IDS = 0x10000
const PRIVATE_USE = 0xf0000
const WORDS = BITMAP_CHUNK / 32

/** The id of a filter word (its offset in plane 15), or -1 for any other text. */
export function filterTokenId(token: string): number {
  const c = token.codePointAt(0)
  return token.length === 2 && c !== undefined && c >= PRIVATE_USE && c < PRIVATE_USE + FILTER_TOKEN_IDS ? c - PRIVATE_USE : -1
}

const CAPITAL_IDS = [filterTokenId(filterToken.capital(0)), filterTokenId(filterToken.capital(CAPITAL_BUCKETS - 1))] as const
const MONTH_IDS = [filterTokenId(filterToken.aberturaMes(FIRST_OPENING_YEAR, 1)), filterTokenId(filterToken.aberturaMes(FIRST_OPENING_YEAR + OPENING_YEAR_SLOTS - 1, 12))] as const
const EARLY_YEARS_ID = filterTokenId(filterToken.abertura(0))

/**
 * The words whose rows' exact values filtro_valor keeps: a capital bucket (the capital) and an
 * opening month or the early years' word (the date): the words a range takes only partly.
 */
export function valueKind(id: number): 'capital' | 'abertura' | null {
  if (id >= CAPITAL_IDS[0] && id <= CAPITAL_IDS[1]) return 'capital'
  if (id === EARLY_YEARS_ID || (id >= MONTH_IDS[0] && id <= MONTH_IDS[1])) return 'abertura'
  return null
}

/** The rowid of a word's chunk in filtro_bloco: one word's chunks are one rowid range. */
export const bitmapRowid = (id: number, chunk: number) => id * BITMAP_CHUNK + chunk

/** A word's rows, minus those of another (a capital bucket minus its round floor). */
export interface Term {
  token: string
  minus?: string
}

/** What a filters-only search asks of the bitmaps. */
export interface BitmapSearch {
  /** Every clause must hold: a clause is the OR of its terms. */
  clauses: Term[][]
  /** No row may hold any of these. */
  without: Term[]
  /**
   * Rows holding one of these words (capital buckets, opening months) are checked on their exact
   * value (filtro_valor) by `capital` or `abertura`; 'all': every row, by `row` on its doc row.
   */
  edges: string[] | 'all'
  check: {
    capital: (reais: number) => boolean
    abertura: (yyyymmdd: number) => boolean
    row: (capital: number | null, abertura: number | null) => boolean
  }
}

interface Bitmaps {
  db: Database
  rows: number
  groupStart: Float64Array
  groupRank: Float64Array
  passId: Float64Array
  passStart: Float64Array
}

const byIndex = new WeakMap<Database, Bitmaps | null>()

/** The bitmaps of a company index; null when it was built without them (searched through FTS). */
export function filterBitmaps(db: Database): Bitmaps | null {
  let b = byIndex.get(db)
  if (b === undefined) {
    const has = db.query("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('filtro_bloco', 'filtro_posicao', 'filtro_passe', 'filtro_grupo', 'filtro_valor')").get() as { n: number }
    if (has.n !== 5) b = null
    else {
      const groups = db.query('SELECT inicio, rank FROM filtro_grupo ORDER BY inicio').values() as [number, number][]
      const passes = db.query('SELECT passe, inicio FROM filtro_passe ORDER BY inicio, passe').values() as [number, number][]
      const end = passes.find(([p]) => p === -1)
      if (!end) throw new Error('índice de filtros sem a tabela de passes completa')
      const real = passes.filter(([p]) => p >= 0)
      b = {
        db,
        rows: Number(end[1]),
        groupStart: Float64Array.from(groups, ([s]) => Number(s)),
        groupRank: Float64Array.from(groups, ([, r]) => Number(r)),
        passId: Float64Array.from(real, ([p]) => Number(p)),
        passStart: Float64Array.from(real, ([, s]) => Number(s)),
      }
    }
    byIndex.set(db, b)
  }
  return b
}

/** First index i of a sorted array with a[i] >= x (a.length when none). */
function lowerBound(a: Float64Array, x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The positions [from, to) of the rows whose rowid lies in [lo, hi] (a partition's rowid range). */
function positionsOf(b: Bitmaps, lo: number, hi: number): [number, number] {
  const g1 = lowerBound(b.groupRank, lo)
  const g2 = lowerBound(b.groupRank, hi + 1)
  const at = (g: number) => (g < b.groupStart.length ? b.groupStart[g]! : b.rows)
  return [at(g1), at(g2)]
}

const popcount = (x: number) => {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24
}

type Container = Uint16Array | Uint32Array

/** Loads the containers of the words asked, chunk window by chunk window. */
class Chunks {
  private cache = new Map<number, Map<number, Container>>()
  private values = new Map<number, Map<number, Float64Array | Uint32Array>>()
  private loaded = new Map<number, number>() // id -> first chunk not yet loaded
  private from = 0
  /** `valued`: the words whose exact values are read too. */
  constructor(private b: Bitmaps, private ids: number[], private valued: Set<number>) {}

  /** Makes sure chunks [c, c + n) of every word are loaded (dropping those before c). */
  load(c: number, n: number): void {
    if (c < this.from) throw new Error('chunks read backwards')
    this.from = c
    for (const id of this.ids) {
      let m = this.cache.get(id)
      if (!m) this.cache.set(id, (m = new Map()))
      for (const k of m.keys()) if (k < c) m.delete(k)
      const start = Math.max(c, this.loaded.get(id) ?? 0)
      if (start >= c + n) continue
      if (this.valued.has(id)) {
        let v = this.values.get(id)
        if (!v) this.values.set(id, (v = new Map()))
        for (const k of v.keys()) if (k < c) v.delete(k)
        for (const [rowid, dados] of this.b.db.query('SELECT id, dados FROM filtro_valor WHERE id BETWEEN ? AND ?').values(bitmapRowid(id, start), bitmapRowid(id, c + n - 1)) as [number, Uint8Array][]) {
          const bytes = dados.byteOffset % 8 === 0 ? dados : dados.slice()
          v.set(Number(rowid) % BITMAP_CHUNK, valueKind(id) === 'capital' ? new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8) : new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))
        }
      }
      for (const [rowid, linhas, dados] of this.b.db.query('SELECT id, linhas, dados FROM filtro_bloco WHERE id BETWEEN ? AND ?').values(bitmapRowid(id, start), bitmapRowid(id, c + n - 1)) as [number, number, Uint8Array][]) {
        const bytes = dados.byteOffset % 4 === 0 ? dados : dados.slice()
        m.set(Number(rowid) % BITMAP_CHUNK, Number(linhas) >= BITMAP_DENSE ? new Uint32Array(bytes.buffer, bytes.byteOffset, WORDS) : new Uint16Array(bytes.buffer, bytes.byteOffset, Number(linhas)))
      }
      this.loaded.set(id, c + n)
    }
  }

  get(id: number, chunk: number): Container | undefined {
    return this.cache.get(id)?.get(chunk)
  }

  /** The exact values of a word's rows in a chunk, in the order of its positions. */
  valuesOf(id: number, chunk: number): Float64Array | Uint32Array | undefined {
    return this.values.get(id)?.get(chunk)
  }
}

/** The place of offset `o` among a container's rows (-1 when absent); `prefix`: rows before each word of a bitmap. */
function indexIn(c: Container, o: number, prefix: Uint32Array | null): number {
  if (c instanceof Uint32Array) {
    const word = c[o >>> 5]!
    if (!((word >>> (o & 31)) & 1)) return -1
    return prefix![o >>> 5]! + popcount(word & ((1 << (o & 31)) - 1))
  }
  let lo = 0
  let hi = c.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (c[mid]! < o) lo = mid + 1
    else hi = mid
  }
  return lo < c.length && c[lo] === o ? lo : -1
}

const idOf = (t: string) => {
  const id = filterTokenId(t)
  if (id <= 0) throw new Error(`palavra de filtro inválida: ${JSON.stringify(t)}`)
  return id
}

/** ORs a container into a bitset (or, with `clear`, removes its rows). */
function apply(bits: Uint32Array, c: Container, clear = false): void {
  const n = c.length
  if (c instanceof Uint32Array) {
    if (clear) for (let i = 0; i < WORDS; i++) bits[i]! &= ~c[i]!
    else for (let i = 0; i < WORDS; i++) bits[i]! |= c[i]!
  } else if (clear)
    for (let i = 0; i < n; i++) {
      const v = c[i]!
      bits[v >>> 5]! &= ~(1 << (v & 31))
    }
  else
    for (let i = 0; i < n; i++) {
      const v = c[i]!
      bits[v >>> 5]! |= 1 << (v & 31)
    }
}

/** Result of a search over some partitions: the matches (rowids) first in each, and the total up to `cap`. */
export interface BitmapResult {
  total: number
  ids: number[]
}

/**
 * The rowids of the first `need` matches of each rowid range (in order) and the number of matches
 * over all of them, counted up to `cap`. Ranges are whole partitions, in rowid order.
 */
export function searchBitmaps(b: Bitmaps, s: BitmapSearch, ranges: [number, number][], need: number, cap: number, docValues: (keys: number[]) => Map<number, [number | null, number | null]>): BitmapResult {
  const clauses = s.clauses.map((c) => c.map((t) => ({ id: idOf(t.token), minus: t.minus ? idOf(t.minus) : undefined })))
  const without = s.without.map((t) => ({ id: idOf(t.token), minus: t.minus ? idOf(t.minus) : undefined }))
  const edges = s.edges === 'all' ? null : s.edges.map(idOf)
  const all = new Set<number>()
  for (const t of [...clauses.flat(), ...without]) {
    all.add(t.id)
    if (t.minus !== undefined) all.add(t.minus)
  }
  for (const e of edges ?? []) all.add(e)
  const chunks = new Chunks(b, [...all], new Set(edges ?? []))

  const acc = new Uint32Array(WORDS)
  const clause = new Uint32Array(WORDS)
  const term = new Uint32Array(WORDS)
  const edge = new Uint32Array(WORDS)
  const ids: number[] = []
  let total = 0
  const mapCache = new Map<number, Uint32Array>()
  const writeIndex = (p: number) => {
    const block = Math.floor(p / MAP_BLOCK)
    let m = mapCache.get(block)
    if (!m) {
      const row = b.db.query('SELECT escritas FROM filtro_posicao WHERE bloco = ?').values(block)[0] as [Uint8Array] | undefined
      if (!row) throw new Error(`índice de filtros sem o bloco de posições ${block}`)
      const bytes = row[0].byteOffset % 4 === 0 ? row[0] : row[0].slice()
      m = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
      mapCache.set(block, m)
    }
    return m[p % MAP_BLOCK]!
  }
  const docKeyOf = (w: number) => {
    const i = lowerBound(b.passStart, w + 1) - 1
    return b.passId[i]! * PASS_UNIT + (w - b.passStart[i]!)
  }
  const rankOf = (p: number) => b.groupRank[lowerBound(b.groupStart, p + 1) - 1]!
  const rowidOf = (p: number, key: number) => rankOf(p) + (key % DOC_KEY_UNIT)

  for (const [lo, hi] of ranges) {
    const [from, to] = positionsOf(b, lo, hi)
    let collected = 0
    // Chunks are read a window at a time, the window doubling: a search that fills its page and
    // total in the first chunks reads no more of them.
    let window = 2
    let loadedUntil = 0
    for (let chunk = Math.floor(from / BITMAP_CHUNK); chunk * BITMAP_CHUNK < to; chunk++) {
      if (collected >= need && total >= cap) break
      if (chunk >= loadedUntil) {
        chunks.load(chunk, window)
        loadedUntil = chunk + window
        window = Math.min(window * 2, 64)
      }
      const base = chunk * BITMAP_CHUNK
      // The clauses, ANDed; a clause with no rows in this chunk empties it.
      let empty = false
      if (!clauses.length) acc.fill(0xffffffff)
      for (let k = 0; k < clauses.length && !empty; k++) {
        const target = k === 0 ? acc : clause
        target.fill(0)
        let any = false
        for (const t of clauses[k]!) {
          const c = chunks.get(t.id, chunk)
          if (!c) continue
          any = true
          if (t.minus === undefined) apply(target, c)
          else {
            const m = chunks.get(t.minus, chunk)
            if (!m) apply(target, c)
            else {
              term.fill(0)
              apply(term, c)
              apply(term, m, true)
              for (let i = 0; i < WORDS; i++) target[i]! |= term[i]!
            }
          }
        }
        if (!any) empty = true
        else if (k > 0) for (let i = 0; i < WORDS; i++) acc[i]! &= clause[i]!
      }
      if (empty) continue
      for (const t of without) {
        const c = chunks.get(t.id, chunk)
        if (!c) continue
        const m = t.minus === undefined ? undefined : chunks.get(t.minus, chunk)
        if (!m) apply(acc, c, true)
        else {
          term.fill(0)
          apply(term, c)
          apply(term, m, true)
          for (let i = 0; i < WORDS; i++) acc[i]! &= ~term[i]!
        }
      }
      // Only the range's positions.
      const first = Math.max(from - base, 0)
      const last = Math.min(to - base, BITMAP_CHUNK) // exclusive
      for (let i = 0; i < first >>> 5; i++) acc[i] = 0
      if (first & 31) acc[first >>> 5]! &= ~((1 << (first & 31)) - 1)
      if (last < BITMAP_CHUNK) {
        if (last & 31) acc[last >>> 5]! &= (1 << (last & 31)) - 1
        else acc[last >>> 5] = 0
        for (let i = (last >>> 5) + 1; i < WORDS; i++) acc[i] = 0
      }
      // The edge words of this chunk: their rows, values and (for a bitmap) rows before each word.
      const edgeHere: { c: Container; values: Float64Array | Uint32Array; prefix: Uint32Array | null; test: (v: number) => boolean }[] = []
      if (edges === null) edge.fill(0xffffffff)
      else {
        edge.fill(0)
        for (const e of edges) {
          const c = chunks.get(e, chunk)
          if (!c) continue
          apply(edge, c)
          const values = chunks.valuesOf(e, chunk)
          if (!values) throw new Error(`índice de filtros sem os valores da palavra ${e} no bloco ${chunk}`)
          let prefix: Uint32Array | null = null
          if (c instanceof Uint32Array) {
            prefix = new Uint32Array(WORDS)
            for (let i = 1; i < WORDS; i++) prefix[i] = prefix[i - 1]! + popcount(c[i - 1]!)
          }
          edgeHere.push({ c, values, prefix, test: valueKind(e) === 'capital' ? s.check.capital : s.check.abertura })
        }
      }
      // Does the row at offset o pass the exact checks of the edge words it holds?
      const passes = (o: number) => {
        for (const e of edgeHere) {
          const i = indexIn(e.c, o, e.prefix)
          if (i >= 0 && !e.test(e.values[i]!)) return false
        }
        return true
      }
      // In slices of 2048 positions: the rows of an edge word are checked on their exact values
      // (one read of the doc table per slice), the others taken as they are.
      for (let s0 = 0; s0 < WORDS && !(collected >= need && total >= cap); s0 += 64) {
        const collecting = collected < need
        let pending: number[] | null = null
        let sure = 0
        for (let i = s0; i < s0 + 64; i++) {
          const a = acc[i]!
          if (!a) continue
          const maybe = a & edge[i]!
          const certain = a & ~edge[i]!
          if (!collecting) sure += popcount(certain)
          if (maybe || collecting) {
            for (let x = a; x; x &= x - 1) {
              const bit = 31 - Math.clz32(x & -x)
              const isMaybe = (maybe >>> bit) & 1
              if (!collecting && !isMaybe) continue
              ;(pending ??= []).push(((base + i * 32 + bit) * 2) + isMaybe)
            }
          }
        }
        total += sure
        if (!pending) continue
        // pending: position * 2 + (1 when it needs the check). Edge words' rows are checked on
        // their stored values; with 'all', on the doc rows, whose keys are read at once.
        const checkKeys: number[] = []
        if (edges === null) for (const v of pending) if (v % 2) checkKeys.push(docKeyOf(writeIndex(Math.floor(v / 2))))
        const values = checkKeys.length ? docValues(checkKeys) : null
        let checked = 0
        for (const v of pending) {
          const p = Math.floor(v / 2)
          let key = -1
          if (v % 2) {
            if (edges === null) {
              key = checkKeys[checked++]!
              const d = values!.get(key)
              if (!d || !s.check.row(d[0], d[1])) continue
            } else if (!passes(p - base)) continue
          }
          total++
          if (collected < need) {
            ids.push(rowidOf(p, key >= 0 ? key : docKeyOf(writeIndex(p))))
            collected++
          }
        }
      }
    }
  }
  return { total: Math.min(total, cap), ids }
}
