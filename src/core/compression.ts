// Compressed answers by Accept-Encoding, only where it pays. Measured in process (Bun 1.4, 2
// cores): gzip level 1 costs ~6 µs on 1-2 KiB, as much as a whole card lookup, and saves under
// 1 KiB; on a 128 KiB pack it costs ~0.3 ms and saves 75 %. So answers under DYNAMIC_MIN_BYTES
// (every single lookup) go as they are, larger ones as fast gzip; the fixed documents
// (/openapi.json, the docs bundle) are compressed once, at the best ratio, and kept.
import { brotliCompressSync, constants } from 'node:zlib'

/** Answers smaller than this are sent uncompressed (docs/desempenho.md: the measure behind it). */
export const DYNAMIC_MIN_BYTES = 8192
/** Fixed documents smaller than this are not worth a compressed copy. */
const STATIC_MIN_BYTES = 1024

export type Encoding = 'br' | 'gzip'

/** The encodings a request accepts (q=0 refuses one), by the Accept-Encoding header. */
export function accepted(header: string | null): { br: boolean; gzip: boolean } {
  const out = { br: false, gzip: false }
  if (!header) return out
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const ok = !q || Number(q.slice(2)) > 0
    if (name === 'br') out.br = ok
    else if (name === 'gzip' || name === 'x-gzip') out.gzip = ok
    else if (name === '*' && ok) out.gzip = true
  }
  return out
}

const VARY = 'Accept-Encoding'

/**
 * A JSON answer's body, gzipped when it is large and the client takes gzip. Returns the headers to
 * add (content-encoding, vary) or null to send it as is.
 */
export function compressDynamic(text: string | Uint8Array, acceptEncoding: string | null): { body: Uint8Array; headers: Record<string, string> } | null {
  const size = typeof text === 'string' ? text.length : text.byteLength
  if (size < DYNAMIC_MIN_BYTES || !accepted(acceptEncoding).gzip) return null
  return { body: Bun.gzipSync(typeof text === 'string' ? new TextEncoder().encode(text) : (text as Uint8Array<ArrayBuffer>), { level: 1 }), headers: { 'content-encoding': 'gzip', vary: VARY } }
}

/** A fixed document's compressed copies, made on first use and kept (a few per server: bounded by the caller's keys). */
export class StaticBodies {
  private readonly copies = new Map<string, { raw: string; br?: Uint8Array; gzip?: Uint8Array }>()
  constructor(private readonly max = 64) {}

  /** The body to send for this request and the headers that say how it is encoded. */
  body(key: string, raw: string, acceptEncoding: string | null): { body: string | Uint8Array; headers: Record<string, string> } {
    if (raw.length < STATIC_MIN_BYTES) return { body: raw, headers: {} }
    const want = accepted(acceptEncoding)
    if (!want.br && !want.gzip) return { body: raw, headers: { vary: VARY } }
    let entry = this.copies.get(key)
    if (!entry || entry.raw !== raw) {
      // Keys come from the Host header of a request (absolute links): keep the first ones only.
      if (this.copies.size >= this.max) this.copies.delete(this.copies.keys().next().value!)
      this.copies.set(key, (entry = { raw }))
    }
    if (want.br) {
      entry.br ??= brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
      return { body: entry.br, headers: { 'content-encoding': 'br', vary: VARY } }
    }
    entry.gzip ??= Bun.gzipSync(new TextEncoder().encode(raw), { level: 9 })
    return { body: entry.gzip, headers: { 'content-encoding': 'gzip', vary: VARY } }
  }
}
