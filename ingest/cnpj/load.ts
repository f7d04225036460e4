// Builds a month of the registry (DuckDB file, card store, two name indexes, manifest) through the
// shared build-and-swap (ingest/lib/snapshot.ts): in a new directory, checked, and only then made
// current by an atomic rename of the `current` link. A failure at any step leaves the serving
// files untouched.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { readManifest, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'
import { buildHead, CARD_TABLES, CARDS_FILE, CURRENT_LINK, DATASET_DIR, DUCKDB_FILE, FORMAT, PARTITIONED_TABLES, PARTITIONS, PARTNER_SEARCH_FILE, partitionSql, SEARCH_FILE, SERVED_FILES } from '../../src/datasets/cnpj/layout'
import { BuildError, buildSnapshot } from '../lib/snapshot'
import { cardQueries, chooseDictionary, createCardStore, type CardStore } from './card-store'
import { makeFifo, pumpToFifo, removeFifo } from '../lib/fifo'
import { progress } from '../lib/progress'
import { readEntry, singleEntry, type ZipEntry } from '../lib/zip'
import { FILE_KINDS, readCsvSql, selectFor, TABLES, type FileKind } from './parse'
import { runSelf } from '../lib/self'
import { machineCores } from '../../src/core/cores'
import { POOL_THREADS_PER_LOAD } from '../lib/thread-pool'
import { sqlString } from '../lib/sql'
import { partitionRelation, partitionSelect, type PartitionedTable } from './partitions'
import { releaseResults } from '../lib/release-results'
import { attachIbgeCodes, municipiosTableIn, MunicipiosTableError, readMunicipiosTable, type MunicipiosRecord } from './municipios'
import { buildHistory, planHistory, writeFingerprints, type HistorySummary } from './history'

export interface SourceFile {
  zip: string
  path: string
  kind: FileKind
  size: number
  /** Filled in while the zip is read for the load (readEntry hashes the whole file on the way). */
  sha256?: string
  entry: ZipEntry
}

export interface Reject {
  arquivo: string
  linha: number
  erro: string
}

export interface Manifest extends SnapshotManifest {
  base: 'RFB/CNPJ'
  /** Layout version of the files (FORMAT in src/datasets/cnpj/layout.ts). */
  formato: number
  referencia: string
  construido_em: string
  arquivos: { nome: string; bytes: number; sha256: string; bytes_csv: number }[]
  linhas: Record<string, number>
  rejeitadas: { total: number; exemplos: Reject[] }
  segundos: Record<string, number>
  /**
   * CPU time of each phase (user + system, all threads), and of each name index's process: which
   * work bounds a build on a given machine (a phase's CPU over its seconds is the cores it kept busy).
   */
  cpu_segundos: Record<string, number>
  /** The Receita's TOM ↔ IBGE table the cards' codigo_municipio_ibge comes from (ingest/cnpj/municipios.ts). */
  municipios_ibge: MunicipiosRecord
  /** The history after this build (ingest/cnpj/history.ts): months held, what this month changed. */
  historico: HistorySummary
}

export interface BuildOptions {
  sourceDir: string
  month: string
  dataDir: string
  /** Build with some of the 37 zips missing (bundled sample, tests). */
  allowPartial?: boolean
  /**
   * The Receita's municipios.csv (TOM ↔ IBGE), or how to get it (the command downloads it when the
   * folder lacks it; asked only once the options and the zips are checked); default: the one in sourceDir.
   */
  municipiosCsv?: string | (() => Promise<string>)
  /** Malformed rows tolerated before the build fails. */
  maxRejects?: number
  memoryLimit?: string
  /** Cores the build may use (default: all the machine reports); see buildPlan. */
  cores?: number
  quiet?: boolean
  log?: (line: string) => void
  /** Start a new history at this month instead of comparing with the build in use (the bundled sample). */
  historyRestart?: boolean
}

/** Zips of a whole month (37). */
const ZIP_COUNT = FILE_KINDS.reduce((n, k) => n + k.zips.length, 0)

/** Finds the month's zips in a directory (names compared case-insensitively) and checks each one's directory. */
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
      sources.push({ zip, path, kind, size: statSync(path).size, entry })
    }
  if (missing.length && !allowPartial)
    throw new BuildError(`faltam ${missing.length} dos ${ZIP_COUNT} zips em ${dir}: ${missing.join(', ')} (use --parcial para construir assim mesmo)`)
  for (const required of ['empresas', 'estabelecimentos'])
    if (!sources.some((s) => s.kind.kind === required)) throw new BuildError(`nenhum zip de ${required} em ${dir}`)
  return sources
}

async function count(conn: DuckDBConnection, sql: string): Promise<number> {
  const rows = (await conn.runAndReadAll(sql)).getRows()
  return Number(rows[0]?.[0] ?? 0)
}

/**
 * Loads one zip through a FIFO into its table of the served file. Returns rows loaded and the
 * malformed rows seen. (DuckDB 1.5 hangs on a COPY whose source is a FIFO, so the Parquet
 * partitions are written from the loaded tables afterwards.)
 */
async function loadZip(conn: DuckDBConnection, source: SourceFile, workDir: string, onBytes: (n: number) => void): Promise<{ rows: number; rejects: Reject[]; rejectCount: number }> {
  const fifo = join(workDir, `${source.zip}.fifo`)
  makeFifo(fifo)
  const kind = source.kind.kind
  const select = `SELECT ${selectFor(kind)} FROM ${readCsvSql(fifo, source.kind, 'rejeitadas')}`
  const sql = `INSERT INTO ${kind} ${select}`
  try {
    const hasher = new Bun.CryptoHasher('sha256')
    const pump = pumpToFifo(fifo, readEntry(source.path, source.entry, hasher), onBytes).then(() => { source.sha256 = hasher.digest('hex') })
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

/**
 * Each load holds its own CSV buffers and row groups outside the shared memory limit: 4 national
 * establishment files at once peaked at 4.6 GB, 2 at 4.0 GB (~0.3 GB a load): 8 would be ~5.8 GB,
 * under the build's 8 GB (not measured: this machine has 2 cores).
 */
const MAX_LOADS_AT_ONCE = 8

export interface BuildPlan {
  /** Zips loaded at once. */
  loadsAtOnce: number
  /** DuckDB threads of the Parquet split (the load itself runs on its callers only, see LOAD_THREADS). */
  duckdbThreads: number
  /** DuckDB threads of the card store, beside the two index processes. */
  cardThreads: number
  /** DuckDB threads of each name-index process. */
  indexThreads: number
}

/**
 * DuckDB threads while the zips load: none of its own, so each load runs on the thread that
 * called it. With a pool thread of its own, DuckDB's caller busy-waits (re-polling the task queue
 * under a mutex) while the pool thread runs the single-threaded pipe scan: measured with perf at
 * 1.1 M establishments, that spin was ~9 % of the whole build's CPU, and the load's CPU fell from
 * 14.6-18.6 to 12.7-13.5 s with the same wall time.
 */
const LOAD_THREADS = 1

/**
 * How a build spreads over the machine. One zip per core at once: a CSV reader on a pipe is
 * single-threaded, and each load keeps ~1 core busy (measured on 2 cores: 2 at once ~1.9 cores).
 * Each load needs POOL_THREADS_PER_LOAD threads of the native pool, so the pool caps them.
 * The Parquet split gets every core. In the final phase the card store and the two index
 * processes run at once: each index gets a third of the cores and the cards what is left (at
 * least 1; on 2 cores a second card thread only spun: 10.5-10.7 CPU-s with 1 thread against
 * 11.1-11.8 with 2, measured at 1.1 M). The cards outlast the indexes (nationally ~480 CPU-s with
 * the partner index sharing their core, against ~350 for the company index), so once both
 * indexes are done the card queries take every core (final phase at 28 GB of CSV: 1.80 → 1.90
 * cores busy). On 2 cores this is the measured setup (2 loads, split 2 threads, cards and
 * indexes 1 each); more cores were not measured here.
 */
export function buildPlan(cores: number, threadPool: number): BuildPlan {
  const n = Math.max(1, Math.floor(cores))
  const loads = Math.min(n, MAX_LOADS_AT_ONCE, Math.floor(threadPool / POOL_THREADS_PER_LOAD))
  const indexThreads = Math.max(1, Math.floor(n / 3))
  return { loadsAtOnce: Math.max(1, loads), duckdbThreads: n, cardThreads: Math.max(1, n - 2 * indexThreads), indexThreads }
}
const MEMORY_LIMIT = '4GB'
/**
 * DuckDB memory of the history's comparison, which runs alone before the cards (the budget:
 * 2 GB for it). Measured at 10 M companies: 1GB and 512MB take the same time; the phase peaked at
 * 1.95 and 1.49 GB.
 */
const HISTORY_MEMORY = '512MB'
/**
 * DuckDB memory while the cards (this process) and the two name indexes (children) are built at
 * once: the build's limit, split 30/45/25 (each sorts one root partition at a time; the company
 * index's rows are the widest, the partner index's the fewest).
 */
function phaseMemory(limit: string): { cards: string; empresas: string; socios: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(GB|GIB|MB|MIB)\s*$/i.exec(limit)
  if (!m) throw new BuildError(`limite de memória inválido: ${limit} (use, por exemplo, 5GB ou 800MB)`)
  const mb = Number(m[1]) * (m[2]!.toUpperCase().startsWith('G') ? 1024 : 1)
  const share = (f: number) => `${Math.floor(mb * f)}MB`
  return { cards: share(0.3), empresas: share(0.45), socios: share(0.25) }
}

/**
 * One pass over each per-root table writes its rows as Parquet files, one folder per root
 * partition, with the columns partitionSelect gives. Uncompressed: they are read once, right
 * after, and decompressing them cost ~20 % of the card queries (measured at 1.1 M establishments:
 * 2.55 s snappy, 1.96 s uncompressed).
 */
async function splitPartitions(conn: DuckDBConnection, workDir: string): Promise<void> {
  await mkdir(join(workDir, PARTS_DIR))
  for (const kind of PARTITIONED_TABLES)
    await conn.run(`COPY (SELECT ${partitionSelect(kind)}, ${partitionSql('cnpj_basico')} AS part FROM ${kind}) TO ${sqlString(join(workDir, PARTS_DIR, kind))} (FORMAT parquet, COMPRESSION 'uncompressed', PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
}

/** Waits for every task; fails with the first failure only after all have stopped. */
async function allSettledOrThrow(tasks: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(tasks)).find((o) => o.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
}

/** One partition's Parquet files as a relation (an empty one with the table's columns when the partition got no rows). */
function partRelation(workDir: string, kind: PartitionedTable, p: number): string {
  return partitionRelation(join(workDir, PARTS_DIR), kind, p) ?? `(SELECT ${partitionSelect(kind)} FROM ${kind} LIMIT 0)`
}

/**
 * Fills the card store: every partition's establishment cards first, then the partners and the
 * companies without establishments. SQLite appends pages in the order rows arrive, so the cards,
 * which every lookup reads, make the front of the file: the server's prewarm reads the file from
 * the front up to its memory budget, which then goes to cards only (on 24 GB, 14.5 GB of a real
 * month's 20.4 GB file), where in partition order the last partitions' cards were left on disk
 * even when the whole card part fit (~12.5 GB of a 16 GB file, at 23 GB of CSV). Returns the
 * establishment cards written. It shows no bar of its own: the company index, built at the same
 * time, shows the phase's progress.
 */
async function writeCards(conn: DuckDBConnection, workDir: string, cards: CardStore, indexes: { done: Promise<unknown>; coresWhenDone: number }): Promise<number> {
  let written = 0
  // Raised between two queries, never under one running on this connection.
  let indexesDone = false
  let raised = false
  void indexes.done.then(() => { indexesDone = true }, () => {})
  const queries = (p: number) => cardQueries(Object.fromEntries(PARTITIONED_TABLES.map((kind) => [kind, partRelation(workDir, kind, p)])) as Record<PartitionedTable, string>)
  // The words the cards are coded with, from the first partitions' cards (card-codec.ts).
  cards.useDictionary(await chooseDictionary(conn, (p) => queries(p).estabelecimentos))
  for (const table of CARD_TABLES)
    for (let p = 0; p < PARTITIONS; p++) {
      if (indexesDone && !raised) {
        await conn.run(`SET threads = ${indexes.coresWhenDone}`)
        raised = true
      }
      const n = await cards.write(conn, table, p, queries(p)[table])
      if (table === 'estabelecimentos') written += n
      releaseResults()
    }
  return written
}

export async function buildCnpj(options: BuildOptions): Promise<Manifest> {
  const log = options.log ?? ((l: string) => process.stderr.write(l + '\n'))
  const maxRejects = options.maxRejects ?? 1000
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(options.month)) throw new BuildError(`mês de referência inválido: ${options.month} (use AAAA-MM)`)
  const seconds: Record<string, number> = {}
  const cpuSeconds: Record<string, number> = {}
  const tenths = (x: number) => Math.round(x * 10) / 10
  let t = performance.now()
  let cpu = process.cpuUsage()
  const lap = (name: string) => {
    const now = performance.now()
    const used = process.cpuUsage(cpu)
    seconds[name] = tenths((now - t) / 1000)
    cpuSeconds[name] = tenths((used.user + used.system) / 1e6)
    t = now
    cpu = process.cpuUsage()
  }

  const memory = phaseMemory(options.memoryLimit ?? MEMORY_LIMIT)
  const plan = buildPlan(options.cores ?? machineCores(), Number(process.env.UV_THREADPOOL_SIZE ?? 4))
  const sources = await findSources(options.sourceDir, options.allowPartial ?? false)
  // The municipality bridge is read and checked before the long load: a wrong file fails first.
  const asBuildError = (err: unknown) => {
    throw err instanceof MunicipiosTableError ? new BuildError(err.message) : err
  }
  const municipiosPath = typeof options.municipiosCsv === 'function' ? await options.municipiosCsv().catch(asBuildError) : (options.municipiosCsv ?? municipiosTableIn(options.sourceDir))
  if (!municipiosPath) throw new BuildError(`falta a tabela de municípios da Receita (municipios.csv, TOM ↔ IBGE) em ${options.sourceDir}; sem --from, o ingest a baixa`)
  const municipios = await readMunicipiosTable(municipiosPath).catch(asBuildError)
  lap('verificacao')
  return buildSnapshot<Manifest>({
    dataDir: options.dataDir,
    dataset: DATASET_DIR,
    log: options.log,
    build: async (work) => {
      // A month older than the history's newest is refused here, under the build lock and before anything is loaded.
      const historyPlan = planHistory(options.dataDir, options.month, options.historyRestart)
      // A month with zips missing, compared with the one in use, would record every establishment of those zips as gone.
      const zips = ZIP_COUNT
      if (historyPlan.kind !== 'baseline' && sources.length < zips)
        throw new BuildError(
          `faltam ${zips - sources.length} dos ${zips} zips de ${options.month}: um mês parcial não entra no histórico (daria como saídos do cadastro os estabelecimentos dos zips que faltam); complete o mês, ou construa-o numa pasta de dados nova (--data), sem histórico`,
        )
      // Nor is a whole month compared with a partial one: the establishments of the zips that one lacked would be recorded as opened.
      const before = historyPlan.kind === 'compare' ? readManifest<Manifest>(historyPlan.current!).arquivos?.length : undefined
      if (before !== undefined && before < zips)
        throw new BuildError(
          `a base em uso (${historyPlan.currentMonth}) foi construída com ${before} dos ${zips} zips (--parcial): comparado com ela, ${options.month} daria como abertos os estabelecimentos dos zips que faltavam; construa ${historyPlan.currentMonth} de novo com os ${zips} zips antes (dadosbr ingest cnpj --mes ${historyPlan.currentMonth})`,
        )
      let instance: DuckDBInstance | undefined
      try {
        // Every file loads straight into its table of the served file: the registry, typed, as
        // researchers query it. The server reads the card store and the name index built after it.
        instance = await DuckDBInstance.create(join(work, DUCKDB_FILE), {
          autoinstall_known_extensions: 'false',
          autoload_known_extensions: 'false',
          preserve_insertion_order: 'false',
          // Measured faster to write (NOTES §1); a reader needs DuckDB 1.5 or later.
          storage_compatibility_version: 'latest',
          threads: String(LOAD_THREADS),
          // The build must peak under 8 GB; the limit covers DuckDB's buffer pool only (with 5GB this
          // process peaked at 6.9 GB nationally, and the sum with the index children at 8.9 GB).
          memory_limit: options.memoryLimit ?? MEMORY_LIMIT,
          temp_directory: join(work, 'duckdb.tmp'),
        })
        const conn = await instance.connect()
        for (const { kind } of FILE_KINDS) await conn.run(`CREATE TABLE ${kind} (${TABLES[kind]})`)

        const totalCsv = sources.reduce((n, s) => n + s.entry.uncompressedSize, 0)
        const bar = progress('carga', totalCsv, { quiet: options.quiet })
        const rows: Record<string, number> = Object.fromEntries(FILE_KINDS.filter((k) => sources.some((s) => s.kind === k)).map((k) => [k.kind, 0]))
        const results: { source: SourceFile; rejects: Reject[] }[] = []
        let rejectTotal = 0
        // plan.loadsAtOnce zips at a time, largest first: one CSV reader is single-threaded on a
        // pipe, and inflating and parsing one file leaves the other cores mostly idle.
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
        const others = await Promise.all(Array.from({ length: plan.loadsAtOnce - 1 }, () => instance!.connect()))
        try {
          await allSettledOrThrow([conn, ...others].map(worker))
        } finally {
          for (const c of others) c.closeSync()
        }
        const allRejects = sources.flatMap((s) => results.find((r) => r.source === s)?.rejects ?? [])
        bar.done()
        lap('carga')

        // Sanity: every table that came from a file must hold rows.
        for (const [kind, n] of Object.entries(rows)) if (n === 0) throw new BuildError(`a tabela ${kind} ficou vazia; a base em uso foi mantida`)
        await conn.run(`CREATE TABLE meta AS SELECT '${options.month}' AS referencia, now() AS construido_em`)
        const semCodigoIbge = await attachIbgeCodes(conn, municipios.tabela)

        await conn.run(`SET threads = ${plan.duckdbThreads}`)
        await splitPartitions(conn, work)
        // The served file is complete.
        await conn.run('CHECKPOINT')
        lap('particoes')
        // The month's fingerprints, for its comparison with the month before (now or next month):
        // made from the split just written, still in the page cache (history.ts). Timed apart: with
        // the comparison (`historico`), what the history adds to a monthly ingest.
        await writeFingerprints(conn, { partsDir: join(work, PARTS_DIR) }, work)
        lap('impressoes')
        // The cards are built from the Parquet partitions by a fresh in-memory DuckDB, so the memory
        // the load held goes back to the system before the children start (lowering memory_limit
        // evicts buffers but keeps the allocator's memory).
        conn.closeSync()
        instance.closeSync()
        instance = undefined
        // The closed instance's memory is freed when its JavaScript objects are collected: before the
        // children start, not while they run (a national build, without this, peaked at 8.9 GB summed).
        releaseResults(true)
        // The history: this month compared with the build in use, through both months' DuckDB tables.
        // Before the cards and indexes, not after: the new month's file was written minutes ago and is
        // still in the page cache, while the card and index phase reads and writes tens of GB and
        // evicts it (nationally the comparison then read both months back from disk).
        const loaded = new Map(sources.map((s) => [basename(s.path), s.sha256!]))
        loaded.set(basename(municipiosPath), municipios.sha256)
        const historico = await buildHistory({ plan: historyPlan, work, memoryLimit: HISTORY_MEMORY, threads: plan.duckdbThreads, quiet: options.quiet, loaded })
        lap('historico')
        releaseResults(true)

        // The card store and the two name indexes are built at once from the Parquet partitions: the
        // cards here, each index in a child process (its own DuckDB and its own JS thread: all three
        // are mostly JavaScript work, which one thread would run one after the other). Together they
        // stay under the build's memory limit.
        instance = await DuckDBInstance.create(':memory:', {
          autoinstall_known_extensions: 'false',
          autoload_known_extensions: 'false',
          threads: String(plan.cardThreads),
          memory_limit: memory.cards,
          temp_directory: join(work, 'duckdb.tmp'),
        })
        const cardConn = await instance.connect()
        // Empty tables with the registry's columns stand in for a partition that got no rows.
        for (const kind of PARTITIONED_TABLES) await cardConn.run(`CREATE TABLE ${kind} (${TABLES[kind]})`)
        const indexKinds = ['empresas', 'socios'] as const
        const indexes = indexKinds.map((kind) =>
          runSelf(
            ['_indice-de-nomes', '--tipo', kind, '--partes', join(work, PARTS_DIR), '--saida', join(work, kind === 'empresas' ? SEARCH_FILE : PARTNER_SEARCH_FILE),
              '--tmp', join(work, `indice-${kind}.tmp`), '--memoria', memory[kind], '--nucleos', String(plan.indexThreads), ...(options.quiet || kind === 'socios' ? ['--quiet'] : [])],
            `o índice de ${kind}`,
          ),
        )
        const cards = createCardStore(join(work, CARDS_FILE))
        try {
          // Once both indexes are built the cards run alone: their queries may then take every core.
          const n = await writeCards(cardConn, work, cards, { done: Promise.all(indexes.map((i) => i.done)), coresWhenDone: plan.duckdbThreads })
          if (n === 0) throw new BuildError('o arquivo de fichas ficou vazio; a base em uso foi mantida')
          await allSettledOrThrow(indexes.map((i) => i.done))
        } catch (err) {
          for (const i of indexes) i.kill()
          await Promise.allSettled(indexes.map((i) => i.done))
          throw err
        } finally {
          cards.close()
        }
        await rm(join(work, PARTS_DIR), { recursive: true, force: true })
        lap('fichas_e_busca')
        for (const [n, kind] of indexKinds.entries()) cpuSeconds[`indice_${kind}`] = tenths((await indexes[n]!.done).cpuSeconds)
        cardConn.closeSync()
        instance.closeSync()
        instance = undefined
        await rm(join(work, 'duckdb.tmp'), { recursive: true, force: true })
        releaseResults(true)

        return {
          base: 'RFB/CNPJ',
          formato: FORMAT,
          referencia: options.month,
          arquivos: sources.map((s) => ({ nome: basename(s.path), bytes: s.size, sha256: s.sha256!, bytes_csv: s.entry.uncompressedSize })),
          linhas: rows,
          rejeitadas: { total: rejectTotal, exemplos: allRejects.slice(0, 50) },
          segundos: seconds,
          cpu_segundos: cpuSeconds,
          municipios_ibge: {
            arquivo: basename(municipiosPath),
            bytes: municipios.bytes,
            sha256: municipios.sha256,
            municipios: municipios.tabela.municipios.length,
            complementos: municipios.tabela.complementos,
            sem_codigo_ibge: semCodigoIbge,
          },
          historico,
        }
      } catch (err) {
        instance?.closeSync()
        throw err
      }
    },
  })
}

/**
 * The build `current` points at, if it holds `month` in this version's layout (FORMAT) with all its
 * served files: then a new build would reproduce it. Used by `ingest --se-preciso` (make run,
 * make data, monthly jobs).
 */
export function upToDateBuild(dataDir: string, month: string): string | null {
  const dir = join(dataDir, DATASET_DIR, CURRENT_LINK)
  try {
    const { referencia, formato } = buildHead(dir)
    return formato === FORMAT && referencia === month && SERVED_FILES.every((f) => existsSync(join(dir, f))) ? dir : null
  } catch {
    return null
  }
}
