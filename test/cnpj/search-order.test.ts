// Search order over every UF on a synthetic dump big enough for both strategies: a few matches
// (ids read at once and sorted by rank) and more than 10000 (first pages of each UF partition,
// merged). The expected page is computed independently: every matching rowid, sorted by rank.
import { Database } from 'bun:sqlite'
import { beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { synthCnpj } from '../../ingest/cnpj/synth'
import { docKey, filterToken, RANK_BITS, rowidRange } from '../../src/datasets/cnpj/layout'
import { get, tempDir, testApp } from '../helpers'

let app: Awaited<ReturnType<typeof testApp>>['app']
let index: Database

beforeAll(async () => {
  const src = tempDir('dadosbr-synth-')
  const data = tempDir('dadosbr-order-')
  await synthCnpj({ outDir: src, companies: 60_000, seed: 3, quiet: true })
  await buildCnpj({ sourceDir: src, month: '2026-08', dataDir: data, quiet: true, log: () => {} })
  app = (await testApp({ dataDir: data })).app
  index = new Database(join(data, 'cnpj', 'current', 'busca.sqlite'), { readonly: true })
}, 120_000)

/** The CNPJs of one page, from every match of `match` among active companies, in rank order. */
function expectedPage(match: string, pagina: number, porPagina: number): string[] {
  const [lo, hi] = [rowidRange(1, 0)[0], rowidRange(1, 31)[1]] // situação ativa, every UF
  const ids = (index.query('SELECT rowid FROM empresa_fts WHERE empresa_fts MATCH ? AND rowid BETWEEN ? AND ?').values(match, lo, hi) as [number][]).map(([id]) => id)
  ids.sort((a, b) => (a % RANK_BITS) - (b % RANK_BITS) || a - b)
  const page = ids.slice((pagina - 1) * porPagina, pagina * porPagina)
  return page.map((id) => (index.query('SELECT cnpj FROM empresa_doc WHERE id = ?').get(docKey(id)) as { cnpj: string }).cnpj)
}

test('more than 10000 matches (porte only): pages merged from the UF partitions, in global rank order', async () => {
  const first = await get(app, '/v1/cnpj/busca?porte=micro_empresa&por_pagina=50')
  expect(first.status).toBe(200)
  expect(first.body.total).toBe('10000+')
  expect(first.body.resultados.map((r: { cnpj: string }) => r.cnpj)).toEqual(expectedPage(`"${filterToken.porte('01')}"`, 1, 50))
  const third = await get(app, '/v1/cnpj/busca?porte=micro_empresa&por_pagina=50&pagina=3')
  expect(third.body.resultados.map((r: { cnpj: string }) => r.cnpj)).toEqual(expectedPage(`"${filterToken.porte('01')}"`, 3, 50))
})

test('a few matches (a name): read at once, same global rank order, exact total', async () => {
  const r = await get(app, '/v1/cnpj/busca?nome=silva&por_pagina=50&pagina=2')
  expect(r.status).toBe(200)
  const all = expectedPage('"SILVA"', 1, 100_000)
  expect(r.body.total).toBe(all.length)
  expect(all.length).toBeGreaterThan(100)
  expect(all.length).toBeLessThanOrEqual(10_000)
  expect(r.body.resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(all.slice(50, 100))
})
