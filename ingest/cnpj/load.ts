// Builds a month of the registry into a new directory (DuckDB file + text index + manifest),
// checks it, and only then swaps the `current` link to it with an atomic rename. A failure at
// any step leaves the serving files untouched.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { CURRENT_LINK, DATASET_DIR, DUCKDB_FILE, FICHA, MANIFEST_FILE, PARTITIONED_TABLES, PARTITIONS, partitionSql, partitionTable, SEARCH_FILE, type FichaField } from '../../src/datasets/cnpj/layout'
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

const sqlPath = (path: string) => `'${path.replace(/'/g, "''")}'`
const isPartitioned = (kind: string): kind is (typeof PARTITIONED_TABLES)[number] => (PARTITIONED_TABLES as readonly string[]).includes(kind)

/**
 * Loads one zip through a FIFO into its staging table (per-root kinds, tagged with their root
 * partition) or, for lookups, straight into the served file. Returns rows loaded and the
 * malformed rows seen. (DuckDB 1.5 hangs on a COPY whose source is a FIFO, so the Parquet
 * partitions are written from the staging tables afterwards.)
 */
async function loadZip(conn: DuckDBConnection, source: SourceFile, workDir: string, onBytes: (n: number) => void): Promise<{ rows: number; rejects: Reject[]; rejectCount: number }> {
  const fifo = join(workDir, `${source.zip}.fifo`)
  makeFifo(fifo)
  const kind = source.kind.kind
  const select = `SELECT ${selectFor(kind)} FROM ${readCsvSql(fifo, source.kind, 'rejeitadas')}`
  const sql = isPartitioned(kind)
    ? `INSERT INTO ${kind} SELECT *, ${partitionSql('cnpj_basico')} AS part FROM (${select})`
    : `INSERT INTO servida.${kind} ${select}`
  try {
    const pump = pumpToFifo(fifo, readEntry(source.path, source.entry), onBytes)
    let load: Promise<number> | undefined
    try {
      load = conn.runAndReadAll(sql).then((r) => Number(r.getRows()[0]?.[0] ?? 0))
      await Promise.all([pump, load])
    } catch (err) {
      // If the pump failed (corrupt zip), the reader saw an early end: await it before reporting.
      await Promise.allSettled([pump, load])
      throw err
    }
    const rejectCount = await count(conn, `SELECT count(DISTINCT line) FROM rejeitadas`)
    const sample = (await conn.runAndReadAll(`SELECT line, any_value(error_message) FROM rejeitadas GROUP BY line ORDER BY line LIMIT 5`)).getRows()
    const rejects = sample.map(([line, msg]) => ({ arquivo: source.zip, linha: Number(line), erro: String(msg) }))
    await conn.run('DROP TABLE IF EXISTS rejeitadas; DROP TABLE IF EXISTS rejeitadas_scan')
    return { rows: await load, rejects, rejectCount }
  } finally {
    await removeFifo(fifo)
  }
}

const PARTS_DIR = 'partes'
/** Two loads at once need a native thread pool of 8 (see rerunWithThreadPool in src/cli.ts). */
const LOAD_IN_PARALLEL = Number(process.env.UV_THREADPOOL_SIZE ?? 0) >= 8
const STAGING_FILE = 'carga.duckdb'
const MEMORY_LIMIT = '5GB'

/** One pass over each staging table writes its rows as Parquet files, one folder per partition. */
async function splitPartitions(conn: DuckDBConnection, workDir: string): Promise<void> {
  await mkdir(join(workDir, PARTS_DIR))
  for (const kind of PARTITIONED_TABLES) {
    await conn.run(`COPY ${kind} TO ${sqlPath(join(workDir, PARTS_DIR, kind))} (FORMAT parquet, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
    await conn.run(`DROP TABLE ${kind}`)
  }
}

/**
 * Lookups go by the 8-character root. Rather than ART indexes (held whole in memory: over 1 GB at
 * 11 M establishments, several GB nationally), each partition table is sorted by root and written
 * in small row groups, so DuckDB's min/max zone maps skip all but one group of 4096 rows. Measured
 * at 1.1 M rows, a full card by root: p50 1.9 ms with 4096-row groups, 7.1 ms with the default 122880.
 */
const ROW_GROUP_SIZE = 4096

/** SQL of each card field (FICHA order) over e = establishment, m = company, si = Simples. */
const FICHA_SQL: Record<FichaField, string> = {
  cnpj: 'e.cnpj', matriz_filial: 'e.matriz_filial::VARCHAR', nome_fantasia: 'e.nome_fantasia', situacao: 'e.situacao',
  data_situacao: "strftime(e.data_situacao, '%Y-%m-%d')", motivo: 'e.motivo', data_inicio: "strftime(e.data_inicio, '%Y-%m-%d')",
  cnae_principal: 'e.cnae_principal', cnaes_secundarios: 'e.cnaes_secundarios', tipo_logradouro: 'e.tipo_logradouro',
  logradouro: 'e.logradouro', numero: 'e.numero', complemento: 'e.complemento', bairro: 'e.bairro', municipio: 'e.municipio',
  cidade_exterior: 'e.cidade_exterior', uf: 'e.uf', cep: 'e.cep', ddd1: 'e.ddd1', telefone1: 'e.telefone1', ddd2: 'e.ddd2',
  telefone2: 'e.telefone2', email: 'e.email', razao_social: 'm.razao_social', natureza_juridica: 'm.natureza_juridica',
  porte: 'm.porte', capital_social: 'm.capital_social::VARCHAR', opcao_simples: 'si.opcao_simples::VARCHAR', opcao_mei: 'si.opcao_mei::VARCHAR',
  pais: 'e.pais', ddd_fax: 'e.ddd_fax', fax: 'e.fax', situacao_especial: 'e.situacao_especial',
  data_situacao_especial: "strftime(e.data_situacao_especial, '%Y-%m-%d')",
}

/** The `estabelecimentos` view: every column of the raw table, typed back from the card. */
function establishmentsView(): string {
  const columns = TABLES.estabelecimentos.split(', ').map((c) => {
    const [name, type] = c.split(' ') as [string, string]
    if (name === 'cnpj') return name
    if (name === 'cnpj_basico') return 'substr(cnpj, 1, 8) AS cnpj_basico'
    const value = `json_extract_string(ficha, '$[${FICHA.indexOf(name as FichaField)}]')`
    return `${type === 'VARCHAR' ? value : `CAST(${value} AS ${type})`} AS ${name}`
  })
  return `CREATE VIEW estabelecimentos AS SELECT ${columns.join(', ')} FROM (${unionOfPartitions('estabelecimentos')})`
}

const unionOfPartitions = (kind: (typeof PARTITIONED_TABLES)[number]) =>
  Array.from({ length: PARTITIONS }, (_, p) => `SELECT * FROM ${partitionTable(kind, p)}`).join(' UNION ALL ')

/** Waits for every task; fails with the first failure only after all have stopped. */
async function allSettledOrThrow(tasks: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(tasks)).find((o) => o.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
}

/** One partition's Parquet files, or null when the partition got no rows. */
function partFiles(workDir: string, kind: string, p: number): string | null {
  const dir = join(workDir, PARTS_DIR, kind, `part=${p}`)
  return existsSync(dir) ? `read_parquet(${sqlPath(join(dir, '*.parquet'))}, hive_partitioning = false)` : null
}

/** Writes each partition's tables into the served file, sorted by root, then the views over them. */
async function writePartitions(conn: DuckDBConnection, workDir: string, quiet?: boolean): Promise<void> {
  const bar = progress('ordenação', PARTITIONS, { unit: 'rows', quiet })
  for (let p = 0; p < PARTITIONS; p++) {
    for (const kind of ['empresas', 'simples', 'socios'] as const) {
      const files = partFiles(workDir, kind, p)
      const table = `servida.${partitionTable(kind, p)}`
      await conn.run(files ? `CREATE TABLE ${table} AS SELECT * FROM ${files} ORDER BY cnpj_basico` : `CREATE TABLE ${table} (${TABLES[kind]})`)
    }
    const files = partFiles(workDir, 'estabelecimentos', p)
    const table = `servida.${partitionTable('estabelecimentos', p)}`
    // A root listed twice in Empresas or Simples must not duplicate its establishments.
    const one = (kind: 'empresas' | 'simples') => `(SELECT DISTINCT ON (cnpj_basico) * FROM servida.${partitionTable(kind, p)})`
    await conn.run(
      files
        ? `CREATE TABLE ${table} AS SELECT e.cnpj, to_json([${FICHA.map((f) => FICHA_SQL[f]).join(', ')}])::VARCHAR AS ficha
           FROM ${files} e LEFT JOIN ${one('empresas')} m USING (cnpj_basico) LEFT JOIN ${one('simples')} si USING (cnpj_basico)
           ORDER BY e.cnpj`
        : `CREATE TABLE ${table} (cnpj VARCHAR, ficha VARCHAR)`,
    )
    bar.add(1)
  }
  bar.done()
  // Views resolve names in their own file, so they are created from inside it.
  await conn.run('USE servida')
  for (const kind of PARTITIONED_TABLES)
    await conn.run(kind === 'estabelecimentos' ? establishmentsView() : `CREATE VIEW ${kind} AS ${unionOfPartitions(kind)}`)
  await conn.run('USE carga') // the staging file's catalog
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
    // Per-root rows land in a staging file, then go through Parquet partitions in the work dir;
    // the served file is attached with small row groups (see ROW_GROUP_SIZE).
    instance = await DuckDBInstance.create(join(work, STAGING_FILE), {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      preserve_insertion_order: 'false',
      threads: String(options.threads ?? 2),
      // The whole process must peak under 8 GB; the limit covers DuckDB's buffer pool only (with
      // 6GB a national build peaked at 8.2 GB: Bun's heap, SQLite's cache and DuckDB's overshoot).
      memory_limit: options.memoryLimit ?? MEMORY_LIMIT,
      temp_directory: join(work, 'duckdb.tmp'),
    })
    const conn = await instance.connect()
    await conn.run(`ATTACH ${sqlPath(join(work, DUCKDB_FILE))} AS servida (ROW_GROUP_SIZE ${ROW_GROUP_SIZE}, STORAGE_VERSION 'latest')`)
    for (const { kind } of FILE_KINDS)
      await conn.run(isPartitioned(kind) ? `CREATE TABLE ${kind} (${TABLES[kind]}, part UTINYINT)` : `CREATE TABLE servida.${kind} (${TABLES[kind]})`)

    const totalCsv = sources.reduce((n, s) => n + s.entry.uncompressedSize, 0)
    const bar = progress('carga', totalCsv, { quiet: options.quiet })
    const rows: Record<string, number> = Object.fromEntries(FILE_KINDS.filter((k) => sources.some((s) => s.kind === k)).map((k) => [k.kind, 0]))
    const results: { source: SourceFile; rejects: Reject[] }[] = []
    let rejectTotal = 0
    // Two zips at a time, largest first: one CSV reader is single-threaded on a pipe, and
    // inflating and parsing one file leaves the second core mostly idle.
    const queue = [...sources].sort((x, y) => y.entry.uncompressedSize - x.entry.uncompressedSize)
    const worker = async (c: DuckDBConnection) => {
      for (let source = queue.shift(); source; source = queue.shift()) {
        const result = await loadZip(c, source, work, (n) => bar.add(n))
        rows[source.kind.kind]! += result.rows
        rejectTotal += result.rejectCount
        results.push({ source, rejects: result.rejects })
        for (const r of result.rejects) log(`linha malformada: ${r.arquivo} linha ${r.linha}: ${r.erro}`)
        if (rejectTotal > maxRejects) {
          queue.length = 0
          throw new BuildError(`${rejectTotal} linhas malformadas passam do limite (${maxRejects}); a base em uso foi mantida`)
        }
      }
    }
    const second = await instance.connect()
    try {
      await allSettledOrThrow(LOAD_IN_PARALLEL ? [worker(conn), worker(second)] : [worker(conn)])
    } finally {
      second.closeSync()
    }
    const allRejects = sources.flatMap((s) => results.find((r) => r.source === s)?.rejects ?? [])
    bar.done()
    lap('carga')

    // Sanity: every table that came from a file must hold rows.
    for (const [kind, n] of Object.entries(rows)) if (n === 0) throw new BuildError(`a tabela ${kind} ficou vazia; a base em uso foi mantida`)
    await conn.run(`CREATE TABLE servida.meta AS SELECT '${options.month}' AS referencia, now() AS construido_em`)

    await splitPartitions(conn, work)
    lap('particoes')

    // The served tables and the text index are built at once from the Parquet partitions: the
    // index is one SQLite writer on the JS thread, the tables are DuckDB's threads (measured at
    // 11 M establishments: 98 s + 135 s one after the other). The index's bars show the progress.
    await conn.run('SET preserve_insertion_order = true') // each partition reaches the file sorted
    const parquet = (kind: string) => `read_parquet(${sqlPath(join(work, PARTS_DIR, kind, '*', '*.parquet'))}, hive_partitioning = false)`
    const indexConn = await instance.connect()
    try {
      const tables = writePartitions(conn, work, LOAD_IN_PARALLEL || options.quiet)
      const index = (LOAD_IN_PARALLEL ? Promise.resolve() : tables).then(() =>
        buildSearchIndex(indexConn, { estabelecimentos: parquet('estabelecimentos'), empresas: parquet('empresas'), socios: parquet('socios') }, join(work, SEARCH_FILE), { quiet: options.quiet }),
      )
      await allSettledOrThrow([tables, index])
    } finally {
      indexConn.closeSync()
    }
    await conn.run('SET preserve_insertion_order = false')
    await rm(join(work, PARTS_DIR), { recursive: true, force: true })
    lap('tabelas_e_busca')
    await conn.run('DETACH servida')
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
