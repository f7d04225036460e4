// How the search's filters become FTS words and doc-row checks (src/datasets/cnpj/search-filters.ts).
import { describe, expect, test } from 'bun:test'
import { capitalBucket, capitalBucketFloor, filterToken, openingYearSlot } from '../../src/datasets/cnpj/layout'
import { matchOf, planFilters, type FilterStats } from '../../src/datasets/cnpj/search-filters'

/** An index of 1000 rows: capital buckets 0-30 with 20 rows each, years 1990-2026 with 20 each, a few CNAEs and natures. */
function stats(): FilterStats {
  const rows = new Map<string, number>([[filterToken.qualquer, 1000], [filterToken.simples, 300], [filterToken.natureza('2062')!, 100]])
  for (let b = 0; b <= 30; b++) rows.set(filterToken.capital(b), 20)
  for (let y = 1990; y <= 2026; y++) rows.set(filterToken.abertura(openingYearSlot(y)), 20)
  rows.set(filterToken.cnae(0), 50)
  rows.set(filterToken.cnaeSecundario(0), 40)
  return { rows, cnaeSlot: new Map([['4771701', 0]]), total: 1000 }
}
const q = (t: string) => `"${t}"`

describe('capital buckets', () => {
  test('1-2-5 per power of ten, round values start a bucket, worked out on the digits', () => {
    expect(['0.00', '0.01', '0.99', '1.00', '1.99', '2', '4.99', '5', '9.99', '10', '19.99', '20', '1000000.00', '1999999.99', '2000000', '1061004829.23'].map(capitalBucket))
      .toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 20, 20, 21, 29])
    for (const b of [0, 1, 2, 3, 4, 5, 20, 21, 22, 29]) expect(capitalBucket(capitalBucketFloor(b).toFixed(2))).toBe(b)
    expect(capitalBucket('1,5')).toBeNull()
  })
})

describe('planFilters', () => {
  test('equality filters are words; a CNAE by its slot; an unknown value matches nothing', () => {
    const p = planFilters(stats(), { cnae_qualquer: '4771701', natureza_juridica: '2062', simples: false })
    expect(matchOf(p, null)).toBe(`((${q(filterToken.cnae(0))} OR ${q(filterToken.cnaeSecundario(0))}) AND ${q(filterToken.natureza('2062')!)}) NOT ${q(filterToken.simples)}`)
    expect(p.checks).toEqual([])
    expect(planFilters(stats(), { cnae: '0111301' }).nada).toBe(true)
    expect(planFilters(stats(), { municipiosIbge: [] }).nada).toBe(true)
  })

  test('a range on round bounds is its buckets alone; inside a bucket, its edge is checked on the doc row', () => {
    const round = planFilters(stats(), { capital_min: 1_000_000, capital_max: 4_999_999.99 })
    expect(round.words).toEqual([`(${[20, 21].map((b) => q(filterToken.capital(b))).join(' OR ')})`])
    expect(round.checks).toEqual([])
    const inside = planFilters(stats(), { capital_min: 1_500_000, capital_max: 3_000_000 })
    expect(inside.words).toEqual([`(${[20, 21].map((b) => q(filterToken.capital(b))).join(' OR ')})`])
    expect(inside.checks).toEqual(['d.capital >= $capital_min', 'd.capital <= $capital_max'])
    expect(inside.params).toEqual({ $capital_min: 1_500_000, $capital_max: 3_000_000 })
    const year = planFilters(stats(), { abertura_de: '2020-01-01', abertura_ate: '2020-12-31' })
    expect([year.words, year.checks]).toEqual([[q(filterToken.abertura(openingYearSlot(2020)))], []])
    expect(planFilters(stats(), { abertura_de: '2020-03-01', abertura_ate: '2020-03-31' }).checks).toEqual(['d.abertura >= $de', 'd.abertura <= $ate'])
  })

  test('a range holding half the rows or more is only checked on the doc rows of the rest of the expression (qualquer when nothing else)', () => {
    const wide = planFilters(stats(), { capital_min: 1 })
    expect(wide.words).toEqual([])
    expect(wide.checks).toEqual(['d.capital >= $capital_min'])
    expect(matchOf(wide, null)).toBe(q(filterToken.qualquer))
    expect(matchOf(planFilters(stats(), { capital_min: 1, natureza_juridica: '2062' }), '"FARM"*')).toBe(`"FARM"* AND ${q(filterToken.natureza('2062')!)}`)
  })

  test('a range no bucket of which has rows matches nothing', () => {
    expect(planFilters(stats(), { capital_min: 10 ** 12 }).nada).toBe(true)
    expect(planFilters(stats(), { abertura_ate: '1950-12-31' }).nada).toBe(true)
  })
})
