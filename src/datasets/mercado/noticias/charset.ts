// Feeds are bytes in whatever encoding the outlet chose: UTF-8 mostly, ISO-8859-1 declared in the
// XML prolog (Folha), sometimes a header that contradicts the file. The parser takes text, so the
// charset is decided here, from the evidence in order: byte-order mark, HTTP header, XML prolog.

export interface Decoded {
  text: string
  /** The charset used, and why when the declared one was not. */
  charset: string
}

const SINGLE_BYTE = new Set(['iso-8859-1', 'latin1', 'iso8859-1', 'l1', 'windows-1252', 'cp1252', 'us-ascii', 'ascii', 'iso-8859-15'])

function headerCharset(contentType: string | null): string | null {
  const m = contentType ? /charset\s*=\s*"?([A-Za-z0-9._:-]+)"?/i.exec(contentType) : null
  return m ? m[1]!.toLowerCase() : null
}

function prologCharset(bytes: Uint8Array): string | null {
  // The prolog is ASCII in every encoding a feed uses (UTF-16 is caught by its BOM first).
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 256))
  const m = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)
  return m ? m[1]!.toLowerCase() : null
}

function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
}

/** Whether the bytes hold any multi-byte UTF-8 sequence (valid UTF-8 that is not plain ASCII). */
const hasMultibyte = (bytes: Uint8Array) => bytes.some((b) => b >= 0x80)

export function decodeFeed(bytes: Uint8Array, contentType: string | null): Decoded {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), charset: 'utf-8 (BOM)' }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), charset: 'utf-16le (BOM)' }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), charset: 'utf-16be (BOM)' }
  const fromHeader = headerCharset(contentType)
  const fromProlog = prologCharset(bytes)
  const declared = fromHeader ?? fromProlog ?? 'utf-8'
  if (declared === 'utf-8' || declared === 'utf8') {
    const text = strictUtf8(bytes)
    if (text !== null) return { text, charset: 'utf-8' }
    // Declared UTF-8 (or nothing declared) but the bytes are not: Latin text in cp1252 is what servers get wrong.
    const fallback = fromProlog && fromProlog !== 'utf-8' && fromProlog !== 'utf8' ? fromProlog : 'windows-1252'
    return { text: new TextDecoder(SINGLE_BYTE.has(fallback) ? 'windows-1252' : fallback).decode(bytes), charset: `${fallback} (declarado utf-8, bytes não são utf-8)` }
  }
  if (SINGLE_BYTE.has(declared)) {
    // A header saying latin-1 over a file that is valid UTF-8 with accents and declares UTF-8: the header is wrong.
    if (fromProlog && (fromProlog === 'utf-8' || fromProlog === 'utf8') && hasMultibyte(bytes)) {
      const text = strictUtf8(bytes)
      if (text !== null) return { text, charset: `utf-8 (o cabeçalho dizia ${declared})` }
    }
    // WHATWG maps iso-8859-1 to windows-1252: 0x80-0x9F become “ ” – … as the outlets meant.
    return { text: new TextDecoder('windows-1252').decode(bytes), charset: declared }
  }
  try {
    return { text: new TextDecoder(declared).decode(bytes), charset: declared }
  } catch {
    throw new Error(`codificação desconhecida: ${declared}`)
  }
}
