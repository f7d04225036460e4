// The name normalization shared by the index and the query (src/datasets/cnpj/search-text.ts).
import { describe, expect, test } from 'bun:test'
import { foldsForTests, IGNORED, searchWords } from '../../src/datasets/cnpj/search-text'

describe('searchWords', () => {
  test('accents and case folded; NFKC: full-width letters, ª, ², ligatures', () => {
    expect(searchWords('Farmácia São João')).toEqual(['FARMACIA', 'SAO', 'JOAO'])
    expect(searchWords('ｆａｒｍａｃｉａ　ＳＡＯ　ｊｏａｏ')).toEqual(['FARMACIA', 'SAO', 'JOAO'])
    expect(searchWords('1ª vara ²º ﬁlho')).toEqual(['1A', 'VARA', '2O', 'FILHO'])
    expect(searchWords('AÇOUGUE ÑANDU Ÿ straße')).toEqual(['ACOUGUE', 'NANDU', 'Y', 'STRASSE'])
  })

  test('an abbreviation in single letters with dots or slashes is one word: S.A. = S/A = SA; legal forms are ignored', () => {
    for (const name of ['REDE NACIONAL DE FARMÁCIAS S.A.', 'REDE NACIONAL DE FARMACIAS S/A', 'rede nacional de farmacias sa', 'REDE NACIONAL DE FARMACIAS S. A.', 'REDE NACIONAL DE FARMACIAS S A'])
      expect(searchWords(name)).toEqual(['REDE', 'NACIONAL', 'FARMACIAS'])
    expect(searchWords('PADARIA M.E.')).toEqual(['PADARIA'])
    expect(searchWords('PADARIA E.P.P')).toEqual(['PADARIA'])
    expect(searchWords('A.B.C. MODAS LTDA.')).toEqual(['ABC', 'MODAS'])
    // A lone initial stays a word of its own; numbers with dots are not abbreviations.
    expect(searchWords('J. SILVA & CIA')).toEqual(['J', 'SILVA', 'CIA'])
    expect(searchWords('12.345.678 MARIA')).toEqual(['12', '345', '678', 'MARIA'])
  })

  test('legal forms and connectors are dropped; a text of them alone has no word', () => {
    expect(searchWords('CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA')).toEqual(['CAFE', 'SAO', 'JOAO', 'COMERCIO', 'GRAOS'])
    expect(searchWords('de')).toEqual([])
    expect(searchWords('LTDA ME EPP EIRELI S.A. MEI DE DA DO DAS DOS E EM')).toEqual([])
    expect([...IGNORED].sort()).toEqual(['A', 'DA', 'DAS', 'DE', 'DO', 'DOS', 'E', 'EIRELI', 'EM', 'EPP', 'LTDA', 'ME', 'MEI', 'S', 'SA'])
  })

  test('separators: punctuation, control bytes, NUL, symbols; format characters (soft hyphen) are removed, not separators', () => {
    expect(searchWords("JOHN O'CONNOR\u0000 & SONS\u001f(X)")).toEqual(['JOHN', 'O', 'CONNOR', 'SONS', 'X'])
    expect(searchWords('FARMA\u00adCIA')).toEqual(['FARMACIA'])
    expect(searchWords('CAFÉ×BAR')).toEqual(['CAFE', 'BAR'])
  })

  test('words shaped like the old filter tokens are ignored', () => {
    expect(searchWords('cafe cnae4721102 mun7107 porte01 qualquer0')).toEqual(['CAFE'])
  })

  test('the latin-1 fast path gives the full normalization for every latin-1 character and for random latin-1 text', () => {
    const { fold, foldSlow } = foldsForTests
    for (let c = 0; c < 256; c++) expect(fold(String.fromCharCode(c))).toBe(foldSlow(String.fromCharCode(c)))
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 1 + (next() % 40) }, () => String.fromCharCode(next() % 256)).join('')
      expect(fold(text)).toBe(foldSlow(text))
    }
  })
})
