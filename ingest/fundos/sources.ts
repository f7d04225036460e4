// Where the fund files come from: the CVM's open-data server (SOURCES.md §5), a setting. Each
// file is asked for with its last ETag / Last-Modified (ingest/lib/conditional.ts): the CVM
// rewrites the current and previous months in place, the older ones weekly, the registry daily, so
// a daily run downloads only what changed (a 304 keeps the copy on disk).
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fetchUpstream } from '../../src/core/upstream'
import { CVM_FI_UPSTREAM } from '../../src/datasets/fundos/upstream'
import { downloadIfChanged } from '../lib/conditional'
import { DAILY_ZIP, LEGACY_REGISTRY, monthName, monthOf, PORTFOLIO_ZIP, REGISTRY_ZIP } from './files'
import type { SourceFile, SourceSet } from './load'

export const CVM_FI = CVM_FI_UPSTREAM

export const DAILY_DIR = 'DOC/INF_DIARIO/DADOS'
export const PORTFOLIO_DIR = 'DOC/CDA/DADOS'
export const REGISTRY_DIR = 'CAD/DADOS'

export class SourceDownloadError extends Error {}

export interface DownloadOptions {
  baseUrl: string
  dir: string
  dailyMonths: number
  portfolioMonths: number
  quiet?: boolean
  log?: (line: string) => void
  /** The clock (tests): which months to ask for when the server gives no listing. */
  now?: Date
  retryDelayMs?: number
}

export interface DownloadResult {
  sources: SourceSet
  baixados: string[]
  inalterados: string[]
  avisos: string[]
}

/** The month a date is in, in Brasília (the CVM's clock), and the months before it. */
export function monthsBack(now: Date, count: number): string[] {
  const brt = new Date(now.getTime() - 3 * 3600_000)
  let y = brt.getUTCFullYear()
  let m = brt.getUTCMonth() + 1
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    out.push(`${y}-${String(m).padStart(2, '0')}`)
    if (--m === 0) {
      m = 12
      y--
    }
  }
  return out
}

/** Months of the files a directory listing (an HTML index) links to, oldest first; null when there is no usable listing. */
export async function listMonths(url: string, pattern: RegExp): Promise<string[] | null> {
  try {
    const response = await fetchUpstream(`${url}/`, { retries: 2, timeoutMs: 30_000, backoffMs: 500 })
    const html = await response.text()
    const months = new Set<string>()
    for (const m of html.matchAll(/href\s*=\s*["']?([^"' >]+)/gi)) {
      const month = monthOf(decodeURIComponent(m[1]!.split('/').pop() ?? ''), pattern)
      if (month) months.add(month)
    }
    return months.size ? [...months].sort() : null
  } catch {
    return null
  }
}

/** Downloads what changed into `dir` and returns the files of the build. */
export async function downloadSources(options: DownloadOptions): Promise<DownloadResult> {
  const { baseUrl, dir } = options
  const log = options.log ?? (() => {})
  const retryDelayMs = options.retryDelayMs ?? 1000
  await mkdir(dir, { recursive: true })
  const result: DownloadResult = { sources: { daily: [], portfolios: [], registry: null, legacy: null }, baixados: [], inalterados: [], avisos: [] }
  const now = options.now ?? new Date()

  /** Makes the local copy of one file current; returns it, or null when the server does not have it (404). */
  const fetchFile = async (folder: string, name: string, month?: string): Promise<SourceFile | null> => {
    const url = `${baseUrl}/${folder}/${name}`
    const local = join(dir, name)
    let r
    try {
      r = await downloadIfChanged(url, local, { missingOk: true, quiet: options.quiet, label: `download ${name}`, log, retryDelayMs, timeoutMs: 120_000 })
    } catch (err) {
      throw new SourceDownloadError(`${name}: ${err instanceof Error ? err.message.replace(/^\S+: /, '') : err}; a CVM está fora do ar? tente de novo mais tarde (a base em uso foi mantida)`)
    }
    if (r.missing) return null
    ;(r.changed ? result.baixados : result.inalterados).push(name)
    return { name, path: local, month, etag: r.etag ?? null, ultima_modificacao: r.lastModified ?? null }
  }

  /** The latest `count` months of a monthly file: from the server's listing, else from the clock (a missing newest month is normal early in a month). */
  const monthly = async (folder: string, pattern: RegExp, prefix: string, count: number, probe: number) => {
    const listed = await listMonths(`${baseUrl}/${folder}`, pattern)
    const candidates = listed ? listed.slice(-count).reverse() : monthsBack(now, probe)
    const files: SourceFile[] = []
    for (const month of candidates) {
      if (files.length === count) break
      const name = `${prefix}${monthName(month)}.zip`
      const f = await fetchFile(folder, name, month)
      if (f) files.push(f)
      // Listed but gone: the window would have a hole.
      else if (listed) throw new SourceDownloadError(`${baseUrl}/${folder}/${name} não existe (HTTP 404), embora listado; a base em uso foi mantida`)
      // Without a listing, the first missing month after one that exists ends the window (older ones moved to HIST/).
      else if (files.length) break
    }
    return files.reverse()
  }

  result.sources.registry = await fetchFile(REGISTRY_DIR, REGISTRY_ZIP)
  if (!result.sources.registry) throw new SourceDownloadError(`${baseUrl}/${REGISTRY_DIR}/${REGISTRY_ZIP} não existe (HTTP 404); confira ${CVM_FI.env}; a base em uso foi mantida`)
  try {
    result.sources.legacy = await fetchFile(REGISTRY_DIR, LEGACY_REGISTRY)
  } catch (err) {
    result.avisos.push(`cadastro antigo ${LEGACY_REGISTRY} não baixado (${err instanceof Error ? err.message : err}); seguindo sem ele`)
  }
  if (!result.sources.legacy && !result.avisos.length) result.avisos.push(`cadastro antigo ${LEGACY_REGISTRY} não existe mais no servidor; seguindo sem ele`)
  result.sources.daily = await monthly(DAILY_DIR, DAILY_ZIP, 'inf_diario_fi_', options.dailyMonths, options.dailyMonths + 1)
  // The portfolios come out two to four months late: probe further back.
  result.sources.portfolios = await monthly(PORTFOLIO_DIR, PORTFOLIO_ZIP, 'cda_fi_', options.portfolioMonths, options.portfolioMonths + 6)
  for (const a of result.avisos) log(`aviso: ${a}`)
  return result
}
