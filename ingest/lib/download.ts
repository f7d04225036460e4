// HTTP download with resume (Range), retries with backoff, several files at once, and one
// progress bar for the whole set. A finished file is renamed from .part only when complete.
import { existsSync, statSync } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import { progress, type Progress } from './progress'

export interface DownloadItem {
  url: string
  dest: string
  /** Expected size, when the listing gave it; a complete file of that size is skipped. */
  size?: number
}

export interface DownloadOptions {
  headers?: Record<string, string>
  concurrency?: number
  retries?: number
  /** Base delay between retries, doubled each time. */
  retryDelayMs?: number
  quiet?: boolean
  label?: string
  log?: (line: string) => void
}

export class DownloadError extends Error {}

async function downloadOne(item: DownloadItem, options: DownloadOptions, bar: Progress): Promise<void> {
  if (item.size !== undefined && existsSync(item.dest) && statSync(item.dest).size === item.size) {
    bar.add(item.size)
    return
  }
  const part = `${item.dest}.part`
  const retries = options.retries ?? 8
  let counted = existsSync(part) ? statSync(part).size : 0
  bar.add(counted)
  for (let attempt = 0; ; attempt++) {
    const have = existsSync(part) ? statSync(part).size : 0
    try {
      const headers: Record<string, string> = { ...options.headers }
      if (have > 0) headers.range = `bytes=${have}-`
      const response = await fetch(item.url, { headers })
      if (response.status === 416 && item.size !== undefined && have === item.size) break // already complete
      if (response.status !== 200 && response.status !== 206)
        throw new DownloadError(`${item.url}: HTTP ${response.status}`, { cause: response.status >= 500 || response.status === 429 ? 'retry' : 'final' })
      const resumed = response.status === 206
      if (!resumed && have > 0) {
        // The server ignored the Range: start over.
        bar.add(-counted)
        counted = 0
      }
      const file = await open(part, resumed ? 'a' : 'w')
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          await file.write(chunk)
          counted += chunk.length
          bar.add(chunk.length)
        }
      } finally {
        await file.close()
      }
      const size = statSync(part).size
      const expected = item.size ?? (resumed ? undefined : Number(response.headers.get('content-length') ?? NaN))
      if (expected !== undefined && Number.isFinite(expected) && size !== expected) throw new DownloadError(`${item.url}: recebidos ${size} de ${expected} bytes`, { cause: 'retry' })
      break
    } catch (err) {
      const final = err instanceof DownloadError && err.cause === 'final'
      if (final || attempt >= retries) throw err instanceof DownloadError ? err : new DownloadError(`${item.url}: ${err instanceof Error ? err.message : err}`)
      const delay = (options.retryDelayMs ?? 1000) * 2 ** attempt
      options.log?.(`download interrompido (${err instanceof Error ? err.message : err}); retomando ${item.dest} em ${delay} ms`)
      await Bun.sleep(delay)
    }
  }
  await rename(part, item.dest)
}

/** Downloads every item, `concurrency` at a time; throws the first final failure. */
export async function downloadAll(items: DownloadItem[], options: DownloadOptions = {}): Promise<void> {
  const total = items.every((i) => i.size !== undefined) ? items.reduce((n, i) => n + i.size!, 0) : null
  const bar = progress(options.label ?? 'download', total, { quiet: options.quiet })
  const queue = [...items]
  const workers = Array.from({ length: Math.min(options.concurrency ?? 4, items.length) }, async () => {
    for (let item = queue.shift(); item; item = queue.shift()) await downloadOne(item, options, bar)
  })
  await Promise.all(workers)
  bar.done()
}
