// Pair tokens of frequent words (layout.ts pairToken, docs/busca.md): a name index built by the real
// writer over generated names whose answers are computed here from the rule itself (every typed
// word begins some word of the name; a one-character word is that word), searched through the
// pairs, the plain way, and as a build without the `frequente` table (before the pairs).
import { DuckDBInstance } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { buildPartnerIndex } from '../../ingest/cnpj/search-index'
import { docKey, rowidRange } from '../../src/datasets/cnpj/layout'
import { searchWords } from '../../src/datasets/cnpj/search-text'
import { nameMatch, nameMatches } from '../../src/datasets/cnpj/service'
import { SOCIO_SEARCH } from '../../src/datasets/cnpj/queries'
import { documentKey } from '../../src/datasets/cnpj/layout'
import { get, tempDir, testApp } from '../helpers'
import { buildFixtureData } from './helpers'

// Frequent words, some beginning others (SILVA/SILVANA, SANTA/SANTOS, MARIA/MARIANA), a frequent
// one-letter word, and rare words that frequent ones begin (SILVANIO, SANTOSA, MARIAH, JOAOZINHO).
const COMMON = ['SILVA', 'SILVANA', 'SANTOS', 'SANTA', 'MARIA', 'MARIANA', 'JOAO', 'JOSE', 'COMERCIO', 'SERVICOS', 'J', 'SAO', 'LIMA', 'LIMAO']
const RARE = ['SILVANIO', 'SANTOSA', 'MARIAH', 'JOAOZINHO', 'COMERCIAL', 'LIMEIRA', 'SAOS', 'JX']
const ROWS = 4000
const DOCUMENTS = ['***000001**', '***000002**', '***000003**', '***000004**', '***999999**']

/** A small deterministic generator (the same names on every run). */
function random(seed: number) {
  let s = seed >>> 0
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
}

function generatedNames(): string[] {
  const r = random(7)
  const pick = (xs: string[]) => xs[Math.floor(r() * xs.length)]!
  const names: string[] = []
  for (let i = 0; i < ROWS; i++) {
    const words = Array.from({ length: 2 + Math.floor(r() * 4) }, () => pick(COMMON))
    // Each rare word in 1 or 2 rows only: below the threshold (2 rows and 0.1 % of the sample, so 4 here).
    if (i % 500 === 0 || i % 500 === 1) words.splice(Math.floor(r() * words.length), 0, RARE[Math.floor(i / 500)]!)
    names.push(`${words.join(' ')}${r() < 0.3 ? ' LTDA' : ''}`)
  }
  return names
}

/** What the rule says a typed name finds, over the indexed names (doc key -> name). */
function expected(names: Map<number, string>, typed: string): number[] {
  const words = [...new Set(searchWords(typed))].slice(0, 8)
  const found: number[] = []
  for (const [key, name] of names) {
    const own = searchWords(name)
    if (words.every((w) => own.some((o) => (w.length === 1 ? o === w : o.startsWith(w))))) found.push(key)
  }
  return found.sort((a, b) => a - b)
}

const found = (index: Database, match: string) =>
  (index.query('SELECT rowid FROM socio_fts WHERE socio_fts MATCH ?').values(match) as [number][]).map(([id]) => docKey(Number(id))).sort((a, b) => a - b)
const usesPairs = (match: string) => [...match].some((ch) => ch.codePointAt(0)! >= 0x100000)

let dir: string
let index: Database
let names: Map<number, string>

beforeAll(async () => {
  dir = tempDir('dadosbr-pares-')
  const instance = await DuckDBInstance.create(':memory:')
  const conn = await instance.connect()
  await conn.run('CREATE TABLE gerados (nome VARCHAR, cnpj_basico VARCHAR, qualificacao VARCHAR, data_entrada DATE, cpf_cnpj VARCHAR)')
  const appender = await conn.createAppender('gerados')
  generatedNames().forEach((nome, i) => {
    appender.appendVarchar(nome)
    appender.appendVarchar(String(10_000_000 + i))
    appender.appendVarchar('49')
    appender.appendNull()
    // Five masked CPFs shared by ~800 rows each (as ***999999** is by foreign partners).
    appender.appendVarchar(DOCUMENTS[i % DOCUMENTS.length]!)
    appender.endRow()
  })
  appender.closeSync()
  await buildPartnerIndex(conn, (pass) => (pass === 0 ? { socios: 'gerados' } : null), join(dir, 'busca_socios.sqlite'), { quiet: true })
  conn.closeSync()
  instance.closeSync()
  index = new Database(join(dir, 'busca_socios.sqlite'))
  names = new Map((index.query('SELECT id, nome FROM socio_doc').values() as [number, string][]).map(([id, nome]) => [Number(id), nome]))
})
afterAll(() => index?.close())

/** Typed names: frequent words, their beginnings (SIL, SANT, MARI, JO, LIM), rare words, a one-letter word, in any order. */
function queries(): string[] {
  const r = random(11)
  const pool = [...COMMON, ...RARE, 'SIL', 'SANT', 'MARI', 'JO', 'LIM', 'COMERC', 'SERV', 'SA', 'S', 'NADA']
  const out = ['joao silva', 'silva joao', 'maria santos silva', 'mari sil', 'silva silvana', 'sant santos', 'j lima', 'lim limao', 'silvanio maria', 'comerc sao joao jose']
  for (let i = 0; i < 300; i++) out.push(Array.from({ length: 2 + Math.floor(r() * 4) }, () => pool[Math.floor(r() * pool.length)]!).join(' ').toLowerCase())
  return out
}

describe('pair tokens of frequent words', () => {
  test('the build stores its frequent words: the common ones, not the rare ones', () => {
    const frequent = (index.query('SELECT t FROM frequente ORDER BY codigo').values() as [string][]).map(([t]) => t)
    expect([...frequent].sort()).toEqual([...COMMON].sort())
    // termo lists every indexed word of 2 characters or more (the pairs need the short ones too).
    const terms = new Set((index.query('SELECT t FROM termo').values() as [string][]).map(([t]) => t))
    for (const w of [...COMMON, ...RARE].filter((w) => w.length >= 2)) expect(terms.has(w)).toBe(true)
  })

  test('every query finds what the rule says, with pairs and without; most queries of frequent words use pairs', () => {
    let paired = 0
    let throughRare = 0
    for (const q of queries()) {
      const want = expected(names, q)
      const match = nameMatch(index, q)
      expect({ q, got: found(index, match) }).toEqual({ q, got: want })
      expect({ q, got: found(index, nameMatch(index, q, { pairs: false })) }).toEqual({ q, got: want })
      if (usesPairs(match)) paired++
      // Rows found only through a rare word that a frequent typed word begins (the second half of pairedMatch).
      if (usesPairs(match) && RARE.some((w) => want.some((k) => names.get(k)!.includes(w)))) throughRare++
    }
    expect(paired).toBeGreaterThan(150)
    expect(throughRare).toBeGreaterThan(5)
  })

  test("the rule in JavaScript (nameMatches, for a partner's document with a name) finds what the index finds", () => {
    for (const q of queries()) {
      const words = [...new Set(searchWords(q))].slice(0, 8)
      if (!words.length) continue
      const js = [...names].filter(([, name]) => nameMatches(words, name)).map(([key]) => key).sort((a, b) => a - b)
      expect({ q, got: js }).toEqual({ q, got: found(index, nameMatch(index, q)) })
    }
  })

  test("a document with a name: its rows checked by name, or the name's rows checked by document, give the same page in the same order", () => {
    for (const doc of DOCUMENTS)
      for (const q of queries().slice(0, 60)) {
        const words = [...new Set(searchWords(q))].slice(0, 8)
        if (!words.length) continue
        const $doc = documentKey(doc)!
        const byDocument = (index.query(SOCIO_SEARCH.byDocument).all({ $doc, $limit: 10_000, $offset: 0 }) as { nome: string; cnpj_basico: string }[])
          .filter((r) => nameMatches(words, r.nome)).map((r) => r.cnpj_basico)
        const byName = (index.query(SOCIO_SEARCH.pageWithDocument).all({ $match: nameMatch(index, q), $doc, $limit: 10_000, $offset: 0 }) as { cnpj_basico: string }[]).map((r) => r.cnpj_basico)
        expect({ doc, q, rows: byDocument }).toEqual({ doc, q, rows: byName })
      }
    // Every row of a document in rank order (name length, then doc key), as the FTS rowids are.
    const all = index.query(SOCIO_SEARCH.byDocument).all({ $doc: documentKey('***000001**')!, $limit: 10_000, $offset: 0 }) as { id: number; nome: string }[]
    expect(all.length).toBe(ROWS / DOCUMENTS.length)
    const ranks = all.map((r) => [Math.min(r.nome.length, 255), Number(r.id)] as const)
    expect(ranks).toEqual([...ranks].sort((a, b) => a[0] - b[0] || a[1] - b[1]))
  })

  test('two frequent words read their pair token; a word both begin is the word itself', () => {
    // JOSE and LIMA begin frequent words only (LIMA, LIMAO): their pair tokens alone.
    const match = nameMatch(index, 'jose lima')
    expect(usesPairs(match)).toBe(true)
    expect(match).not.toContain('"JOSE"')
    expect(match).not.toContain('"LIMA"')
    // JOAO also begins the rare JOAOZINHO: the rows through it are read the plain way, beside the pairs.
    expect(nameMatch(index, 'joao silva')).toContain('("JOAOZINHO" AND ("SILVA" OR "SILVANA" OR "SILVANIO"))')
    expect(nameMatch(index, 'sant santos')).toContain('"SANTOS"')
    // A single word, or a word of more than MAX_PREFIX_EXPANSION words, is read as before.
    expect(nameMatch(index, 'silva')).toBe(nameMatch(index, 'silva', { pairs: false }))
  })

  test('a build without the frequente table (made before the pairs) answers the same, the plain way', () => {
    const old = new Database(join(dir, 'busca_socios.sqlite'))
    old.exec('DROP TABLE frequente')
    try {
      for (const q of ['joao silva', 'maria santos silva', 'mari sil', 'silvanio maria']) {
        const match = nameMatch(old, q)
        expect(usesPairs(match)).toBe(false)
        expect(found(old, match)).toEqual(expected(names, q))
      }
    } finally {
      old.close()
    }
  })
})

describe('pair tokens on the bundled sample', () => {
  test('the build stores the frequent words; the server answers through pairs what the plain AND answers', async () => {
    const dataDir = await buildFixtureData()
    const search = new Database(join(dataDir, 'cnpj', 'current', 'busca.sqlite'), { readonly: true })
    const { app } = await testApp({ dataDir })
    try {
      const frequent = (search.query('SELECT t FROM frequente').values() as [string][]).map(([t]) => t)
      expect(frequent).toEqual(expect.arrayContaining(['REDE', 'NACIONAL', 'FARMACIAS']))
      const ids = (match: string) => (search.query('SELECT rowid FROM empresa_fts WHERE empresa_fts MATCH ?').values(match) as [number][]).map(([id]) => Number(id)).sort()
      let paired = 0
      for (const nome of ['rede nacional', 'farma rede', 'farm nac', 'nacional farmacias rede', 'construtora obras', 'alfa ficticia', 'rede obras', 'farmacia nacional j']) {
        const match = nameMatch(search, nome)
        if (usesPairs(match)) paired++
        const plain = ids(nameMatch(search, nome, { pairs: false }))
        expect({ nome, ids: ids(match) }).toEqual({ nome, ids: plain })
        // The route (situação ativa, every UF) finds as many as the plain AND does among the active rows.
        const [lo, hi] = [rowidRange(1, 0)[0], rowidRange(1, 31)[1]]
        const total = (await get(app, `/v1/cnpj/busca?nome=${encodeURIComponent(nome)}`)).body.total
        expect({ nome, total }).toEqual({ nome, total: plain.filter((id) => id >= lo && id <= hi).length })
      }
      expect(paired).toBeGreaterThanOrEqual(5)
      expect((await get(app, '/v1/cnpj/busca?nome=rede%20nacional')).body.total).toBe(3)
    } finally {
      search.close()
      app.close()
    }
  })
})
