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
import { totalmem } from 'node:os'
import { DamagedFileError } from '../../core/stores/file-check'
import { CAPITAL_BUCKETS, CAPITAL_SPAN_LEVELS, filterToken, FIRST_OPENING_YEAR, OPENING_SPAN_LEVELS, OPENING_YEAR_SLOTS, PASS_UNIT, RANK_BITS } from './layout'
import { lowerBound } from '../../core/sorted'

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

/** The filter word of an id (filterTokenId's inverse). */
export const filterTokenOf = (id: number) => String.fromCodePoint(PRIVATE_USE + id)

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

/**
 * The span words (filterToken.capitalFaixa, aberturaFaixa) whose rows include those of each word: a
 * capital bucket's and an opening-year slot's, one per level; null for any other word. The build
 * gives a row these besides its own words (ingest/cnpj/filter-bitmaps.ts).
 */
export const SPANS_OF: readonly (readonly number[] | null)[] = (() => {
  const out: (number[] | null)[] = new Array(FILTER_TOKEN_IDS).fill(null)
  for (let b = 0; b < CAPITAL_BUCKETS; b++)
    out[filterTokenId(filterToken.capital(b))] = Array.from({ length: CAPITAL_SPAN_LEVELS }, (_, i) => filterTokenId(filterToken.capitalFaixa(i + 1, b >> (i + 1))))
  for (let s = 0; s < OPENING_YEAR_SLOTS; s++)
    out[filterTokenId(filterToken.abertura(s))] = Array.from({ length: OPENING_SPAN_LEVELS }, (_, i) => filterTokenId(filterToken.aberturaFaixa(i + 1, s >> (i + 1))))
  return out
})()

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
      if (!end) throw new DamagedFileError('índice de filtros sem a tabela de passes completa')
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

type Values = Float64Array | Uint32Array

/** A word's chunks as read so far: a container (null: no rows in that chunk; undefined: not read yet), and its values when asked. */
interface WordEntry {
  containers: (Container | null | undefined)[]
  values: (Values | null | undefined)[] | null
  bytes: number
}

/**
 * What searches read from the file, kept for the next ones in this process: whole words (their
 * chunks as read), the least recently searched dropped first past CACHE_BYTES, and the blocks of
 * positions (the page's rows), the oldest dropped past MAP_BLOCKS_KEPT. The words searched most
 * (Simples, porte, the common legal natures) are dense, 8 KB per chunk, read from SQLite a blob
 * at a time: without the cache, half a search's time at 10 M companies was those reads. A search
 * holds its words' entries while it runs, so dropping one never changes an answer.
 */
class WordCache {
  private words = new Map<number, WordEntry>()
  private bytes = 0
  private blocks = new Map<number, Uint32Array>()
  constructor(private limit: number, private chunkCount: number) {}

  /** A word's entry, marked as just used (once per search). */
  word(id: number, valued: boolean): WordEntry {
    let e = this.words.get(id)
    if (e) this.words.delete(id)
    else e = { containers: new Array(this.chunkCount), values: null, bytes: 0 }
    if (valued && !e.values) e.values = new Array(this.chunkCount)
    this.words.set(id, e)
    return e
  }

  /** Accounts for bytes read into a word, dropping the least recently used other words past the limit. */
  grew(entry: WordEntry, n: number): void {
    entry.bytes += n
    this.bytes += n
    for (const [id, e] of this.words) {
      if (this.bytes <= this.limit) break
      if (e === entry) continue
      this.words.delete(id)
      this.bytes -= e.bytes
    }
  }

  block(n: number): Uint32Array | undefined {
    return this.blocks.get(n)
  }

  keepBlock(n: number, m: Uint32Array): void {
    this.blocks.set(n, m)
    if (this.blocks.size > MAP_BLOCKS_KEPT) this.blocks.delete(this.blocks.keys().next().value!)
  }
}

/**
 * Bytes of words each process keeps: 1/64 of the machine's memory, from 64 to 256 MB (two processes
 * on this 24 GiB machine: 2 × 256). A dense word of a national month is ~9 MB, and an edge word's
 * exact values several times that: cycling through the 12 searches of one pair of filters
 * (`natureza_juridica` × capital) nationally, 64 MB dropped each word before it came back, and a
 * search cost 5.7 ms instead of 2.8 (in process, the same data).
 */
const CACHE_BYTES = Math.min(256, Math.max(64, Math.floor(totalmem() / 64 / 2 ** 20))) * 2 ** 20
/** Blocks of positions kept (16 KB each). */
const MAP_BLOCKS_KEPT = 1024
const caches = new WeakMap<Bitmaps, WordCache>()

/**
 * Loads the containers (and the edge words' values) of a search's words, a window of chunks at a
 * time, through the cache. The words of the gate (the rarest clause: nothing matches where none of
 * them has rows) are read first, and the others only from the first to the last chunk of the
 * window where the gate has rows: a city's search over every UF read the dense words of the other
 * filters in all ~1 100 chunks of a national index to use them in the ~100 of its state.
 */
class Chunks {
  readonly cache: WordCache
  private entries = new Map<number, WordEntry>()
  private gateEntries: WordEntry[]
  private gateIds: Set<number>
  private lastChunk: number
  /** `valued`: the words whose exact values are read too; `gate`: the words of the rarest clause (none: no gate). */
  constructor(private b: Bitmaps, ids: number[], private valued: Set<number>, private gate: number[]) {
    let cache = caches.get(b)
    this.lastChunk = Math.ceil(b.rows / BITMAP_CHUNK) - 1
    if (!cache) caches.set(b, (cache = new WordCache(CACHE_BYTES, this.lastChunk + 1)))
    this.cache = cache
    for (const id of ids) this.entries.set(id, cache.word(id, valued.has(id)))
    this.gateEntries = gate.map((id) => this.entries.get(id)!)
    this.gateIds = new Set(gate)
  }

  /** Makes sure chunks [c, c + n) of the gate's words are read, and those of every other word where the gate has rows. */
  load(c: number, n: number): void {
    const last = Math.min(c + n - 1, this.lastChunk)
    if (!this.gate.length) {
      for (const id of this.entries.keys()) this.loadWord(id, c, last)
      return
    }
    for (const id of this.gate) this.loadWord(id, c, last)
    let lo = -1
    let hi = -1
    for (let k = c; k <= last; k++)
      if (!this.gateEmpty(k)) {
        if (lo < 0) lo = k
        hi = k
      }
    if (lo < 0) return
    for (const id of this.entries.keys()) if (!this.gateIds.has(id)) this.loadWord(id, lo, hi)
  }

  /** Whether no word of the gate has rows in a chunk already read (then nothing matches there). */
  gateEmpty(chunk: number): boolean {
    if (!this.gateEntries.length) return false
    for (const e of this.gateEntries) if (e.containers[chunk]) return false
    return true
  }

  private loadWord(id: number, c: number, last: number): void {
    const e = this.entries.get(id)!
    const valued = this.valued.has(id)
    let missingContainers = false
    let missingValues = false
    for (let k = c; k <= last; k++) {
      if (e.containers[k] === undefined) missingContainers = true
      if (valued && e.values![k] === undefined) missingValues = true
    }
    let bytes = 0
    if (missingContainers) for (let k = c; k <= last; k++) e.containers[k] = null
    if (missingContainers) for (const [rowid, linhas, dados] of this.b.db.query('SELECT id, linhas, dados FROM filtro_bloco WHERE id BETWEEN ? AND ?').values(bitmapRowid(id, c), bitmapRowid(id, last)) as [number, number, Uint8Array][]) {
      const dense = Number(linhas) >= BITMAP_DENSE
      if (dados.byteLength !== (dense ? WORDS * 4 : Number(linhas) * 2)) throw new DamagedFileError(`índice de filtros: bloco ${rowid} com ${dados.byteLength} bytes para ${linhas} linhas`)
      const aligned = dados.byteOffset % 4 === 0 ? dados : dados.slice()
      e.containers[Number(rowid) % BITMAP_CHUNK] = dense ? new Uint32Array(aligned.buffer, aligned.byteOffset, WORDS) : new Uint16Array(aligned.buffer, aligned.byteOffset, Number(linhas))
      bytes += dados.byteLength
    }
    if (missingValues) {
      for (let k = c; k <= last; k++) e.values![k] = null
      for (const [rowid, dados] of this.b.db.query('SELECT id, dados FROM filtro_valor WHERE id BETWEEN ? AND ?').values(bitmapRowid(id, c), bitmapRowid(id, last)) as [number, Uint8Array][]) {
        if (dados.byteLength % (valueKind(id) === 'capital' ? 8 : 4)) throw new DamagedFileError(`índice de filtros: valores ${rowid} com ${dados.byteLength} bytes`)
        const aligned = dados.byteOffset % 8 === 0 ? dados : dados.slice()
        e.values![Number(rowid) % BITMAP_CHUNK] = valueKind(id) === 'capital' ? new Float64Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 8) : new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4)
        bytes += dados.byteLength
      }
      // One value per row of the word in each chunk: the searches index the values by the row's place.
      for (let k = c; k <= last; k++) {
        const container = e.containers[k]
        const values = e.values![k]
        if ((container ? rowsOf(container) : 0) !== (values ? values.length : 0)) throw new DamagedFileError(`índice de filtros: ${values?.length ?? 0} valores para as linhas da palavra ${id} no bloco ${k}`)
      }
    }
    if (missingContainers || missingValues) this.cache.grew(e, bytes + 16 * (last - c + 1))
  }

  /** A word's container in a chunk (undefined: no rows there). */
  get(id: number, chunk: number): Container | undefined {
    const e = this.entries.get(id)!
    if (e.containers[chunk] === undefined) this.load(chunk, 1)
    return e.containers[chunk] ?? undefined
  }

  /** The exact values of a word's rows in a chunk, in the order of its positions (one per row: checked as read). */
  valuesOf(id: number, chunk: number): Values {
    const e = this.entries.get(id)!
    if (!e.values || e.values[chunk] === undefined) this.load(chunk, 1)
    return e.values![chunk]!
  }
}

/** Words of a bitmap per entry of its prefix (rowsBefore counts the few words between). */
const PREFIX_WORDS = 8
const prefixes = new WeakMap<Uint32Array, Uint32Array>()
/**
 * Rows of a bitmap before each run of PREFIX_WORDS words, and all its rows at the end (computed
 * once per cached bitmap, outside the word cache's count): 1 KB beside the bitmap's 8 KB, where a
 * count per word took 8 KB more (9 MB for a dense edge word over a national month's chunks). The
 * searches measured the same with either.
 */
function prefixOf(c: Uint32Array): Uint32Array {
  return memoized(prefixes, c, () => {
    const prefix = new Uint32Array(WORDS / PREFIX_WORDS + 1)
    let n = 0
    for (let i = 0; i < WORDS; i++) {
      if (i % PREFIX_WORDS === 0) prefix[i / PREFIX_WORDS] = n
      n += popcount(c[i]!)
    }
    prefix[WORDS / PREFIX_WORDS] = n
    return prefix
  })
}

/** What `make` gives for a container, computed once while the container lives (it is cached with its word). */
function memoized<K extends object, V>(cache: WeakMap<K, V>, key: K, make: () => V): V {
  let v = cache.get(key)
  if (v === undefined) cache.set(key, (v = make()))
  return v
}

/** Rows of a bitmap before its word `w`. */
function rowsBefore(c: Uint32Array, prefix: Uint32Array, w: number): number {
  const run = (w / PREFIX_WORDS) | 0
  let n = prefix[run]!
  for (let i = run * PREFIX_WORDS; i < w; i++) n += popcount(c[i]!)
  return n
}

/**
 * The first place in a list container holding an offset >= o. Its own function: the shared
 * lowerBound also searches strings and Float64Arrays, and one call site seeing three array types
 * ran on the engine's slow path in the chunk loops below.
 */
function offsetBound(c: Uint16Array, o: number): number {
  let lo = 0
  let hi = c.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (c[mid]! < o) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Rows of a container. */
const rowsOf = (c: Container) => (c instanceof Uint32Array ? prefixOf(c)[WORDS / PREFIX_WORDS]! : c.length)

/** Words [wl, wh) of `out` set to a term's rows: a word's, minus another's. */
function termBits(out: Uint32Array, c: Container, minus: Container, wl: number, wh: number): Uint32Array {
  out.fill(0, wl, wh)
  apply(out, c, wl, wh)
  apply(out, minus, wl, wh, true)
  return out
}

const idOf = (t: string) => {
  const id = filterTokenId(t)
  if (id <= 0) throw new Error(`palavra de filtro inválida: ${JSON.stringify(t)}`)
  return id
}

/**
 * ORs a container into words [wl, wh) of a bitset (or, with `clear`, removes its rows there): a
 * partition that covers part of a chunk (most UFs, in the chunk they share) costs its part only.
 */
function apply(bits: Uint32Array, c: Container, wl: number, wh: number, clear = false): void {
  if (c instanceof Uint32Array) {
    if (clear) for (let i = wl; i < wh; i++) bits[i]! &= ~c[i]!
    else for (let i = wl; i < wh; i++) bits[i]! |= c[i]!
    return
  }
  const end = wh * 32
  const n = c.length
  let i = wl === 0 ? 0 : offsetBound(c, wl * 32)
  if (clear)
    for (; i < n; i++) {
      const v = c[i]!
      if (v >= end) break
      bits[v >>> 5]! &= ~(1 << (v & 31))
    }
  else
    for (; i < n; i++) {
      const v = c[i]!
      if (v >= end) break
      bits[v >>> 5]! |= 1 << (v & 31)
    }
}

/** Words [wl, wh) of `bits` set to the rows of any of the terms (a word's rows, minus another's); `term`: scratch. */
function union(terms: { c: Container; minus: Container | undefined }[], bits: Uint32Array, term: Uint32Array, wl: number, wh: number): Uint32Array {
  bits.fill(0, wl, wh)
  for (const t of terms) {
    if (!t.minus) apply(bits, t.c, wl, wh)
    else {
      termBits(term, t.c, t.minus, wl, wh)
      for (let i = wl; i < wh; i++) bits[i]! |= term[i]!
    }
  }
  return bits
}

/**
 * A list this many times longer than the candidates tested against it is searched (placeIn), not
 * ORed into a bitset: a search costs 23-37 ns, ORing a row 2-6.5 ns (measured on lists of 300 to
 * 4 000 rows).
 */
const PROBE_RATIO = 8

/**
 * Terms (a clause's, or the words excluded) as the sparse path tests its candidate rows against
 * them: each bitmap as it is; a list by a search in its place index (placesOf) when it is much
 * longer than the candidates, else ORed into a bitset of words [wl, wh) with the words minus
 * another. ORing every term into one bitset cost 2 048 words a bitmap and a chunk (15 µs a chunk
 * for the five dense years an opening range excludes, to test ~60 rows).
 */
interface Holders {
  /** The one bitmap, when the terms are just that (the common case: tested inline). */
  one: Uint32Array | null
  dense: Uint32Array[]
  lists: Uint16Array[]
  places: Uint16Array[]
  rest: Uint32Array | null
}

function holdersOf(terms: { c: Container; minus: Container | undefined }[], candidates: number, bits: Uint32Array, term: Uint32Array, wl: number, wh: number): Holders {
  const h: Holders = { one: null, dense: [], lists: [], places: [], rest: null }
  const ored: typeof terms = []
  for (const t of terms)
    if (!t.minus && t.c instanceof Uint32Array) h.dense.push(t.c)
    else if (!t.minus && t.c instanceof Uint16Array && t.c.length > PROBE_RATIO * candidates) {
      h.lists.push(t.c)
      h.places.push(placesOf(t.c))
    } else ored.push(t)
  if (ored.length) h.rest = union(ored, bits, term, wl, wh)
  if (h.dense.length === 1 && !h.lists.length && !h.rest) h.one = h.dense[0]!
  return h
}

/** Whether any of the terms holds offset `o`. */
function holds(h: Holders, o: number): boolean {
  const w = o >>> 5
  const bit = 1 << (o & 31)
  for (let i = 0; i < h.dense.length; i++) if (h.dense[i]![w]! & bit) return true
  for (let i = 0; i < h.lists.length; i++) if (placeIn(h.lists[i]!, h.places[i]!, o) >= 0) return true
  return h.rest !== null && (h.rest[w]! & bit) !== 0
}

/**
 * The edge checks of the sparse path below run on the rows still kept, compacted (a few dozen of a
 * chunk's few hundred candidates), in two passes: each row's place in the edge word's values first,
 * then the values. An edge word's values are tens of MB nationally (a common capital bucket), so
 * each read is a cache miss; the first pass's reads (the bitmap word, its prefix) and the second's
 * (the values) do not depend on one another from row to row, and the processor overlaps them. Read
 * row by row, each row's three dependent misses came one after the other: 5 µs a chunk for ~30
 * rows, half of a capital range ANDed with an activity over every UF.
 *
 * placesInDense fills `places` with each row's place in a dense edge word's values, or -1 where
 * the word does not hold the row.
 */
function placesInDense(rows: Uint16Array, n: number, c: Uint32Array, prefix: Uint32Array, places: Int32Array): void {
  for (let j = 0; j < n; j++) {
    const o = rows[j]!
    const w = o >>> 5
    const word = c[w]!
    const member = (word >>> (o & 31)) & 1
    places[j] = (rowsBefore(c, prefix, w) + popcount(word & ((1 << (o & 31)) - 1)) + 1) * member - 1
  }
}

/** The same for an edge word stored as a list (placeIn). */
function placesInList(rows: Uint16Array, n: number, c: Uint16Array, index: Uint16Array, places: Int32Array): void {
  for (let j = 0; j < n; j++) places[j] = placeIn(c, index, rows[j]!)
}

/**
 * Keeps, compacted at the front of `rows`, the rows outside the edge word (place -1) and those
 * whose exact value passes `test`; returns how many. A function per values type (capital:
 * Float64Array, dates: Uint32Array): reading two array types at one place kept the loop on the
 * engine's slow path.
 */
function keepPassingCapital(rows: Uint16Array, n: number, places: Int32Array, values: Float64Array, test: (v: number) => boolean): number {
  let m = 0
  for (let j = 0; j < n; j++) {
    const p = places[j]!
    rows[m] = rows[j]!
    if (p < 0 || test(values[p]!)) m++
  }
  return m
}

function keepPassingDate(rows: Uint16Array, n: number, places: Int32Array, values: Uint32Array, test: (v: number) => boolean): number {
  let m = 0
  for (let j = 0; j < n; j++) {
    const p = places[j]!
    rows[m] = rows[j]!
    if (p < 0 || test(values[p]!)) m++
  }
  return m
}

/**
 * Appends to `out` (from n) a list's rows in [from-th row, last) outside `minus` whose exact value
 * passes `test`, its values being in the list's order; returns the new count. One function per
 * values type, as keepPassing*.
 */
function rowsPassingCapital(c: Uint16Array, from: number, last: number, minus: Container | undefined, values: Float64Array, test: (v: number) => boolean, out: Uint16Array, n: number): number {
  for (let i = from; i < c.length && c[i]! < last; i++) {
    const o = c[i]!
    if ((minus === undefined || !contains(minus, o)) && test(values[i]!)) out[n++] = o
  }
  return n
}

function rowsPassingDate(c: Uint16Array, from: number, last: number, minus: Container | undefined, values: Uint32Array, test: (v: number) => boolean, out: Uint16Array, n: number): number {
  for (let i = from; i < c.length && c[i]! < last; i++) {
    const o = c[i]!
    if ((minus === undefined || !contains(minus, o)) && test(values[i]!)) out[n++] = o
  }
  return n
}

/** Offsets per entry of a list's place index. */
const PLACE_SPAN = 256
const placeIndexes = new WeakMap<Uint16Array, Uint16Array>()
/**
 * A list container's place index: the place of its first row at or after each PLACE_SPAN offsets
 * (514 bytes, computed once per cached list; a list holds under 4 096 rows), so a row's place is
 * a binary search among the few rows of its span (placeIn).
 */
function placesOf(c: Uint16Array): Uint16Array {
  return memoized(placeIndexes, c, () => {
    const places = new Uint16Array(BITMAP_CHUNK / PLACE_SPAN + 1)
    let i = 0
    for (let k = 0; k < places.length; k++) {
      while (i < c.length && c[i]! < k * PLACE_SPAN) i++
      places[k] = i
    }
    return places
  })
}

/** The place of offset `o` in a list container, or -1 when it does not hold it. */
function placeIn(c: Uint16Array, places: Uint16Array, o: number): number {
  const k = (o / PLACE_SPAN) | 0
  const end = places[k + 1]!
  let lo = places[k]!
  let hi = end
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (c[mid]! < o) lo = mid + 1
    else hi = mid
  }
  return lo < end && c[lo] === o ? lo : -1
}

/** Whether a container holds offset `o`. */
function contains(c: Container, o: number): boolean {
  if (c instanceof Uint32Array) return ((c[o >>> 5]! >>> (o & 31)) & 1) === 1
  const i = offsetBound(c, o)
  return i < c.length && c[i] === o
}

/** Merges two sorted runs of `src`, [0, mid) and [mid, end), into `out`, each offset once; returns how many. */
function mergeTwo(src: Uint16Array, mid: number, end: number, out: Uint16Array): number {
  let i = 0
  let j = mid
  let n = 0
  let last = -1
  while (i < mid && j < end) {
    const a = src[i]!
    const b = src[j]!
    let v: number
    if (a <= b) (v = a), i++
    else (v = b), j++
    if (v !== last) out[n++] = last = v
  }
  while (i < mid) {
    const v = src[i++]!
    if (v !== last) out[n++] = last = v
  }
  while (j < end) {
    const v = src[j++]!
    if (v !== last) out[n++] = last = v
  }
  return n
}

/** Drops the repeats of a sorted array in place; returns how many remain. */
function uniqueSorted(a: Uint16Array): number {
  let n = 0
  for (let i = 0; i < a.length; i++) if (n === 0 || a[n - 1] !== a[i]) a[n++] = a[i]!
  return n
}

/** A chunk where a clause has at most this many rows is walked row by row (see `sparse` in searchBitmaps). */
const SPARSE_ROWS = 1024

/** Removes from words [wl, wh) of `bits` the rows of a container whose value (in `values`, in the order of its rows) fails `test`. */
function removeFailing(bits: Uint32Array, c: Container, values: Float64Array | Uint32Array, test: (v: number) => boolean, wl: number, wh: number): void {
  if (c instanceof Uint32Array) {
    // Only the rows still in `bits` (a dense bucket ANDed with a rare activity leaves few): each
    // one's place in the word's values is the rows before its word plus those before it in it.
    let before = rowsBefore(c, prefixOf(c), wl)
    for (let i = wl; i < wh; i++) {
      const word = c[i]!
      for (let x = word & bits[i]!; x; x &= x - 1) {
        const bit = 31 - Math.clz32(x & -x)
        if (!test(values[before + popcount(word & ((1 << bit) - 1))]!)) bits[i]! &= ~(1 << bit)
      }
      before += popcount(word)
    }
    return
  }
  const end = wh * 32
  for (let i = wl === 0 ? 0 : offsetBound(c, wl * 32); i < c.length; i++) {
    const v = c[i]!
    if (v >= end) break
    if ((bits[v >>> 5]! >>> (v & 31)) & 1 && !test(values[i]!)) bits[v >>> 5]! &= ~(1 << (v & 31))
  }
}

/**
 * Of positions taken from several ranges (each range's first `need`, merged by the caller by
 * rank), those that can be among the first `need` of all of them, in their order. A row's rank is
 * its name-length and branch part, known from its position (`coarse`), plus its doc key, known only
 * from its block of filtro_posicao: a coarse part differs by more than any key, so a row whose coarse
 * part is above the need-th smallest has `need` rows before it and is left out. Reading every
 * row's block cost most of a search that matches a few hundred rows over every UF (one block a
 * row), once other searches had pushed the blocks out of the cache: ~10 ms of a national search.
 */
export function mayLead(positions: number[], need: number, coarse: (p: number) => number): number[] {
  const parts = positions.map(coarse)
  const cutoff = Float64Array.from(parts).sort()[need - 1]!
  return positions.filter((_, i) => parts[i]! <= cutoff)
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
  const edgeTest = (id: number) => (valueKind(id) === 'capital' ? s.check.capital : s.check.abertura)
  const all = new Set<number>()
  for (const t of [...clauses.flat(), ...without]) {
    all.add(t.id)
    if (t.minus !== undefined) all.add(t.minus)
  }
  for (const e of edges ?? []) all.add(e)
  // The gate: the first clause, the rarest (planFilters orders them by rows).
  const chunks = new Chunks(b, [...all], new Set(edges ?? []), clauses.length ? [...new Set(clauses[0]!.map((t) => t.id))] : [])

  const acc = new Uint32Array(WORDS)
  const clause = new Uint32Array(WORDS)
  const term = new Uint32Array(WORDS)
  const scratch = clauses.map(() => new Uint32Array(WORDS))
  const excludedBits = new Uint32Array(WORDS)
  /** The driver's rows of a chunk: its words' rows there add up to at most SPARSE_ROWS. */
  const candidates = new Uint16Array(SPARSE_ROWS)
  const merged = new Uint16Array(SPARSE_ROWS)
  /** Those kept by the other clauses and the edge checks, and each one's place in an edge word's values. */
  const liveRows = new Uint16Array(SPARSE_ROWS)
  const edgePlaces = new Int32Array(SPARSE_ROWS)
  const ids: number[] = []
  let total = 0
  const writeIndex = (p: number) => {
    const block = Math.floor(p / MAP_BLOCK)
    let m = chunks.cache.block(block)
    if (!m) {
      const row = b.db.query('SELECT escritas FROM filtro_posicao WHERE bloco = ?').values(block)[0] as [Uint8Array] | undefined
      if (!row || row[0].byteLength % 4) throw new DamagedFileError(`índice de filtros sem o bloco de posições ${block}`)
      const bytes = row[0].byteOffset % 4 === 0 ? row[0] : row[0].slice()
      m = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
      chunks.cache.keepBlock(block, m)
    }
    return m[p % MAP_BLOCK]!
  }
  const docKeyOf = (w: number) => {
    const i = lowerBound(b.passStart, w + 1) - 1
    return b.passId[i]! * PASS_UNIT + (w - b.passStart[i]!)
  }
  const rankOf = (p: number) => b.groupRank[lowerBound(b.groupStart, p + 1) - 1]!
  // A doc key is below DOC_KEY_UNIT: rank + key is the rowid (layout.ts).
  const rowidOf = (p: number, key: number) => rankOf(p) + key

  /**
   * A chunk where some clause has at most SPARSE_ROWS rows (a city, an activity, a month): its rows
   * are walked and each tested against the other clauses, the words excluded and the edge values,
   * instead of ANDing 2048-word bitsets. Returns false (nothing done) when every clause is wider.
   */
  /** A clause's terms (or the excluded ones) with rows in a chunk, as containers. */
  const resolve = (terms: { id: number; minus: number | undefined }[], chunk: number) =>
    terms.flatMap((t) => {
      const c = chunks.get(t.id, chunk)
      return c ? [{ id: t.id, c, minus: t.minus === undefined ? undefined : chunks.get(t.minus, chunk) }] : []
    })
  const edgeIds = new Set(edges ?? [])
  const clauseIds = clauses.map((clause) => new Set(clause.map((t) => t.id)))

  const sparse = (chunk: number, base: number, first: number, last: number, wl: number, wh: number): boolean => {
    const resolved = clauses.map((clause) => resolve(clause, chunk))
    let driver = -1
    let size = SPARSE_ROWS + 1
    for (let k = 0; k < resolved.length; k++) {
      if (!resolved[k]!.length) return true // a clause with no rows here: nothing matches in this chunk
      let n = 0
      for (const { c } of resolved[k]!) n += c instanceof Uint32Array ? BITMAP_CHUNK : c.length
      if (n < size) (driver = k), (size = n)
    }
    if (driver < 0) return false
    const driverIds = clauseIds[driver]!
    // The driver's rows in the range, in position order.
    let n = 0
    let firstRunEnd = 0
    const runs = resolved[driver]!.length
    // A driver word that is an edge (a month or a capital bucket a range takes partly) has its rows'
    // exact values in its list's order: they are checked here, before the other clauses. A single
    // day keeps ~1 in 30 of a month's rows, and each row dropped here is one the other clauses'
    // tests no longer read (a wide legal nature's bitmap, a cache miss a row: a day ANDed with it
    // over every UF cost ~15 ms in a rotation of searches, measured nationally).
    for (let r = 0; r < runs; r++) {
      const t = resolved[driver]![r]!
      const c = t.c as Uint16Array
      const from = offsetBound(c, first)
      if (edgeIds.has(t.id)) {
        const values = chunks.valuesOf(t.id, chunk)
        n = values instanceof Float64Array ? rowsPassingCapital(c, from, last, t.minus, values, s.check.capital, candidates, n) : rowsPassingDate(c, from, last, t.minus, values, s.check.abertura, candidates, n)
      } else
        for (let i = from; i < c.length && c[i]! < last; i++) {
          const o = c[i]!
          if (t.minus !== undefined && contains(t.minus, o)) continue
          candidates[n++] = o
        }
      if (r === 0) firstRunEnd = n
    }
    // Several words (an activity as main or secondary, the months of a range): their rows in order,
    // each once. Two runs are merged (a native sort of ~200 rows cost 2.5 times the merge).
    let driverRows = candidates.subarray(0, n)
    if (runs === 2) driverRows = merged.subarray(0, mergeTwo(candidates, firstRunEnd, n, merged))
    else if (runs > 2) driverRows = candidates.subarray(0, uniqueSorted(driverRows.sort()))
    n = driverRows.length
    // Every other clause, and the words excluded, as Holders (holdersOf): a candidate's test is a
    // bit read or a short search in a list's span, each in a function of one array type (probing
    // containers of two types at one call site cost ~80 ns a row).
    const needs: Holders[] = []
    for (let k = 0; k < resolved.length; k++) if (k !== driver) needs.push(holdersOf(resolved[k]!, n, scratch[k]!, term, wl, wh))
    const excluded = resolve(without, chunk)
    const refused = excluded.length ? holdersOf(excluded, n, excludedBits, term, wl, wh) : null
    // The rows every other clause holds and no word excluded does, compacted into `live`.
    let live = 0
    for (let j = 0; j < n; j++) {
      const o = driverRows[j]!
      const w = o >>> 5
      const bit = 1 << (o & 31)
      if (refused !== null && (refused.one !== null ? refused.one[w]! & bit : holds(refused, o))) continue
      let all = true
      for (let k = 0; k < needs.length; k++) {
        const h = needs[k]!
        if (h.one !== null ? !(h.one[w]! & bit) : !holds(h, o)) {
          all = false
          break
        }
      }
      if (all) liveRows[live++] = o
    }
    // The edge words' exact values, for the rows still kept.
    for (const e of edges ?? []) {
      if (!live) break
      // The driver's edge words were checked as its rows were taken; a clause's words hold disjoint
      // rows (a range's spans, buckets and months: one capital, one opening date a row), so no kept
      // row is in one of them unchecked.
      if (driverIds.has(e)) continue
      const c = chunks.get(e, chunk)
      if (!c) continue
      const values = chunks.valuesOf(e, chunk)
      if (c instanceof Uint32Array) placesInDense(liveRows, live, c, prefixOf(c), edgePlaces)
      else placesInList(liveRows, live, c, placesOf(c), edgePlaces)
      live = values instanceof Float64Array ? keepPassingCapital(liveRows, live, edgePlaces, values, s.check.capital) : keepPassingDate(liveRows, live, edgePlaces, values, s.check.abertura)
    }
    // Past the page, rows whose check is done are only counted.
    if (edges !== null && collected >= need) total += live
    else if (live) {
      const pending: number[] = []
      for (let j = 0; j < live; j++) pending.push((base + liveRows[j]!) * 2 + (edges === null ? 1 : 0))
      take(pending)
    }
    return true
  }

  let collected = 0
  /** Positions taken for the page whose key (a block of filtro_posicao, 16 KB) is not read yet. */
  const deferred: number[] = []
  /**
   * Counts (and, while the page is not full, takes) matches in position order, given as
   * position * 2 + 1 when the row still needs the check on its doc row (edges 'all'; the keys of a
   * batch read at once), else position * 2.
   */
  const take = (pending: number[]) => {
    const checkKeys: number[] = []
    for (const v of pending) if (v % 2) checkKeys.push(docKeyOf(writeIndex(Math.floor(v / 2))))
    const values = checkKeys.length ? docValues(checkKeys) : null
    let checked = 0
    for (const v of pending) {
      const p = Math.floor(v / 2)
      let key = -1
      if (v % 2) {
        key = checkKeys[checked++]!
        const d = values!.get(key)
        if (!d || !s.check.row(d[0], d[1])) continue
      }
      total++
      if (collected < need) {
        if (key >= 0) ids.push(rowidOf(p, key))
        else deferred.push(p)
        collected++
      }
    }
  }

  for (const [lo, hi] of ranges) {
    const [from, to] = positionsOf(b, lo, hi)
    if (from >= to) continue
    collected = 0
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
      // The range's part of this chunk: positions [first, last), words [wl, wh).
      const first = Math.max(from - base, 0)
      const last = Math.min(to - base, BITMAP_CHUNK)
      const wl = first >>> 5
      const wh = (last + 31) >>> 5
      if (chunks.gateEmpty(chunk)) continue
      if (clauses.length && sparse(chunk, base, first, last, wl, wh)) continue
      // The clauses, ANDed; a clause with no rows in this chunk empties it.
      let empty = false
      if (!clauses.length) acc.fill(0xffffffff, wl, wh)
      for (let k = 0; k < clauses.length && !empty; k++) {
        const terms = resolve(clauses[k]!, chunk)
        if (!terms.length) empty = true
        else {
          union(terms, k === 0 ? acc : clause, term, wl, wh)
          if (k > 0) for (let i = wl; i < wh; i++) acc[i]! &= clause[i]!
        }
      }
      if (empty) continue
      for (const t of without) {
        const c = chunks.get(t.id, chunk)
        if (!c) continue
        const m = t.minus === undefined ? undefined : chunks.get(t.minus, chunk)
        if (!m) apply(acc, c, wl, wh, true)
        else {
          termBits(term, c, m, wl, wh)
          for (let i = wl; i < wh; i++) acc[i]! &= ~term[i]!
        }
      }
      // Only the range's positions in its first and last word.
      if (first & 31) acc[wl]! &= ~((1 << (first & 31)) - 1)
      if (last & 31) acc[wh - 1]! &= (1 << (last & 31)) - 1
      // The rows of an edge word (a bucket or month only partly inside a range) whose exact value
      // falls outside it are removed, slice by slice below; with 'all', every row is checked on its
      // doc row there.
      const edgeHere: { c: Container; values: Values; test: (v: number) => boolean }[] = []
      for (const e of edges ?? []) {
        const c = chunks.get(e, chunk)
        if (c) edgeHere.push({ c, values: chunks.valuesOf(e, chunk), test: edgeTest(e) })
      }
      // In slices of 2048 positions: checked on the edges' values, counted, and the page's rows
      // taken. Once the total is capped, a partition only needs its page's rows: checking the edges
      // of a whole chunk for them (~1 700 rows of a wide legal nature in a capital bucket, each a
      // value read) was most of a search of two wide filters over every UF.
      for (let s0 = wl; s0 < wh && !(collected >= need && total >= cap); s0 += 64) {
        const collecting = collected < need
        let pending: number[] | null = null
        let sure = 0
        const se = Math.min(s0 + 64, wh)
        for (const e of edgeHere) removeFailing(acc, e.c, e.values, e.test, s0, se)
        for (let i = s0; i < se; i++) {
          const a = acc[i]!
          if (!a) continue
          // With 'all', every row still needs its doc row's check.
          const maybe = edges === null ? a : 0
          if (!collecting) sure += popcount(a & ~maybe)
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
        if (pending) take(pending)
      }
    }
  }
  // Of the rows taken without their key, only those that can be on the page over all ranges
  // (below) have their key read.
  if (deferred.length) {
    const keep = deferred.length > need ? mayLead(deferred, need, (p) => rankOf(p) % RANK_BITS) : deferred
    for (const p of keep) ids.push(rowidOf(p, docKeyOf(writeIndex(p))))
  }
  return { total: Math.min(total, cap), ids }
}
