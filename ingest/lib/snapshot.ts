// Every snapshot dataset is built the same way: in a new `<build>.tmp` directory under
// data/<dataset>/, checked, given its manifest, then renamed into place and made current by an
// atomic rename of the `current` symlink. A failure anywhere removes the temp directory and leaves
// the data in use untouched; a running server follows `current` and picks the new build up live
// (src/core/stores/snapshot.ts). One build at a time per dataset (a lock file with the pid).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { mkdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CURRENT_LINK, MANIFEST_FILE, readManifest, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'

export class BuildError extends Error {}

const LOCK_FILE = '.ingest.lock'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * One build at a time per dataset directory. A build killed before it could clean up leaves its
 * `*.tmp` directory; the next build removes it, once the lock shows its holder is gone.
 */
export async function takeBuildLock(root: string): Promise<() => Promise<void>> {
  await mkdir(root, { recursive: true })
  const lock = join(root, LOCK_FILE)
  const holder = Number(await readFile(lock, 'utf8').catch(() => ''))
  if (holder && holder !== process.pid && alive(holder))
    throw new BuildError(`outro ingest (pid ${holder}) está construindo em ${root}; espere ele terminar ou encerre-o`)
  for (const entry of readdirSync(root)) if (entry.endsWith('.tmp')) await rm(join(root, entry), { recursive: true, force: true })
  await writeFile(lock, String(process.pid))
  return () => rm(lock, { force: true })
}

/** Renames the finished build into place, points `current` at it atomically, keeps one previous build. */
export async function swapIn(root: string, work: string, buildName: string): Promise<void> {
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
}

/** Builds a snapshot in a temp directory and swaps it in; the data in use stays on any failure. */
export async function buildSnapshot<M extends SnapshotManifest>(options: SnapshotBuildOptions<M>): Promise<M> {
  const root = join(options.dataDir, options.dataset)
  const release = await takeBuildLock(root)
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
    throw err
  } finally {
    await release()
  }
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
