// The .dbf reader on bytes laid out by hand (not by our writer), the writer's pgsql2shp rules,
// and the reader on what the writer makes, cut at every chunk boundary.
import { describe, expect, test } from 'bun:test'
import { dayOf, DbfError, fieldDay, fieldNamed, fieldNumber, fieldText, isoDay, readDbf } from '../../ingest/desmatamento/dbf'
import { dbfHeader, pgColumn, pgFloat, writeDbf, writeShp } from '../../ingest/desmatamento/shapefile-write'

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0))

/** A two-field table (NAME C(6), AREA N(8,3)) built byte by byte, records given as raw strings. */
function handMade(records: (number[] | string)[], options: { count?: number; recordLength?: number; eof?: boolean } = {}): Uint8Array {
  const header = new Array(32).fill(0)
  header[0] = 0x03
  header[1] = 95
  header[2] = 7
  header[3] = 26
  const count = options.count ?? records.length
  header[4] = count & 0xff
  header[5] = (count >> 8) & 0xff
  const headerLength = 32 + 64 + 1
  header[8] = headerLength
  header[10] = options.recordLength ?? 15
  const field = (name: string, type: string, len: number, dec: number) => {
    const f = new Array(32).fill(0)
    ascii(name).forEach((c, i) => (f[i] = c))
    f[11] = type.charCodeAt(0)
    f[16] = len
    f[17] = dec
    return f
  }
  const bytes = [...header, ...field('NAME', 'C', 6, 0), ...field('AREA', 'N', 8, 3), 0x0d]
  for (const r of records) bytes.push(...(typeof r === 'string' ? ascii(r.padEnd(15, ' ')) : r))
  if (options.eof) bytes.push(0x1a)
  return Uint8Array.from(bytes)
}

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

async function readAll(bytes: Uint8Array, size = 1 << 16) {
  const rows: { name: string | null; area: number | null }[] = []
  const r = await readDbf(chunks(bytes, size), (h) => {
    const name = fieldNamed(h, 'name')!
    const area = fieldNamed(h, 'AREA')!
    return (buf, at) => rows.push({ name: fieldText(buf, at, name), area: fieldNumber(buf, at, area) })
  })
  return { rows, ...r }
}

describe('reader, on bytes laid out by hand', () => {
  test('header, fields, live and deleted records, NULL numbers, the end-of-file byte', async () => {
    const bytes = handMade([' Altam 0.1092', '*apaga 1', ' obidos*****', '       -2.5e-03'], { eof: true })
    const r = await readAll(bytes)
    expect(r.header.fields.map((f) => [f.name, f.type, f.length, f.decimals, f.offset])).toEqual([['NAME', 'C', 6, 0, 1], ['AREA', 'N', 8, 3, 7]])
    expect([r.header.updated, r.header.records, r.header.recordLength, r.header.languageDriver]).toEqual(['1995-07-26', 4, 15, 0])
    expect(r.rows).toEqual([{ name: 'Altam', area: 0.1092 }, { name: 'obidos', area: null }, { name: null, area: -0.0025 }])
    expect([r.live, r.deleted]).toEqual([3, 1])
  })

  test('any chunking gives the same rows (header and records cut anywhere)', async () => {
    const bytes = handMade([' Altam0.1092  ', ' obidos1.5     ', ' Trair8.2824  '])
    const whole = (await readAll(bytes)).rows
    for (const size of [1, 2, 3, 7, 31, 32, 33, 96, 97, 98, 111]) expect((await readAll(bytes, size)).rows).toEqual(whole)
  })

  test('a file cut short, a misaligned record, sizes that do not add up, not a table at all', async () => {
    const good = handMade([' Altam0.1092  ', ' obidos1.5     '])
    await expect(readAll(good.subarray(0, good.length - 3))).rejects.toThrow(/cortado: 1 de 2 registros$/)
    await expect(readAll(good.subarray(0, 40))).rejects.toThrow('dbf: arquivo vazio ou cortado antes do fim do cabeçalho')
    await expect(readAll(handMade(['XAltam0.1092  ']))).rejects.toThrow(/registro 1 não começa com o marcador de registro \(0x58\)/)
    await expect(readAll(handMade([' Altam0.1092  '], { recordLength: 16 }))).rejects.toThrow('dbf: os campos somam 15 bytes por registro, o cabeçalho diz 16')
    await expect(readAll(new TextEncoder().encode('<html><body>Página não encontrada</body></html>'.padEnd(200, ' ')))).rejects.toBeInstanceOf(DbfError)
  })

  test('text: trimmed, UTF-8 when valid (pgsql2shp), else Windows-1252', async () => {
    const utf8 = [0x20, ...new TextEncoder().encode('ITARÉ'), ...ascii('0.5     ')]
    const cp1252 = [0x20, ...ascii('ITAR'), 0xc9, 0x20, ...ascii('0.5     ')]
    const r = await readAll(handMade([utf8, cp1252]))
    expect(r.rows.map((x) => x.name)).toEqual(['ITARÉ', 'ITARÉ'])
  })

  test('dates: YYYYMMDD, blank or impossible is null', () => {
    const field = { name: 'D', type: 'D', length: 8, decimals: 0, offset: 1 }
    const day = (s: string) => fieldDay(Uint8Array.from(ascii(' ' + s)), 0, field)
    expect(day('20260104')).toBe(dayOf('2026-01-04'))
    expect(isoDay(day('20201231')!)).toBe('2020-12-31')
    for (const bad of ['        ', '00000000', '20260231', '2026-1-4', '19990013', '2026-01-04']) expect(day(bad)).toBeNull()
    // A date kept as text (C field): with or without separators.
    const text = { name: 'D', type: 'C', length: 10, decimals: 0, offset: 1 }
    const tday = (s: string) => fieldDay(Uint8Array.from(ascii(' ' + s.padEnd(10))), 0, text)
    expect([tday('2026-01-04'), tday('2026/01/04'), tday('20260104')]).toEqual([dayOf('2026-01-04'), dayOf('2026-01-04'), dayOf('2026-01-04')])
    for (const bad of ['2026-1-04', '26-01-04', '', '2026-01-3x']) expect(tday(bad)).toBeNull()
  })
})

describe('writer: pgsql2shp rules', () => {
  test('float8 as PostgreSQL prints it', () => {
    expect([0, 0.0625, 2.1229384325481204, 0.0000625, 1e-5, 123456.5, 1.5e15].map(pgFloat)).toEqual(['0', '0.0625', '2.1229384325481204', '6.25e-05', '1e-05', '123456.5', '1.5e+15'])
  })

  test('columns: text as wide as the longest value in bytes (32 when all NULL), float8 N(32,10), date D(8)', () => {
    expect(pgColumn('municipality', 'text', ['Itararé', 'Assis', null])).toEqual({ name: 'MUNICIPALI', type: 'C', length: 8, decimals: 0 })
    expect(pgColumn('quadrant', 'text', [null, null])).toEqual({ name: 'QUADRANT', type: 'C', length: 32, decimals: 0 })
    expect(pgColumn('areamunkm', 'float8')).toEqual({ name: 'AREAMUNKM', type: 'N', length: 32, decimals: 10 })
    expect(pgColumn('view_date', 'date')).toEqual({ name: 'VIEW_DATE', type: 'D', length: 8, decimals: 0 })
  })

  test('bytes of a record: left-aligned values, NULL number as 16 asterisks, NULL date as spaces; header as shapelib writes it', () => {
    const cols = [pgColumn('uf', 'text', ['SP']), pgColumn('areauckm', 'float8'), pgColumn('view_date', 'date')]
    const dbf = writeDbf(cols, [['SP', null, null], ['MT', 0.0625, '2026-03-26']])
    const header = dbfHeader(cols, 2)
    expect([...header.subarray(0, 12)]).toEqual([3, 95, 7, 26, 2, 0, 0, 0, 129, 0, 43, 0])
    expect(header[header.length - 1]).toBe(0x0d)
    const rec = (i: number) => new TextDecoder().decode(dbf.subarray(header.length + 43 * i, header.length + 43 * (i + 1)))
    expect(rec(0)).toBe(' SP' + '****************'.padEnd(32) + ' '.repeat(8))
    expect(rec(1)).toBe(' MT' + '0.0625'.padEnd(32) + '20260326')
    expect(dbf.length).toBe(header.length + 86) // no 0x1A: pgsql2shp turns it off
  })

  test('round trip through the reader', async () => {
    const cols = [pgColumn('name', 'text', ['Vitória do Jari']), pgColumn('area', 'float8')]
    const rows = [['Vitória do Jari', 0.3390813017809474], [null, 6.25e-5]]
    const out: unknown[] = []
    await readDbf(chunks(writeDbf(cols, rows), 5), (h) => (buf, at) => out.push([fieldText(buf, at, h.fields[0]!), fieldNumber(buf, at, h.fields[1]!)]))
    expect(out).toEqual(rows)
  })

  test('.shp/.shx: polygon records and null shapes, lengths in 16-bit words', () => {
    const { shp, shx } = writeShp([null, [[[[0, 0], [0, 1], [1, 1], [0, 0]]]]])
    const v = new DataView(shp.buffer)
    expect([v.getInt32(0, false), v.getInt32(24, false) * 2, v.getInt32(32, true)]).toEqual([9994, shp.length, 5])
    expect([v.getInt32(100, false), v.getInt32(104, false), v.getInt32(108, true)]).toEqual([1, 2, 0])
    const x = new DataView(shx.buffer)
    expect([x.getInt32(100, false), x.getInt32(108, false)]).toEqual([50, 56])
    expect(v.getInt32(112 + 8, true)).toBe(5)
  })
})
