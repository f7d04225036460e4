// Feeds a stream of bytes to a reader (DuckDB's read_csv) through a named pipe, so a
// multi-gigabyte zip entry is never written to disk. NUL bytes (seen in real dumps) and
// carriage returns are dropped on the way; the record and unit separators (0x1E, 0x1F), which
// the card store uses between fields, become spaces, so no value can contain one.
import { spawnSync } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { once } from 'node:events'

export function makeFifo(path: string): void {
  const r = spawnSync('mkfifo', ['-m', '600', path])
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr?.toString().trim() || 'falhou'}`)
}

/**
 * Removes bytes 0x00 and 0x0D and turns 0x1E and 0x1F into spaces; returns the same buffer when
 * there are none (the common case: four native scans, no copy).
 */
export function cleanChunk(chunk: Uint8Array): Uint8Array {
  if (chunk.indexOf(0) < 0 && chunk.indexOf(13) < 0 && chunk.indexOf(0x1e) < 0 && chunk.indexOf(0x1f) < 0) return chunk
  const out = new Uint8Array(chunk.length)
  let n = 0
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i]!
    if (b === 0x1e || b === 0x1f) out[n++] = 0x20
    else if (b !== 0 && b !== 13) out[n++] = b
  }
  return out.subarray(0, n)
}

/**
 * Writes every chunk into the FIFO at `path`. Resolves when all was written; rejects with the
 * source's error (the reader then sees an early end of file, and its caller must discard the result).
 */
export async function pumpToFifo(path: string, source: AsyncIterable<Uint8Array>, onBytes?: (n: number) => void): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 })
  await once(out, 'open')
  let failure: unknown
  try {
    for await (const chunk of source) {
      onBytes?.(chunk.length)
      if (!out.write(cleanChunk(chunk))) await once(out, 'drain')
    }
    // A file whose last line lacks its newline still ends a row.
    out.write('\n')
  } catch (err) {
    failure = err
  } finally {
    out.end()
    await once(out, 'close').catch(() => {})
  }
  if (failure) throw failure
}

export async function removeFifo(path: string): Promise<void> {
  await rm(path, { force: true })
}
