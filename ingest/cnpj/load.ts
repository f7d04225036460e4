// Builds a month of the registry into a new directory (DuckDB file + text index + manifest),
// checks it, and only then swaps the `current` link to it with an atomic rename. A failure at
// any step leaves the serving files untouched.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { CURRENT_LINK, DATASET_DIR, DUCKDB_FILE, MANIFEST_FILE, SEARCH_FILE } from '../../src/datasets/cnpj/layout'
import { makeFifo, pumpToFifo, removeFifo } from '../lib/fifo'
import { progress } from '../lib/progress'
import { readEntry, singleEntry, type ZipEntry } from '../lib/zip'
import { FILE_KINDS, readCsvSql, selectFor, TABLES, type FileKind } from './parse'
import { buildSearchIndex } from './search-index'

export interface SourceFile {
  zip: string
  path: string
  kind: FileKind
  size: number
  sha256: string
  entry: ZipEntry
}

export interface Reject {
  arquivo: string
  linha: number
  erro: string
}

export interface Manifest {
  base: 'RFB/CNPJ'
  referencia: string
  construido_em: string
  arquivos: { nome: string; bytes: number; sha256: string; bytes_csv: number }[]
  linhas: Record<string, number>
  rejeitadas: { total: number; exemplos: Reject[] }
  segundos: Record<string, number>
}

export interface BuildOptions {
  sourceDir: string
  month: string
  dataDir: string
  /** Build with some of the 37 zips missing (bundled sample, tests). */
  allowPartial?: boolean
  /** Malformed rows tolerated before the build fails. */
  maxRejects?: number
  memoryLimit?: string
  threads?: number
  quiet?: boolean
  log?: (line: string) => void
}

export class BuildError extends Error {}

async function sha256(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256')
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk)
  return hasher.digest('hex')
}

/** Finds the month's zips in a directory (names compared case-insensitively) and checks each one. */
export async function findSources(dir: string, allowPartial: boolean): Promise<SourceFile[]> {
  if (!existsSync(dir)) throw new BuildError(`pasta de origem não existe: ${dir}`)
  const present = new Map(readdirSync(dir).filter((f) => /\.zip$/i.test(f)).map((f) => [f.replace(/\.zip$/i, '').toLowerCase(), f]))
  const sources: SourceFile[] = []
  const missing: string[] = []
  for (const kind of FILE_KINDS)
    for (const zip of kind.zips) {
      const file = present.get(zip.toLowerCase())
      if (!file) { missing.push(zip); continue }
      const path = join(dir, file)
      const entry = await singleEntry(path)
      sources.push({ zip, path, kind, size: statSync(path).size, sha256: await sha256(path), entry })
    }
  if (missing.length && !allowPartial)
    throw new BuildError(`faltam ${missing.length} dos 37 zips em ${dir}: ${missing.join(', ')} (use --parcial para construir assim mesmo)`)
  for (const required of ['empresas', 'estabelecimentos'])
    if (!sources.some((s) => s.kind.kind === required)) throw new BuildError(`nenhum zip de ${required} em ${dir}`)
  return sources
}

async function count(conn: DuckDBConnection, sql: string): Promise<number> {
  const rows = (await conn.runAndReadAll(sql)).getRows()
  return Number(rows[0]?.[0] ?? 0)
}

/** Loads one zip through a FIFO into its table; returns rows loaded and the malformed rows seen. */
async function loadZip(conn: DuckDBConnection, source: SourceFile, workDir: string, onBytes: (n: number) => void): Promise<{ rows: number; rejects: Reject[]; rejectCount: number }> {
  const fifo = join(workDir, `${source.zip}.fifo`)
  makeFifo(fifo)
  try {
    const pump = pumpToFifo(fifo, readEntry(source.path, source.entry), onBytes)
    let insert: Promise<unknown> | undefined
    try {
      insert = conn.run(`INSERT INTO ${source.kind.kind} SELECT ${selectFor(source.kind.kind)} FROM ${readCsvSql(fifo, source.kind, 'rejeitadas')}`)
      await Promise.all([pump, insert])
    } catch (err) {
      // If the pump failed (corrupt zip), the reader saw an early end: await it before reporting.
      await Promise.allSettled([pump, insert])
      throw err
    }
    const rejectCount = await count(conn, `SELECT count(DISTINCT line) FROM rejeitadas`)
    const sample = (await conn.runAndReadAll(`SELECT line, any_value(error_message) FROM rejeitadas GROUP BY line ORDER BY line LIMIT 5`)).getRows()
    const rejects = sample.map(([line, msg]) => ({ arquivo: source.zip, linha: Number(line), erro: String(msg) }))
    const rows = await count(conn, `SELECT count(*) FROM ${source.kind.kind}`)
    await conn.run('DROP TABLE IF EXISTS rejeitadas; DROP TABLE IF EXISTS rejeitadas_scan')
    return { rows, rejects, rejectCount }
  } finally {
    await removeFifo(fifo)
  }
}

const STAGING_FILE = 'carga.duckdb'

/**
 * Lookups go by the 8-character root. Rather than ART indexes (held whole in memory: over 1 GB at
 * 11 M establishments, several GB nationally), the served tables are sorted by root and written in
 * small row groups, so DuckDB's min/max zone maps skip all but one group of 4096 rows. Measured at
 * 1.1 M rows, a full card by root: p50 1.9 ms with 4096-row groups, 7.1 ms with the default 122880.
 */
const ROW_GROUP_SIZE = 4096
const BY_ROOT = ['estabelecimentos', 'empresas', 'socios', 'simples']

async function writeServedFile(conn: DuckDBConnection, path: string): Promise<void> {
  await conn.run(`ATTACH '${path.replace(/'/g, "''")}' AS servida (ROW_GROUP_SIZE ${ROW_GROUP_SIZE}, STORAGE_VERSION 'latest')`)
  // The sorted order must reach the file as sorted.
  await conn.run('SET preserve_insertion_order = true')
  for (const kind of FILE_KINDS.map((k) => k.kind))
    await conn.run(`CREATE TABLE servida.${kind} AS SELECT * FROM ${kind}${BY_ROOT.includes(kind) ? ' ORDER BY cnpj_basico' : ''}`)
  await conn.run('CREATE TABLE servida.meta AS SELECT * FROM meta')
  await conn.run('DETACH servida')
  await conn.run('SET preserve_insertion_order = false')
}

export async function buildCnpj(options: BuildOptions): Promise<Manifest> {
  const log = options.log ?? ((l: string) => process.stderr.write(l + '\n'))
  const maxRejects = options.maxRejects ?? 1000
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(options.month)) throw new BuildError(`mês de referência inválido: ${options.month} (use AAAA-MM)`)
  const seconds: Record<string, number> = {}
  let t = performance.now()
  const lap = (name: string) => {
    const now = performance.now()
    seconds[name] = Math.round((now - t) / 100) / 10
    t = now
  }

  const sources = await findSources(options.sourceDir, options.allowPartial ?? false)
  lap('verificacao')
  const root = join(options.dataDir, DATASET_DIR)
  await mkdir(root, { recursive: true })
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')
  const buildName = `${options.month}_${stamp}`
  const work = join(root, `${buildName}.tmp`)
  await rm(work, { recursive: true, force: true })
  await mkdir(work)

  let instance: DuckDBInstance | undefined
  try {
    // Raw rows land in a staging file; the served file gets them sorted by root (see ROW_GROUP_SIZE).
    instance = await DuckDBInstance.create(join(work, STAGING_FILE), {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      storage_compatibility_version: 'latest',
      preserve_insertion_order: 'false',
      threads: String(options.threads ?? 2),
      memory_limit: options.memoryLimit ?? '6GB',
      temp_directory: join(work, 'duckdb.tmp'),
    })
    const conn = await instance.connect()
    for (const kind of FILE_KINDS) await conn.run(`CREATE TABLE ${kind.kind} (${TABLES[kind.kind]})`)

    const totalCsv = sources.reduce((n, s) => n + s.entry.uncompressedSize, 0)
    const bar = progress('carga', totalCsv, { quiet: options.quiet })
    const rows: Record<string, number> = {}
    const allRejects: Reject[] = []
    let rejectTotal = 0
    for (const source of sources) {
      const result = await loadZip(conn, source, work, (n) => bar.add(n))
      rows[source.kind.kind] = result.rows
      rejectTotal += result.rejectCount
      allRejects.push(...result.rejects)
      for (const r of result.rejects) log(`linha malformada: ${r.arquivo} linha ${r.linha}: ${r.erro}`)
      if (rejectTotal > maxRejects)
        throw new BuildError(`${rejectTotal} linhas malformadas passam do limite (${maxRejects}); a base em uso foi mantida`)
    }
    bar.done()
    lap('carga')

    await conn.run(`CREATE TABLE meta AS SELECT '${options.month}' AS referencia, now() AS construido_em`)
    // Sanity: every table that came from a file must hold rows.
    for (const kind of new Set(sources.map((s) => s.kind.kind)))
      if ((await count(conn, `SELECT count(*) FROM ${kind}`)) === 0) throw new BuildError(`a tabela ${kind} ficou vazia; a base em uso foi mantida`)

    await writeServedFile(conn, join(work, DUCKDB_FILE))
    lap('ordenacao')

    await buildSearchIndex(conn, join(work, SEARCH_FILE), { quiet: options.quiet })
    lap('busca')
    conn.closeSync()
    instance.closeSync()
    instance = undefined
    await rm(join(work, 'duckdb.tmp'), { recursive: true, force: true })
    await rm(join(work, STAGING_FILE), { force: true })
    await rm(join(work, `${STAGING_FILE}.wal`), { force: true })

    const manifest: Manifest = {
      base: 'RFB/CNPJ',
      referencia: options.month,
      construido_em: new Date().toISOString(),
      arquivos: sources.map((s) => ({ nome: basename(s.path), bytes: s.size, sha256: s.sha256, bytes_csv: s.entry.uncompressedSize })),
      linhas: rows,
      rejeitadas: { total: rejectTotal, exemplos: allRejects.slice(0, 50) },
      segundos: seconds,
    }
    await writeFile(join(work, MANIFEST_FILE), JSON.stringify(manifest, null, 2))
    await swapIn(root, work, buildName)
    return manifest
  } catch (err) {
    instance?.closeSync()
    await rm(work, { recursive: true, force: true })
    throw err
  }
}

/** Renames the finished build into place, points `current` at it atomically, keeps one previous build. */
async function swapIn(root: string, work: string, buildName: string): Promise<void> {
  const finalDir = join(root, buildName)
  await rename(work, finalDir)
  const link = join(root, CURRENT_LINK)
  const previous = existsSync(link) ? await readlink(link).catch(() => null) : null
  const tmpLink = join(root, `${CURRENT_LINK}.${process.pid}.tmp`)
  await rm(tmpLink, { force: true })
  await symlink(buildName, tmpLink)
  await rename(tmpLink, link)
  // Older builds go; the one just replaced stays so a running server can finish its requests.
  for (const entry of readdirSync(root)) {
    if (entry === buildName || entry === previous || entry === CURRENT_LINK || entry.endsWith('.tmp')) continue
    if (statSync(join(root, entry)).isDirectory()) await rm(join(root, entry), { recursive: true, force: true })
  }
}
