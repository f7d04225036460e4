// Searches by filters alone read the filter bitmaps (src/datasets/cnpj/filter-bitmaps.ts); with a
// name, or on an index built before the bitmaps, FTS5. On a synthetic month big enough for several
// chunks of positions, both dense and sparse words, and more than 10000 matches, every filter
// alone and every pair (with and without uf, other situações, deep pages) must give the same
// total and the same page, in the same order, as the FTS search over the same index without its
// bitmaps.
import { Database } from 'bun:sqlite'
import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { synthCnpj } from '../../ingest/cnpj/synth'
import { BITMAP_CHUNK, BITMAP_DENSE, filterBitmaps, filterTokenId, mayLead } from '../../src/datasets/cnpj/filter-bitmaps'
import { filterToken } from '../../src/datasets/cnpj/layout'
import { get, tempDir, testApp } from '../helpers'

type App = Awaited<ReturnType<typeof testApp>>['app']
let withBitmaps: App
let withoutBitmaps: App
let index: Database
let dataDir: string
const filters: string[] = []

beforeAll(async () => {
  const src = tempDir('dadosbr-synth-')
  const data = (dataDir = tempDir('dadosbr-bitmaps-'))
  await synthCnpj({ outDir: src, companies: 140_000, seed: 11, quiet: true })
  await buildCnpj({ sourceDir: src, month: '2026-08', dataDir: data, quiet: true, log: () => {} })
  // The same data with an index as built before the bitmaps.
  const old = tempDir('dadosbr-nobitmaps-')
  cpSync(data, old, { recursive: true, verbatimSymlinks: true })
  const oldIndex = new Database(join(old, 'cnpj', 'current', 'busca.sqlite'))
  oldIndex.exec('DROP TABLE filtro_bloco; DROP TABLE filtro_posicao; DROP TABLE filtro_passe; DROP TABLE filtro_grupo')
  oldIndex.close()
  withBitmaps = (await testApp({ dataDir: data })).app
  withoutBitmaps = (await testApp({ dataDir: old })).app
  index = new Database(join(data, 'cnpj', 'current', 'busca.sqlite'), { readonly: true })

  // Values as a user would ask them: the most and a less frequent of each filter word family.
  const rows = new Map((index.query('SELECT token, linhas FROM filtro_linhas').values() as [string, number][]).map(([t, n]) => [t, Number(n)]))
  const family = (base: number, size: number) =>
    [...rows].filter(([t]) => t.codePointAt(0)! - 0xf0000 >= base && t.codePointAt(0)! - 0xf0000 < base + size).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  const code = (t: string, base: number, digits: number) => String(t.codePointAt(0)! - 0xf0000 - base).padStart(digits, '0')
  const naturezas = family(0x5000, 0x3000)
  const municipios = family(0x1000, 0x4000)
  const cnaes = new Map((index.query('SELECT slot, cnae FROM filtro_cnae').values() as [number, string][]).map(([s, c]) => [Number(s), c]))
  const secundarios = family(0xc000, 0x4000)
  const principais = family(0x8000, 0x4000)
  // A city missing from some chunk: the searches that ask it read the other filters' words only in
  // the chunks where it has rows (the gate, in filter-bitmaps.ts), and must still match FTS5.
  const chunksOf = new Map((index.query('SELECT id / ? AS word, count(*) AS n FROM filtro_bloco GROUP BY word').values(BITMAP_CHUNK) as [number, number][]).map(([w, n]) => [Number(w), Number(n)]))
  const chunkCount = Math.ceil(filterBitmaps(index)!.rows / BITMAP_CHUNK)
  const gateCity = municipios.find(([t, n]) => chunksOf.get(filterTokenId(t))! < chunkCount && n >= 10)
  expect(gateCity).toBeDefined()
  filters.push(
    `municipio=${code(gateCity![0], 0x1000, 4)}`,
    `natureza_juridica=${code(naturezas[0]![0], 0x5000, 4)}`,
    `natureza_juridica=${code(naturezas[Math.floor(naturezas.length / 2)]![0], 0x5000, 4)}`,
    `municipio=${code(municipios[0]![0], 0x1000, 4)}`,
    `cnae_secundario=${cnaes.get(secundarios[0]![0].codePointAt(0)! - 0xf0000 - 0xc000)}`,
    `cnae_qualquer=${cnaes.get(principais[0]![0].codePointAt(0)! - 0xf0000 - 0x8000)}`,
    `cnae=${cnaes.get(principais[3]![0].codePointAt(0)! - 0xf0000 - 0x8000)}`,
    'porte=demais',
    'simples=true',
    'simples=false&mei=false',
    'mei=true',
    'capital_min=1000000',
    'capital_max=50000',
    'capital_min=1234.56&capital_max=98765.43',
    'capital_min=100.5&capital_max=180.25',
    'abertura_de=2010-01-01&abertura_ate=2010-12-31',
    'abertura_de=2015-04-01&abertura_ate=2015-06-30',
    'abertura_de=2012-03-15&abertura_ate=2019-08-20',
    'abertura_de=2000-01-01',
    'abertura_ate=1990-06-15',
    // Days inside one month: that month is the only word, an edge, and the rarest clause of most pairs
    // (its rows are checked on their dates as they are taken: filter-bitmaps.ts, rowsPassingDate).
    'abertura_de=2010-06-15&abertura_ate=2010-06-20',
    // Neither few words nor few outside: every row read is checked on its doc row.
    'abertura_de=1995-02-10&abertura_ate=2024-11-20',
  )
}, 300_000)

afterAll(() => {
  withBitmaps?.close()
  withoutBitmaps?.close()
  index?.close()
})

const answer = async (app: App, query: string) => {
  const r = await get(app, `/v1/cnpj/busca?${query}`)
  return { query, status: r.status, total: r.body.total, cnpjs: r.body.resultados?.map((x: { cnpj: string }) => x.cnpj) }
}
const same = async (query: string) => {
  const a = await answer(withBitmaps, query)
  expect(a).toEqual(await answer(withoutBitmaps, query))
  return a
}

describe('filter bitmaps', () => {
  test('the build writes bitmaps for several chunks of positions, both lists and dense bitmaps', () => {
    const b = filterBitmaps(index)!
    expect(b).not.toBeNull()
    const establishments = (index.query('SELECT count(*) AS n FROM empresa_doc').get() as { n: number }).n
    expect(b.rows).toBe(establishments)
    expect(b.rows).toBeGreaterThan(2 * BITMAP_CHUNK)
    const kinds = index.query('SELECT sum(linhas >= ?) AS dense, sum(linhas < ?) AS lists FROM filtro_bloco').get(BITMAP_DENSE, BITMAP_DENSE) as { dense: number; lists: number }
    expect(kinds.dense).toBeGreaterThan(0)
    expect(kinds.lists).toBeGreaterThan(0)
    // A word's rows over all chunks are the rows FTS5 has for it.
    for (const token of [filterToken.porte('05')!, filterToken.simples(1)]) {
      const bitmapRows = (index.query('SELECT sum(linhas) AS n FROM filtro_bloco WHERE id BETWEEN ? AND ?').get((token.codePointAt(0)! - 0xf0000) * BITMAP_CHUNK, (token.codePointAt(0)! - 0xf0000 + 1) * BITMAP_CHUNK - 1) as { n: number }).n
      const ftsRows = (index.query('SELECT count(*) AS n FROM empresa_fts WHERE empresa_fts MATCH ?').get(`"${token}"`) as { n: number }).n
      expect(bitmapRows).toBe(ftsRows)
    }
  })

  test("the synthetic month puts each city's establishments in its UF, most of them in a few cities, as a real month does", async () => {
    const db = await DuckDBInstance.create(join(dataDir, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
    const c = await db.connect()
    const prefix: Record<string, string> = { SP: '35', MG: '31', RJ: '33', RS: '43', DF: '53', AC: '12' }
    const rows = (await c.runAndReadAll(`
      SELECT e.uf, count(*) AS n, count(*) FILTER (WHERE left(m.codigo_ibge, 2) <> CASE e.uf ${Object.entries(prefix).map(([uf, p]) => `WHEN '${uf}' THEN '${p}'`).join(' ')} END) AS fora,
             max(por_cidade) AS maior, count(DISTINCT e.municipio) AS cidades
      FROM estabelecimentos e JOIN municipios m ON m.codigo = e.municipio
      JOIN (SELECT municipio, count(*) AS por_cidade FROM estabelecimentos GROUP BY 1) USING (municipio)
      WHERE e.uf IN (${Object.keys(prefix).map((u) => `'${u}'`).join(', ')}) GROUP BY 1 ORDER BY 1`)).getRowObjectsJson() as { uf: string; n: string; fora: string; maior: string; cidades: string }[]
    c.closeSync()
    db.closeSync()
    expect(rows.map((r) => r.uf)).toEqual(['AC', 'DF', 'MG', 'RJ', 'RS', 'SP'])
    for (const r of rows) {
      expect([r.uf, Number(r.fora)]).toEqual([r.uf, 0])
      // Its largest city (the first of its ~200) holds 1/H(200) ~ 1/6 of the UF's establishments.
      expect(Number(r.maior) / Number(r.n)).toBeGreaterThan(0.1)
    }
  }, 60_000)

  test('the bitmaps sit at the end of the file, after the part the prewarm reads (filtro_meta)', () => {
    const start = (index.query("SELECT valor FROM filtro_meta WHERE chave = 'inicio_bytes'").get() as { valor: number }).valor
    const pageSize = (index.query('PRAGMA page_size').get() as { page_size: number }).page_size
    // Their data pages (a table's root page may sit in front: auto-vacuum places roots first).
    const pages = index.query("SELECT count(*) AS n, sum(pageno * ? < ?) AS before FROM dbstat WHERE name IN ('filtro_bloco', 'filtro_posicao', 'filtro_valor', 'filtro_grupo') AND pagetype <> 'internal'").get(pageSize, start) as { n: number; before: number }
    expect(pages.n).toBeGreaterThan(100)
    expect(pages.before).toBeLessThanOrEqual(4)
    // And the name index before it: its words' lists are what the prewarm is for.
    const fts = index.query("SELECT count(*) AS n, sum(pageno * ? >= ?) AS after FROM dbstat WHERE name = 'empresa_fts_data'").get(pageSize, start) as { n: number; after: number }
    expect(fts.after / fts.n).toBeLessThan(0.01)
  })

  test('every filter alone: the same total and pages as FTS5, with and without uf', async () => {
    let big = 0
    for (const f of filters)
      for (const extra of ['', '&uf=SP', '&por_pagina=20&pagina=7', '&uf=MG&por_pagina=50&pagina=2', '&situacao=baixada']) {
        const a = await same(f + extra)
        expect(a.status).toBe(200)
        if (a.total === '10000+') big++
      }
    expect(big).toBeGreaterThan(5)
  }, 120_000)

  test('every pair of filters: the same total and pages as FTS5, with and without uf', async () => {
    let empty = 0
    let some = 0
    for (let i = 0; i < filters.length; i++)
      for (let j = i + 1; j < filters.length; j++) {
        const pair = `${filters[i]}&${filters[j]}`
        // A pair is of two filters: two values of one parameter are a 400 (parametro_repetido), and
        // so is an opening range that ends before it starts.
        const family = (f: string) => f.split('&').map((kv) => kv.split('=')[0]!.replace(/_(min|max|de|ate)$/, ''))
        if (family(filters[i]!).some((n) => family(filters[j]!).includes(n))) continue
        for (const extra of ['', '&uf=SP', '&por_pagina=20&pagina=3']) {
          const a = await same(pair + extra)
          expect(a.status).toBe(200)
          if (a.total === 0) empty++
          else some++
        }
      }
    // Both kinds occur: pairs whose rows never meet, and pairs with matches.
    expect(empty).toBeGreaterThan(10)
    expect(some).toBeGreaterThan(100)
  }, 300_000)

  /** A copy of the built month whose company index `damage` spoils, asked `path`. */
  async function askDamaged(name: string, damage: (db: Database) => void, path: string) {
    const broken = tempDir(`dadosbr-${name}-`)
    cpSync(dataDir, broken, { recursive: true, verbatimSymlinks: true })
    const db = new Database(join(broken, 'cnpj', 'current', 'busca.sqlite'))
    damage(db)
    db.close()
    const app = (await testApp({ dataDir: broken })).app
    try {
      return await get(app, path)
    } finally {
      app.close()
    }
  }

  test('a damaged bitmap is a damaged build: 503, never a 500 or a wrong answer', async () => {
    const r = await askDamaged('badbitmaps', (db) => {
      // A dense block cut short, as a bad write or a bad disk would leave it.
      const porte = filterTokenId(filterToken.porte('05')!)
      const id = (db.query(`SELECT id FROM filtro_bloco WHERE id BETWEEN ? AND ? AND linhas >= ${BITMAP_DENSE} LIMIT 1`).get(porte * BITMAP_CHUNK, (porte + 1) * BITMAP_CHUNK - 1) as { id: number }).id
      db.query('UPDATE filtro_bloco SET dados = substr(dados, 1, 100) WHERE id = ?').run(id)
    }, '/v1/cnpj/busca?porte=demais')
    expect([r.status, r.body.erro?.codigo]).toEqual([503, 'dados_indisponiveis'])
  })

  test('a month whose exact dates lost some rows is a damaged build too: 503, not a wrong count', async () => {
    const r = await askDamaged('badvalues', (db) => {
      // June 2010's dates in its first chunk, one value short (still whole 4-byte values).
      const june = filterTokenId(filterToken.aberturaMes(2010, 6))
      const id = (db.query('SELECT id FROM filtro_valor WHERE id BETWEEN ? AND ? AND length(dados) >= 8 LIMIT 1').get(june * BITMAP_CHUNK, (june + 1) * BITMAP_CHUNK - 1) as { id: number }).id
      db.query('UPDATE filtro_valor SET dados = substr(dados, 1, length(dados) - 4) WHERE id = ?').run(id)
    }, '/v1/cnpj/busca?abertura_de=2010-06-15&abertura_ate=2010-06-20')
    expect([r.status, r.body.erro?.codigo]).toEqual([503, 'dados_indisponiveis'])
  })

  test("only the rows that can be on the page over every UF have their key read: a rank's coarse part above the need-th smallest is out, its ties kept", () => {
    // Positions 1-6 with coarse parts 30, 10, 20, 20, 40, 20: the 3 first by rank are 10 and two of the three 20s (their keys decide).
    const coarse = new Map([[1, 30], [2, 10], [3, 20], [4, 20], [5, 40], [6, 20]])
    expect(mayLead([1, 2, 3, 4, 5, 6], 3, (p) => coarse.get(p)!)).toEqual([2, 3, 4, 6])
    expect(mayLead([1, 2, 3, 4, 5, 6], 1, (p) => coarse.get(p)!)).toEqual([2])
    expect(mayLead([1, 2, 3, 4, 5, 6], 6, (p) => coarse.get(p)!)).toEqual([1, 2, 3, 4, 5, 6])
  })

  test('three filters, and filters with porte or municipio', async () => {
    for (const q of ['simples=true&porte=demais&capital_min=1000000', 'natureza_juridica=2062&abertura_de=2015-01-01&capital_max=50000&uf=SP', `${filters[2]}&simples=true&abertura_de=2000-01-01`])
      expect((await same(q)).status).toBe(200)
  })
})
