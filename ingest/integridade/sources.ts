// Where the five lists come from, and the daily download: the CGU's Portal da Transparência
// (a landing page per list whose script lists the daily files; the dated URL redirects to the
// zip on the CDN) and the MTE's employers list (one CSV rewritten in place on gov.br). Only what
// changed is downloaded: a CGU file of a date already on disk is not fetched again, the MTE list is
// asked with its ETag/Last-Modified.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BROWSER_USER_AGENT, fetchUpstream, upstreamUrl, UpstreamError } from '../../src/core/upstream'
import { CGU_DOWNLOADS, MTE_CADASTRO } from '../../src/datasets/integridade/upstreams'
import { downloadIfChanged } from '../lib/conditional'
import { downloadAll, DownloadError } from '../lib/download'
import { BuildError } from '../lib/snapshot'
import { validIsoDate } from '../lib/values'

export { CGU_DOWNLOADS, MTE_CADASTRO }

/** The CGU lists: the landing page's path and the name of the file the CDN serves. */
export const CGU_LISTS = [
  { slug: 'ceis', file: 'CEIS' },
  { slug: 'cnep', file: 'CNEP' },
  { slug: 'cepim', file: 'CEPIM' },
  { slug: 'acordos-leniencia', file: 'Acordos' },
] as const

export const MTE_FILE = 'cadastro_de_empregadores.csv'

/**
 * The dates a landing page offers: its script pushes one object per daily file,
 * `arquivos.push({"ano" : "2026", "mes" : "09", "dia" : "30", "origem" : "CEIS"});`.
 */
export function datesOnPage(html: string): string[] {
  const out = new Set<string>()
  for (const m of html.matchAll(/"ano"\s*:\s*"(\d{4})"\s*,\s*"mes"\s*:\s*"(\d{1,2})"\s*,\s*"dia"\s*:\s*"(\d{1,2})"/g)) {
    const iso = `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`
    if (validIsoDate(iso)) out.add(iso)
  }
  return [...out].sort()
}

export interface DownloadSettings {
  retries?: number
  /** First delay between retries, doubled each time. */
  retryDelayMs?: number
  timeoutMs?: number
  quiet?: boolean
  log?: (line: string) => void
}

/** The latest daily file a CGU landing page lists. */
export async function latestCguDate(base: string, slug: string, s: DownloadSettings = {}): Promise<string> {
  let html: string
  try {
    const response = await fetchUpstream(`${base}/${slug}`, {
      retries: s.retries ?? 4,
      backoffMs: s.retryDelayMs ?? 1000,
      timeoutMs: s.timeoutMs,
      headers: { accept: 'text/html' },
      onRetry: (n, err, ms) => s.log?.(`${err.message}; nova tentativa (${n}) em ${ms} ms`),
    })
    html = await response.text()
  } catch (err) {
    throw new BuildError(`página de download do ${slug} indisponível (${err instanceof UpstreamError ? err.message : err}); tente mais tarde ou use --from DIR com os arquivos baixados à mão`)
  }
  const dates = datesOnPage(html)
  if (!dates.length) throw new BuildError(`${base}/${slug}: a página não lista nenhum arquivo (arquivos.push); o portal pode estar pedindo verificação de robô: tente mais tarde ou use --from DIR`)
  return dates[dates.length - 1]!
}

const compact = (iso: string) => iso.replace(/-/g, '')

/** True when a file starts like a zip (a CDN error page served with 200 is not one). */
async function looksLikeZip(path: string): Promise<boolean> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 4).arrayBuffer())
  return head[0] === 0x50 && head[1] === 0x4b
}

export interface DownloadedLists {
  dir: string
  /** Each CGU zip's date, from its landing page. */
  dates: Record<string, string>
  /** What was fetched this run (empty: nothing changed upstream). */
  fetched: string[]
}

/**
 * Brings `dir` up to date: the latest zip of each CGU list (one file per list is kept: older dates
 * are removed once the new one is whole) and the MTE list.
 */
export async function downloadLists(dir: string, s: DownloadSettings = {}, env: Record<string, string | undefined> = process.env): Promise<DownloadedLists> {
  mkdirSync(dir, { recursive: true })
  const cgu = upstreamUrl(CGU_DOWNLOADS, env)
  const mte = upstreamUrl(MTE_CADASTRO, env)
  const dates: Record<string, string> = {}
  const fetched: string[] = []
  const items: { url: string; dest: string; name: string; file: string }[] = []
  for (const list of CGU_LISTS) {
    const date = await latestCguDate(cgu, list.slug, s)
    const name = `${compact(date)}_${list.file}.zip`
    dates[name] = date
    if (!existsSync(join(dir, name))) items.push({ url: `${cgu}/${list.slug}/${compact(date)}`, dest: join(dir, name), name, file: list.file })
  }
  const options = { headers: { 'user-agent': BROWSER_USER_AGENT }, retries: s.retries ?? 8, retryDelayMs: s.retryDelayMs ?? 1000, quiet: s.quiet, log: s.log, label: 'listas da CGU', concurrency: 2 }
  if (items.length) {
    try {
      await downloadAll(items, options)
    } catch (err) {
      throw new BuildError(`download falhou: ${err instanceof Error ? err.message : err}; rode de novo para retomar (o que já veio é aproveitado)`)
    }
    for (const item of items) {
      if (!(await looksLikeZip(item.dest))) {
        rmSync(item.dest, { force: true })
        throw new BuildError(`${item.url}: a resposta não é um zip (página de erro ou verificação de robô); tente mais tarde ou use --from DIR`)
      }
      fetched.push(item.name)
      // Older dates of the same list go: the directory holds exactly what the next build reads.
      for (const old of readdirSync(dir)) if (old !== item.name && new RegExp(`^\\d{8}_${item.file}\\.zip$`).test(old)) rmSync(join(dir, old), { force: true })
    }
  }
  try {
    const r = await downloadIfChanged(mte, join(dir, MTE_FILE), { ...options, label: 'cadastro do MTE', timeoutMs: s.timeoutMs })
    if (r.changed) fetched.push(MTE_FILE)
  } catch (err) {
    throw new BuildError(`cadastro de empregadores do MTE: ${err instanceof DownloadError ? err.message : err}; tente mais tarde ou use --from DIR`)
  }
  return { dir, dates, fetched }
}
