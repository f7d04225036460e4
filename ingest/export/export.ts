// `dadosbr exportar`: each dataset's build in use (data/<base>/current) as Parquet files (zstd)
// under DIR/<base>/, with its manifest.json and a data dictionary (dicionario.json, dicionario.md):
// the registry through DuckDB's COPY (cnpj.ts), the small SQLite datasets through bun:sqlite and a
// DuckDB staging table (sqlite.ts), JSON builds flattened by DuckDB's read_json (specs.ts).
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { preloadDuckDbLibrary } from '../../src/core/stores/native'
import { readManifest, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'
import { progress } from '../lib/progress'
import { sqlString } from '../lib/sql'
import { exportRegistry } from './cnpj'
import { exportHistory } from './historico'
import { UNDOCUMENTED, writeDictionary, type ColumnDoc, type TableDoc } from './dictionary'
import { EXPORT_SPECS, type DatasetExportSpec, type TableSpec } from './specs'
import { dataTables, sqliteQueryToParquet, targetOf, type SqliteColumn, type Target } from './sqlite'

export interface ExportOptions {
  dataDir: string
  out: string
  /** Datasets to export; empty: every one with a build in use. */
  bases: string[]
  memoryLimit?: string
  threads?: number
  quiet?: boolean
  log: (line: string) => void
}

export interface ExportedDataset {
  base: string
  referencia: string
  tabelas: number
  linhas: number
  bytes: number
  segundos: number
  /** Tables or columns without a dictionary entry (a new table, a dataset the exporter does not know). */
  sem_descricao: string[]
}

/** Datasets with a build in use under dataDir (a `current` link with a manifest). */
export function builtDatasets(dataDir: string): string[] {
  if (!existsSync(dataDir)) return []
  return readdirSync(dataDir)
    .filter((name) => existsSync(join(dataDir, name, 'current', 'manifest.json')))
    .sort()
}

function sizeOf(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) total += entry.isDirectory() ? sizeOf(join(dir, entry.name)) : statSync(join(dir, entry.name)).size
  return total
}

async function openDuckDb(options: ExportOptions, tempDir: string): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection }> {
  await preloadDuckDbLibrary()
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    memory_limit: options.memoryLimit ?? '2GB',
    ...(options.threads ? { threads: String(options.threads) } : {}),
    temp_directory: tempDir,
    // Parquet files written in the order the rows come (no reordering for the threads).
    preserve_insertion_order: 'true',
  })
  return { instance, conn: await instance.connect() }
}

/** The columns a SQLite table is exported with, documented by its spec (or marked undocumented). */
function columnsFor(table: { name: string; columns: { name: string; declared: string | null }[] }, spec: TableSpec | undefined): { columns: SqliteColumn[]; docs: ColumnDoc[] } {
  const columns: SqliteColumn[] = []
  const docs: ColumnDoc[] = []
  for (const c of table.columns) {
    if (spec?.omitir?.[c.name]) continue
    const note = spec?.colunas[c.name]
    const target: Target = (note?.[2] as Target | undefined) ?? targetOf(c.declared)
    columns.push({ name: c.name, target })
    docs.push({ coluna: c.name, tipo: target, significado: note?.[0] ?? UNDOCUMENTED, origem: note?.[1] ?? UNDOCUMENTED })
  }
  return { columns, docs }
}

async function exportSqlite(conn: DuckDBConnection, build: string, out: string, spec: DatasetExportSpec | undefined, onRows: (n: number) => void): Promise<TableDoc[]> {
  const files = spec ? [spec.arquivo] : readdirSync(build).filter((f) => f.endsWith('.sqlite'))
  const docs: TableDoc[] = []
  for (const file of files) {
    const db = new Database(join(build, file), { readonly: true })
    try {
      for (const table of dataTables(db)) {
        if (spec?.omitir?.[table.name]) continue
        const tableSpec = spec?.tabelas.find((t) => t.tabela === table.name)
        const { columns, docs: colunas } = columnsFor(table, tableSpec)
        const name = files.length > 1 ? `${file.replace(/\.sqlite$/, '')}_${table.name}` : table.name
        const select = `SELECT ${columns.map((c) => `"${c.name}"`).join(', ')} FROM "${table.name}"`
        const linhas = await sqliteQueryToParquet(conn, db, select, columns, join(out, `${name}.parquet`), onRows)
        docs.push({ tabela: name, descricao: tableSpec?.descricao ?? UNDOCUMENTED, arquivos: `${name}.parquet`, linhas, colunas })
      }
    } finally {
      db.close()
    }
  }
  return docs
}

async function exportJson(conn: DuckDBConnection, build: string, out: string, spec: DatasetExportSpec, onRows: (n: number) => void): Promise<TableDoc[]> {
  const docs: TableDoc[] = []
  for (const table of spec.tabelas) {
    const sql = spec.sql![table.tabela]!.replaceAll('$arquivo', sqlString(join(build, spec.arquivo)))
    const file = join(out, `${table.tabela}.parquet`)
    await conn.run(`COPY (${sql}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`)
    const types = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)})`)).getRows()
    const linhas = Number((await conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(file)})`)).getRows()[0]![0])
    onRows(linhas)
    docs.push({
      tabela: table.tabela,
      descricao: table.descricao,
      arquivos: `${table.tabela}.parquet`,
      linhas,
      colunas: types.map(([name, type]) => ({ coluna: String(name), tipo: String(type), significado: table.colunas[String(name)]?.[0] ?? UNDOCUMENTED, origem: table.colunas[String(name)]?.[1] ?? UNDOCUMENTED })),
    })
  }
  return docs
}

/** Writes each chosen dataset under options.out/<base>/ (replacing what an earlier export left there). */
export async function exportDatasets(options: ExportOptions): Promise<ExportedDataset[]> {
  const available = builtDatasets(options.dataDir)
  const bases = options.bases.length ? options.bases : available
  const missing = bases.filter((b) => !available.includes(b))
  if (missing.length)
    throw new Error(`sem base construída em ${options.dataDir} para ${missing.join(', ')}; rode 'dadosbr ingest ${missing[0]}' (ou --amostra) antes${available.length ? ` (construídas: ${available.join(', ')})` : ''}`)
  mkdirSync(options.out, { recursive: true })
  const temp = join(options.out, '.duckdb.tmp')
  const { instance, conn } = await openDuckDb(options, temp)
  const results: ExportedDataset[] = []
  try {
    for (const base of bases) {
      const started = performance.now()
      const build = realpathSync(join(options.dataDir, base, 'current'))
      const manifest = readManifest<SnapshotManifest & { linhas?: Record<string, number> }>(build)
      const target = join(options.out, base)
      rmSync(target, { recursive: true, force: true })
      mkdirSync(target, { recursive: true })
      const spec = EXPORT_SPECS[base]
      const total = base === 'cnpj' ? Object.values(manifest.linhas ?? {}).reduce((a, b) => a + b, 0) || null : null
      const bar = progress(`exportar ${base}`, total, { unit: 'rows', quiet: options.quiet })
      let tables: TableDoc[]
      if (existsSync(join(build, 'cnpj.duckdb'))) {
        await conn.run(`ATTACH ${sqlString(join(build, 'cnpj.duckdb'))} AS registro (READ_ONLY)`)
        try {
          tables = await exportRegistry(conn, target, (n) => bar.add(n))
          // The registry's history (the months its build holds): the changes, and the months.
          tables.push(...(await exportHistory(conn, build, target, (n) => bar.add(n))))
        } finally {
          await conn.run('DETACH registro')
        }
      } else if (spec?.sql) tables = await exportJson(conn, build, target, spec, (n) => bar.add(n))
      else tables = await exportSqlite(conn, build, target, spec, (n) => bar.add(n))
      copyFileSync(join(build, 'manifest.json'), join(target, 'manifest.json'))
      writeDictionary(target, base, manifest.referencia, tables)
      const linhas = tables.reduce((a, t) => a + t.linhas, 0)
      bar.done()
      const semDescricao = tables.flatMap((t) => [
        ...(t.descricao === UNDOCUMENTED ? [`${base}.${t.tabela}`] : []),
        ...t.colunas.filter((c) => c.significado === UNDOCUMENTED).map((c) => `${base}.${t.tabela}.${c.coluna}`),
      ])
      results.push({ base, referencia: manifest.referencia, tabelas: tables.length, linhas, bytes: sizeOf(target), segundos: (performance.now() - started) / 1000, sem_descricao: semDescricao })
      if (semDescricao.length) options.log(`aviso: ${base}: sem descrição no dicionário: ${semDescricao.slice(0, 5).join(', ')}${semDescricao.length > 5 ? ` e mais ${semDescricao.length - 5}` : ''}`)
    }
  } finally {
    conn.closeSync()
    instance.closeSync()
    rmSync(temp, { recursive: true, force: true })
  }
  return results
}
