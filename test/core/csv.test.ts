// The shared parser of the government's delimited files and the value rules every dataset uses.
import { describe, expect, test } from 'bun:test'
import { csvRows, CsvError, decodeText, sniffEncoding } from '../../src/core/text/csv'
import { columnIndex, HeaderError, normalizeHeader, pick } from '../../src/core/text/header'
import { brDecimalOrNull, classifyDocument, dateOrNull, datesIn, decimalOrNull, intOrNull, textOrNull } from '../../ingest/lib/values'

async function rows(text: string | string[], delimiter = ';') {
  const out: string[][] = []
  for await (const r of csvRows(typeof text === 'string' ? [text] : text, delimiter)) out.push(r)
  return out
}

describe('csvRows', () => {
  test('quoted fields, "" escapes, CRLF, a line break inside quotes, no newline at the end', async () => {
    expect(await rows('"A";"B ""x""";"C"\r\n"1";"linha 1\r\nlinha 2";""\r\n"2";"";"fim"')).toEqual([
      ['A', 'B "x"', 'C'],
      ['1', 'linha 1\r\nlinha 2', ''],
      ['2', '', 'fim'],
    ])
  })

  test('the same text split at every position parses the same', async () => {
    const text = '"ID";"NOME"\r\n"1";"CAFÉ ""BOM"";\nLTDA"\r\n2;sem aspas\n'
    const whole = await rows(text)
    for (let i = 1; i < text.length; i++) expect(await rows([text.slice(0, i), text.slice(i)])).toEqual(whole)
  })

  test('unquoted fields, comma delimiter, leading spaces kept, empty fields', async () => {
    expect(await rows('id,lat,lon\nabc, -15.27,,x\n', ',')).toEqual([['id', 'lat', 'lon'], ['abc', ' -15.27', '', 'x']])
  })

  test('an unterminated quote is an error naming its line', async () => {
    await expect(rows('"A";"B"\n"1";"aberto\n2;3\n')).rejects.toThrow(new CsvError('aspas abertas na linha 2 não se fecham até o fim do arquivo (arquivo truncado?)'))
  })

  test('cp1252 decoding keeps the en dash of the leniency headers; a UTF-8 BOM is dropped', async () => {
    const bytes = new Uint8Array([0x22, 0x52, 0x41, 0x5a, 0xc3, 0x4f, 0x20, 0x96, 0x20, 0x58, 0x22])
    let text = ''
    for await (const t of decodeText([bytes.subarray(0, 7), bytes.subarray(7)], 'windows-1252')) text += t
    expect(text).toBe('"RAZÃO – X"')
    let utf8 = ''
    for await (const t of decodeText([new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xc3]), new Uint8Array([0xa9])], 'utf-8')) utf8 += t
    expect(utf8).toBe('aé')
    expect(sniffEncoding(bytes)).toBe('windows-1252')
    expect(sniffEncoding(new TextEncoder().encode('ação'))).toBe('utf-8')
  })
})

describe('headers', () => {
  test('matched by name, whatever the accents, case, dashes and spaces; typos as published', () => {
    expect(normalizeHeader('RAZÃO SOCIAL – CADASTRO RECEITA')).toBe('RAZAO SOCIAL CADASTRO RECEITA')
    expect(normalizeHeader(' ABRAGÊNCIA  DA SANÇÃO ')).toBe('ABRAGENCIA DA SANCAO')
    const header = ['NOME', 'CNPJ_FUNDO_CLASSE', 'Sítio na Internet']
    const index = columnIndex(header, { cnpj: ['CNPJ_FUNDO', 'CNPJ FUNDO CLASSE'], site: 'SITIO NA INTERNET', extra: 'X' }, ['extra'])
    expect(index).toEqual({ cnpj: 1, site: 2, extra: -1 })
    expect(pick(['a', '1', 'w'], index)).toEqual({ cnpj: '1', site: 'w', extra: '' })
    expect(() => columnIndex(header, { a: 'A', b: ['B', 'BB'] })).toThrow(new HeaderError('colunas ausentes: A, B'))
  })
})

describe('values', () => {
  test('nulls, dates, periods, decimals, documents', () => {
    expect([textOrNull(' Sem informação '), textOrNull('SEM INFORMAÇÃO'), textOrNull(''), textOrNull('  ITAU  ON  N1 ')]).toEqual([null, null, null, 'ITAU ON N1'])
    expect([dateOrNull('05/10/2022'), dateOrNull('5/1/2022'), dateOrNull('2026-08-03'), dateOrNull('31/02/2024'), dateOrNull('Sem informação')]).toEqual(['2022-10-05', '2022-01-05', '2026-08-03', null, null])
    expect(datesIn('05/10/2022 a 13/01/2023, 11/11/2024')).toEqual(['2022-10-05', '2023-01-13', '2024-11-11'])
    expect([brDecimalOrNull('1.234.567,89'), brDecimalOrNull('500000,00'), brDecimalOrNull('0,00'), brDecimalOrNull('1.234'), brDecimalOrNull('12.5'), brDecimalOrNull('R$ 10,50'), brDecimalOrNull('abc')]).toEqual([1234567.89, 500000, 0, 1234, 12.5, 10.5, null])
    expect([decimalOrNull('44.275588000000'), decimalOrNull(' -15.2723'), decimalOrNull('1,5'), decimalOrNull('')]).toEqual([44.275588, -15.2723, null, null])
    expect([intOrNull(' 12 '), intOrNull('12.5'), intOrNull('')]).toEqual([12, null, null])
    expect(classifyDocument('06.278.833/0001-03')).toEqual({ kind: 'cnpj', value: '06278833000103' })
    expect(classifyDocument('***123456**')).toEqual({ kind: 'cpf', value: '' })
    expect(classifyDocument('123.456.789-09')).toEqual({ kind: 'cpf', value: '' })
    expect(classifyDocument('000123456')).toEqual({ kind: 'outro', value: '000123456' })
  })
})
