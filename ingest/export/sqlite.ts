// A table of a small dataset's SQLite file as one Parquet file. DuckDB has no SQLite scanner offline
// (only core_functions, icu, json, parquet and autocomplete are built in), so the rows are read
// with bun:sqlite, appended into a DuckDB staging table, and written with COPY ... (FORMAT parquet).
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { sqlString } from '../lib/sql'

/** How a column is staged and what it becomes in the Parquet file. */
export type Target = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'DATE' | 'TIMESTAMP' | 'JSON' | 'BOOLEAN'

export interface SqliteColumn {
  name: string
  target: Target
}

/** The Parquet type of a SQLite declared type when the spec says nothing (BLOBs are JSON text in every dataset of this version). */
export function targetOf(declared: string | null): Target {
  const t = (declared ?? '').toUpperCase()
  if (t.includes('INT')) return 'BIGINT'
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB') || t.includes('NUM')) return 'DOUBLE'
  if (t.includes('BLOB')) return 'JSON'
  return 'VARCHAR'
}

const STAGE: Record<Target, string> = { VARCHAR: 'VARCHAR', BIGINT: 'BIGINT', DOUBLE: 'DOUBLE', DATE: 'VARCHAR', TIMESTAMP: 'VARCHAR', JSON: 'VARCHAR', BOOLEAN: 'BIGINT' }
const decoder = new TextDecoder('utf-8', { fatal: true })

function append(appender: DuckDBAppender, target: Target, value: unknown): void {
  if (value === null || value === undefined) return appender.appendNull()
  switch (STAGE[target]) {
    case 'BIGINT':
      return appender.appendBigInt(BigInt(typeof value === 'number' ? Math.trunc(value) : Number(value)))
    case 'DOUBLE':
      return appender.appendDouble(Number(value))
    default:
      return appender.appendVarchar(value instanceof Uint8Array ? decoder.decode(value) : String(value))
  }
}

/** Casts from the staging column to the Parquet column (dates kept as text when they are not ISO dates). */
function finalExpr(c: SqliteColumn): string {
  const q = `"${c.name}"`
  switch (c.target) {
    case 'DATE':
      return `TRY_CAST(${q} AS DATE) AS ${q}`
    case 'TIMESTAMP':
      return `TRY_CAST(${q} AS TIMESTAMPTZ) AS ${q}`
    case 'JSON':
      return `${q}::JSON AS ${q}`
    case 'BOOLEAN':
      return `(${q} <> 0) AS ${q}`
    default:
      return q
  }
}

/** Runs `select` on the SQLite file and writes its rows to `file` as Parquet; returns the row count. */
export async function sqliteQueryToParquet(conn: DuckDBConnection, db: Database, select: string, columns: SqliteColumn[], file: string, onRows: (n: number) => void): Promise<number> {
  const stage = `stage_${Math.random().toString(36).slice(2, 10)}`
  await conn.run(`CREATE TEMP TABLE ${stage} (${columns.map((c) => `"${c.name}" ${STAGE[c.target]}`).join(', ')})`)
  try {
    const appender = await conn.createAppender(stage)
    let rows = 0
    for (const row of db.query(select).values()) {
      for (let i = 0; i < columns.length; i++) append(appender, columns[i]!.target, row[i])
      appender.endRow()
      if (++rows % 50_000 === 0) {
        appender.flushSync()
        onRows(50_000)
      }
    }
    appender.closeSync()
    onRows(rows % 50_000)
    await conn.run(`COPY (SELECT ${columns.map(finalExpr).join(', ')} FROM ${stage}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`)
    return rows
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${stage}`)
  }
}

/** The tables of a SQLite file that hold data (not SQLite's own, not FTS5 shadow tables). */
export function dataTables(db: Database): { name: string; columns: { name: string; declared: string | null }[] }[] {
  const names = db.query<{ name: string; sql: string }, []>(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid`).all()
  const fts = names.filter((t) => /VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name)
  return names
    .filter((t) => !/VIRTUAL TABLE/i.test(t.sql ?? '') && !fts.some((f) => t.name.startsWith(`${f}_`)))
    .map((t) => ({ name: t.name, columns: db.query<{ name: string; type: string }, []>(`SELECT name, type FROM pragma_table_info('${t.name.replace(/'/g, "''")}')`).all().map((c) => ({ name: c.name, declared: c.type || null })) }))
}
