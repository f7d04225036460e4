// The company index's filter words as bitmaps over the index's rows in rowid order (what a search
// by filters alone reads instead of the FTS doclists: src/datasets/cnpj/filter-bitmaps.ts and
// docs/busca.md, "Filtros sem nome"). The index is written in passes, one per root partition, each
// in rank order; a row's place in the whole index (its position) is only known once every pass is
// written. So the builder keeps each row's filter words (2 bytes each) and, per pass, the runs of
// rows of one rank; at the end the runs sorted by (rank, pass) give every row its position, and the
// bitmaps are written one chunk of positions at a time.
import type { Database } from 'bun:sqlite'
import { progress } from '../lib/progress'
import { BITMAP_CHUNK, BITMAP_DENSE, FILTER_TOKEN_IDS, filterTokenId, MAP_BLOCK, bitmapRowid, SPANS_OF, valueKind } from '../../src/datasets/cnpj/filter-bitmaps'

/** Word ids are kept in segments: one typed array for a national build's ~800 M words would pass the engine's limits. */
const SEGMENT = 1 << 24

const KEY_PASS = 2 ** 24 // run key: rank + pass * KEY_PASS + run index (rank is a multiple of 2^36)
const MAX_RUNS = KEY_PASS

export class FilterBitmapBuilder {
  private segments: Uint16Array[] = [new Uint16Array(SEGMENT)]
  private words = 0
  /** Start of each row's words (row = write index, in pass order). */
  private starts: Uint32Array
  /** Each row's capital (NaN: none) and opening date as YYYYMMDD (0: none), for the range checks. */
  private capital: Float64Array
  private abertura: Uint32Array
  private rows = 0
  private passStarts: [number, number][] = []
  private pass = -1
  // Runs of rows of one rank inside a pass: rank, first write index, length.
  private runRank = new Float64Array(1 << 16)
  private runStart = new Uint32Array(1 << 16)
  private runLength = new Uint32Array(1 << 16)
  private runPass = new Uint8Array(1 << 16)
  private runs = 0

  /**
   * `expectedRows`: the rows the index will have (the build counts them first), so the per-row
   * arrays are allocated once at their size: grown by doubling, a national build (71.5 M rows)
   * would hold arrays for 134 M, about 1 GB more at the peak.
   */
  constructor(expectedRows = 1 << 20) {
    const n = Math.max(expectedRows, 1) + 1
    this.starts = new Uint32Array(n)
    this.capital = new Float64Array(n)
    this.abertura = new Uint32Array(n)
  }

  /** The write loop starts a pass (its rows get doc keys pass * PASS_UNIT + n, n from 0). */
  startPass(pass: number): void {
    this.pass = pass
    this.passStarts.push([pass, this.rows])
  }

  /** One row, in write order: its rank, its filter words (filterToken characters; others are ignored), capital and opening date. */
  add(rank: number, tokens: (string | null)[], capital: number | null, abertura: number | null): void {
    const w = this.rows++
    if (w + 1 >= this.starts.length) {
      // More rows than expected (a count that missed some): grow by half.
      this.starts = grow(this.starts, Math.ceil(this.starts.length * 1.5))
      this.capital = grow(this.capital, this.starts.length)
      this.abertura = grow(this.abertura, this.starts.length)
    }
    this.starts[w] = this.words
    this.capital[w] = capital ?? NaN
    this.abertura[w] = abertura ?? 0
    for (const t of tokens) {
      // `qualquer` (id 0, every row) is no bitmap: a search reads a range of positions instead.
      const id = t ? filterTokenId(t) : 0
      if (id <= 0) continue
      const seg = Math.floor(this.words / SEGMENT)
      if (seg === this.segments.length) this.segments.push(new Uint16Array(SEGMENT))
      this.segments[seg]![this.words % SEGMENT] = id
      this.words++
    }
    const r = this.runs - 1
    if (r >= 0 && this.runRank[r] === rank && this.runPass[r] === this.pass) this.runLength[r]!++
    else {
      if (this.runs === this.runRank.length) {
        const n = this.runs * 2
        this.runRank = grow(this.runRank, n)
        this.runStart = grow(this.runStart, n)
        this.runLength = grow(this.runLength, n)
        this.runPass = grow(this.runPass, n)
      }
      if (this.runs >= MAX_RUNS) throw new Error(`índice de filtros: mais de ${MAX_RUNS} sequências de linhas de um mesmo posto`)
      this.runRank[this.runs] = rank
      this.runStart[this.runs] = w
      this.runLength[this.runs] = 1
      this.runPass[this.runs] = this.pass
      this.runs++
    }
  }

  /**
   * Writes the bitmaps and the position tables into the index file (inside the caller's
   * transaction): filtro_bloco (per word and chunk of BITMAP_CHUNK positions: the sorted low 16 bits
   * of its positions, or a bitmap when it holds BITMAP_DENSE or more), filtro_posicao (per block of
   * MAP_BLOCK positions, each one's write index), filtro_passe (each pass's first write index) and
   * filtro_grupo (the first position of each rank); and filtro_valor, per capital bucket, opening
   * month (and the early years' word) and chunk, the exact value of each of its rows, in the order
   * of its positions (what a range checks on the rows of a bucket or month only partly inside it).
   * Every capital bucket's and opening year's rows also go to its span words (SPANS_OF).
   */
  write(db: Database, options: { quiet?: boolean } = {}): void {
    db.exec(`
      CREATE TABLE filtro_bloco (id INTEGER PRIMARY KEY, linhas INTEGER NOT NULL, dados BLOB NOT NULL);
      CREATE TABLE filtro_posicao (bloco INTEGER PRIMARY KEY, escritas BLOB NOT NULL);
      CREATE TABLE filtro_passe (passe INTEGER PRIMARY KEY, inicio INTEGER NOT NULL);
      CREATE TABLE filtro_grupo (inicio INTEGER PRIMARY KEY, rank INTEGER NOT NULL);
      CREATE TABLE filtro_valor (id INTEGER PRIMARY KEY, dados BLOB NOT NULL);`)
    const n = this.rows
    this.starts[n] = this.words
    const insertPass = db.prepare('INSERT INTO filtro_passe VALUES (?, ?)')
    for (const [pass, start] of this.passStarts) insertPass.run(pass, start)
    insertPass.run(-1, n) // the end: the number of rows

    // Runs in (rank, pass) order: the rowid order (rank, then doc key = pass, then place in pass).
    const keys = new Float64Array(this.runs)
    for (let r = 0; r < this.runs; r++) keys[r] = this.runRank[r]! + this.runPass[r]! * KEY_PASS + r
    keys.sort()
    const writeIndexAt = new Uint32Array(n) // position -> write index
    const insertGroup = db.prepare('INSERT INTO filtro_grupo VALUES (?, ?)')
    let position = 0
    let lastRank = -1
    for (let i = 0; i < this.runs; i++) {
      const r = keys[i]! % KEY_PASS
      const rank = this.runRank[r]!
      if (rank !== lastRank) {
        insertGroup.run(position, rank)
        lastRank = rank
      }
      const start = this.runStart[r]!
      for (let k = 0; k < this.runLength[r]!; k++) writeIndexAt[position++] = start + k
    }
    if (position !== n) throw new Error(`índice de filtros: ${position} posições para ${n} linhas`)
    this.runRank = new Float64Array(0)

    const insertMap = db.prepare('INSERT INTO filtro_posicao VALUES (?, ?)')
    for (let b = 0; b * MAP_BLOCK < n; b++) insertMap.run(b, new Uint8Array(writeIndexAt.buffer, b * MAP_BLOCK * 4, Math.min(MAP_BLOCK, n - b * MAP_BLOCK) * 4))

    // Per chunk: count each word's positions, then fill them in position order (already sorted).
    const insertBlock = db.prepare('INSERT INTO filtro_bloco VALUES (?, ?, ?)')
    const insertValues = db.prepare('INSERT INTO filtro_valor VALUES (?, ?)')
    const kinds = Array.from({ length: FILTER_TOKEN_IDS }, (_, id) => valueKind(id))
    const count = new Uint32Array(FILTER_TOKEN_IDS)
    const offset = new Uint32Array(FILTER_TOKEN_IDS)
    let lowValues = new Uint16Array(BITMAP_CHUNK * 24)
    let rowValues = new Float64Array(BITMAP_CHUNK * 24)
    const bar = progress('índice de filtros', n, { unit: 'rows', quiet: options.quiet })
    for (let chunk = 0; chunk * BITMAP_CHUNK < n; chunk++) {
      const first = chunk * BITMAP_CHUNK
      const end = Math.min(n, first + BITMAP_CHUNK)
      const touched: number[] = []
      let total = 0
      for (let p = first; p < end; p++) {
        const w = writeIndexAt[p]!
        for (let e = this.starts[w]!; e < this.starts[w + 1]!; e++) {
          const id = this.segments[Math.floor(e / SEGMENT)]![e % SEGMENT]!
          if (count[id] === 0) touched.push(id)
          count[id]!++
          total++
          // A bucket's or year's rows are also its spans' (SPANS_OF): written here, not kept per row.
          const spans = SPANS_OF[id]
          if (spans)
            for (const x of spans) {
              if (count[x] === 0) touched.push(x)
              count[x]!++
              total++
            }
        }
      }
      touched.sort((a, b) => a - b)
      if (total > lowValues.length) (lowValues = new Uint16Array(total)), (rowValues = new Float64Array(total))
      let at = 0
      for (const id of touched) (offset[id] = at), (at += count[id]!)
      for (let p = first; p < end; p++) {
        const w = writeIndexAt[p]!
        for (let e = this.starts[w]!; e < this.starts[w + 1]!; e++) {
          const id = this.segments[Math.floor(e / SEGMENT)]![e % SEGMENT]!
          const kind = kinds[id]
          if (kind) rowValues[offset[id]!] = kind === 'capital' ? this.capital[w]! : this.abertura[w]!
          lowValues[offset[id]!++] = p - first
          const spans = SPANS_OF[id]
          if (spans) for (const x of spans) lowValues[offset[x]!++] = p - first
        }
      }
      for (const id of touched) {
        const c = count[id]!
        const values = lowValues.subarray(offset[id]! - c, offset[id]!)
        let data: Uint8Array
        if (c >= BITMAP_DENSE) {
          const bits = new Uint32Array(BITMAP_CHUNK / 32)
          for (const v of values) bits[v >>> 5]! |= 1 << (v & 31)
          data = new Uint8Array(bits.buffer)
        } else data = new Uint8Array(values.buffer, values.byteOffset, c * 2)
        insertBlock.run(bitmapRowid(id, chunk), c, data)
        const kind = kinds[id]
        if (kind) {
          const values = rowValues.slice(offset[id]! - c, offset[id]!)
          const stored = kind === 'capital' ? values : Uint32Array.from(values)
          insertValues.run(bitmapRowid(id, chunk), new Uint8Array(stored.buffer))
        }
        count[id] = 0
      }
      bar.add(end - first)
    }
    bar.done()
  }
}

function grow<T extends Uint32Array | Float64Array | Uint8Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length)
  b.set(a)
  return b
}
