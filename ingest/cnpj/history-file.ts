// Writes one month file of the history (src/datasets/cnpj/historico-layout.ts): the month's
// changes in feed order, in zstd blocks, with the CNAE ordering, the roots' positions and the
// month's code tables. Written once into the build's temp dir; never changed after.
//
// The items wait in a DuckDB table (ItemSink) and come back sorted in chunks: a national month is
// ~3.5 M items, and held in JavaScript (lines and keys) they and their sorting peaked at 3.1 GB
// (measured on 3.5 M items); in DuckDB they stay under its memory limit and spill to disk beyond.
import type { DuckDBAppender, DuckDBConnection, DuckDBDataChunk, DuckDBInstance } from '@duckdb/node-api'
import { BuildError } from '../lib/snapshot'
import { Database, type Statement } from 'bun:sqlite'
import { releaseResults } from '../lib/release-results'
import {
  BLOCK_ZSTD_LEVEL, CNAE_BLOCK, cnaeBlockRaw, encodeFloats, encodeJson, feedBlockRaw, FEED_BLOCK, rootBlockRaw, ROOT_BLOCK, HISTORY_FORMAT, HISTORY_SCHEMA,
  INDEX_CNAE, INDEX_FEED, key2OfKey1, ROTULOS_ANTERIOR, ROTULOS_MES, TIPOS, type HistoryMeta, type RotulosJson,
} from '../../src/datasets/cnpj/historico-layout'

/** The table the month's items wait in, one row per item. */
const ITEMS_TABLE = `CREATE TABLE itens (chave DOUBLE, cnpj VARCHAR, campo INTEGER, linha VARCHAR, raiz DOUBLE)`
/**
 * Feed order: key1 (tipo, UF, município, CNAE), CNPJ, the field (in CAMPOS order), then the line
 * itself (partners of one company); each item's position in it is its place in the feed.
 */
const FEED_ORDER = 'chave, cnpj, campo, linha'

/** Collects a month's items into a DuckDB table, through an appender on a connection of its own. */
export class ItemSink {
  count = 0
  private constructor(readonly conn: DuckDBConnection, private readonly appender: DuckDBAppender) {}

  static async open(instance: DuckDBInstance): Promise<ItemSink> {
    const conn = await instance.connect()
    await conn.run(ITEMS_TABLE)
    return new ItemSink(conn, await conn.createAppender('itens'))
  }

  push(line: string, k1: number, cnpj: string, campo: number, root: number) {
    const a = this.appender
    a.appendDouble(k1)
    a.appendVarchar(cnpj)
    a.appendInteger(campo)
    a.appendVarchar(line)
    a.appendDouble(root)
    a.endRow()
    this.count++
  }

  private closed = false
  /** Every item appended is in the table. */
  close() {
    if (this.closed) return
    this.closed = true
    this.appender.flushSync()
    this.appender.closeSync()
  }

  /** The appender and the connection closed, whatever happened (a failed comparison or write). */
  dispose() {
    try {
      if (!this.closed) {
        this.closed = true
        this.appender.closeSync()
      }
    } finally {
      this.conn.closeSync()
    }
  }
}

export interface MonthFile {
  referencia: string
  referencia_anterior: string | null
  lacuna: boolean
  rotulos: RotulosJson
  rotulosAnterior: RotulosJson | null
  /** The month's items (none for the first month held). */
  items: ItemSink | null
  /** CNPJs that left the registry in this month. */
  saidas: string[]
  /** The município codes of the items, with their UFs (one in a clean dump: the Receita's codes are national). */
  municipios: Record<string, string[]>
}

/** Copies a chunk's DOUBLE column (none null) into `into` from `at`: read from the vector's memory, no value object made. */
function copyDoubles(chunk: DuckDBDataChunk, column: number, into: Float64Array, at: number) {
  const vector = chunk.getColumnVector(column)
  for (let i = 0; i < chunk.rowCount; i++) into[at + i] = vector.getItem(i) as number
}

/** 0, 1, ..., n - 1: the feed positions, to be sorted into another ordering. */
function places(n: number): Uint32Array {
  const out = new Uint32Array(n)
  for (let i = 0; i < n; i++) out[i] = i
  return out
}

/** Blocks compressed at once, at most (~64 × 40 KB of a feed block before compression). */
const IN_FLIGHT = 64

/**
 * Writes a table's blocks, each compressed on Bun's thread pool while the caller goes on reading
 * the next ones (zstd level 9 on the main thread held the file step to one core), and inserted in
 * the order they came: SQLite fills its pages when keys arrive in order (inserted as each
 * compression ended, a national month file came out 8 % bigger).
 */
class BlockWriter {
  private readonly pending: { key: number; blob: Promise<Uint8Array> }[] = []
  constructor(private readonly put: Statement) {}

  async add(key: number, raw: Uint8Array): Promise<void> {
    const blob = Bun.zstdCompress(raw, { level: BLOCK_ZSTD_LEVEL })
    // A failure surfaces where the block is awaited (add, finish), not as an unhandled rejection.
    blob.catch(() => {})
    this.pending.push({ key, blob })
    if (this.pending.length >= IN_FLIGHT) await this.insertOldest()
  }

  private async insertOldest() {
    const { key, blob } = this.pending.shift()!
    this.put.run(key, await blob)
  }

  /** Every block inserted, in order; the first failure thrown. */
  async finish(): Promise<void> {
    while (this.pending.length) await this.insertOldest()
  }
}

/** Writes `path` (a new file) and returns its meta. */
export async function writeMonthFile(path: string, month: MonthFile): Promise<HistoryMeta> {
  const items = month.items
  const conn = items?.conn
  const porTipo: Record<string, number> = {}
  if (conn)
    for (const [tipo, n] of (await conn.runAndReadAll(`SELECT floor(chave / ${2 ** 24 * 16384 * 32})::INTEGER AS t, count(*) FROM itens GROUP BY t ORDER BY t`)).getRows())
      porTipo[TIPOS[Number(tipo)]!] = Number(n)
  const meta: HistoryMeta = {
    formato: HISTORY_FORMAT, referencia: month.referencia, referencia_anterior: month.referencia_anterior, lacuna: month.lacuna,
    itens: items?.count ?? 0, por_tipo: porTipo,
  }
  const db = new Database(path, { create: true })
  try {
    // 16 KB pages: blocks of ~1.5 KB fill them with little slack (4 KB pages left a quarter of the file empty).
    db.exec('PRAGMA page_size = 16384; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;')
    db.exec(HISTORY_SCHEMA)
    db.exec('BEGIN')
    const putMeta = db.prepare('INSERT INTO meta (chave, valor) VALUES (?, ?)')
    for (const [k, v] of Object.entries(meta)) putMeta.run(k, typeof v === 'string' ? v : JSON.stringify(v))
    const putRotulos = db.prepare('INSERT INTO rotulos (chave, dados) VALUES (?, ?)')
    putRotulos.run(ROTULOS_MES, encodeJson(month.rotulos))
    if (month.rotulosAnterior) putRotulos.run(ROTULOS_ANTERIOR, encodeJson(month.rotulosAnterior))
    const putFeed = db.prepare('INSERT INTO fluxo (chave, dados) VALUES (?, ?)')
    const putCnae = db.prepare('INSERT INTO fluxo_cnae (chave, dados) VALUES (?, ?)')
    const putIndex = db.prepare('INSERT INTO indice (chave, dados) VALUES (?, ?)')
    const putRoot = db.prepare('INSERT INTO raiz (chave, dados) VALUES (?, ?)')
    const firstKeys: number[] = []
    const firstKeys2: number[] = []
    if (conn) {
      // The feed: FEED_BLOCK items a block, in feed order; an item's place in it is its row number
      // here. The lines are sorted once and streamed into the blocks; each item's key1 and root
      // are kept by place in typed arrays (16 bytes an item), from which the two other orderings
      // are sorted here. Sorting them in DuckDB instead, from a narrow table appended row by row,
      // took 11 of the 25 s of a national month file (docs/historico.md).
      const count = items!.count
      const keys = new Float64Array(count)
      const roots = new Float64Array(count)
      let lines: string[] = []
      let pos = 0
      let block = 0
      const feedBlocks = new BlockWriter(putFeed)
      const flushFeed = async () => {
        const from = pos - lines.length
        firstKeys.push(keys[from]!)
        await feedBlocks.add(block++, feedBlockRaw(keys.subarray(from, pos), lines))
        lines = []
      }
      const result = await conn.stream(`SELECT chave, raiz, linha FROM itens ORDER BY ${FEED_ORDER}`)
      for (;;) {
        const chunk = await result.fetchChunk()
        if (!chunk || chunk.rowCount === 0) break
        const n = chunk.rowCount
        if (pos + n > count) throw new BuildError(`o arquivo do histórico de ${month.referencia} leu mais mudanças que as ${count} do mês; a base em uso foi mantida`)
        copyDoubles(chunk, 0, keys, pos)
        copyDoubles(chunk, 1, roots, pos)
        const text = chunk.getColumnVector(2)
        for (let i = 0; i < n; i++) {
          lines.push(text.getItem(i) as string)
          pos++
          if (lines.length === FEED_BLOCK) await flushFeed()
        }
      }
      if (lines.length) await flushFeed()
      await feedBlocks.finish()
      // A stream that ends early reads as finished: the file must hold every item counted.
      if (pos !== count) throw new BuildError(`o arquivo do histórico de ${month.referencia} saiu com ${pos} das ${count} mudanças do mês; a base em uso foi mantida`)
      await conn.run('DROP TABLE itens')
      releaseResults()
      // The CNAE ordering: feed positions by (key2, position); within one CNAE it keeps the feed's order.
      const k2 = new Float64Array(count)
      for (let i = 0; i < count; i++) k2[i] = key2OfKey1(keys[i]!)
      const byCnae = places(count).sort((a, b) => k2[a]! - k2[b]! || a - b)
      block = 0
      const cnaeBlocks = new BlockWriter(putCnae)
      for (let at = 0; at < count; at += CNAE_BLOCK) {
        const slice = byCnae.subarray(at, Math.min(count, at + CNAE_BLOCK))
        const blockKeys = Float64Array.from(slice, (p) => k2[p]!)
        firstKeys2.push(blockKeys[0]!)
        await cnaeBlocks.add(block++, cnaeBlockRaw(blockKeys, slice))
      }
      await cnaeBlocks.finish()
      // Each root's feed positions, ROOT_BLOCK roots a block, keyed by the block's first root.
      const byRoot = places(count).sort((a, b) => roots[a]! - roots[b]! || a - b)
      let blockRoots: number[] = []
      let rootPositions: number[][] = []
      const rootBlocks = new BlockWriter(putRoot)
      const flushRoots = async () => {
        if (blockRoots.length) await rootBlocks.add(blockRoots[0]!, rootBlockRaw(blockRoots, rootPositions))
        blockRoots = []
        rootPositions = []
      }
      for (let i = 0; i < count; i++) {
        const p = byRoot[i]!
        const root = roots[p]!
        if (blockRoots.at(-1) === root) rootPositions.at(-1)!.push(p)
        else {
          if (blockRoots.length === ROOT_BLOCK) await flushRoots()
          blockRoots.push(root)
          rootPositions.push([p])
        }
      }
      await flushRoots()
      await rootBlocks.finish()
    }
    putIndex.run(INDEX_FEED, encodeFloats(firstKeys))
    putIndex.run(INDEX_CNAE, encodeFloats(firstKeys2))
    const putExtra = db.prepare('INSERT INTO extra (chave, dados) VALUES (?, ?)')
    putExtra.run('saidas', encodeJson(month.saidas))
    putExtra.run('municipios', encodeJson(month.municipios))
    db.exec('COMMIT')
    for (const st of [putMeta, putRotulos, putFeed, putCnae, putIndex, putRoot, putExtra]) st.finalize()
  } catch (err) {
    db.close()
    throw err
  }
  db.close()
  return meta
}
