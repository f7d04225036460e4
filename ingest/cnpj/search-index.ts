// The registry's text index: SQLite FTS5 beside the DuckDB file (DuckDB's fts extension does
// not install offline). Contentless, detail=none, accents and case folded; rowids carry the
// situação/UF partition and a static rank (see src/datasets/cnpj/layout.ts).
import type { DuckDBConnection } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { BRANCH_UNIT, filterToken, LENGTH_UNIT, RANK_BITS, SITUACOES, UFS, UNKNOWN_SITUACAO_SLOT, UNKNOWN_UF_SLOT } from '../../src/datasets/cnpj/layout'
import { progress } from '../lib/progress'

const list = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`
const TOKENIZER = `tokenize="unicode61 remove_diacritics 2"`

/** The two indexes live in two files, each written by a process of its own (see load.ts). */
const SCHEMA = {
  empresas: `
    CREATE VIRTUAL TABLE empresa_fts USING fts5(nome, content='', detail=none, columnsize=0, ${TOKENIZER});
    CREATE TABLE empresa_doc (id INTEGER PRIMARY KEY, cnpj TEXT NOT NULL, abertura INTEGER);`,
  socios: `
    CREATE VIRTUAL TABLE socio_fts USING fts5(nome, content='', detail=none, columnsize=0, ${TOKENIZER});
    CREATE TABLE socio_doc (id INTEGER PRIMARY KEY, cnpj_basico TEXT NOT NULL, nome TEXT, qualificacao TEXT, data_entrada TEXT);`,
}
export type IndexKind = keyof typeof SCHEMA

/** A new index file, written once: the journal in memory, no fsync (journal_mode OFF is refused by bun's SQLite). */
function createIndexFile(path: string, kind: IndexKind): Database {
  const db = new Database(path, { create: true })
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA page_size = 8192; PRAGMA cache_size = -262144;')
  db.exec(SCHEMA[kind])
  return db
}

/**
 * Streams `columns` of the query's rows, sorted, as arrays. DuckDB packs each row into one JSON
 * array: converting one string per row is ~2x cheaper than ten values (measured at 1.1 M rows:
 * getRows 7.7 s of a 10.7 s name index; the FTS5 inserts themselves take 1.6 s).
 */
async function* chunks(conn: DuckDBConnection, query: string, columns: string[], orderBy: string) {
  const result = await conn.stream(`SELECT json_array(${columns.join(', ')})::VARCHAR AS linha FROM (${query}) ORDER BY ${orderBy}`)
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) return
    const vector = chunk.getColumnVector(0)
    const rows: unknown[][] = new Array(chunk.rowCount)
    for (let i = 0; i < chunk.rowCount; i++) rows[i] = JSON.parse(vector.getItem(i) as string)
    yield rows
  }
}

/** The company name index (busca.sqlite); `from` names a relation (table, view or table function) per source table. */
export async function buildCompanyIndex(conn: DuckDBConnection, from: Record<'estabelecimentos' | 'empresas', string>, path: string, options: { quiet?: boolean } = {}): Promise<number> {
  const db = createIndexFile(path, 'empresas')
  const total = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${from.estabelecimentos}`)).getRows()[0]![0])
  const bar = progress('índice de nomes', total, { unit: 'rows', quiet: options.quiet })
  const insertFts = db.prepare('INSERT INTO empresa_fts (rowid, nome) VALUES (?, ?)')
  // A result's other fields come from the card store; the doc holds what a search filters on.
  const insertDoc = db.prepare('INSERT INTO empresa_doc VALUES (?, ?, ?)')
  // Rows in rowid order: partition (situação slot * 32 + UF slot), then the static rank (shorter
  // legal names first, headquarters before branches), then CNPJ, so equal queries page the same way.
  // DuckDB computes each row's rank base (rowid less its sequence number) and its indexed text,
  // names and filter words: the JS side only numbers equal bases and inserts (measured at 1.1 M
  // establishments, whole index: 12-14 s when JS parsed a JSON row and assembled the words, 11.5 s).
  const particao = `(coalesce(list_position(${list(SITUACOES)}, e.situacao) - 1, ${UNKNOWN_SITUACAO_SLOT}) * 32 + coalesce(list_position(${list(UFS)}, e.uf) - 1, ${UNKNOWN_UF_SLOT}))`
  const tamanho = `least(length(coalesce(m.razao_social, e.nome_fantasia, '')), 255)`
  const token = (make: (code: string) => string, column: string) => `'${make('')}' || ${column}`
  const sql = `
    SELECT (${particao}::BIGINT * ${RANK_BITS} + ${tamanho}::BIGINT * ${LENGTH_UNIT} + CASE WHEN e.matriz_filial = 2 THEN ${BRANCH_UNIT} ELSE 0 END)::DOUBLE AS base,
           e.cnpj,
           concat_ws(' ', m.razao_social, e.nome_fantasia, ${token(filterToken.cnae, 'e.cnae_principal')}, ${token(filterToken.municipio, 'e.municipio')}, ${token(filterToken.porte, 'm.porte')}) AS nome,
           CAST(strftime(e.data_inicio, '%Y%m%d') AS INTEGER) AS abertura
    FROM ${from.estabelecimentos} e LEFT JOIN ${from.empresas} m USING (cnpj_basico)
    ORDER BY base, e.cnpj`
  let base = -1
  let seq = 0
  let done = 0
  db.exec('BEGIN')
  const result = await conn.stream(sql)
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) break
    const [bases, cnpjs, nomes, aberturas] = [0, 1, 2, 3].map((i) => chunk.getColumnVector(i))
    for (let i = 0; i < chunk.rowCount; i++) {
      const b = bases!.getItem(i) as number
      if (b !== base) { base = b; seq = 0 }
      const id = b + seq++
      insertFts.run(id, nomes!.getItem(i) as string)
      insertDoc.run(id, cnpjs!.getItem(i) as string, aberturas!.getItem(i) as number | null)
    }
    done += chunk.rowCount
    bar.add(chunk.rowCount)
    if (done % 1_000_000 < chunk.rowCount) { db.exec('COMMIT'); db.exec('BEGIN') }
  }
  db.exec('COMMIT')
  bar.done()

  db.exec("INSERT INTO empresa_fts(empresa_fts) VALUES('optimize')")
  db.close()
  return done
}

/** The partner name index (busca_socios.sqlite), ids in name order (shorter names first). */
export async function buildPartnerIndex(conn: DuckDBConnection, from: Record<'socios', string>, path: string, options: { quiet?: boolean } = {}): Promise<number> {
  const db = createIndexFile(path, 'socios')
  const total = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${from.socios}`)).getRows()[0]![0])
  const bar = progress('índice de sócios', total, { unit: 'rows', quiet: options.quiet })
  const insertFts = db.prepare('INSERT INTO socio_fts (rowid, nome) VALUES (?, ?)')
  const insertDoc = db.prepare('INSERT INTO socio_doc VALUES (?, ?, ?, ?, ?)')
  let id = 0
  db.exec('BEGIN')
  const socios = `SELECT cnpj_basico, nome, qualificacao, strftime(data_entrada, '%Y-%m-%d') AS entrada FROM ${from.socios} WHERE nome IS NOT NULL`
  for await (const rows of chunks(conn, socios, ['cnpj_basico', 'nome', 'qualificacao', 'entrada'], 'length(nome), nome, cnpj_basico')) {
    for (const [basico, nome, qualificacao, entrada] of rows) {
      insertFts.run(id, nome as string)
      insertDoc.run(id++, basico as string, nome as string, qualificacao as string | null, entrada as string | null)
    }
    bar.add(rows.length)
    if (id % 1_000_000 < rows.length) { db.exec('COMMIT'); db.exec('BEGIN') }
  }
  db.exec('COMMIT')
  bar.done()
  db.exec("INSERT INTO socio_fts(socio_fts) VALUES('optimize')")
  db.close()
  return id
}

export interface IndexFromPartsOptions {
  quiet?: boolean
  /** DuckDB's memory limit in this process (the build's own DuckDB runs beside it). */
  memoryLimit?: string
  /** Where DuckDB may spill the sort. */
  tempDir: string
}

/**
 * Builds one name index from the build's Parquet partitions (`<partsDir>/<table>/part=N/*.parquet`)
 * with a DuckDB of its own. The build runs each in a child process (`dadosbr _indice-de-nomes`):
 * an index is JavaScript work (FTS5 inserts) that would otherwise share one thread with the card
 * store's inserts (measured at 1.1 M establishments: 10.5 s of the index's 11 s), and nationally the
 * two indexes on one thread were the build's longest task, with the other core idle at the end.
 */
export async function buildIndexFromParts(kind: IndexKind, partsDir: string, path: string, options: IndexFromPartsOptions): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    threads: '1',
    memory_limit: options.memoryLimit ?? '3GB',
    temp_directory: options.tempDir,
  })
  const conn = await instance.connect()
  try {
    const parquet = (kind: string) => `read_parquet('${join(partsDir, kind, '*', '*.parquet').replace(/'/g, "''")}', hive_partitioning = false)`
    return kind === 'empresas'
      ? await buildCompanyIndex(conn, { estabelecimentos: parquet('estabelecimentos'), empresas: parquet('empresas') }, path, { quiet: options.quiet })
      : await buildPartnerIndex(conn, { socios: parquet('socios') }, path, { quiet: options.quiet })
  } finally {
    conn.closeSync()
    instance.closeSync()
  }
}
