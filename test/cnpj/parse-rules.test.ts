// The value rules of parse.ts, evaluated by DuckDB on raw field text as the load sees it.
import { describe, expect, test } from 'bun:test'
import { DuckDBInstance } from '@duckdb/node-api'
import { cnpjPart, code, codeList, date, decimal, legalName, text } from '../../ingest/cnpj/parse'

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

// Latin-1 decodes to two space characters: U+0020 and U+00A0 (no-break space, byte 0xA0).
const NBSP = '\u00a0'

describe('text: trimmed of both spaces at both ends, blank is null', () => {
  test('spaces and no-break spaces go at either end, inner ones stay; tabs are not spaces', async () => {
    const inputs = ['RUA A', ' RUA A', 'RUA A ', `${NBSP}RUA A`, `RUA A${NBSP}`, `  ${NBSP} RUA  A ${NBSP} `, 'RUA\tA\t', `R${NBSP}A`]
    expect(await evaluate(text, inputs)).toEqual(['RUA A', 'RUA A', 'RUA A', 'RUA A', 'RUA A', 'RUA  A', 'RUA\tA\t', `R${NBSP}A`])
  })
  test('empty, spaces only and null are null', async () => {
    expect(await evaluate(text, ['', ' ', '   ', NBSP, ` ${NBSP} `, null])).toEqual([null, null, null, null, null, null])
  })
  test('the same as DuckDB\'s trim on every mix of spaces around a value', async () => {
    const pads = ['', ' ', NBSP, `${NBSP} `, ` ${NBSP}`]
    const inputs = pads.flatMap((l) => pads.flatMap((r) => [`${l}X Y${r}`, `${l}${r}`]))
    expect(await evaluate(text, inputs)).toEqual(await evaluate((c) => `NULLIF(trim(${c}), '')`, inputs))
  })
})

describe('code, decimal and CNPJ parts trim the same way', () => {
  test('code: padded to its width, blank is null', async () => {
    expect(await evaluate((c) => code(c, 2), ['2', ' 2', `2${NBSP}`, '02', '', ' ', null])).toEqual(['02', '02', '02', '02', null, null, null])
  })
  test('decimal: comma to point, spaces around ignored', async () => {
    expect(await evaluate(decimal, ['1061004829,23', ` 10,5${NBSP}`, '0,00', '', 'abc'])).toEqual(['1061004829.23', '10.50', '0.00', null, null])
  })
  test('CNPJ part: upper-cased and trimmed', async () => {
    expect(await evaluate(cnpjPart, ['12abc345', ' 33683111 ', `${NBSP}12ABC345`])).toEqual(['12ABC345', '33683111', '12ABC345'])
  })
})

describe('legalName: a CPF ending an individual entrepreneur\'s name is masked as the Receita masks partner CPFs', () => {
  test('eleven digits at the end, plain or punctuated, keep only the 4th to 9th', async () => {
    expect(await evaluate(legalName, ['MARIA DA SILVA 12345678909', 'JOSE SOUZA 123.456.789-09', ' ANA LIMA 98765432100 ', '12345678909'])).toEqual([
      'MARIA DA SILVA ***456789**', 'JOSE SOUZA ***456789**', 'ANA LIMA ***654321**', '***456789**',
    ])
  })
  test('other numbers stay: the root prefix of newer MEI names, 10 or 12 digits, digits glued to a word, a number mid-name', async () => {
    const kept = ['12.345.678 MARIA DA SILVA', 'LOJA 1234567890', 'LOJA 123456789012', 'LOJA X12345678909', 'ACME 12345678909 LTDA', 'CAFÉ SÃO JOÃO LTDA']
    expect(await evaluate(legalName, kept)).toEqual(kept)
  })
  test('blank is null, as any text', async () => {
    expect(await evaluate(legalName, ['', ' ', null])).toEqual([null, null, null])
  })
})
