// The name normalization shared by the index and the query (src/datasets/cnpj/search-text.ts), and
// how a typed name becomes an FTS5 expression (nameMatch in service.ts).
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { MAX_PREFIX_EXPANSION } from '../../src/datasets/cnpj/layout'
import { foldsForTests, IGNORED, searchWords } from '../../src/datasets/cnpj/search-text'
import { nameMatch } from '../../src/datasets/cnpj/service'

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

describe('nameMatch: each typed word as the indexed words it begins', () => {
  const index = new Database(':memory:')
  index.exec('CREATE TABLE termo (t TEXT PRIMARY KEY) WITHOUT ROWID')
  const insert = index.prepare('INSERT INTO termo VALUES (?)')
  for (const t of ['FARMACEUTICA', 'FARMACIA', 'FARMACIAS', 'FARMACOLOGIA', 'NACIONAL', ...Array.from({ length: MAX_PREFIX_EXPANSION + 1 }, (_, i) => `ZEBRA${i}`)]) insert.run(t)

  test('one letter: the whole word; 2 to 4: the prefix index; longer: the OR of the vocabulary words it begins', () => {
    expect(nameMatch(index, 'j')).toBe('"J"')
    expect(nameMatch(index, 'Fa')).toBe('"FA"*')
    expect(nameMatch(index, 'farm')).toBe('"FARM"*')
    expect(nameMatch(index, 'farmácia')).toBe('("FARMACIA" OR "FARMACIAS")')
    expect(nameMatch(index, 'FARMAC nacional')).toBe('("FARMACEUTICA" OR "FARMACIA" OR "FARMACIAS" OR "FARMACOLOGIA") AND "NACIONAL"')
  })

  test('a long word nothing begins is kept (it matches nothing); past MAX_PREFIX_EXPANSION words, FTS5 prefix query', () => {
    expect(nameMatch(index, 'farmacx')).toBe('"FARMACX"')
    expect(nameMatch(index, 'zebra')).toBe('"ZEBRA"*')
    expect(nameMatch(index, 'zebra1')).toBe(`(${Array.from({ length: MAX_PREFIX_EXPANSION + 1 }, (_, i) => `ZEBRA${i}`).filter((t) => t.startsWith('ZEBRA1')).sort().map((t) => `"${t}"`).join(' OR ')})`)
  })

  test('repeated words count once; at most 8 words; ignored words only: 400', () => {
    expect(nameMatch(index, 'nacional NACIONAL nacionál')).toBe('"NACIONAL"')
    expect(nameMatch(index, 'a1 b2 c3 d4 e5 f6 g7 h8 i9 j10').split(' AND ')).toHaveLength(8)
    expect(() => nameMatch(index, 'ltda s/a de')).toThrow('só tem palavras que a busca ignora')
    expect(() => nameMatch(index, '*-*')).toThrow('precisa de ao menos uma palavra com letras ou números')
  })
})
