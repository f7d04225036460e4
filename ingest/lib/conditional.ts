// A file the source rewrites in place under one URL (the MTE's employers list, the Banco
// Central's monthly zips...): downloaded again only when it changed. The ETag and Last-Modified
// of the copy on disk are kept beside it (<file>.http.json) and sent back as If-None-Match /
// If-Modified-Since; a 304 keeps the copy. A changed file comes in that same answer; if it is cut,
// downloadAll resumes it (Range, retries with backoff).
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { BROWSER_USER_AGENT, fetchUpstream, UpstreamError } from '../../src/core/upstream'
import { downloadAll, DownloadError, type DownloadOptions } from './download'
import { progress } from './progress'

interface Validators {
  url: string
  etag?: string
  last_modified?: string
}

const sidecar = (dest: string) => `${dest}.http.json`

function readValidators(dest: string, url: string): Validators | null {
  try {
    const v = JSON.parse(readFileSync(sidecar(dest), 'utf8')) as Validators
    return v.url === url && existsSync(dest) ? v : null
  } catch {
    return null
  }
}

export interface ConditionalResult {
  changed: boolean
  /** With missingOk: the server says there is no such file (404/410). */
  missing?: boolean
  etag?: string
  lastModified?: string
}

/**
 * Makes `dest` the current copy of `url`. Returns changed: false when the server says the copy on
 * disk is current (304), missing: true (with missingOk) when it has no such file (a month not
 * published yet). Throws DownloadError on failure (the old copy stays).
 */
export async function downloadIfChanged(url: string, dest: string, options: DownloadOptions & { timeoutMs?: number; missingOk?: boolean } = {}): Promise<ConditionalResult> {
  const known = readValidators(dest, url)
  const headers: Record<string, string> = { 'user-agent': BROWSER_USER_AGENT, ...options.headers }
  if (known?.etag) headers['if-none-match'] = known.etag
  if (known?.last_modified) headers['if-modified-since'] = known.last_modified
  let response: Response
  try {
    response = await fetchUpstream(url, {
      headers,
      accept: options.missingOk ? [304, 404, 410] : [304],
      retries: options.retries ?? 4,
      backoffMs: options.retryDelayMs ?? 1000,
      timeoutMs: options.timeoutMs,
      onRetry: (n, err, ms) => options.log?.(`${err.message}; nova tentativa (${n}) em ${ms} ms`),
    })
  } catch (err) {
    throw new DownloadError(err instanceof UpstreamError ? err.message : String(err))
  }
  if (response.status !== 200) await response.body?.cancel().catch(() => {})
  if (response.status === 304) return { changed: false, etag: known?.etag, lastModified: known?.last_modified }
  if (response.status === 404 || response.status === 410) return { changed: false, missing: true }
  const validators: Validators = { url }
  const etag = response.headers.get('etag')
  const lastModified = response.headers.get('last-modified')
  if (etag) validators.etag = etag
  if (lastModified) validators.last_modified = lastModified
  // The copy on disk is replaced only once the new one is whole. A part left by an earlier run may
  // be of another version of the file: start over.
  rmSync(sidecar(dest), { force: true })
  const tmp = `${dest}.novo`
  const part = `${tmp}.part`
  rmSync(part, { force: true })
  // The answer to the conditional request is the file: written as it comes; if it is cut,
  // downloadAll resumes it with Range (and retries with backoff).
  let whole = false
  const expected = Number(response.headers.get('content-length') ?? NaN)
  const bar = progress(options.label ?? 'download', Number.isFinite(expected) ? expected : null, { quiet: options.quiet })
  const file = await open(part, 'w')
  try {
    let size = 0
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      await file.write(chunk)
      size += chunk.length
      bar.add(chunk.length)
    }
    whole = !Number.isFinite(expected) || expected === size
    if (whole) bar.done()
  } catch (err) {
    options.log?.(`download interrompido (${err instanceof Error ? err.message : err}); retomando ${dest}`)
  } finally {
    await file.close()
  }
  if (whole) renameSync(part, tmp)
  else await downloadAll([{ url, dest: tmp }], { ...options, headers: { 'user-agent': BROWSER_USER_AGENT, ...options.headers } })
  renameSync(tmp, dest)
  writeFileSync(sidecar(dest), JSON.stringify(validators))
  return { changed: true, etag: etag ?? undefined, lastModified: lastModified ?? undefined }
}
