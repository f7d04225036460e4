// A streaming reader for dBase III tables (.dbf), the attribute half of a shapefile: INPE's
// DETER zips are written by pgsql2shp (PostGIS's shapelib), so only what that writer produces has
// to be read, but strictly: a header whose sizes do not add up, a record that does not start with
// a deletion flag or a file cut short is an error, never a silently shifted column.
//
// Layout (dBase III, as shapelib writes it): a 32-byte header (version, YYMMDD of the last
// update, record count u32, header length u16, record length u16, language driver at byte 29),
// one 32-byte descriptor per field (name NUL-padded to 11 bytes, type at 11, width at 16,
// decimals at 17), the 0x0D terminator, then fixed-width records, each led by a flag byte
// (space = live, `*` = deleted), and optionally a 0x1A end-of-file byte. Values are text:
// C left-aligned and space-padded, N/F numbers as written (pgsql2shp left-aligns them too, and
// writes a NULL number as asterisks), D as YYYYMMDD (blank when NULL).
//
// Records are handed over in place (the buffer and the record's offset), so reading 400 k rows
// allocates nothing per row; the field helpers below decode only the fields asked for.

export class DbfError extends Error {}

export interface DbfField {
  /** As stored (pgsql2shp upper-cases and cuts at 10 characters): CLASSNAME, MUNICIPALI... */
  name: string
  type: string
  length: number
  decimals: number
  /** Offset of the field inside a record (the flag byte is offset 0). */
  offset: number
}

export interface DbfHeader {
  version: number
  /** The header's last-update date, YYYY-MM-DD (shapelib writes a fixed 1995-07-26), or null when invalid. */
  updated: string | null
  records: number
  headerLength: number
  recordLength: number
  /** Language driver byte (0x57 = ANSI; 0 when the code page is in a .cpg, as pgsql2shp does for UTF-8). */
  languageDriver: number
  fields: DbfField[]
}

/** Called once per live record: the record starts at `buf[at]` (its flag byte) and is recordLength long. */
export type RecordHandler = (buf: Uint8Array, at: number) => void

export interface DbfReadResult {
  header: DbfHeader
  /** Live records handed to the handler. */
  live: number
  /** Records flagged deleted (skipped). */
  deleted: number
}

const FIELD_TYPES = new Set(['C', 'N', 'F', 'D', 'L'])

function parseHeader(head: Uint8Array, label: string): DbfHeader {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  const version = head[0]!
  // dBase III/IV/V family (low bits 3); 0x83 has a memo file, which a shapefile never uses.
  if ((version & 0x07) !== 3) throw new DbfError(`${label}: não é uma tabela dBase (byte de versão 0x${version.toString(16).padStart(2, '0')})`)
  const records = view.getUint32(4, true)
  const headerLength = view.getUint16(8, true)
  const recordLength = view.getUint16(10, true)
  const yy = head[1]!, mm = head[2]!, dd = head[3]!
  const updated = mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31 ? `${1900 + yy}-${String(mm).padStart(2, '0')}-${String(dd).padStart(2, '0')}` : null
  const fields: DbfField[] = []
  let offset = 1
  for (let p = 32; ; p += 32) {
    if (p >= headerLength || p >= head.length) throw new DbfError(`${label}: cabeçalho sem o terminador 0x0D dos campos (tamanho declarado ${headerLength})`)
    if (head[p] === 0x0d) break
    if (p + 32 > head.length) throw new DbfError(`${label}: descritor de campo cortado`)
    let end = p
    while (end < p + 11 && head[end] !== 0) end++
    const name = new TextDecoder('latin1').decode(head.subarray(p, end)).trim()
    const type = String.fromCharCode(head[p + 11]!)
    const length = head[p + 16]!
    const decimals = head[p + 17]!
    if (!name) throw new DbfError(`${label}: campo ${fields.length + 1} sem nome`)
    if (!FIELD_TYPES.has(type)) throw new DbfError(`${label}: campo ${name} de tipo '${type}' não suportado (C, N, F, D ou L)`)
    if (length === 0) throw new DbfError(`${label}: campo ${name} com largura 0`)
    fields.push({ name, type, length, decimals, offset })
    offset += length
  }
  if (!fields.length) throw new DbfError(`${label}: tabela sem campos`)
  if (offset !== recordLength) throw new DbfError(`${label}: os campos somam ${offset} bytes por registro, o cabeçalho diz ${recordLength}`)
  return { version, updated, records, headerLength, recordLength, languageDriver: head[29]!, fields }
}

/**
 * Reads a .dbf from a stream of chunks (a file, or a zip entry as it inflates). `onHeader` sees
 * the header first and returns the record handler (or throws to refuse the table).
 */
export async function readDbf(chunks: AsyncIterable<Uint8Array>, onHeader: (header: DbfHeader) => RecordHandler, label = 'dbf'): Promise<DbfReadResult> {
  let header: DbfHeader | null = null
  let handler: RecordHandler | null = null
  // Bytes carried over between chunks: the header while it is incomplete, then a partial record.
  let carry = new Uint8Array(0)
  let seen = 0
  let live = 0
  let deleted = 0
  const flag = (buf: Uint8Array, at: number) => {
    const f = buf[at]
    if (f === 0x20) {
      handler!(buf, at)
      live++
    } else if (f === 0x2a) deleted++
    else throw new DbfError(`${label}: registro ${seen + 1} não começa com o marcador de registro (0x${(f ?? 0).toString(16)}): arquivo desalinhado ou corrompido`)
    seen++
  }
  for await (const chunk of chunks) {
    let buf = chunk
    if (carry.length) {
      const joined = new Uint8Array(carry.length + chunk.length)
      joined.set(carry)
      joined.set(chunk, carry.length)
      buf = joined
      carry = new Uint8Array(0)
    }
    let pos = 0
    if (!header) {
      if (buf.length < 32) {
        carry = buf.slice()
        continue
      }
      const headerLength = buf[8]! | (buf[9]! << 8)
      if (headerLength < 65) throw new DbfError(`${label}: cabeçalho de ${headerLength} bytes, pequeno demais para uma tabela dBase`)
      if (buf.length < headerLength) {
        carry = buf.slice()
        continue
      }
      header = parseHeader(buf.subarray(0, headerLength), label)
      handler = onHeader(header)
      pos = headerLength
    }
    const size = header.recordLength
    while (seen < header.records && pos + size <= buf.length) {
      flag(buf, pos)
      pos += size
    }
    if (seen < header.records && pos < buf.length) carry = buf.slice(pos)
  }
  if (!header) throw new DbfError(`${label}: arquivo vazio ou cortado antes do fim do cabeçalho`)
  if (seen < header.records) throw new DbfError(`${label}: cortado: ${seen} de ${header.records} registros`)
  return { header, live, deleted }
}

/** The field named `name` (as stored, compared without case), or undefined. */
export function fieldNamed(header: DbfHeader, name: string): DbfField | undefined {
  const wanted = name.toUpperCase()
  return header.fields.find((f) => f.name.toUpperCase() === wanted)
}

const utf8 = new TextDecoder('utf-8', { fatal: true })
const cp1252 = new TextDecoder('windows-1252')

/**
 * A C field's text, trimmed (spaces and NULs), or null when blank. ASCII is read directly; other
 * bytes are decoded as UTF-8 when they are valid UTF-8 (pgsql2shp writes the client encoding,
 * UTF-8 by default, and says so only in a .cpg the DETER zip leaves out), else as Windows-1252.
 */
export function fieldText(buf: Uint8Array, at: number, field: DbfField): string | null {
  let start = at + field.offset
  let end = start + field.length
  while (start < end && (buf[start] === 0x20 || buf[start] === 0)) start++
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0)) end--
  if (start === end) return null
  let ascii = true
  for (let i = start; i < end; i++)
    if (buf[i]! > 0x7f) {
      ascii = false
      break
    }
  if (ascii) return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[])
  const bytes = buf.subarray(start, end)
  try {
    return utf8.decode(bytes)
  } catch {
    return cp1252.decode(bytes)
  }
}

/**
 * An N/F field's number, or null when NULL (blank, or asterisks as pgsql2shp writes it).
 * NaN when it is not a number (the caller decides what a bad value costs).
 */
export function fieldNumber(buf: Uint8Array, at: number, field: DbfField): number | null {
  let start = at + field.offset
  let end = start + field.length
  while (start < end && (buf[start] === 0x20 || buf[start] === 0)) start++
  while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0)) end--
  if (start === end || buf[start] === 0x2a) return null
  let text = ''
  for (let i = start; i < end; i++) {
    const c = buf[i]!
    // digits, sign, point, exponent (PostgreSQL writes 6.25e-05); a comma is no decimal point here.
    if (!((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45)) return NaN
    text += String.fromCharCode(c)
  }
  return Number(text)
}

const DAY_MS = 86_400_000

/**
 * A D field (YYYYMMDD) as days since 1970-01-01 (UTC), or null when blank, zero or not a real date.
 * A date kept as text (C, 2026-01-04 or 2026/01/04) is read the same way.
 */
export function fieldDay(buf: Uint8Array, at: number, field: DbfField): number | null {
  const p = at + field.offset
  let y = 0, m = 0, d = 0, n = 0
  for (let i = 0; i < field.length && n < 8; i++) {
    const b = buf[p + i]!
    if (b === 0x2d || b === 0x2f) {
      if (field.type === 'D' || (n !== 4 && n !== 6)) return null
      continue
    }
    const c = b - 0x30
    if (c < 0 || c > 9) return null
    if (n < 4) y = y * 10 + c
    else if (n < 6) m = m * 10 + c
    else d = d * 10 + c
    n++
  }
  if (n < 8 || y < 1900 || m < 1 || m > 12 || d < 1) return null
  const t = Date.UTC(y, m - 1, d)
  const check = new Date(t)
  if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return null
  return t / DAY_MS
}

/** YYYY-MM-DD of a day number (days since 1970-01-01). */
export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

/** Day number of a YYYY-MM-DD date. */
export function dayOf(iso: string): number {
  return Date.parse(`${iso}T00:00:00Z`) / DAY_MS
}
