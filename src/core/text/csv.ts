// Delimited text as the government publishes it: `;` or `,`, fields quoted or not, `""` inside
// quotes, line breaks inside quoted fields, CRLF or LF, a last line with or without its newline.
// One streaming parser for every dataset (CGU, MTE, CVM, ComexStat, ONS, INPE...), fed decoded text.
// Columns are always picked by header name (see header.ts), never by position.

export class CsvError extends Error {}

/**
 * Splits decoded text chunks into rows of fields. Quoted fields may span chunks and lines; a
 * quote inside an unquoted field is kept as text (some sources write `5" TUBO`). An unterminated
 * quote at the end of the input is an error (a truncated file), with the line where it opened.
 */
export async function* csvRows(chunks: AsyncIterable<string> | Iterable<string>, delimiter = ';'): AsyncGenerator<string[]> {
  const delim = delimiter.charCodeAt(0)
  let row: string[] = []
  let field = ''
  let inQuotes = false
  /** After a closing quote: the next character must end the field (anything else is kept, lenient). */
  let afterQuote = false
  let fieldStarted = false
  let line = 1
  let quoteLine = 0
  let pendingCr = false
  for await (const chunk of chunks) {
    let i = 0
    const n = chunk.length
    while (i < n) {
      const c = chunk.charCodeAt(i)
      if (inQuotes) {
        // Fast path: copy up to the next quote.
        const q = chunk.indexOf('"', i)
        if (q < 0) {
          const part = chunk.slice(i)
          field += part
          line += countNewlines(part)
          i = n
          break
        }
        const part = chunk.slice(i, q)
        field += part
        line += countNewlines(part)
        i = q + 1
        if (i >= n) {
          // The quote is the last character of the chunk: decide on the next chunk.
          inQuotes = false
          afterQuote = true
          break
        }
        if (chunk.charCodeAt(i) === 34) {
          field += '"'
          i++
        } else {
          inQuotes = false
          afterQuote = true
        }
        continue
      }
      if (afterQuote && c === 34) {
        // `""` split across chunks: an escaped quote inside the quoted field.
        field += '"'
        inQuotes = true
        afterQuote = false
        i++
        continue
      }
      if (pendingCr) {
        pendingCr = false
        if (c === 10) {
          i++
          continue
        }
      }
      if (c === delim) {
        row.push(field)
        field = ''
        fieldStarted = false
        afterQuote = false
        i++
        continue
      }
      if (c === 10 || c === 13) {
        row.push(field)
        yield row
        row = []
        field = ''
        fieldStarted = false
        afterQuote = false
        line++
        if (c === 13) pendingCr = true
        i++
        continue
      }
      if (c === 34 && !fieldStarted) {
        inQuotes = true
        fieldStarted = true
        quoteLine = line
        i++
        continue
      }
      // Unquoted run: copy up to the next delimiter or line end.
      fieldStarted = true
      let j = i + 1
      while (j < n) {
        const d = chunk.charCodeAt(j)
        if (d === delim || d === 10 || d === 13) break
        j++
      }
      field += chunk.slice(i, j)
      i = j
    }
  }
  if (inQuotes) throw new CsvError(`aspas abertas na linha ${quoteLine} não se fecham até o fim do arquivo (arquivo truncado?)`)
  if (fieldStarted || afterQuote || row.length) {
    row.push(field)
    yield row
  }
}

function countNewlines(s: string): number {
  let n = 0
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++
  return n
}

/** True for a row that holds nothing (a blank line, or only empty fields). */
export function isBlankRow(row: string[]): boolean {
  return row.every((f) => f.trim() === '')
}

/**
 * Text of a byte stream decoded as `encoding` (windows-1252 for CGU and MTE: 0x96 is the en dash
 * that strict latin-1 would turn into a control character; utf-8 for INPE, ONS...). A UTF-8 BOM is
 * dropped. Decoding streams, so a multi-byte character split between chunks is kept whole.
 */
export async function* decodeText(bytes: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, encoding: 'windows-1252' | 'utf-8' | 'iso-8859-1' | 'utf-16le' | 'utf-16be'): AsyncGenerator<string> {
  // WHATWG maps the label iso-8859-1 to windows-1252 anyway; both decode 0x80-0x9F as cp1252.
  const decoder = new TextDecoder(encoding, { ignoreBOM: false })
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true })
    if (text) yield text
  }
  const rest = decoder.decode()
  if (rest) yield rest
}

/** Bytes in chunks of `size` (a whole file read at once, fed to the streaming parsers). */
export function* chunksOf(bytes: Uint8Array, size = 1 << 20): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

/**
 * Heuristic charset of a small text file that does not say: valid UTF-8 (with some non-ASCII
 * byte) is UTF-8, anything else is windows-1252 (the Brazilian government's default).
 */
export function sniffEncoding(bytes: Uint8Array): 'utf-8' | 'windows-1252' {
  try {
    // stream: a character cut at the end of the window is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 1 << 20), { stream: true })
    return 'utf-8'
  } catch {
    return 'windows-1252'
  }
}
