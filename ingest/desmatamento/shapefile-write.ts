// Writes shapefile members the way INPE's export writes them (pgsql2shp over PostGIS, whose
// loader bundles shapelib), for the bundled sample, the tests and the full-size benchmark:
//
// - .dbf: dBase III (0x03), the fixed dummy date shapelib writes (1995-07-26), language driver 0
//   (pgsql2shp asks for UTF-8, which shapelib records in a .cpg file the DETER zip leaves out),
//   no 0x1A at the end (pgsql2shp turns it off "to mimic old behaviour"). Column types by the
//   PostgreSQL type: text → C as wide as the longest value in bytes (32 when all are NULL),
//   float8 → N(32,10), date → D(8). Every value is written as PostgreSQL prints it, left-aligned
//   and space-padded, numbers included; NULL is blank text, 16 asterisks in a number, 8 spaces in
//   a date. Strings are UTF-8 (the client encoding).
// - .shp/.shx: Polygon (type 5) files; an alert without a known geometry is a null shape.
// - .prj: the srtext of EPSG:4674 (SIRGAS 2000) as PostGIS's spatial_ref_sys has it.

export type DbfColumnType = 'C' | 'N' | 'D'

export interface DbfColumn {
  /** At most 10 characters, as pgsql2shp cuts and upper-cases them. */
  name: string
  type: DbfColumnType
  length: number
  decimals: number
}

/** A value as PostgreSQL would hand it over: text, a float8 (number), a date (YYYY-MM-DD) or NULL. */
export type DbfValue = string | number | null

const encoder = new TextEncoder()

/** float8 as PostgreSQL ≥ 12 prints it: shortest exact digits, exponent below 1e-4 or from 1e15 (6.25e-05). */
export function pgFloat(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`número inválido: ${x}`)
  if (x === 0) return '0'
  const [mantissa, exp] = x.toExponential().split('e') as [string, string]
  const e = Number(exp)
  if (e < -4 || e >= 15) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
  return String(x)
}

/** pgsql2shp's column for a PostgreSQL type: text (width = longest value in bytes, 32 if none), float8, date. */
export function pgColumn(name: string, pgType: 'text' | 'float8' | 'date', values: Iterable<DbfValue> = []): DbfColumn {
  const dbfName = name.slice(0, 10).toUpperCase()
  if (pgType === 'float8') return { name: dbfName, type: 'N', length: 32, decimals: 10 }
  if (pgType === 'date') return { name: dbfName, type: 'D', length: 8, decimals: 0 }
  let longest = 0
  for (const v of values) if (v !== null) longest = Math.max(longest, encoder.encode(String(v)).length)
  return { name: dbfName, type: 'C', length: Math.min(longest || 32, 254), decimals: 0 }
}

export function recordLength(columns: DbfColumn[]): number {
  return 1 + columns.reduce((n, c) => n + c.length, 0)
}

/** The header and field descriptors (with the 0x0D terminator) for `records` records. */
export function dbfHeader(columns: DbfColumn[], records: number, options: { languageDriver?: number } = {}): Uint8Array {
  const headerLength = 32 + 32 * columns.length + 1
  const out = new Uint8Array(headerLength)
  const view = new DataView(out.buffer)
  out[0] = 0x03
  out[1] = 95 // shapelib's dummy last-update date, 1995-07-26
  out[2] = 7
  out[3] = 26
  view.setUint32(4, records, true)
  view.setUint16(8, headerLength, true)
  view.setUint16(10, recordLength(columns), true)
  out[29] = options.languageDriver ?? 0
  columns.forEach((c, i) => {
    const p = 32 + 32 * i
    out.set(encoder.encode(c.name.slice(0, 10)), p)
    out[p + 11] = c.type.charCodeAt(0)
    if (c.type === 'C') {
      out[p + 16] = c.length % 256
      out[p + 17] = Math.floor(c.length / 256)
    } else {
      out[p + 16] = c.length
      out[p + 17] = c.decimals
    }
  })
  out[headerLength - 1] = 0x0d
  return out
}

const NULL_NUMBER = encoder.encode('****************')
const NULL_DATE = encoder.encode('        ')

/** Writes one record (flag byte included) into `out` at `at`. */
export function dbfRecordInto(out: Uint8Array, at: number, columns: DbfColumn[], values: DbfValue[], deleted = false): void {
  out[at] = deleted ? 0x2a : 0x20
  let p = at + 1
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    const v = values[i] ?? null
    out.fill(0x20, p, p + c.length)
    let bytes: Uint8Array
    if (v === null) bytes = c.type === 'N' ? NULL_NUMBER : c.type === 'D' ? NULL_DATE : new Uint8Array(0)
    else if (c.type === 'N') bytes = encoder.encode(typeof v === 'number' ? pgFloat(v) : v)
    else if (c.type === 'D') bytes = encoder.encode(String(v).replace(/-/g, ''))
    else bytes = encoder.encode(String(v))
    // shapelib cuts a value longer than its field (at a byte, even inside a UTF-8 sequence).
    out.set(bytes.subarray(0, c.length), p)
    p += c.length
  }
}

/** A whole .dbf as pgsql2shp writes it. */
export function writeDbf(columns: DbfColumn[], rows: DbfValue[][]): Uint8Array {
  const header = dbfHeader(columns, rows.length)
  const size = recordLength(columns)
  const out = new Uint8Array(header.length + size * rows.length)
  out.set(header)
  rows.forEach((r, i) => dbfRecordInto(out, header.length + i * size, columns, r))
  return out
}

/** A polygon as GeoJSON MultiPolygon coordinates (lon, lat), or null for a null shape. */
export type MultiPolygon = number[][][][] | null

function signedArea(ring: number[][]): number {
  let a = 0
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!
  return a / 2
}

/** .shp and .shx of Polygon records (outer rings clockwise, holes counter-clockwise, as the format wants). */
export function writeShp(shapes: MultiPolygon[]): { shp: Uint8Array; shx: Uint8Array } {
  const contents: Uint8Array[] = []
  let [xmin, ymin, xmax, ymax] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const shape of shapes) {
    if (!shape) {
      const c = new Uint8Array(4) // shape type 0 (null)
      contents.push(c)
      continue
    }
    const rings: number[][][] = []
    for (const polygon of shape)
      polygon.forEach((ring, k) => {
        const clockwise = signedArea(ring) < 0
        rings.push(clockwise === (k === 0) ? ring : [...ring].reverse())
      })
    const points = rings.flat()
    const c = new Uint8Array(44 + 4 * rings.length + 16 * points.length)
    const v = new DataView(c.buffer)
    const xs = points.map((p) => p[0]!), ys = points.map((p) => p[1]!)
    const box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as const
    ;[xmin, ymin, xmax, ymax] = [Math.min(xmin, box[0]), Math.min(ymin, box[1]), Math.max(xmax, box[2]), Math.max(ymax, box[3])]
    v.setInt32(0, 5, true)
    box.forEach((b, i) => v.setFloat64(4 + 8 * i, b, true))
    v.setInt32(36, rings.length, true)
    v.setInt32(40, points.length, true)
    let start = 0
    rings.forEach((r, i) => {
      v.setInt32(44 + 4 * i, start, true)
      start += r.length
    })
    points.forEach((p, i) => {
      v.setFloat64(44 + 4 * rings.length + 16 * i, p[0]!, true)
      v.setFloat64(44 + 4 * rings.length + 16 * i + 8, p[1]!, true)
    })
    contents.push(c)
  }
  if (xmin === Infinity) [xmin, ymin, xmax, ymax] = [0, 0, 0, 0]
  const shpLength = 100 + contents.reduce((n, c) => n + 8 + c.length, 0)
  const header = (length: number) => {
    const h = new Uint8Array(100)
    const v = new DataView(h.buffer)
    v.setInt32(0, 9994, false)
    v.setInt32(24, length / 2, false)
    v.setInt32(28, 1000, true)
    v.setInt32(32, 5, true)
    ;[xmin, ymin, xmax, ymax].forEach((b, i) => v.setFloat64(36 + 8 * i, b, true))
    return h
  }
  const shp = new Uint8Array(shpLength)
  const shx = new Uint8Array(100 + 8 * contents.length)
  shp.set(header(shpLength))
  shx.set(header(shx.length))
  const sv = new DataView(shp.buffer), xv = new DataView(shx.buffer)
  let p = 100
  contents.forEach((c, i) => {
    xv.setInt32(100 + 8 * i, p / 2, false)
    xv.setInt32(104 + 8 * i, c.length / 2, false)
    sv.setInt32(p, i + 1, false)
    sv.setInt32(p + 4, c.length / 2, false)
    shp.set(c, p + 8)
    p += 8 + c.length
  })
  return { shp, shx }
}

/** PostGIS's srtext for EPSG:4674 (SIRGAS 2000), which pgsql2shp writes as the .prj. */
export const SIRGAS_2000_PRJ =
  'GEOGCS["SIRGAS 2000",DATUM["Sistema_de_Referencia_Geocentrico_para_las_AmericaS_2000",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],TOWGS84[0,0,0,0,0,0,0],AUTHORITY["EPSG","6674"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4674"]]'
