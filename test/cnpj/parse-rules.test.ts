// The value rules of parse.ts, evaluated by DuckDB on raw field text as the load sees it.
import { describe, expect, test } from 'bun:test'
import { DuckDBInstance } from '@duckdb/node-api'
import { codeList, date } from '../../ingest/cnpj/parse'

const instance = await DuckDBInstance.create(':memory:')
const conn = await instance.connect()
async function evaluate(rule: (c: string) => string, inputs: (string | null)[]): Promise<(string | null)[]> {
  const values = inputs.map((v, i) => `(${i}, ${v === null ? 'NULL' : `'${v}'`})`).join(', ')
  const rows = (await conn.runAndReadAll(`SELECT (${rule('x')})::VARCHAR FROM (VALUES ${values}) v(i, x) ORDER BY i`)).getRows()
  return rows.map((r) => (r[0] === null ? null : String(r[0])))
}

describe('date: YYYYMMDD to a date, null when absent or impossible', () => {
  test('valid dates, bounds included', async () => {
    expect(await evaluate(date, ['20040522', '18000101', '21001231', '20000229'])).toEqual(['2004-05-22', '1800-01-01', '2100-12-31', '2000-02-29'])
  })
  test('zero, blank, short, long, out of range, impossible day or month, stray characters', async () => {
    const bad = ['0', '00000000', '', '2004052', '200405221', '17991231', '21010101', '02020101', '41000101', '20040230', '20041301', '19990229', '2004 522', '2004-5-2', null]
    expect(await evaluate(date, bad)).toEqual(bad.map(() => null))
  })
})

describe('codeList: digits and commas kept, anything else dropped', () => {
  test('a clean list passes as is; blank is null', async () => {
    expect(await evaluate(codeList, ['6201501,6202300', '4781400', '', null])).toEqual(['6201501,6202300', '4781400', null, null])
  })
  test('spaces, dots, dashes and letters are removed', async () => {
    expect(await evaluate(codeList, ['6201-5/01, 6202300', ' 47.81-4 ', 'x'])).toEqual(['6201501,6202300', '47814', null])
  })
})
