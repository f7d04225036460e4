// The card store's integer keys (layout.ts): in CNPJ order, reversible, and a card answers only
// for its own check digits.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CARD_SEPARATOR, cardKey, cardTable, DICTIONARY_TABLE, cnpjOfCardKey, KEYABLE_CNPJ, KEYABLE_ROOT, rootCardKeys, rootKey } from '../../src/datasets/cnpj/layout'
import { CardStoreReader } from '../../src/datasets/cnpj/cards'

const CNPJS = ['00000000000000', '00000000000191', '33683111000280', '12ABC34501DE35', 'Z9Z9Z9Z9Z9Z9Z9'.slice(0, 12) + '00', 'ZZZZZZZZZZZZ99']

describe('card keys', () => {
  test('known values: base 36 of the first 12 characters, of the 8 of a root', () => {
    expect(cardKey('00000000000191')).toBe(1n)
    expect(cardKey('00000000001035')).toBe(36n)
    expect(cardKey('0000000000A000')).toBe(10n * 36n)
    expect(rootKey('00000010')).toBe(36)
    expect(rootKey('0000000Z')).toBe(35)
  })

  test('keys keep the CNPJs text order and give back their 12 characters', () => {
    const sorted = [...CNPJS].sort()
    expect([...CNPJS].sort((a, b) => (cardKey(a) < cardKey(b) ? -1 : 1))).toEqual(sorted)
    for (const c of CNPJS) expect(cnpjOfCardKey(cardKey(c))).toBe(c.slice(0, 12))
    expect(cardKey('ZZZZZZZZZZZZ99')).toBe(36n ** 12n - 1n)
    expect(rootKey('ZZZZZZZZ')).toBeLessThan(Number.MAX_SAFE_INTEGER)
    const [lo, hi] = rootCardKeys('12ABC345')
    expect(cardKey('12ABC34501DE35') > lo && cardKey('12ABC34501DE35') < hi).toBe(true)
    expect(cardKey('12ABC346000000') > hi).toBe(true)
  })

  test('only [0-9A-Z]{12}[0-9]{2} gets a key, and [0-9A-Z]{8} for a root', () => {
    const values = ['33683111000280', '12ABC34501DE35', '12abc34501DE35', '3368311100028', '33.683.111/000', '12ABC34501DEXX']
    expect(values.map((v) => KEYABLE_CNPJ.test(v))).toEqual([true, true, false, false, false, false])
    expect(['33683111', '12ABC345', '12abc345', '3368311', '33.68311'].map((v) => KEYABLE_ROOT.test(v))).toEqual([true, true, false, false, false])
  })
})

describe('CardStoreReader', () => {
  test('a card answers for its own check digits only; a root lists its CNPJs whole', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dadosbr-keys-')), 'fichas.sqlite')
    const db = new Database(path, { create: true })
    for (const t of ['estabelecimentos', 'socios', 'empresas_sem_estab'] as const) db.exec(`CREATE TABLE ${cardTable(t, 11)} (chave INTEGER PRIMARY KEY, dados TEXT NOT NULL)`)
    // An empty dictionary: the cards are plain text (card-codec.ts).
    db.exec(`CREATE TABLE ${DICTIONARY_TABLE} (codigo INTEGER PRIMARY KEY, palavra TEXT NOT NULL)`)
    const insert = db.prepare(`INSERT INTO ${cardTable('estabelecimentos', 11)} VALUES (?, ?)`)
    insert.run(cardKey('33683111000280'), `80${CARD_SEPARATOR}2${CARD_SEPARATOR}REGIONAL BRASILIA-DF`)
    insert.run(cardKey('33683111000190'), `90${CARD_SEPARATOR}1`)
    db.prepare(`INSERT INTO ${cardTable('socios', 11)} VALUES (?, ?)`).run(rootKey('33683111'), 'SOCIOS')
    db.close()
    const reader = new CardStoreReader(path)
    try {
      expect(reader.card('33683111000280')).toEqual(['80', '2', 'REGIONAL BRASILIA-DF'])
      expect(reader.card('33683111000299')).toBeNull()
      expect(reader.card('33683111000371')).toBeNull()
      expect(reader.cardsOfRoot('33683111').map((c) => c.cnpj)).toEqual(['33683111000190', '33683111000280'])
      expect(reader.anyCardOfRoot('33683111')?.cnpj).toBe('33683111000190')
      expect(reader.anyCardOfRoot('33683211')).toBeNull()
      expect(reader.partners('33683111')).toBe('SOCIOS')
      expect(reader.partners('33683211')).toBeNull()
    } finally {
      reader.close()
    }
  })
})
