// Every snapshot dataset is built the same way: in a new `<build>.tmp` directory under
// data/<dataset>/, checked, given its manifest, then renamed into place and made current by an
// atomic rename of the `current` symlink. A failure anywhere removes the temp directory and leaves
// the data in use untouched; a running server follows `current` and picks the new build up live
// (src/core/stores/snapshot.ts). One build at a time per dataset (a lock file with the pid), and
// only a build that still holds it, started by a command still running, may swap (swapIn).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { lineWriter, logFormatFrom } from '../../src/core/log'
import { parentAlive } from '../../src/core/self'
import { checkBuildFiles, DamagedFileError } from '../../src/core/stores/file-check'
import { CURRENT_LINK, MANIFEST_FILE, readManifest, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'
import { stillRunning } from './processes'

export class BuildError extends Error {}

const LOCK_FILE = '.ingest.lock'

/** One line on stderr in the ingest's log format (DADOSBR_LOG_FORMATO). */
const defaultLog = (line: string) => lineWriter('ingest', logFormatFrom(undefined))(line, 'warn')

/** The pid in a lock file and when it was written, or null when there is none. */
function lockHolder(lock: string): { pid: number; since: number } | null {
  try {
    return { pid: Number(readFileSync(lock, 'utf8').trim()), since: statSync(lock).mtimeMs }
  } catch {
    return null
  }
}

/**
 * One build at a time per dataset directory: a lock file holding the builder's pid, created only if
 * absent. A lock whose process is gone (killed, the machine restarted) is taken over, with a log
 * line; then the `*.tmp` directories the dead build left (a national month's is tens of GB) are
 * removed. Returns the release, which removes the lock only while it is still this process's.
 */
export async function takeBuildLock(root: string, log: (line: string) => void = defaultLog): Promise<() => Promise<void>> {
  await mkdir(root, { recursive: true })
  const lock = join(root, LOCK_FILE)
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' })
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const holder = lockHolder(lock)
    if (!holder) continue // released meanwhile
    if (holder.pid !== process.pid && stillRunning(holder.pid, holder.since))
      throw new BuildError(`outro ingest (pid ${holder.pid}) está construindo em ${root}; espere ele terminar ou encerre-o`)
    if (holder.pid !== process.pid) log(`aviso: a trava de ${root} era de um ingest que terminou sem liberá-la (pid ${holder.pid || '?'}); assumida por este (pid ${process.pid})`)
    await rm(lock, { force: true })
  }
  const left = readdirSync(root).filter((e) => e.endsWith('.tmp'))
  for (const entry of left) await rm(join(root, entry), { recursive: true, force: true })
  if (left.length) log(`aviso: removidos restos de construções interrompidas em ${root}: ${left.join(', ')}`)
  return async () => {
    if (lockHolder(lock)?.pid === process.pid) await rm(lock, { force: true })
  }
}

/**
 * Whether this process may still make its build current: a build whose lock was taken over (its
 * holder looked dead) or whose starting command is gone (an ingest's internal process, whose user
 * killed the command: src/core/self.ts dieWithParent) must not swap. Throws BuildError otherwise.
 */
export function checkStillBuilder(root: string): void {
  if (!parentAlive()) throw new BuildError('o comando que iniciou este ingest terminou (foi encerrado); a base em uso foi mantida')
  const holder = lockHolder(join(root, LOCK_FILE))
  if (holder?.pid !== process.pid)
    throw new BuildError(`a trava de ${root} não é mais deste ingest (${holder ? `agora é do pid ${holder.pid}` : 'foi removida'}); a base em uso foi mantida`)
}

/**
 * Renames the finished build into place, points `current` at it atomically, keeps one previous
 * build. Refused (BuildError, the data in use kept) when a data file is cut short or its header is
 * not SQLite's or DuckDB's (a full disk, a writer that died), and, checked again right before the
 * rename of `current`, the one step others see, when this process is no longer the builder
 * (checkStillBuilder): a refused build is removed.
 */
export async function swapIn(root: string, work: string, buildName: string): Promise<void> {
  try {
    // The server checks the same before it opens a build (src/core/stores/current-link.ts).
    checkBuildFiles(work)
  } catch (err) {
    if (err instanceof DamagedFileError) throw new BuildError(`${err.message}; a base em uso foi mantida`)
    throw err
  }
  checkStillBuilder(root)
  const finalDir = join(root, buildName)
  await rename(work, finalDir)
  const link = join(root, CURRENT_LINK)
  const previous = existsSync(link) ? await readlink(link).catch(() => null) : null
  const tmpLink = join(root, `${CURRENT_LINK}.${process.pid}.tmp`)
  await rm(tmpLink, { force: true })
  await symlink(buildName, tmpLink)
  try {
    checkStillBuilder(root)
  } catch (err) {
    await rm(tmpLink, { force: true })
    await rm(finalDir, { recursive: true, force: true })
    throw err
  }
  await rename(tmpLink, link)
  // Older builds go; the one just replaced stays so a running server can finish its requests.
  for (const entry of readdirSync(root)) {
    if (entry === buildName || entry === previous || entry === CURRENT_LINK || entry.endsWith('.tmp')) continue
    if (statSync(join(root, entry)).isDirectory()) await rm(join(root, entry), { recursive: true, force: true })
  }
}

/** A build's directory name: the reference (date or month) and the build time, so names sort and never clash. */
let builds = 0
export function buildNameFor(referencia: string): string {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '').replace(/Z$/, '')
  return `${referencia}_${stamp}_${process.pid}_${++builds}`
}

export interface SnapshotBuildOptions<M extends SnapshotManifest> {
  dataDir: string
  /** Folder under dataDir (the dataset's name). */
  dataset: string
  /**
   * Writes the build's files into `work` and returns its manifest (the head fields base, formato,
   * referencia are required; construido_em is filled here). Throw BuildError to refuse the build.
   */
  build: (work: string) => Promise<Omit<M, 'construido_em'>>
  /** Checks the finished directory before the swap (files present, counts, reference date). */
  check?: (work: string, manifest: M) => Promise<void> | void
  /** Where a taken-over lock is reported (default: stderr, in the ingest's log format). */
  log?: (line: string) => void
}

/** Builds a snapshot in a temp directory and swaps it in; the data in use stays on any failure. */
export async function buildSnapshot<M extends SnapshotManifest>(options: SnapshotBuildOptions<M>): Promise<M> {
  const root = join(options.dataDir, options.dataset)
  const release = await takeBuildLock(root, options.log)
  const work = join(root, `build_${process.pid}_${Date.now()}.tmp`)
  try {
    await mkdir(work, { recursive: true })
    const partial = await options.build(work)
    const manifest = { ...partial, construido_em: new Date().toISOString() } as M
    if (!/^\d{4}-\d{2}(-\d{2})?$/.test(manifest.referencia ?? '')) throw new BuildError(`data de referência desconhecida (${manifest.referencia ?? 'nenhuma'}); a base em uso foi mantida`)
    await options.check?.(work, manifest)
    await writeFile(join(work, MANIFEST_FILE), JSON.stringify(manifest, null, 2))
    await swapIn(root, work, buildNameFor(manifest.referencia))
    return manifest
  } catch (err) {
    await rm(work, { recursive: true, force: true })
    throw noSpace(err, root) ?? err
  } finally {
    await release()
  }
}

/**
 * A build that failed for want of disk (ENOSPC, or EFBIG under a file size limit), as SQLite,
 * DuckDB and the system each say it: one line that says so and what to do. Null for any other error.
 */
export function noSpace(err: unknown, root: string): BuildError | null {
  const code = (err as { code?: unknown })?.code
  const message = err instanceof Error ? err.message : String(err)
  if (code === 'ENOSPC' || code === 'EFBIG' || code === 'SQLITE_FULL' || /No space left on device|File too large|database or disk is full/i.test(message))
    return new BuildError(`sem espaço em disco para construir em ${root} (${message.split('\n')[0]}); libere espaço e rode de novo; a base em uso foi mantida`)
  return null
}

/** The manifest of the build in use, or null when there is none (or it does not parse). */
export function currentManifest<M extends SnapshotManifest>(dataDir: string, dataset: string): M | null {
  try {
    return readManifest<M>(join(dataDir, dataset, CURRENT_LINK))
  } catch {
    return null
  }
}

/**
 * True when the build in use was made by this version from exactly these files: same names, same
 * sha256. A new day's file with the same bytes still rebuilds (the list's date moves on).
 */
export function sameSources(manifest: SnapshotManifest | null, formato: number, hashes: Map<string, string>): boolean {
  if (!manifest || manifest.formato !== formato || hashes.size === 0) return false
  const used = new Set(manifest.arquivos.map((a) => `${a.nome}\0${a.sha256}`))
  const now = new Set([...hashes].map(([nome, sha]) => `${nome}\0${sha}`))
  return used.size === now.size && [...now].every((k) => used.has(k))
}
