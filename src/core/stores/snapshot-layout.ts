// The layout every snapshot dataset shares: data/<dataset>/<build>/ with a manifest.json, and the
// `current` symlink the ingest swaps atomically. Read by the server, written by the ingest.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const CURRENT_LINK = 'current'
export const MANIFEST_FILE = 'manifest.json'

/** One source file a build read: what was downloaded, exactly, and what was kept of it. */
export interface SourceRecord {
  /** File name as downloaded (or as found in --from). */
  nome: string
  /** Which list or table it was recognized as (by its header). */
  tipo?: string
  /** The source's own date for the file (e.g. the CGU's daily file date), when it has one. */
  data?: string | null
  bytes: number
  sha256: string
  linhas_mantidas?: number
  linhas_descartadas?: number
  [extra: string]: unknown
}

export interface SnapshotManifest {
  /** The source, as the answers' `fonte.base` says it. */
  base: string
  /** Layout version of the files: a server opens only builds of its own version. */
  formato: number
  /** Reference date of the data (YYYY-MM-DD) or month (YYYY-MM). */
  referencia: string
  construido_em: string
  arquivos: SourceRecord[]
  [extra: string]: unknown
}

export function readManifest<M extends SnapshotManifest = SnapshotManifest>(dir: string): M {
  return JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as M
}
