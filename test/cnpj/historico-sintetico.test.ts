// The history on two consecutive synthetic months (ingest/cnpj/synth.ts, month 0 and 1: real
// format, realistic churn), large enough that the feed, the CNAE ordering and the root index span
// many blocks: every filter against the whole feed filtered by hand, each CNPJ's history against
// the feed, and the first month's cards rebuilt from the second equal to that month's own build.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DuckDBInstance } from '@duckdb/node-api'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { CHURN, synthCnpj, synthMonth } from '../../ingest/cnpj/synth'
import { CAMPOS, CNAE_BLOCK, FEED_BLOCK, nivelOf, ROOT_BLOCK } from '../../src/datasets/cnpj/historico-layout'
import { BlockCache, HistoryMonth, HistoryStore } from '../../src/datasets/cnpj/historico-store'
import { rootKey } from '../../src/datasets/cnpj/layout'
import { seededRandom } from '../../ingest/lib/random'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'

setDefaultTimeout(120_000)

const COMPANIES = 30_000
const quiet = { quiet: true, log: () => {} }
const [m0, m1] = [tempDir('dadosbr-sint0-'), tempDir('dadosbr-sint1-')]
const s0 = await synthCnpj({ outDir: m0, companies: COMPANIES, seed: 7, quiet: true })
const s1 = await synthCnpj({ outDir: m1, companies: COMPANIES, seed: 7, month: 1, quiet: true })
const both = tempDir('dadosbr-sint-hist-')
await buildCnpj({ sourceDir: m0, month: synthMonth(0), dataDir: both, ...quiet })
const manifest = await buildCnpj({ sourceDir: m1, month: synthMonth(1), dataDir: both, ...quiet })
const alone = tempDir('dadosbr-sint-mes0-')
await buildCnpj({ sourceDir: m0, month: synthMonth(0), dataDir: alone, ...quiet })
const { app } = await testApp({ dataDir: both })
const { app: first } = await testApp({ dataDir: alone })
afterAll(async () => {
  await app.close()
  await first.close()
})

type FeedItem = { cnpj: string; tipo: string; campo: string | null; antes: unknown; depois: unknown; uf: string | null; municipio: string | null; cnae_principal: string | null; razao_social: string | null }
const feed: FeedItem[] = []
for (let pagina = 1; ; pagina++) {
  const r = (await get(app, `/v1/cnpj/mudancas?por_pagina=100&pagina=${pagina}`)).body
  feed.push(...r.mudancas)
  if (feed.length >= r.total) break
}

describe('the synthetic months', () => {
  test('month 1 is month 0 one month later: the same base companies, ~0.46 % more opened, and about 2 % of the establishments changed', () => {
    expect(synthMonth(0)).toBe('2026-07')
    expect(synthMonth(1)).toBe('2026-08')
    expect(synthMonth(6)).toBe('2027-01')
    expect(s1.empresas - s0.empresas).toBe(Math.round(COMPANIES * CHURN.newCompanies))
    const h = manifest.historico
    expect(h).toMatchObject({ meses: ['2026-07', '2026-08'], referencia_anterior: '2026-07', lacuna: false })
    expect(h.itens).toBe(feed.length)
    // Every kind of change a real month shows (natureza, rarest at 0.01 % of companies, may be absent).
    for (const tipo of ['abertura', 'situacao_cadastral', 'razao_social', 'nome_fantasia', 'endereco', 'cnae_principal', 'cnae_secundarios', 'capital_social', 'porte', 'contato', 'simples', 'socio_entrada', 'socio_saida', 'socio_alteracao'])
      expect(`${tipo} ${(h.por_tipo[tipo] ?? 0) > 0}`).toBe(`${tipo} true`)
    const establishmentsChanged = new Set(feed.filter((i) => i.campo === null || CAMPOS.some((c) => c.campo === i.campo && nivelOf(c) === 'estabelecimento')).map((i) => i.cnpj)).size
    const share = establishmentsChanged / s0.estabelecimentos
    expect(share).toBeGreaterThan(0.01)
    expect(share).toBeLessThan(0.03)
    // Large enough for the feed, the CNAE ordering and the root index to span many blocks.
    expect(feed.length).toBeGreaterThan(10 * FEED_BLOCK)
    expect(feed.length).toBeGreaterThan(2 * CNAE_BLOCK)
    expect(new Set(feed.map((i) => i.cnpj.slice(0, 8))).size).toBeGreaterThan(5 * ROOT_BLOCK)
  })
})

describe('the feed', () => {
  test('every filter gives exactly the items of the whole feed that match it, in the same order, on any page', async () => {
    const next = seededRandom(11)
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!
    const ufs = [...new Set(feed.map((i) => i.uf!))]
    const cnaes = [...new Set(feed.map((i) => i.cnae_principal!))]
    const tipos = [...new Set(feed.map((i) => i.tipo))]
    // The município filter takes the Receita's code: read a few from the month's cards.
    const db = await DuckDBInstance.create(join(both, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
    const c = await db.connect()
    const codes = new Map((await c.runAndReadAll(`SELECT codigo, descricao FROM municipios`)).getRows().map(([k, v]) => [String(v), String(k)]))
    c.closeSync()
    db.closeSync()
    for (let n = 0; n < 60; n++) {
      const f: Record<string, string | undefined> = {
        tipo: next() < 0.5 ? pick(tipos) : undefined,
        uf: next() < 0.5 ? pick(ufs) : undefined,
        cnae: next() < 0.4 ? pick(cnaes) : undefined,
      }
      const inBrazil = feed.filter((i) => i.uf !== 'EX' && (!f.uf || i.uf === f.uf))
      if (next() < 0.3 && inBrazil.length) f.municipio = codes.get(pick(inBrazil).municipio!)
      const expected = feed.filter((i) => (!f.tipo || i.tipo === f.tipo) && (!f.uf || i.uf === f.uf) && (!f.cnae || i.cnae_principal === f.cnae) && (!f.municipio || i.municipio === [...codes].find(([, k]) => k === f.municipio)![0]))
      const query = Object.entries(f).filter(([, v]) => v).map(([k, v]) => `${k}=${v}`).join('&')
      const porPagina = pick([7, 20, 100])
      const pages = Math.max(1, Math.ceil(expected.length / porPagina))
      // The first, the last and one in between.
      for (const pagina of [...new Set([1, pages, 1 + Math.floor(next() * pages)])]) {
        const r = await get(app, `/v1/cnpj/mudancas?${query}&por_pagina=${porPagina}&pagina=${pagina}`)
        expect(`${query} ${r.status}`).toBe(`${query} 200`)
        expect(`${query} ${r.body.total}`).toBe(`${query} ${expected.length}`)
        expect(r.body.mudancas).toEqual(expected.slice((pagina - 1) * porPagina, pagina * porPagina))
      }
    }
  })
})

describe('each CNPJ', () => {
  const company = (i: FeedItem) => i.campo === 'socios' || CAMPOS.some((c) => c.campo === i.campo && nivelOf(c) === 'empresa')
  const changed = [...new Set(feed.map((i) => i.cnpj))]

  test('its history is its own changes in the feed, and its company\'s while it is in the dump', async () => {
    const sample = changed.filter((_, k) => k % 7 === 0)
    expect(sample.length).toBeGreaterThan(100)
    for (const cnpj of sample) {
      const h = (await get(app, `/v1/cnpj/empresa/${cnpj}/historico`)).body
      const inDump = (await get(app, `/v1/cnpj/situacao/${cnpj}`)).body.existe
      const expected = feed
        .filter((i) => i.cnpj === cnpj || (inDump && company(i) && i.cnpj.slice(0, 8) === cnpj.slice(0, 8)))
        .map(({ tipo, campo, antes, depois }) => ({ referencia: '2026-08', referencia_anterior: '2026-07', tipo, campo, antes, depois }))
      expect(h.mudancas).toEqual(expected)
    }
  })

  test("month 0's card, partners and /completo, rebuilt from month 1, equal month 0's own build (changed CNPJs and others)", async () => {
    const next = seededRandom(5)
    const db = await DuckDBInstance.create(join(alone, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
    const c = await db.connect()
    const others = (await c.runAndReadAll('SELECT cnpj FROM estabelecimentos USING SAMPLE 100 ROWS (reservoir, 3)')).getRows().map((r) => String(r[0]))
    c.closeSync()
    db.closeSync()
    const cnpjs = [...changed.filter(() => next() < 0.15), ...others]
    expect(cnpjs.length).toBeGreaterThan(200)
    for (const cnpj of cnpjs)
      for (const route of ['', '/completo', '/socios']) {
        const past = await get(app, `/v1/cnpj/empresa/${cnpj}${route}?referencia=2026-07`)
        const own = await get(first, `/v1/cnpj/empresa/${cnpj}${route}`)
        expect(`${cnpj}${route} ${past.status}`).toBe(`${cnpj}${route} ${own.status}`)
        expect(past.body).toEqual(own.body)
      }
  })
})

describe("a month's root filter", () => {
  test('every root with changes passes it; the items of any root are the same with it as reading every root block; it spares the blocks of most roots without changes', async () => {
    const dir = join(both, 'cnpj', 'current')
    const store = new HistoryStore(dir, synthMonth(1))
    try {
      expect(await store.rootFilters()).toBe(1)
      const month = store.month(synthMonth(1))!
      // The same file read without a filter.
      const plain = new HistoryMonth(join(dir, 'historico', `${synthMonth(1)}.sqlite`), new BlockCache(), 0, (_m, reason) => ({ kind: 'dano', reason, fix: '' }))
      try {
        const roots = [...new Set(feed.map((i) => i.cnpj.slice(0, 8)))]
        expect(roots.length).toBeGreaterThan(3 * ROOT_BLOCK)
        for (const root of roots) {
          const items = month.itemsOfRoot(rootKey(root))
          expect(items.length).toBeGreaterThan(0)
          expect(items).toEqual(plain.itemsOfRoot(rootKey(root)))
        }
        // Roots of the registry that did not change: no items either way, and the filter turns away all but ~1 %.
        const db = await DuckDBInstance.create(join(dir, 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
        const c = await db.connect()
        const changedRoots = new Set(roots)
        const unchanged = (await c.runAndReadAll('SELECT DISTINCT left(cnpj, 8) FROM estabelecimentos')).getRows().map((r) => String(r[0])).filter((r) => !changedRoots.has(r))
        c.closeSync()
        db.closeSync()
        expect(unchanged.length).toBeGreaterThan(10_000)
        for (const root of unchanged) expect(plain.itemsOfRoot(rootKey(root))).toEqual([])
        // Through the filter, a root block is read for ~1 % of them only.
        const get = BlockCache.prototype.get
        let blocks = 0
        BlockCache.prototype.get = function (this: BlockCache, key: number, load: () => never) {
          blocks++
          return get.call(this, key, load)
        } as typeof get
        try {
          for (const root of unchanged) expect(month.itemsOfRoot(rootKey(root))).toEqual([])
        } finally {
          BlockCache.prototype.get = get
        }
        expect(blocks / unchanged.length).toBeLessThan(0.03)
      } finally {
        plain.close()
      }
    } finally {
      store.close()
    }
  })

  test('the root blocks kept decoded, within a budget shared by the months, give the same items; closing gives the budget back', async () => {
    const path = join(both, 'cnpj', 'current', 'historico', `${synthMonth(1)}.sqlite`)
    const budget = { bytes: 6_000 }
    const monthCache = new BlockCache()
    const month = new HistoryMonth(path, monthCache, 0, (_m, reason) => ({ kind: 'dano', reason, fix: '' }), true, budget)
    const plain = new HistoryMonth(path, new BlockCache(), 0, (_m, reason) => ({ kind: 'dano', reason, fix: '' }))
    try {
      expect(await month.rootFilter()).toBe(true)
      const kept = (month as unknown as { rootBlocks: Map<number, unknown> }).rootBlocks
      // Some blocks kept, not all (a block is a few kB decoded here), and the budget spent by what was kept.
      expect(kept.size).toBeGreaterThan(0)
      expect(kept.size).toBeLessThan(((month as unknown as { rootFirsts: Float64Array }).rootFirsts).length)
      expect(budget.bytes).toBeGreaterThanOrEqual(0)
      expect(budget.bytes).toBeLessThan(6_000)
      const firsts = (month as unknown as { rootFirsts: Float64Array }).rootFirsts
      // A root's block: the last whose first root is at most it.
      const blockOf = (key: number) => firsts.filter((f) => f <= key).at(-1)!
      // Root blocks the month asks of its block cache (their keys: 2 * 2^42 + the block's first root, month place 0).
      const get = BlockCache.prototype.get
      const asked: number[] = []
      BlockCache.prototype.get = function (this: BlockCache, key: number, load: () => never) {
        if (this === monthCache && key >= 2 * 2 ** 42) asked.push(key - 2 * 2 ** 42)
        return get.call(this, key, load)
      } as typeof get
      const roots = [...new Set(feed.map((i) => i.cnpj.slice(0, 8)))].map(rootKey)
      try {
        for (const key of roots) expect(month.itemsOfRoot(key)).toEqual(plain.itemsOfRoot(key))
      } finally {
        BlockCache.prototype.get = get
      }
      // The month read the blocks it did not keep, and none of those it kept.
      const notKept = new Set(roots.map(blockOf).filter((b) => !kept.has(b)))
      expect(notKept.size).toBeGreaterThan(0)
      expect(new Set(asked)).toEqual(notKept)
    } finally {
      month.close()
      plain.close()
    }
    expect(budget.bytes).toBe(6_000)
  })

  test('a month closed while its filter is built stops building it, and that is no damage', async () => {
    const store = new HistoryStore(join(both, 'cnpj', 'current'), synthMonth(1))
    const month = store.month(synthMonth(1))!
    let turns = 0
    // One root block a turn: the close lands between two.
    const building = month.buildRootFilter(1)
    while (turns++ < 2) await new Promise((r) => setImmediate(r))
    store.close()
    expect(await building).toBe(false)
    expect(store.fault).toBeNull()
  })

  test('a one-off reader of a month (the ingest, the export) builds no filter', async () => {
    const path = join(both, 'cnpj', 'current', 'historico', `${synthMonth(1)}.sqlite`)
    const month = new HistoryMonth(path, new BlockCache(), 0, (_m, reason) => ({ kind: 'dano', reason, fix: '' }))
    try {
      month.itemsOfRoot(rootKey(feed[0]!.cnpj.slice(0, 8)))
      await Bun.sleep(50)
      expect((month as unknown as { filterBuild?: unknown }).filterBuild).toBeUndefined()
    } finally {
      month.close()
    }
  })
})
