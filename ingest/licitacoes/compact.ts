// Folds the contracts staged in sync.sqlite into a new build of the served index and swaps it in
// (data/licitacoes/current, atomically; the server follows it live). Two ways, by size:
// - completa (no build yet, or the staged contracts are more than FULL_SHARE of it): a new file
//   written straight through (no journal): the previous build's contracts and the staged ones, less
//   the versions replaced, in one sorted pass in supplier order; the indexes built by sorting once;
//   supplier totals by one GROUP BY. What a national first sync needs: nothing is inserted at random
//   into a large index.
// - incremental (a daily run: thousands of contracts): the previous build copied and the staged
//   contracts applied to it (replace by numeroControlePNCP), the totals of the roots they touch
//   recomputed.
// Either way the build in use is never written; a failure leaves it serving.
import { Database } from 'bun:sqlite'
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CURRENT_LINK, MANIFEST_FILE, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'
import { BASE, CONTRACT_COLUMNS, DATASET_DIR, DB_FILE, FORMAT, META, SERVED_INDEXES, SERVED_TABLES, SQL_AGGREGATE_ROOT, VALUE_SCALE } from '../../src/datasets/licitacoes/layout'
import { buildNameFor, currentManifest, swapIn } from '../lib/snapshot'
import type { SyncFile } from './db'

/** Staged contracts above this share of the build in use: a complete rebuild instead of a copy patched in place. */
export const FULL_SHARE = 0.05

export interface ContractsManifest extends SnapshotManifest {
  contratos: number
  fornecedores: number
  desde: string | null
  sincronizado_ate: string
  atualizado_em: string
  modo: 'completa' | 'incremental'
}

export interface CompactResult {
  modo: 'completa' | 'incremental' | 'nada'
  contratos: number
  referencia: string | null
  segundos: number
}

/** A file name as a SQL string literal (ATTACH). */
const lit = (path: string) => `'${path.replace(/'/g, "''")}'`

function pragmasForBuild(db: Database, cacheMb: number) {
  // The build is a new file nobody reads until the swap: no journal, no syncs; a crash leaves a
  // .tmp directory the next run removes.
  db.exec('PRAGMA journal_mode = OFF')
  db.exec('PRAGMA synchronous = OFF')
  db.exec('PRAGMA main.locking_mode = EXCLUSIVE')
  db.exec(`PRAGMA cache_size = -${cacheMb * 1024}`)
  db.exec('PRAGMA temp_store = MEMORY')
}

function copyDictionaries(db: Database) {
  for (const t of ['orgaos', 'unidades', 'tipos']) db.exec(`INSERT OR REPLACE INTO ${t} SELECT * FROM s.${t}`)
}

function writeMeta(db: Database, m: Record<string, string | null>) {
  const st = db.query('INSERT OR REPLACE INTO meta (chave, valor) VALUES (?1, ?2)')
  for (const [k, v] of Object.entries(m)) if (v !== null) st.run(k, v)
}

function buildFull(path: string, sync: SyncFile, last: number, previous: string | null, cacheMb: number, step: (name: string) => void): void {
  const db = new Database(path, { create: true })
  try {
    pragmasForBuild(db, cacheMb)
    // The sorted copy of every contract spills to disk (SQLITE_TMPDIR, else TMPDIR, else /var/tmp, /tmp).
    db.exec('PRAGMA temp_store = FILE')
    db.exec(SERVED_TABLES)
    db.exec(`ATTACH DATABASE ${lit(sync.path)} AS s`)
    if (previous) db.exec(`ATTACH DATABASE ${lit(previous)} AS v`)
    db.transaction(() => {
      copyDictionaries(db)
      // Contracts that may replace an earlier version (updates, days read in part): the newest staged version of each.
      db.query(
        `CREATE TEMP TABLE trocados AS SELECT numero, max(id) AS id FROM s.novos
         WHERE id <= ?1 AND numero IN (SELECT numero FROM s.novos WHERE substitui = 1 AND id <= ?1) GROUP BY numero`,
      ).run(last)
      db.exec('CREATE UNIQUE INDEX temp.trocados_numero ON trocados (numero)')
      db.exec('CREATE UNIQUE INDEX temp.trocados_id ON trocados (id)')
      const staged = `SELECT ${CONTRACT_COLUMNS} FROM s.novos WHERE id <= ${Number(last)} AND (substitui = 0 OR id IN (SELECT id FROM temp.trocados))`
      const kept = `SELECT ${CONTRACT_COLUMNS} FROM v.contratos WHERE numero NOT IN (SELECT numero FROM temp.trocados)`
      // Written in supplier order: a supplier's newest contracts sit together on a few pages (a lookup
      // reads those, not 100 pages scattered over a file larger than the memory left to it). The number
      // last: contracts signed the same day get ids in number order, the answer's tie-break (c.id DESC),
      // never the order the days happened to be fetched in.
      db.exec(`INSERT INTO contratos (${CONTRACT_COLUMNS}) SELECT ${CONTRACT_COLUMNS} FROM (${previous ? `${kept} UNION ALL ` : ''}${staged})
        ORDER BY substr(cnpj_fornecedor, 1, 8), data_assinatura, numero`)
    })()
    if (previous) db.exec('DETACH DATABASE v')
    db.exec('DETACH DATABASE s')
    step('cópia dos contratos, em ordem de fornecedor')
    db.exec(SERVED_INDEXES[0]!)
    step('índice por número')
    // Never expected (a finished day is read once): two versions of a contract neither marked as replacing; one stays.
    const twice = db.query(`DELETE FROM contratos WHERE id IN (
      SELECT c.id FROM (SELECT numero, max(id) AS keep FROM contratos GROUP BY numero HAVING count(*) > 1) d JOIN contratos c ON c.numero = d.numero AND c.id < d.keep)`).run()
    step(`versões repetidas: ${twice.changes}`)
    db.exec(SERVED_INDEXES[1]!)
    step('índice por fornecedor')
    // In supplier order over the table written in that order: one sequential pass.
    db.exec(`INSERT INTO fornecedores (raiz, total, valor, orgaos)
      SELECT substr(cnpj_fornecedor, 1, 8), count(*), sum(CAST(round(coalesce(valor_global, valor_inicial, 0) * ${VALUE_SCALE}) AS INTEGER)), count(DISTINCT orgao)
      FROM contratos GROUP BY substr(cnpj_fornecedor, 1, 8)`)
    step('totais por fornecedor')
  } finally {
    db.close()
  }
}

function buildIncremental(path: string, sync: SyncFile, last: number, previous: string, cacheMb: number): void {
  copyFileSync(previous, path)
  const db = new Database(path)
  try {
    pragmasForBuild(db, cacheMb)
    db.exec(`ATTACH DATABASE ${lit(sync.path)} AS s`)
    db.transaction(() => {
      copyDictionaries(db)
      const find = db.query('SELECT id, cnpj_fornecedor FROM contratos WHERE numero = ?1')
      const insert = db.query(`INSERT INTO contratos (${CONTRACT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`)
      const update = db.query(
        'UPDATE contratos SET cnpj_fornecedor = ?2, orgao = ?3, unidade = ?4, tipo = ?5, objeto = ?6, valor_inicial = ?7, valor_global = ?8, data_assinatura = ?9, vigencia_inicio = ?10, vigencia_fim = ?11 WHERE id = ?1',
      )
      const touched = new Set<string>()
      // By number, then staged order: versions of one contract apply oldest first, and contracts of one
      // signature day get ids (the answer's tie-break) in number order whatever order the days were fetched in.
      for (const r of db.query(`SELECT ${CONTRACT_COLUMNS} FROM s.novos WHERE id <= ?1 ORDER BY numero, id`).values(last) as unknown[][]) {
        const [numero, cnpj, ...rest] = r as [string, string, ...unknown[]]
        const old = find.get(numero) as { id: number; cnpj_fornecedor: string } | null
        if (old) {
          update.run(old.id, cnpj, ...(rest as never[]))
          touched.add(old.cnpj_fornecedor.slice(0, 8))
        } else insert.run(numero, cnpj, ...(rest as never[]))
        touched.add(cnpj.slice(0, 8))
      }
      const aggregate = db.query(SQL_AGGREGATE_ROOT)
      const put = db.query('INSERT OR REPLACE INTO fornecedores (raiz, total, valor, orgaos) VALUES (?1, ?2, ?3, ?4)')
      const drop = db.query('DELETE FROM fornecedores WHERE raiz = ?1')
      for (const raiz of touched) {
        const a = aggregate.get(raiz) as { total: number; valor: number; orgaos: number }
        if (a.total === 0) drop.run(raiz)
        else put.run(raiz, a.total, a.valor, a.orgaos)
      }
    })()
    db.exec('DETACH DATABASE s')
  } finally {
    db.close()
  }
}

/** The build directory `current` points to, or null. */
function currentDir(root: string): string | null {
  try {
    return join(root, readlinkSync(join(root, CURRENT_LINK)))
  } catch {
    return null
  }
}

/**
 * Builds and swaps in a new served index when there is something new to serve: staged contracts,
 * or more days read whole (an empty day moves the reference date too). Nothing is built while no
 * day is finished (the index would claim none).
 */
export async function compact(dataDir: string, sync: SyncFile, now: number, options: { cacheMb?: number; force?: boolean; fullShare?: number; log?: (line: string) => void } = {}): Promise<CompactResult> {
  const started = performance.now()
  const root = join(dataDir, DATASET_DIR)
  const manifest = currentManifest<ContractsManifest>(dataDir, DATASET_DIR)
  const usable = manifest?.formato === FORMAT ? manifest : null
  const previousDir = usable ? currentDir(root) : null
  const previous = previousDir && existsSync(join(previousDir, DB_FILE)) ? join(previousDir, DB_FILE) : null
  const staged = sync.staged()
  const referencia = sync.syncedUpTo()
  const desde = sync.metaGet(META.desde)
  const nothing = { modo: 'nada' as const, contratos: usable?.contratos ?? 0, referencia: usable?.sincronizado_ate ?? null, segundos: 0 }
  if (!referencia) return nothing
  if (!options.force && staged.n === 0 && usable && usable.sincronizado_ate === referencia && usable.desde === desde) return nothing
  const full = !previous || !usable || staged.n > (options.fullShare ?? FULL_SHARE) * usable.contratos
  const work = join(root, `build_${process.pid}_${Date.now()}.tmp`)
  mkdirSync(work, { recursive: true })
  const path = join(work, DB_FILE)
  const cacheMb = options.cacheMb ?? 2048
  try {
    let t = performance.now()
    let cpu = process.cpuUsage()
    const step = (name: string) => {
      const used = process.cpuUsage(cpu)
      options.log?.(`compactação: ${name} em ${((performance.now() - t) / 1000).toFixed(1)} s (${((used.user + used.system) / 1e6).toFixed(1)} s de CPU)`)
      t = performance.now()
      cpu = process.cpuUsage()
    }
    if (full) buildFull(path, sync, staged.last, previous, cacheMb, step)
    else buildIncremental(path, sync, staged.last, previous!, cacheMb)
    const db = new Database(path)
    let counts: { contratos: number; fornecedores: number }
    try {
      const atualizadoEm = new Date(now).toISOString()
      writeMeta(db, { [META.formato]: String(FORMAT), [META.desde]: desde, [META.sincronizadoAte]: referencia, [META.atualizadoEm]: atualizadoEm })
      counts = {
        contratos: (db.query('SELECT count(*) AS n FROM contratos').get() as { n: number }).n,
        fornecedores: (db.query('SELECT count(*) AS n FROM fornecedores').get() as { n: number }).n,
      }
      const m: ContractsManifest = {
        base: BASE, formato: FORMAT, referencia, construido_em: new Date().toISOString(), arquivos: [], ...counts,
        desde, sincronizado_ate: referencia, atualizado_em: atualizadoEm, modo: full ? 'completa' : 'incremental',
      }
      writeFileSync(join(work, MANIFEST_FILE), JSON.stringify(m, null, 2))
    } finally {
      db.close()
    }
    // Written without journal or syncs: on disk before `current` points at it (a crash right after the
    // swap must not leave it at a half-written file), and flushed before it is served (reads of a file
    // still being written back stall for seconds: measured at 20 M contracts).
    for (const file of [DB_FILE, MANIFEST_FILE]) {
      const fd = openSync(join(work, file), 'r')
      try {
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    }
    step('gravado no disco')
    await swapIn(root, work, buildNameFor(referencia))
    // The build just replaced goes at once: a server still reading it keeps its open file until it
    // moves to the new one (Linux frees the space then), and the disk holds one index, not two.
    const keep = currentDir(root)
    for (const entry of readdirSync(root)) {
      const dir = join(root, entry)
      if (dir === keep || entry.endsWith('.tmp') || entry === CURRENT_LINK || !statSync(dir).isDirectory()) continue
      rmSync(dir, { recursive: true, force: true })
    }
    sync.unstage(staged.last)
    sync.metaSet(META.ultimaCompactacao, new Date(now).toISOString())
    return { modo: full ? 'completa' : 'incremental', contratos: counts.contratos, referencia, segundos: (performance.now() - started) / 1000 }
  } catch (err) {
    rmSync(work, { recursive: true, force: true })
    throw err
  }
}
