// The month file's pieces (src/datasets/cnpj/historico-layout.ts): an item stored without what its
// feed key holds comes back whole, odd values included; the blocks decode to what was encoded; the
// CNAE ordering's key the writer makes from a feed key is the reader's.
import { expect, test } from 'bun:test'
import { RootFilter } from '../../src/datasets/cnpj/historico-store'
import { seededRandom } from '../../ingest/lib/random'
import { DuckDBInstance } from '@duckdb/node-api'
import { ItemSink, writeMonthFile } from '../../ingest/cnpj/history-file'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { rootKey } from '../../src/datasets/cnpj/layout'
import { tempDir } from '../temp'
import {
  decodeCnaeBlock, decodeFeedBlock, feedLine, decodeRootBlock, encodeCnaeBlock, encodeFeedBlock, encodeRootBlock, itemKey1, itemKey2, itemOf, key2OfKey1,
  monthRanges, storedLine, type Item,
} from '../../src/datasets/cnpj/historico-layout'

const ITEMS: Item[] = [
  ['44555666000262', 4, 5, ['AVENIDA', 'PAULISTA'], ['RUA', 'AUGUSTA'], 'SP', '7107', null, '4771701', 'REDE NACIONAL DE FARMÁCIAS S.A.'],
  ['12ABC34501DE35', 0, -1, null, null, 'EX', '9707', 'MONTEVIDEO', '4721102', 'CAFÉ "SÃO JOÃO"; LTDA'],
  // Values a key cannot hold: kept as written.
  ['99999999000191', 16, -1, ['x'], null, 'XX', '71', null, '47', null],
  ['99999999000191', 14, -2, ['2', 'FULANO', '***1**', '49', null, null, '0'], null, null, null, null, null, 'X'],
]

test('an item stored without its key parts comes back whole', () => {
  for (const it of ITEMS) expect(itemOf(storedLine(it), itemKey1(it))).toEqual(it)
  // The common case stores less than the whole item.
  expect(storedLine(ITEMS[0]!).length).toBeLessThan(JSON.stringify(ITEMS[0]).length - 20)
})

test('blocks decode to what was encoded', () => {
  const keys = ITEMS.map(itemKey1).sort((a, b) => a - b)
  const feed = decodeFeedBlock(encodeFeedBlock(keys, ITEMS.map(storedLine)))
  expect([...feed.keys]).toEqual(keys)
  // Each line alone, in any order (the first asked finds where every line starts).
  expect([...ITEMS.keys()].reverse().map((k) => feedLine(feed, k))).toEqual(ITEMS.map(storedLine).reverse())
  // A block cut short (fewer lines than keys) is an error, never another slot's line.
  const cut = decodeFeedBlock(encodeFeedBlock(keys, [storedLine(ITEMS[0]!)]))
  expect(() => feedLine(cut, ITEMS.length - 1)).toThrow('menos linhas que itens')
  const cnae = decodeCnaeBlock(encodeCnaeBlock([1, 2, 2 ** 47], [7, 0, 4_000_000]))
  expect([[...cnae.keys], [...cnae.positions]]).toEqual([[1, 2, 2 ** 47], [7, 0, 4_000_000]])
  const roots = decodeRootBlock(encodeRootBlock([5, 36 ** 8 - 1], [[1, 2, 3], [9]]))
  expect([...roots.roots]).toEqual([5, 36 ** 8 - 1])
  expect([...roots.positions.subarray(roots.starts[0]!, roots.starts[1]!)]).toEqual([1, 2, 3])
  expect([...roots.positions.subarray(roots.starts[1]!, roots.starts[2]!)]).toEqual([9])
})

test("the CNAE ordering's key, made by the writer from an item's feed key, is the reader's", () => {
  expect(ITEMS.map(itemKey1).map(key2OfKey1)).toEqual(ITEMS.map(itemKey2))
})

test('months held are named in runs', () => {
  expect(monthRanges(['2025-11', '2025-12', '2026-01', '2026-03', '2026-05', '2026-06'])).toBe('2025-11 a 2026-01, 2026-03, 2026-05 a 2026-06')
  expect(monthRanges([])).toBe('')
})

test('the root filter holds every root added, alphanumeric ones (keys past 2^32) included, and turns away ~99 % of the others', () => {
  const next = seededRandom(11)
  const key = () => Math.floor(next() * 36 ** 8)
  const added = Array.from({ length: 50_000 }, key)
  const filter = new RootFilter(added.length)
  for (const k of added) filter.add(k)
  expect(added.every((k) => filter.has(k))).toBe(true)
  const held = new Set(added)
  const others = Array.from({ length: 100_000 }, key).filter((k) => !held.has(k))
  const passed = others.filter((k) => filter.has(k)).length / others.length
  expect(passed).toBeLessThan(0.03)
  // 10 bits a root, rounded up to a power of two.
  expect(filter.bytes).toBe(2 ** 19 / 8)
})

test('a month file holds every item, past the 204 800 rows at which an appender on the streaming connection used to end the stream', async () => {
  const instance = await DuckDBInstance.create(':memory:')
  const sink = await ItemSink.open(instance)
  const n = 210_000
  const cnpjOf = (i: number) => `${String(10_000_000 + i)}000100`
  const itemOf_ = (i: number): Item => [cnpjOf(i), 4, 5, ['RUA', `A ${i}`], ['RUA', `B ${i}`], 'SP', '7107', null, '4771701', 'X']
  // Pushed out of order: the file sorts them (one key1, then CNPJ).
  for (let i = n - 1; i >= 0; i--) {
    const it = itemOf_(i)
    sink.push(storedLine(it), itemKey1(it), it[0], it[2], rootKey(it[0].slice(0, 8)))
  }
  sink.close()
  const path = join(tempDir('dadosbr-mes-'), '2026-10.sqlite')
  try {
    const meta = await writeMonthFile(path, { referencia: '2026-10', referencia_anterior: '2026-09', lacuna: false, rotulos: {}, rotulosAnterior: null, items: sink, saidas: [], municipios: {} })
    expect(meta.itens).toBe(n)
  } finally {
    sink.dispose()
    instance.closeSync()
  }
  const db = new Database(path, { readonly: true })
  const feed = db.query('SELECT dados FROM fluxo ORDER BY chave').all() as { dados: Uint8Array }[]
  expect(feed.length).toBe(Math.ceil(n / 32))
  const last = decodeFeedBlock(feed.at(-1)!.dados)
  expect(feedLine(last, last.keys.length - 1)).toBe(storedLine(itemOf_(n - 1)))
  let positions = 0
  for (const { dados } of db.query('SELECT dados FROM raiz').all() as { dados: Uint8Array }[]) positions += decodeRootBlock(dados).roots.length
  expect(positions).toBe(n)
  db.close()
})
