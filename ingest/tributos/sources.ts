// The Tabela NCM download: one JSON file the Siscomex rewrites in place under one URL. Asked again
// with its ETag/Last-Modified (a 304 keeps the copy), so a daily run downloads only what changed.
// A new copy is checked (it must read as the table) before it replaces the one on disk.
import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { upstreamUrl } from '../../src/core/upstream'
import { SISCOMEX_CLASSIF, TABELA_NCM_PATH } from '../../src/datasets/tributos/upstreams'
import { downloadIfChanged } from '../lib/conditional'
import { BuildError } from '../lib/snapshot'
import { lerTabelaNcm, TabelaNcmError } from './parse'

export const TABELA_FILE = 'Tabela_NCM_Vigente.json'

export interface TabelaDownloadSettings {
  retries?: number
  retryDelayMs?: number
  timeoutMs?: number
  quiet?: boolean
  log?: (line: string) => void
}

export interface TabelaBaixada {
  dir: string
  changed: boolean
}

export async function downloadTabelaNcm(dir: string, s: TabelaDownloadSettings = {}, env: Record<string, string | undefined> = process.env): Promise<TabelaBaixada> {
  mkdirSync(dir, { recursive: true })
  const url = upstreamUrl(SISCOMEX_CLASSIF, env) + TABELA_NCM_PATH
  const dest = join(dir, TABELA_FILE)
  let changed: boolean
  try {
    const r = await downloadIfChanged(url, dest, { retries: s.retries ?? 4, retryDelayMs: s.retryDelayMs ?? 1000, timeoutMs: s.timeoutMs ?? 120_000, quiet: s.quiet, log: s.log, label: TABELA_FILE })
    changed = r.changed
  } catch (err) {
    throw new BuildError(`${url}: ${err instanceof Error ? err.message : err}; tente mais tarde (a cópia já baixada, se houver, continua valendo) ou use --from DIR`)
  }
  if (changed) {
    // A maintenance page served with 200, or a cut JSON, must not take the place of a good copy.
    try {
      lerTabelaNcm(new Uint8Array(await Bun.file(dest).arrayBuffer()))
    } catch (err) {
      if (!(err instanceof TabelaNcmError)) throw err
      const bad = join(dir, `${TABELA_FILE}.recusado`)
      renameSync(dest, bad)
      rmSync(`${dest}.http.json`, { force: true })
      throw new BuildError(`o Siscomex respondeu algo que não é a Tabela NCM (${err.message}); guardado em ${bad}; tente mais tarde ou use --from DIR`)
    }
  }
  return { dir, changed }
}
