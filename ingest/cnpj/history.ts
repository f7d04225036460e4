// The registry's history, kept by the monthly ingest (docs/historico.md). A new month is compared
// with the build in use through both builds' DuckDB tables (the registry as loaded: the same
// columns whatever layout the card store has). First one hash per row of each month (a sum per root
// for the partners), split by root partition, finds the roots that changed; then only those roots'
// rows are split again and joined month against month as the card store builds the card (the
// establishment's part, the company's part, the partner list). What differs crosses to JavaScript,
// where each card field's raw values are compared (CAMPOS) and a change is kept only when the card
// shows it. The month's changes go to a new month file beside hard links to the files of the months
// already held: the history is swapped with the build, and a failed build (its temp dir removed)
// changes nothing.
import { DuckDBInstance, version as duckdbVersion, type DuckDBConnection } from '@duckdb/node-api'
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { buildHead, CARD_SEPARATOR, CURRENT_LINK, DATASET_DIR, DUCKDB_FILE, FICHA, KEYABLE_CNPJ, KEYABLE_ROOT, PARTITIONS, partitionSql, PARTNER_SEPARATOR, rootKey, SOCIO } from '../../src/datasets/cnpj/layout'
import {
  CAMPO_BRUTOS, CAMPO_EMPRESA, CAMPO_JSON, CAMPO_PRESENCA, CAMPO_SOCIOS, CAMPOS, cnaeCodeOf, decodeJson, FICHA_INDEX, HISTORY_DIR, HISTORY_FILE, historyFile, I,
  key1, monthRanges, monthsBetween, storedLine, municipioCodeOf, ROTULOS_ANTERIOR, tipoCode, ufSlotOf, ROTULO_IBGE, type HistoryMeta, type Item, type Registro, type RotulosJson,
} from '../../src/datasets/cnpj/historico-layout'
import { socio, socioRow } from '../../src/datasets/cnpj/service'
import { municipiosIbge, type CardView } from '../../src/datasets/cnpj/card-json'
import { LOOKUP_TABLES, type Lookup } from '../../src/datasets/cnpj/store'
import { BlockCache, HistoryMonth, HistoryStore, parseMeta } from '../../src/datasets/cnpj/historico-store'
import { isCompanyItem, undoEstablishments, undoPartners } from '../../src/datasets/cnpj/historico'
import { BuildError, buildSnapshot } from '../lib/snapshot'
import { lowerBound } from '../../src/core/sorted'
import { readManifest, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'
import { progress } from '../lib/progress'
import { releaseResults } from '../lib/release-results'
import { sqlString } from '../lib/sql'
import { COMPANY_CARD_SQL, ESTABLISHMENT_CARD_SQL, PARTNER_CARD_SQL, PARTNER_ORDER_SQL } from './card-store'
import { ItemSink, writeMonthFile } from './history-file'
import { onePerCnpj, onePerRoot } from './one-row'
import { partitionRelation, partitionSelect } from './partitions'

/** What the ingest of `month` does with the history, decided before anything is loaded. */
export interface HistoryPlan {
  /** baseline: the history starts at this month; carry: the newest month held is rebuilt (its changes made again if its content differs: rebuildRepublished); compare: a newer month. */
  kind: 'baseline' | 'carry' | 'compare'
  month: string
  /** The build in use, when there is one (its months are carried over). */
  current: string | null
  currentMonth: string | null
  /** Months held by the build in use. */
  held: string[]
}

export { monthRanges }

/** Months held in a build's history folder, oldest first. */
export function heldMonths(buildDir: string): string[] {
  const dir = join(buildDir, HISTORY_DIR)
  if (!existsSync(dir)) return []
  return readdirSync(dir).map((f) => HISTORY_FILE.exec(f)?.[1]).filter((m): m is string => Boolean(m)).sort()
}

/**
 * Decides what the ingest of `month` does with the history. The history only grows forward: a
 * month older than the newest one held, or one already held, is refused (one line, before any
 * download or load); the newest month held may be built again (a new version's layout, a lost
 * file, the month published again: rebuildRepublished). `restart` starts a new history at `month` (the bundled
 * sample, which always builds its two months in order).
 */
export function planHistory(dataDir: string, month: string, restart = false): HistoryPlan {
  const link = join(dataDir, DATASET_DIR, CURRENT_LINK)
  const baseline: HistoryPlan = { kind: 'baseline', month, current: null, currentMonth: null, held: [] }
  if (restart || !existsSync(link)) return baseline
  let currentMonth: string
  try {
    currentMonth = buildHead(link).referencia
  } catch {
    return baseline
  }
  const held = heldMonths(link)
  const newest = [...held, currentMonth].sort().at(-1)!
  if (month < newest) {
    const guardados = monthRanges(held.length ? held : [currentMonth])
    if (held.includes(month) || month === currentMonth)
      throw new BuildError(`o mês ${month} já está no histórico do cadastro (meses guardados: ${guardados}); só o mais recente, ${newest}, pode ser construído de novo`)
    throw new BuildError(
      `o mês ${month} é anterior ao mais recente guardado (${newest}): o histórico só cresce para a frente; carregue os meses do mais antigo ao mais novo, numa pasta de dados nova (--data) se precisar de meses anteriores a ${held[0] ?? currentMonth}`,
    )
  }
  if (held.length) {
    // The months carried over must be whole: a damaged or missing month file would be linked into
    // every later build (the same checks as the server's, historico-store.ts).
    const store = new HistoryStore(link)
    const damage = store.damage
    store.close()
    if (damage)
      throw new BuildError(
        `o histórico em uso ${damage.kind === 'formato' ? 'foi gravado por outra versão' : 'está danificado'} (${damage.reason}); ${damage.fix.charAt(0).toLowerCase()}${damage.fix.slice(1, -1)} (--data)`,
      )
    if (held.at(-1) !== currentMonth)
      throw new BuildError(
        `o histórico em uso termina em ${held.at(-1)}, mas a base em uso é de ${currentMonth} (o arquivo ${historyFile(currentMonth)} sumiu de ${join(link, HISTORY_DIR)}); restaure-o de um backup ou comece um histórico novo numa pasta de dados nova (--data)`,
      )
  }
  if (month === newest) return { kind: 'carry', month, current: link, currentMonth, held }
  if (!existsSync(join(link, DUCKDB_FILE)))
    throw new BuildError(`a base em uso (${currentMonth}) não tem ${DUCKDB_FILE}, de onde sai a comparação com ${month}; construa ${currentMonth} de novo antes (dadosbr ingest cnpj --mes ${currentMonth})`)
  return { kind: 'compare', month, current: link, currentMonth, held }
}

export interface HistoryOptions {
  plan: HistoryPlan
  /** The build's temp dir (its cnpj.duckdb is complete and closed). */
  work: string
  memoryLimit: string
  threads: number
  quiet?: boolean
  /** The files the new build loaded, by name (its manifest's `arquivos`, and the TOM ↔ IBGE table): a month built again compares them with the build in use's. */
  loaded?: Map<string, string>
}

/** The history part of a build's manifest. */
export interface HistorySummary {
  /** Months held after this build, oldest first. */
  meses: string[]
  /** The month the new one was compared with (null: no comparison). */
  referencia_anterior: string | null
  lacuna: boolean
  itens: number
  por_tipo: Record<string, number>
  /** Bytes of every month file held. */
  bytes: number
  /** CPU seconds of each step of the comparison (empty when there was none). */
  cpu_segundos: Record<string, number>
  /** Wall seconds of each step. */
  segundos: Record<string, number>
  /**
   * The newest month built again with other content (the Receita published it again): how many
   * roots the new publication changed. Its changes were made again against the month before.
   */
  republicado?: { raizes_mudadas: number }
}

/** Hard link (same file system: the data dir), or a copy where links are not allowed. */
function linkOrCopy(from: string, to: string) {
  try {
    linkSync(from, to)
  } catch {
    copyFileSync(from, to)
  }
}

/** Reads the code tables a card is rendered with from an attached registry. */
async function readRotulos(conn: DuckDBConnection, db: string): Promise<RotulosJson> {
  const out: RotulosJson = {}
  for (const table of LOOKUP_TABLES)
    out[table] = (await conn.runAndReadAll(`SELECT codigo, descricao FROM ${db}.${table} ORDER BY codigo, descricao`)).getRows().map(([c, d]) => [String(c), d === null ? null : String(d)])
  // The month's TOM ↔ IBGE pairs (the card's codigo_municipio_ibge), as the server reads them (src/datasets/cnpj/queries.ts).
  out[ROTULO_IBGE] = (await conn.runAndReadAll(`SELECT codigo, codigo_ibge FROM ${db}.municipios WHERE codigo_ibge IS NOT NULL ORDER BY codigo`)).getRows().map(([c, d]) => [String(c), String(d)])
  return out
}

const toLookups = (r: RotulosJson): CardView['lookups'] =>
  Object.fromEntries(LOOKUP_TABLES.map((t) => [t, new Map(r[t] ?? []) as Lookup])) as CardView['lookups']

/** Rows a partitioned write keeps per partition before writing them out (see buildHistory). */
const FLUSH_ROWS = 65_536

/** Builds the history of the new build into `work/historico`; returns the manifest's summary. */
export async function buildHistory(o: HistoryOptions): Promise<HistorySummary> {
  const { plan, work } = o
  const dir = join(work, HISTORY_DIR)
  mkdirSync(dir, { recursive: true })
  if (plan.current && plan.kind !== 'baseline') for (const m of plan.held) linkOrCopy(join(plan.current, HISTORY_DIR, historyFile(m)), join(dir, historyFile(m)))
  const tmp = join(work, 'historico.tmp')
  // DuckDB creates its spill folder, not the folders above it.
  mkdirSync(tmp, { recursive: true })
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    threads: String(o.threads),
    memory_limit: o.memoryLimit,
    temp_directory: join(tmp, 'duckdb'),
    preserve_insertion_order: 'false',
    // A partitioned write buffers each partition's rows until this many: with the default (~0.5 M
    // rows) the 100 partitions of the hashes held most of the phase's 2 GB at 10 M companies.
    partitioned_write_flush_threshold: String(FLUSH_ROWS),
  })
  const conn = await instance.connect()
  let open = true
  const close = () => {
    if (!open) return
    open = false
    conn.closeSync()
    instance.closeSync()
  }
  let meta: HistoryMeta | null = null
  let cpu: Record<string, number> = {}
  let wall: Record<string, number> = {}
  /** Roots the month's new publication changed (a month the Receita published again), or null. */
  let raizesRepublicadas: number | null = null
  try {
    await conn.run(`ATTACH ${sqlString(join(work, DUCKDB_FILE))} AS depois (READ_ONLY)`)
    const rotulos = await readRotulos(conn, 'depois')
    const empty = (referencia: string, r: RotulosJson) =>
      writeMonthFile(join(dir, historyFile(referencia)), { referencia, referencia_anterior: null, lacuna: false, rotulos: r, rotulosAnterior: null, items: null, saidas: [], municipios: {} })
    if (plan.kind === 'baseline' || (plan.kind === 'carry' && !plan.held.includes(plan.month))) meta = await empty(plan.month, rotulos)
    else if (plan.kind === 'carry') {
      const republished = await rebuildRepublished(conn, instance, o, dir, tmp, rotulos)
      meta = republished?.meta ?? monthMeta(join(dir, historyFile(plan.month)))
      if (republished) ({ cpu, seconds: wall } = republished.steps), (raizesRepublicadas = republished.roots)
    } else if (plan.kind === 'compare') {
      await conn.run(`ATTACH ${sqlString(join(plan.current!, DUCKDB_FILE))} AS antes (READ_ONLY)`)
      const rotulosAntes = await readRotulos(conn, 'antes')
      // A build made before the history: its month becomes the first one held.
      if (!plan.held.length) await empty(plan.currentMonth!, rotulosAntes)
      const left = departures(dir, plan.held)
      const sink = await ItemSink.open(instance)
      try {
        const { steps, roots: _, ...month } = await compareMonths(instance, conn, sink, { ...o, tmp, rotulos, left })
        meta = await writeMonthFile(join(dir, historyFile(plan.month)), {
          referencia: plan.month, referencia_anterior: plan.currentMonth, lacuna: monthsBetween(plan.currentMonth!, plan.month) > 0,
          rotulos, rotulosAnterior: rotulosAntes, ...month,
        })
        steps.lap('arquivo')
        cpu = steps.cpu
        wall = steps.seconds
      } finally {
        sink.dispose()
      }
    }
  } finally {
    close()
    rmSync(tmp, { recursive: true, force: true })
  }
  const meses = heldMonths(work)
  const bytes = meses.reduce((n, m) => n + statSync(join(dir, historyFile(m))).size, 0)
  return {
    meses, referencia_anterior: meta?.referencia_anterior ?? null, lacuna: meta?.lacuna ?? false, itens: meta?.itens ?? 0, por_tipo: meta?.por_tipo ?? {}, bytes, cpu_segundos: cpu, segundos: wall,
    ...(raizesRepublicadas === null ? {} : { republicado: { raizes_mudadas: raizesRepublicadas } }),
  }
}

/**
 * The newest month held, built again (`carry`). Built from the same dump (a new version's layout, a
 * lost file), its changes stay as they are. Published again by the Receita with other content, the
 * month file held describes the first publication: the month before is that publication with the
 * file's changes undone (as ?referencia= rebuilds a past card), so the roots the new publication
 * changed are compared again, from the month before to the new content, and the others keep their
 * items (and the file takes the new code tables). Returns null when the build loaded the same files
 * as the build in use (by SHA-256: a new version's layout, a lost file), or when the build in use
 * cannot be compared (its cnpj.duckdb is the file lost, or its month is the first held, with no
 * changes to redo).
 */
async function rebuildRepublished(conn: DuckDBConnection, instance: DuckDBInstance, o: HistoryOptions, dir: string, tmp: string, rotulos: RotulosJson) {
  const { plan } = o
  const held = join(plan.current!, HISTORY_DIR, historyFile(plan.month))
  const first = monthMeta(held)
  if (first.referencia_anterior === null || !existsSync(join(plan.current!, DUCKDB_FILE)) || !o.loaded || sameFiles(plan.current!, o.loaded)) return null
  const month = new HistoryMonth(held, new BlockCache(), 0, (m, reason) => {
    throw new BuildError(`o histórico de ${m} não se lê (${reason}); restaure-o de um backup ou comece um histórico novo numa pasta de dados nova (--data)`)
  })
  const sink = await ItemSink.open(instance)
  try {
    await conn.run(`ATTACH ${sqlString(join(plan.current!, DUCKDB_FILE))} AS antes (READ_ONLY)`)
    // CNPJs that left in the months before this one (this month's own departures are made again).
    const left = departures(dir, plan.held.filter((m) => m !== plan.month))
    const { steps, roots, ...items } = await compareMonths(instance, conn, sink, { ...o, tmp, rotulos, left, republished: month })
    // The link to the file of the build in use goes: the new file is written in its place.
    rmSync(join(dir, historyFile(plan.month)))
    const meta = await writeMonthFile(join(dir, historyFile(plan.month)), {
      referencia: plan.month, referencia_anterior: first.referencia_anterior, lacuna: first.lacuna,
      rotulos, rotulosAnterior: monthValue<RotulosJson>(held, 'rotulos', ROTULOS_ANTERIOR), ...items,
    })
    steps.lap('arquivo')
    return { meta, steps: { cpu: steps.cpu, seconds: steps.seconds }, roots }
  } finally {
    sink.dispose()
    month.close()
  }
}

/** Whether a build loaded exactly these files (name → SHA-256, its manifest's `arquivos` and TOM ↔ IBGE table). */
function sameFiles(build: string, loaded: Map<string, string>): boolean {
  const m = readManifest<SnapshotManifest & { arquivos?: { nome: string; sha256: string }[]; municipios_ibge?: { arquivo: string; sha256: string } }>(build)
  const before = new Map((m.arquivos ?? []).map((a) => [a.nome, a.sha256]))
  if (m.municipios_ibge) before.set(m.municipios_ibge.arquivo, m.municipios_ibge.sha256)
  return before.size === loaded.size && [...loaded].every(([name, sha]) => before.get(name) === sha)
}

/** The meta of a month file. */
export function monthMeta(path: string): HistoryMeta {
  const db = new Database(path, { readonly: true })
  try {
    return parseMeta(db.query('SELECT chave, valor FROM meta').all() as { chave: string; valor: string }[])
  } finally {
    db.close()
  }
}

/** One value of a month file's `extra` (saidas, municipios) or `rotulos` (ROTULOS_MES, ROTULOS_ANTERIOR) table; null when absent. */
function monthValue<T>(path: string, table: 'extra' | 'rotulos', key: string | number): T | null {
  const db = new Database(path, { readonly: true })
  try {
    const row = db.query(`SELECT dados FROM ${table} WHERE chave = ?`).get(key) as { dados: Uint8Array } | null
    return row ? decodeJson<T>(row.dados) : null
  } finally {
    db.close()
  }
}

/** CNPJs that left the registry in these months held: back in the dump, they are voltou_ao_cadastro. */
function departures(dir: string, months: string[]): Set<string> {
  return new Set(
    months.flatMap((m) => {
      const saidas = monthValue<string[]>(join(dir, historyFile(m)), 'extra', 'saidas')
      if (!saidas) throw new BuildError(`o histórico de ${m} não tem a lista de saídas; restaure-o de um backup ou comece um histórico novo numa pasta de dados nova (--data)`)
      return saidas
    }),
  )
}

// ---- the comparison ----

/**
 * What the comparison reads of each month's registry table: the columns the cards show (the
 * establishment's as its card part, `ficha`, as the card store writes it), over its DuckDB table.
 */
const DETAIL: Record<'estabelecimentos' | 'empresas' | 'simples' | 'socios', string> = {
  estabelecimentos: `cnpj, cnpj_basico, ${ESTABLISHMENT_CARD_SQL} AS ficha, matriz_filial`,
  empresas: partitionSelect('empresas'),
  simples: partitionSelect('simples'),
  socios: partitionSelect('socios'),
}
type Kind = keyof typeof DETAIL
const KINDS = Object.keys(DETAIL) as Kind[]
const columnsOf = (kind: Kind) => partitionSelect(kind).split(', ').filter((c) => c !== 'cnpj_basico')

/**
 * Where a month's fingerprints are made from: its DuckDB tables (catalog `db`: a build that did not
 * keep them, hashed at the comparison), or the ingest's Parquet split of the month (`partsDir`),
 * which holds the same columns (partitionSelect), the establishment's card part already joined
 * (`ficha`), and is split by the same root partition. Both give the same hashes (a test holds them to it).
 */
export type FingerprintSource = { db: string } | { partsDir: string }

/**
 * One hash per root (FINGERPRINT_SQL): the sum, modulo 2^64, of a hash of each of its rows in the
 * four tables, over the values the cards show (for an establishment its CNPJ and card part,
 * `ficha`), each row's hash tagged by its table. The same multiset of rows, the same sum. Comparing
 * these over every root of both months is cheap; the card strings are built only for the roots
 * whose hashes differ. One hash per row of each table, as kept before, made the changed-roots step
 * join 205 M rows a side instead of 66 M: nationally 29.3-39.1 s against 8.8-12.8 s, and 3.2 GB of
 * kept hashes a month against 0.9 GB (docs/historico.md).
 */
const ROW_HASH: Record<Kind, string> = {
  estabelecimentos: 'hash(cnpj, ficha, 1)',
  empresas: `hash(${columnsOf('empresas').join(', ')}, 2)`,
  simples: `hash(${columnsOf('simples').join(', ')}, 3)`,
  socios: `hash(${columnsOf('socios').join(', ')}, 4)`,
}
/** The roots' hashes from the rows' (`cnpj_basico`, `h`) of one partition, as relations. */
const FINGERPRINT_SQL = (rows: string[]) =>
  `SELECT cnpj_basico, (sum(h) % 18446744073709551616)::UBIGINT AS h FROM (${rows.map((r) => `SELECT cnpj_basico, h FROM ${r}`).join(' UNION ALL ')}) GROUP BY cnpj_basico`
/** A partition's row hashes of one table, from the Parquet files of `dir` (the split's or the row hashes', by table and partition); null when it got no rows. */
const rowHashes = (dir: string, kind: Kind, p: number, hashed: boolean) => {
  const rel = partitionRelation(dir, kind, p)
  return rel && (hashed ? rel : `(SELECT cnpj_basico, ${ROW_HASH[kind]} AS h FROM ${rel})`)
}

/**
 * Where a build keeps its month's fingerprints (FINGERPRINT_SQL, one file per root partition), for
 * the next month's comparison: hashing both months was half of the comparison's CPU (47.7 of 94.2
 * s at 10 M companies); kept, each month is hashed once. ~0.9 GB for a national month (the hashes
 * do not compress), beside the build's ~35 GB. The version names the SQL that made them and the
 * DuckDB library that ran it (its `hash` is not promised stable across releases): fingerprints of
 * another version (a card field added, say, or DuckDB upgraded) are not compared, the old month is
 * hashed again, where hashes that no longer match would have sent every root to the row comparison.
 */
export const FINGERPRINT_DIR = 'impressoes'
const FINGERPRINT_VERSION_FILE = 'versao'
const FINGERPRINT_VERSION = Bun.hash(['por raiz', duckdbVersion(), FINGERPRINT_SQL([...KINDS]), ...KINDS.map((k) => `${k}: ${partitionSelect(k)} ${ROW_HASH[k]}`)].join('\n')).toString(36)
/** The fingerprints of one root partition in a FINGERPRINT_DIR. */
const fingerprintFile = (dir: string, p: number) => join(dir, `${p}.parquet`)

/**
 * Writes a registry's fingerprints (FINGERPRINT_SQL, one file per root partition, written even when
 * empty) into a build's FINGERPRINT_DIR. The ingest makes them from its Parquet split, right after
 * writing it (the files still in the page cache), partition by partition. A build that did not
 * keep them is hashed from its DuckDB tables (`db`), row hashes first split by partition into a
 * temporary folder (from the DuckDB tables directly, a national month took 109 s, 182 s of CPU,
 * computing every establishment's 23 card values again where the split had joined them into `ficha`).
 */
export async function writeFingerprints(conn: DuckDBConnection, source: FingerprintSource, buildDir: string): Promise<void> {
  const dir = join(buildDir, FINGERPRINT_DIR)
  const rows = join(buildDir, `${FINGERPRINT_DIR}.linhas`)
  rmSync(dir, { recursive: true, force: true })
  rmSync(rows, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  try {
    if ('db' in source) {
      // Each partition's rows are written out every FLUSH_ROWS (the default, ~0.5 M rows, held most of 2 GB at 10 M companies).
      await conn.run(`SET partitioned_write_flush_threshold = ${FLUSH_ROWS}`)
      // DuckDB makes a partitioned write's own folder, not the folders above it.
      mkdirSync(rows, { recursive: true })
      for (const kind of KINDS)
        await conn.run(`COPY (SELECT cnpj_basico, ${ROW_HASH[kind]} AS h, ${partitionSql('cnpj_basico')} AS part FROM (SELECT ${partitionSelect(kind)} FROM ${source.db}.${kind})) TO ${sqlString(join(rows, kind))} (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
    }
    const from = 'db' in source ? rows : source.partsDir
    for (let p = 0; p < PARTITIONS; p++) {
      // A table a partial build (--parcial) did not load has no split, as a partition with no rows has no file.
      const present = KINDS.map((kind) => rowHashes(from, kind, p, 'db' in source)).filter((r): r is string => r !== null)
      const sql = present.length ? FINGERPRINT_SQL(present) : `SELECT ''::VARCHAR AS cnpj_basico, 0::UBIGINT AS h LIMIT 0`
      await conn.run(`COPY (${sql}) TO ${sqlString(fingerprintFile(dir, p))} (FORMAT parquet, COMPRESSION snappy)`)
    }
  } finally {
    rmSync(rows, { recursive: true, force: true })
  }
  writeFileSync(join(dir, FINGERPRINT_VERSION_FILE), FINGERPRINT_VERSION)
}

/**
 * A build's fingerprints directory, when it has them in this version and every file of them has its
 * footer: a file cut short, half-written or overwritten (a full disk, a crash, a bad copy) has
 * none, and the month is hashed again from its DuckDB file instead of failing the ingest; so is a
 * partition's file gone. PARTITIONS footers, a few ms.
 */
async function fingerprintsOf(conn: DuckDBConnection, build: string): Promise<string | null> {
  const dir = join(build, FINGERPRINT_DIR)
  try {
    if (readFileSync(join(dir, FINGERPRINT_VERSION_FILE), 'utf8') !== FINGERPRINT_VERSION) return null
    const files = Array.from({ length: PARTITIONS }, (_, p) => fingerprintFile(dir, p))
    if (!files.every((f) => existsSync(f))) return null
    await conn.run(`SELECT count(*) FROM parquet_file_metadata([${files.map(sqlString).join(', ')}])`)
    return dir
  } catch {
    return null
  }
}

/**
 * The changed roots' rows are compared in groups of root partitions, each group's differences read
 * into JavaScript at once: about ROOTS_PER_GROUP changed roots a group (~20 MB of card strings a
 * side), at least 10 groups (each group costs a few queries of a few ms however small) and at most
 * one per partition. A national month changes ~2 M roots: ~80 groups.
 */
const ROOTS_PER_GROUP = 25_000
const detailGroups = (changedRoots: number) => Math.min(PARTITIONS, Math.max(10, Math.ceil(changedRoots / ROOTS_PER_GROUP)))

/** A partition's relation under `dir`; an empty one with the same columns when it got no rows. */
function relation(dir: string, kind: Kind, p: number, empty: string): string {
  const rel = partitionRelation(dir, kind, p)
  return rel ? `(SELECT * FROM ${rel})` : `(${empty} LIMIT 0)`
}

/**
 * One partition pair's differences, as temp tables. Over every row only narrow joins run: the
 * establishments on the CNPJ (their card part, `ficha`, compared as one string), the company and
 * Simples rows on the root (row against row, every column the cards read), the partner rows as
 * multisets; the card strings of the company and the partner lists are then built for the
 * changed roots only (about 2 % of them a month).
 */
async function differences(conn: DuckDBConnection, o: (kind: Kind) => string, n: (kind: Kind) => string) {
  await conn.run(`CREATE OR REPLACE TEMP TABLE de AS SELECT coalesce(o.cnpj, n.cnpj) AS cnpj, coalesce(o.cnpj_basico, n.cnpj_basico) AS raiz, o.ficha AS antes, n.ficha AS depois
    FROM ${o('estabelecimentos')} o FULL OUTER JOIN ${n('estabelecimentos')} n ON o.cnpj = n.cnpj WHERE o.ficha IS DISTINCT FROM n.ficha`)
  const rows = (kind: Kind) => `SELECT coalesce(o.cnpj_basico, n.cnpj_basico) AS raiz FROM ${onePerRoot(o(kind))} o FULL OUTER JOIN ${onePerRoot(n(kind))} n ON o.cnpj_basico = n.cnpj_basico WHERE o IS DISTINCT FROM n`
  await conn.run(`CREATE OR REPLACE TEMP TABLE dc AS ${rows('empresas')} UNION ${rows('simples')}`)
  await conn.run(`CREATE OR REPLACE TEMP TABLE ds AS SELECT DISTINCT cnpj_basico AS raiz FROM
    ((SELECT * FROM ${o('socios')} EXCEPT ALL SELECT * FROM ${n('socios')}) UNION ALL (SELECT * FROM ${n('socios')} EXCEPT ALL SELECT * FROM ${o('socios')}))`)
  await conn.run(`CREATE OR REPLACE TEMP TABLE raizes AS SELECT raiz FROM de UNION SELECT raiz FROM dc UNION SELECT raiz FROM ds`)
}

/** For each changed root of one month: its company part of the card and its headquarters (else first establishment). */
const context = (side: (kind: Kind) => string) => {
  const changed = (kind: Kind) => onePerRoot(`(SELECT * FROM ${side(kind)} WHERE cnpj_basico IN (SELECT raiz FROM raizes))`)
  return `(SELECT r.raiz, ${COMPANY_CARD_SQL} AS parte, rep.cnpj, rep.ficha FROM raizes r
    LEFT JOIN ${changed('empresas')} m ON m.cnpj_basico = r.raiz LEFT JOIN ${changed('simples')} si ON si.cnpj_basico = r.raiz
    LEFT JOIN (SELECT cnpj_basico, min_by(cnpj, k) AS cnpj, min_by(ficha, k) AS ficha FROM
      (SELECT cnpj_basico, cnpj, ficha, (CASE WHEN matriz_filial = 1 THEN '0' ELSE '1' END) || cnpj AS k FROM ${side('estabelecimentos')} WHERE cnpj_basico IN (SELECT raiz FROM raizes))
      GROUP BY cnpj_basico) rep ON rep.cnpj_basico = r.raiz)`
}

/** The partner lists of the roots in `roots` (a temp table: ds, the roots whose partners differ; raizes, every changed root). */
const partnerLists = (side: (kind: Kind) => string, roots: 'ds' | 'raizes') =>
  `(SELECT s.cnpj_basico AS raiz, string_agg(${PARTNER_CARD_SQL}, chr(30) ORDER BY ${PARTNER_ORDER_SQL}) AS lista FROM ${side('socios')} s WHERE s.cnpj_basico IN (SELECT raiz FROM ${roots}) GROUP BY s.cnpj_basico)`

/** Rows per string read by readRows. */
const READ_BATCH = 256
/** Splits readRows' batches: a carriage return, which the load drops from every value (ingest/lib/fifo.ts). */
const READ_SEPARATOR = '\r'

/**
 * The rows of `SELECT columns from`, read into JavaScript READ_BATCH rows at a time, each batch one
 * string, its values joined by READ_SEPARATOR. Crossing from DuckDB costs ~1 µs a string, on the
 * thread that also makes the items: nationally, ~20 M values a month took 25.5 s of it, the
 * comparison's bound (docs/historico.md). A null crosses as '' and comes back null: none of the
 * columns read here holds '' (a CNPJ, a root, a card part, a partner list).
 */
async function readRows(on: DuckDBConnection, columns: string[], from: string): Promise<(string | null)[][]> {
  await on.run(`CREATE OR REPLACE TEMP TABLE lido AS SELECT ${columns.map((c, i) => `${c} AS c${i}`).join(', ')} ${from}`)
  const separator = `chr(${READ_SEPARATOR.charCodeAt(0)})`
  const joined = columns.map((_, i) => `coalesce(c${i}, '')`).join(`, ${separator}, `)
  const rows: (string | null)[][] = []
  const width = columns.length
  for (const [batch] of (await on.runAndReadAll(`SELECT string_agg(concat(${joined}), ${separator}) FROM lido GROUP BY rowid // ${READ_BATCH}`)).getRows()) {
    const values = String(batch).split(READ_SEPARATOR)
    if (values.length % width) throw new Error(`uma leitura da comparação veio com ${values.length} valores, não múltiplo de ${width}`)
    for (let i = 0; i < values.length; i += width) {
      const row: (string | null)[] = new Array(width)
      for (let j = 0; j < width; j++) row[j] = values[i + j] || null
      rows.push(row)
    }
  }
  await on.run('DROP TABLE lido')
  return rows
}
const fields = (dados: string) => dados.split(CARD_SEPARATOR).map((v) => v || null)
const ESTABLISHMENT_COUNT = FICHA.indexOf('razao_social')
const EMPTY_COMPANY: Registro = Array(FICHA.length - ESTABLISHMENT_COUNT).fill(null)
const EMPTY_ESTABLISHMENT: Registro = Array(ESTABLISHMENT_COUNT).fill(null)
/** A record as the card store's text (null blank): `fields`' inverse. */
const joined = (record: readonly (string | null)[]) => record.map((v) => v ?? '').join(CARD_SEPARATOR)
const SAIU = tipoCode('saiu_do_cadastro')
const ABERTURA = tipoCode('abertura')
const VOLTOU = tipoCode('voltou_ao_cadastro')
/** Headquarters first, as the representative of a root is chosen (context). */
const rank = (e: { record: Registro }) => (e.record[FICHA_INDEX.matriz_filial] === '1' ? 0 : 1)

interface RootChanges {
  estabs: { cnpj: string; antes: string | null; depois: string | null }[]
  empresa?: { antes: string | null; depois: string | null }
  socios?: { antes: string | null; depois: string | null }
  repDepois?: { cnpj: string; ficha: string }
  repAntes?: { cnpj: string; ficha: string }
}

interface CompareContext extends HistoryOptions {
  tmp: string
  rotulos: RotulosJson
  /** CNPJs that left the registry in a month held: back in the dump, they are voltou_ao_cadastro. */
  left: Set<string>
  /** A month published again: its file as held (the first publication against the month before). */
  republished?: HistoryMonth
}

/**
 * Compares the build in use (attached `antes`) with the new month (attached `depois`); returns the
 * month's items. Three passes over the registry: each month's fingerprints, split by root
 * partition; the changed roots, partition by partition; the changed roots' rows of both months,
 * split again (a few percent of the registry), compared partition by partition into items.
 */
async function compareMonths(instance: DuckDBInstance, conn: DuckDBConnection, sink: ItemSink, o_: CompareContext): Promise<{ items: ItemSink; saidas: string[]; municipios: Record<string, string[]>; steps: Steps; roots: number }> {
  // A second connection runs beside the first where the work splits in two independent halves:
  // one query alone kept 1.4-1.6 of the 2 cores busy (the month before is read cold from disk).
  const other = await instance.connect()
  try {
    return await compareWith(conn, other, sink, o_)
  } finally {
    other.closeSync()
  }
}

async function compareWith(conn: DuckDBConnection, other: DuckDBConnection, sink: ItemSink, o_: CompareContext): Promise<{ items: ItemSink; saidas: string[]; municipios: Record<string, string[]>; steps: Steps; roots: number }> {
  const steps = new Steps()
  const dir = (what: string, side: string) => join(o_.tmp, what, side)
  const write = (on: DuckDBConnection, sql: string, to: string) => on.run(`COPY (${sql}) TO ${sqlString(to)} (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
  // Each month's fingerprints come from its build, written by its ingest (writeFingerprints); a
  // build that lacks them (one of an older version) is hashed here from its DuckDB file. The new
  // month's stay in its build, for the next month's comparison.
  const fingerprints = { antes: '', depois: '' }
  for (const side of ['antes', 'depois'] as const) {
    const build = side === 'antes' ? o_.plan.current! : o_.work
    const kept = await fingerprintsOf(conn, build)
    if (kept) {
      fingerprints[side] = kept
      continue
    }
    const into = side === 'antes' ? join(o_.tmp, 'hash') : o_.work
    await writeFingerprints(conn, { db: side }, into)
    fingerprints[side] = join(into, FINGERPRINT_DIR)
    // Apart: hashes made here are the ones a build did not keep; a monthly run of this version pays none.
    steps.lap(side === 'antes' ? 'impressoes_anterior' : 'impressoes')
  }
  const changedIn = async (on: DuckDBConnection, p: number) => {
    const fp = (side: 'antes' | 'depois') => `read_parquet(${sqlString(fingerprintFile(fingerprints[side], p))})`
    await on.run(`INSERT INTO mudou SELECT coalesce(o.cnpj_basico, n.cnpj_basico) FROM ${fp('antes')} o FULL OUTER JOIN ${fp('depois')} n ON o.cnpj_basico = n.cnpj_basico WHERE o.h IS DISTINCT FROM n.h`)
  }
  const findChanged = async () => {
    // A table of the in-memory database, not a temp one: both connections write it and read it.
    await conn.run('CREATE OR REPLACE TABLE mudou (raiz VARCHAR)')
    // The even partitions on one connection, the odd ones on the other.
    await bothDone([conn, other].map(async (on, half) => {
      for (let p = half; p < PARTITIONS; p += 2) await changedIn(on, p)
    }))
  }
  try {
    await findChanged()
  } catch (err) {
    // The month before's kept hashes do not read (a page damaged under an intact footer): they are
    // hashed again from its DuckDB file, once, as a build without them is.
    if (fingerprints.antes !== join(o_.plan.current!, FINGERPRINT_DIR)) throw err
    const into = join(o_.tmp, 'hash')
    await writeFingerprints(conn, { db: 'antes' }, into)
    fingerprints.antes = join(into, FINGERPRINT_DIR)
    steps.lap('impressoes_anterior')
    await findChanged()
  }
  steps.lap('raizes_mudadas')
  const changedRoots = Number((await conn.runAndReadAll('SELECT count(*) FROM mudou')).getRows()[0]![0])
  const groups = detailGroups(changedRoots)
  const view: CardView = { lookups: toLookups(o_.rotulos), referencia: o_.plan.month, ibge: municipiosIbge(o_.rotulos[ROTULO_IBGE] ?? []) }
  const out = new ItemBuilder(view, o_.left, sink)
  // A month published again: the items of the roots the new publication leaves as they were are
  // kept; the others' are made again root by root (ItemBuilder.republished), each read from the
  // month file when its root comes. The changed roots as sorted keys (8 bytes each, however many).
  const republished = o_.republished
  let changedKeys = new Float64Array(0)
  let madeAgain = new Uint8Array(0)
  if (republished) {
    changedKeys = Float64Array.from((await conn.runAndReadAll('SELECT raiz FROM mudou')).getRows().map(([r]) => String(r)).filter((r) => KEYABLE_ROOT.test(r)).map(rootKey)).sort()
    madeAgain = new Uint8Array(changedKeys.length)
    for (let p = 0; p < republished.meta.itens; p++) {
      const it = republished.item(p)
      const k = rootKey(it[I.cnpj].slice(0, 8))
      if (changedKeys[lowerBound(changedKeys, k)] !== k) out.keep(it)
    }
    steps.lap('itens_mantidos')
  }
  // The changed roots' rows are a few percent of the registry: `groups` groups of partitions
  // keep each comparison in memory with far fewer queries (each costs a few ms however small).
  // Each month on its connection: the month before, cold, waits on the disk while the new one reads from the page cache.
  await bothDone((['antes', 'depois'] as const).map(async (side, i) => {
    mkdirSync(dir('linhas', side), { recursive: true })
    for (const kind of KINDS)
      await write([conn, other][i]!, `SELECT ${DETAIL[kind]}, ${partitionSql('cnpj_basico')} % ${groups} AS part FROM ${side}.${kind} WHERE cnpj_basico IN (SELECT raiz FROM mudou)`, join(dir('linhas', side), kind))
  }))
  steps.lap('linhas_mudadas')
  const bar = progress('histórico', groups, { quiet: o_.quiet })
  const present = (side: string, p: number) => KINDS.some((kind) => partitionRelation(dir('linhas', side), kind, p) !== null)
  /** A group's differences, read into JavaScript: its changed roots (null: no changed root in it). */
  const readGroup = async (p: number) => {
    if (!present('antes', p) && !present('depois', p)) return null
    // A CNPJ listed twice in a month is one establishment, the row its card shows (one-row.ts): its
    // two rows joined with the next month's two would record every difference between them as a change.
    const side = (which: 'antes' | 'depois') => (kind: Kind) => {
      const rows = relation(dir('linhas', which), kind, p, `SELECT ${DETAIL[kind]} FROM ${which}.${kind}`)
      return kind === 'estabelecimentos' ? onePerCnpj(rows) : rows
    }
    const o = side('antes')
    const n = side('depois')
    await differences(conn, o, n)
    const roots = new Map<string, RootChanges>()
    const at = (raiz: string) => {
      let r = roots.get(raiz)
      if (!r) roots.set(raiz, (r = { estabs: [] }))
      return r
    }
    for (const [cnpj, raiz, antes, depois] of await readRows(conn, ['cnpj', 'raiz', 'antes', 'depois'], 'FROM de'))
      at(raiz!).estabs.push({ cnpj: cnpj!, antes: antes ?? null, depois: depois ?? null })
    // A month published again compares every changed root's partners again (ItemBuilder.republished).
    const partnerRoots = o_.republished ? 'raizes' : 'ds'
    const partners = await readRows(conn, ['d.raiz', 'so.lista', 'sn.lista'], `FROM ${partnerRoots} d LEFT JOIN ${partnerLists(o, partnerRoots)} so USING (raiz) LEFT JOIN ${partnerLists(n, partnerRoots)} sn USING (raiz)`)
    for (const [raiz, antes, depois] of partners) at(raiz!).socios = { antes: antes ?? null, depois: depois ?? null }
    const both = await readRows(conn, ['a.raiz', 'a.parte', 'b.parte', 'b.cnpj', 'b.ficha', 'a.cnpj', 'a.ficha'], `FROM ${context(o)} a JOIN ${context(n)} b USING (raiz)`)
    for (const [raiz, antes, depois, cnpjN, fichaN, cnpjO, fichaO] of both) {
      const r = at(raiz!)
      // A month's company part counts only when the root has an establishment in that month.
      r.empresa = { antes: cnpjO === null ? null : (antes ?? null), depois: cnpjN === null ? null : (depois ?? null) }
      if (cnpjN !== null) r.repDepois = { cnpj: cnpjN!, ficha: fichaN! }
      if (cnpjO !== null) r.repAntes = { cnpj: cnpjO!, ficha: fichaO! }
    }
    // A month published again: every establishment of the changed roots in the first publication,
    // from which the month before's are made (ItemBuilder.republished).
    const firstEstabs = new Map<string, { cnpj: string; ficha: string }[]>()
    if (o_.republished)
      for (const [raiz, cnpj, ficha] of (await conn.runAndReadAll(`SELECT cnpj_basico, cnpj, ficha FROM ${o('estabelecimentos')} WHERE cnpj_basico IN (SELECT raiz FROM raizes)`)).getRows()) {
        const list = firstEstabs.get(String(raiz))
        if (list) list.push({ cnpj: String(cnpj), ficha: String(ficha) })
        else firstEstabs.set(String(raiz), [{ cnpj: String(cnpj), ficha: String(ficha) }])
      }
    return { roots, firstEstabs }
  }
  // The items of a group are made in JavaScript (one core) while DuckDB reads the next group's
  // differences: `comparacao` is then the time spent waiting for DuckDB, `itens` the JavaScript.
  let next = readGroup(0)
  try {
    for (let p = 0; p < groups; p++) {
      const group = await next
      next = p + 1 < groups ? readGroup(p + 1) : Promise.resolve(null)
      // Caught here and awaited in the next turn: a failure of the next group is not left unhandled meanwhile.
      next.catch(() => {})
      steps.lap('comparacao')
      if (group)
        for (const [raiz, r] of group.roots) {
          if (!republished) out.root(raiz, r)
          else {
            const k = rootKey(raiz)
            madeAgain[lowerBound(changedKeys, k)] = 1
            out.republished(raiz, r, republished.itemsOfRoot(k), group.firstEstabs.get(raiz) ?? [])
          }
        }
      steps.lap('itens')
      releaseResults()
      bar.add(1)
    }
  } finally {
    // Whatever failed, no query is left running on a connection about to be closed.
    await next.catch(() => null)
  }
  bar.done()
  // A root whose hash changed but whose rows compare equal keeps its items.
  if (republished) for (let i = 0; i < changedKeys.length; i++) if (!madeAgain[i]) for (const it of republished.itemsOfRoot(changedKeys[i]!)) out.keep(it)
  sink.close()
  return { items: sink, saidas: out.saidas, municipios: out.municipios, steps, roots: changedRoots }
}

/** Waits for every one of `work` to end, then throws the first failure: no query is left running on a connection the caller closes. */
async function bothDone(work: Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed) throw failed.reason
}

/**
 * CPU seconds (this process, DuckDB's threads included) of each step of the comparison, added up
 * across the partitions: which step bounds the history on a given machine (the manifest keeps them).
 */
class Steps {
  readonly cpu: Record<string, number> = {}
  readonly seconds: Record<string, number> = {}
  private at = Steps.now()
  private wallAt = performance.now()
  private static now() {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1e6
  }
  /** Charges the CPU and the wall time since the last call to `step`. */
  lap(step: string) {
    const now = Steps.now()
    const wall = performance.now()
    this.cpu[step] = Math.round(((this.cpu[step] ?? 0) + now - this.at) * 10) / 10
    this.seconds[step] = Math.round(((this.seconds[step] ?? 0) + (wall - this.wallAt) / 1000) * 10) / 10
    this.at = now
    this.wallAt = wall
  }
}

/** Turns a root's differences into items (CAMPOS), keeping a change only when the card shows it. */
class ItemBuilder {
  readonly saidas: string[] = []
  readonly municipios: Record<string, string[]> = {}
  constructor(private readonly view: CardView, private readonly left: Set<string>, private readonly items: ItemSink) {}

  private add(cnpj: string, tipo: number, campo: number, antes: (string | null)[] | null, depois: (string | null)[] | null, where: Registro) {
    if (!KEYABLE_CNPJ.test(cnpj)) return
    const uf = where[FICHA_INDEX.uf] ?? null
    this.push([cnpj, tipo, campo, antes, depois, uf, where[FICHA_INDEX.municipio] ?? null, uf === 'EX' ? (where[FICHA_INDEX.cidade_exterior] ?? null) : null, where[FICHA_INDEX.cnae_principal] ?? null, where[FICHA_INDEX.razao_social] ?? null])
  }

  private push(item: Item) {
    const [cnpj, tipo, campo, , , uf, municipio] = item
    if (uf !== null && municipio !== null) {
      const ufs = (this.municipios[municipio] ??= [])
      if (!ufs.includes(uf)) ufs.push(uf)
    }
    this.items.push(storedLine(item), key1(tipo, ufSlotOf(uf), municipioCodeOf(municipio), cnaeCodeOf(item[I.cnae])), cnpj, campo, rootKey(cnpj.slice(0, 8)))
  }

  /** An item of the month file held, kept as it is (a month published again: ItemBuilder.republished). */
  keep(item: Item) {
    this.push(item)
    if (item[I.tipo] === SAIU) this.saidas.push(item[I.cnpj])
  }

  /** The card fields that differ between two records of the same CNPJ and that the card shows differently. */
  private fields(cnpj: string, a: Registro, b: Registro, level: boolean) {
    for (let c = 0; c < CAMPOS.length; c++) {
      if (CAMPO_EMPRESA[c] !== level) continue
      const idx = CAMPO_BRUTOS[c]!
      if (idx.every((i) => a[i] === b[i])) continue
      if (CAMPO_JSON[c]!(this.view, a) === CAMPO_JSON[c]!(this.view, b)) continue
      this.add(cnpj, tipoCode(CAMPOS[c]!.tipo), c, idx.map((i) => a[i] ?? null), idx.map((i) => b[i] ?? null), b)
    }
  }

  root(raiz: string, r: RootChanges) {
    const companyA = r.empresa?.antes ? fields(r.empresa.antes) : null
    const companyB = r.empresa?.depois ? fields(r.empresa.depois) : null
    for (const e of r.estabs) {
      const a = e.antes === null ? null : [...fields(e.antes), ...(companyA ?? EMPTY_COMPANY)]
      const b = e.depois === null ? null : [...fields(e.depois), ...(companyB ?? EMPTY_COMPANY)]
      if (a && b) this.fields(e.cnpj, a, b, false)
      else if (b) this.add(e.cnpj, tipoCode(this.left.has(e.cnpj) ? 'voltou_ao_cadastro' : 'abertura'), CAMPO_PRESENCA, null, null, b)
      else if (a) {
        this.add(e.cnpj, tipoCode('saiu_do_cadastro'), CAMPO_PRESENCA, a, null, a)
        this.saidas.push(e.cnpj)
      }
    }
    // The company's own fields: once per root present in both months, under its headquarters.
    const rep = r.repDepois ?? r.repAntes
    if (!rep) return
    const where = [...fields(rep.ficha), ...(r.repDepois ? (companyB ?? EMPTY_COMPANY) : (companyA ?? EMPTY_COMPANY))]
    if (companyA && companyB && r.empresa!.antes !== r.empresa!.depois) {
      const est = fields(rep.ficha)
      this.fields(rep.cnpj, [...est, ...companyA], [...est, ...companyB], true)
    }
    if (r.socios) this.partners(rep.cnpj, r.socios.antes, r.socios.depois, where)
  }

  /**
   * A root of a month the Receita published again with other content. `r` compares the first
   * publication (antes) with the new one (depois); `earlier`, the root's items in the month file
   * held, is what the first publication changed from the month before. The month before is the
   * first publication with those items undone (as ?referencia= rebuilds a past card), and is
   * compared with the new publication as any two months are (root): the company's fields and the
   * partners of every such root (`r.socios` holds both publications' lists, compareMonths), and the
   * establishments the new publication changes. The other establishments keep their items.
   */
  republished(raiz: string, r: RootChanges, earlier: Item[], firstEstabs: { cnpj: string; ficha: string }[]) {
    const company: Item[] = []
    const partners: Item[] = []
    const own: Item[] = []
    for (const it of earlier) (it[I.campo] === CAMPO_SOCIOS ? partners : isCompanyItem(it) ? company : own).push(it)
    const changed = new Set(r.estabs.map((e) => e.cnpj))
    const companyFirst = r.empresa?.antes ? fields(r.empresa.antes) : null
    // The root's establishments in the month before: the first publication's, less those it
    // opened, plus those that left in it, each as it was then.
    const opened = new Set(own.filter((it) => it[I.tipo] === ABERTURA || it[I.tipo] === VOLTOU).map((it) => it[I.cnpj]))
    const before = new Map<string, Registro | null>(firstEstabs.filter((e) => !opened.has(e.cnpj)).map((e) => [e.cnpj, fields(e.ficha)]))
    undoEstablishments(before, own.filter((it) => before.has(it[I.cnpj]) || it[I.tipo] === SAIU))
    const beforeEstabs = [...before].filter((e): e is [string, Registro] => e[1] !== null).map(([cnpj, record]) => ({ cnpj, record }))
    // The company part of the month before, when the root had an establishment then: the first
    // publication's, its company items undone, or, with none of its establishments in the first
    // publication, a departure's record.
    let companyBefore: Registro | null = null
    if (beforeEstabs.length && companyFirst) {
      const record = [...EMPTY_ESTABLISHMENT, ...companyFirst]
      undoEstablishments(new Map([[raiz, record]]), company)
      companyBefore = record.slice(ESTABLISHMENT_COUNT)
    } else if (beforeEstabs.length) companyBefore = own.find((it) => it[I.tipo] === SAIU && it[I.antes])?.[I.antes]!.slice(ESTABLISHMENT_COUNT) ?? null
    const estabs = r.estabs.map((e) => {
      const then = before.get(e.cnpj)
      return { cnpj: e.cnpj, antes: then ? joined(then.slice(0, ESTABLISHMENT_COUNT)) : null, depois: e.depois }
    })
    const list = r.socios?.antes ? r.socios.antes.split(PARTNER_SEPARATOR).map(fields) : []
    undoPartners(list, partners)
    const socios = { antes: list.length ? list.map(joined).join(PARTNER_SEPARATOR) : null, depois: r.socios?.depois ?? null }
    // The company's representative in the month before (its card fields go beside a company or
    // partner change when the new publication has no establishment of the root): the headquarters, else the first.
    beforeEstabs.sort((a, b) => rank(a) - rank(b) || (a.cnpj < b.cnpj ? -1 : 1))
    const repAntes = beforeEstabs[0] && { cnpj: beforeEstabs[0].cnpj, ficha: joined(beforeEstabs[0].record.slice(0, ESTABLISHMENT_COUNT)) }
    const companyNew = r.empresa?.depois ? fields(r.empresa.depois) : null
    const razao = companyNew?.[FICHA_INDEX.razao_social - ESTABLISHMENT_COUNT] ?? null
    // Kept items name the company as the new publication does (the feed shows its razão social);
    // a departure keeps the month before's, as a comparison names it from the record that left.
    const kept = (it: Item): Item => (companyNew && it[I.tipo] !== SAIU && it[I.razao] !== razao ? [...it.slice(0, I.razao), razao] as Item : it)
    for (const it of own) if (!changed.has(it[I.cnpj])) this.keep(kept(it))
    this.root(raiz, { ...r, estabs, empresa: r.empresa && { antes: companyBefore && joined(companyBefore), depois: r.empresa.depois }, socios, repAntes })
  }

  /** Partners in and out as multisets of records; a partner (name and document) in both with other values is an alteração. */
  private partners(cnpj: string, antes: string | null, depois: string | null, where: Registro) {
    const a = antes ? antes.split(PARTNER_SEPARATOR) : []
    const b = depois ? depois.split(PARTNER_SEPARATOR) : []
    const unchanged = new Map<string, number>()
    for (const x of a) unchanged.set(x, (unchanged.get(x) ?? 0) + 1)
    const entered: string[] = []
    for (const x of b) {
      const n = unchanged.get(x) ?? 0
      if (n > 0) unchanged.set(x, n - 1)
      else entered.push(x)
    }
    // What is still counted in `unchanged` was not matched in the new month.
    const leftRows: string[] = []
    for (const x of a) {
      const n = unchanged.get(x) ?? 0
      if (n > 0) {
        unchanged.set(x, n - 1)
        leftRows.push(x)
      }
    }
    const identity = (x: string) => {
      const v = x.split(CARD_SEPARATOR)
      return `${v[SOCIO.indexOf('nome')]}${CARD_SEPARATOR}${v[SOCIO.indexOf('cpf_cnpj')]}`
    }
    const pending = new Map<string, string[]>()
    for (const x of entered) {
      const k = identity(x)
      pending.set(k, [...(pending.get(k) ?? []), x])
    }
    const record = (x: string) => x.split(CARD_SEPARATOR).map((v) => v || null)
    for (const x of leftRows) {
      const match = pending.get(identity(x))?.shift()
      if (match === undefined) {
        this.add(cnpj, tipoCode('socio_saida'), CAMPO_SOCIOS, record(x), null, where)
        continue
      }
      const [ra, rb] = [record(x), record(match)]
      if (JSON.stringify(socio(this.view, socioRow(ra))) !== JSON.stringify(socio(this.view, socioRow(rb)))) this.add(cnpj, tipoCode('socio_alteracao'), CAMPO_SOCIOS, ra, rb, where)
    }
    for (const rest of pending.values()) for (const x of rest) this.add(cnpj, tipoCode('socio_entrada'), CAMPO_SOCIOS, null, record(x), where)
  }
}

// ---- dropping old months (dadosbr historico cnpj --descartar-antes / --manter) ----

/** What dropping months changes of a build's manifest (load.ts Manifest: the history part). */
type Manifest = SnapshotManifest & { historico: HistorySummary }

/** Hard links of every file of a build (recursively) under `to`, but the paths `skip` names (relative to the build). */
function linkTree(from: string, to: string, skip: Set<string>, at = '') {
  for (const name of readdirSync(join(from, at))) {
    const rel = at ? join(at, name) : name
    if (skip.has(rel)) continue
    if (statSync(join(from, rel)).isDirectory()) {
      mkdirSync(join(to, rel), { recursive: true })
      linkTree(from, to, skip, rel)
    } else linkOrCopy(join(from, rel), join(to, rel))
  }
}

export interface DropResult {
  descartados: string[]
  mantidos: string[]
  /** Bytes of the month files dropped (freed once the build they were swapped out with is removed, at the next swap). */
  bytes: number
}

/**
 * Drops the oldest months of the history: a new build made of hard links to every file of the
 * build in use but the dropped months' files, swapped in like any build (a running server follows
 * it; the data in use is untouched if anything fails). The newest month is always kept.
 */
export async function dropMonths(dataDir: string, which: { before?: string; keep?: number }): Promise<DropResult> {
  const link = join(dataDir, DATASET_DIR, CURRENT_LINK)
  if (!existsSync(link)) throw new BuildError(`nenhuma base do cadastro em ${dataDir}; rode 'dadosbr ingest cnpj' antes`)
  const held = heldMonths(link)
  const newest = held.at(-1)
  const drop = held.filter((m, i) => m !== newest && (which.before !== undefined ? m < which.before : i < held.length - Math.max(1, which.keep ?? held.length)))
  const bytes = drop.reduce((n, m) => n + statSync(join(link, HISTORY_DIR, historyFile(m))).size, 0)
  const mantidos = held.filter((m) => !drop.includes(m))
  if (!drop.length) return { descartados: [], mantidos, bytes: 0 }
  await buildSnapshot({
    dataDir,
    dataset: DATASET_DIR,
    build: async (work) => {
      const current = readManifest<Manifest>(link)
      linkTree(link, work, new Set(['manifest.json', ...drop.map((m) => join(HISTORY_DIR, historyFile(m)))]))
      const { construido_em: _, ...rest } = current
      const meses = heldMonths(work)
      return { ...rest, historico: { ...current.historico, meses, bytes: meses.reduce((n, m) => n + statSync(join(work, HISTORY_DIR, historyFile(m))).size, 0) } }
    },
  })
  return { descartados: drop, mantidos, bytes }
}
