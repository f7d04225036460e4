// How the search's filters become FTS words and doc-row checks (src/datasets/cnpj/search-filters.ts).
import { describe, expect, test } from 'bun:test'
import { capitalBucket, capitalBucketFloor, filterToken, openingYearSlot } from '../../src/datasets/cnpj/layout'
import { matchOf, planFilters, type FilterStats } from '../../src/datasets/cnpj/search-filters'
import { filterTokenId, filterTokenOf, SPANS_OF } from '../../src/datasets/cnpj/filter-bitmaps'

/**
 * An index of 1000 rows: capital buckets 0-30 with 20 rows each (and the floor of bucket 20),
 * opening years 1990-2026 with their months, the four Simples states, a CNAE and a legal nature.
 */
function stats(): FilterStats {
  const rows = new Map<string, number>([[filterToken.qualquer, 1000], [filterToken.natureza('2062')!, 100], [filterToken.semCapital, 10], [filterToken.semAbertura, 10]])
  for (let s = 0; s < 4; s++) rows.set(filterToken.simples(s), 250)
  for (let b = 0; b <= 30; b++) rows.set(filterToken.capital(b), 20)
  rows.set(filterToken.capitalPiso(20), 5)
  for (let y = 1990; y <= 2026; y++) {
    rows.set(filterToken.abertura(openingYearSlot(y)), 24)
    for (let m = 1; m <= 12; m++) rows.set(filterToken.aberturaMes(y, m), 2)
  }
  rows.set(filterToken.cnae(0), 50)
  rows.set(filterToken.cnaeSecundario(0), 40)
  return { rows, cnaeSlot: new Map([['4771701', 0]]), total: 1000, spans: false }
}

/** The same index built with span words (their rows: the sum of their buckets' or years'). */
function withSpanWords(): FilterStats {
  const s = stats()
  for (const [token, n] of [...s.rows]) for (const id of SPANS_OF[filterTokenId(token)] ?? []) s.rows.set(filterTokenOf(id), (s.rows.get(filterTokenOf(id)) ?? 0) + n)
  return { ...s, spans: true }
}
const q = (t: string) => `"${t}"`
const or = (ts: string[]) => (ts.length === 1 ? ts[0]! : `(${ts.join(' OR ')})`)

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
    const p = planFilters(stats(), { cnae_qualquer: '4771701', natureza_juridica: '2062' })
    expect(matchOf(p, null)).toBe(`(${q(filterToken.cnae(0))} OR ${q(filterToken.cnaeSecundario(0))}) AND ${q(filterToken.natureza('2062')!)}`)
    expect(p.checks).toEqual([])
    expect(planFilters(stats(), { cnae: '0111301' }).nada).toBe(true)
    expect(planFilters(stats(), { municipiosIbge: [] }).nada).toBe(true)
  })

  test('Simples and MEI: the states that agree, one word each, never NOT', () => {
    const states = (f: { simples?: boolean; mei?: boolean }) => matchOf(planFilters(stats(), f), null)
    expect(states({ simples: true })).toBe(or([1, 3].map((s) => q(filterToken.simples(s)))))
    expect(states({ simples: false })).toBe(or([0, 2].map((s) => q(filterToken.simples(s)))))
    expect(states({ simples: true, mei: false })).toBe(q(filterToken.simples(1)))
    expect(states({ simples: false, mei: true })).toBe(q(filterToken.simples(2)))
  })

  test('a range on round bounds is exact with words alone: its buckets, and the floor of a round maximum', () => {
    const round = planFilters(stats(), { capital_min: 1_000_000, capital_max: 5_000_000 })
    // (The floor of [5 000 000, 10 000 000) has no row in this index: no word for it.)
    expect(round.words).toEqual([or([20, 21].map((b) => q(filterToken.capital(b))))])
    expect(round.checks).toEqual([])
    const inside = planFilters(stats(), { capital_min: 1_500_000, capital_max: 3_000_000 })
    expect(inside.words).toEqual([or([20, 21].map((b) => q(filterToken.capital(b))))])
    expect(inside.checks).toEqual(['d.capital >= $capital_min', 'd.capital <= $capital_max'])
    expect(inside.params).toEqual({ $capital_min: 1_500_000, $capital_max: 3_000_000 })
    // capital_max=1000000: the buckets below and the floor of [1 000 000, 2 000 000).
    const max = planFilters(stats(), { capital_min: 500_000, capital_max: 1_000_000 })
    expect([max.words, max.checks]).toEqual([[or([q(filterToken.capital(19)), q(filterToken.capitalPiso(20))])], []])
  })

  test('dates: whole years by year, partial years by month, partial months checked on the doc row', () => {
    const year = planFilters(stats(), { abertura_de: '2020-01-01', abertura_ate: '2020-12-31' })
    expect([year.words, year.checks]).toEqual([[q(filterToken.abertura(openingYearSlot(2020)))], []])
    const months = planFilters(stats(), { abertura_de: '2015-03-01', abertura_ate: '2015-05-31' })
    expect([months.words, months.checks]).toEqual([[or([3, 4, 5].map((m) => q(filterToken.aberturaMes(2015, m))))], []])
    const days = planFilters(stats(), { abertura_de: '2010-06-15', abertura_ate: '2010-06-15' })
    expect([days.words, days.checks]).toEqual([[q(filterToken.aberturaMes(2010, 6))], ['d.abertura >= $de', 'd.abertura <= $ate']])
  })

  test('a range holding most rows is qualquer NOT what lies outside it (the rows with no value included)', () => {
    const wide = planFilters(stats(), { abertura_ate: '2019-12-31' })
    expect(wide.words).toEqual([])
    expect(wide.checks).toEqual([])
    expect(matchOf(wide, null)).toBe(`(${q(filterToken.qualquer)}) NOT ${or([q(filterToken.semAbertura), ...[...Array(7).keys()].map((i) => q(filterToken.abertura(openingYearSlot(2020 + i))))])}`)
    const capital = planFilters(stats(), { capital_min: 10 })
    expect(matchOf(capital, null)).toBe(`(${q(filterToken.qualquer)}) NOT ${or([q(filterToken.semCapital), ...[0, 1, 2, 3, 4].map((b) => q(filterToken.capital(b)))])}`)
  })

  test('the same plan as terms for the bitmaps, with the words whose rows the checks must confirm', () => {
    const plan = planFilters(stats(), { natureza_juridica: '2062', capital_min: 1234.56, capital_max: 1000000, abertura_de: '2010-06-15' })
    // Clauses: the legal nature; capital buckets 11-19 plus the floor of 20; the months of 2010 from June and the years after.
    expect(plan.clauses).toEqual([
      [{ token: filterToken.natureza('2062')! }],
      [...[11, 12, 13, 14, 15, 16, 17, 18, 19].map((b) => ({ token: filterToken.capital(b) })), { token: filterToken.capitalPiso(20) }],
      [...[6, 7, 8, 9, 10, 11, 12].map((m) => ({ token: filterToken.aberturaMes(2010, m) })), ...[...Array(16).keys()].map((i) => ({ token: filterToken.abertura(openingYearSlot(2011 + i)) }))],
    ])
    expect(plan.excluded).toEqual([])
    // 1234.56 lies inside bucket 11 ([1000, 2000)); 15 June 2010 inside its month; the round maximum needs no check.
    expect(plan.edgeWords).toEqual([filterToken.capital(11), filterToken.aberturaMes(2010, 6)])
    // A capital maximum that is the floor of a bucket excludes the rest of that bucket (a term minus its floor).
    const mostlyZero = stats()
    mostlyZero.rows.set(filterToken.capital(0), 600)
    expect(planFilters(mostlyZero, { capital_max: 1000000 }).excluded).toEqual([
      { token: filterToken.semCapital },
      { token: filterToken.capital(20), minus: filterToken.capitalPiso(20) },
      ...[...Array(10).keys()].map((i) => ({ token: filterToken.capital(21 + i) })),
    ])
    // Years before 1950 share a word: a bound among them checks that word's rows.
    const early = stats()
    early.rows.set(filterToken.abertura(0), 30)
    expect(planFilters(early, { abertura_ate: '1940-05-01' }).edgeWords).toEqual([filterToken.abertura(0)])
    // A long range by its complement: the months of both bounds are checked.
    expect(planFilters(stats(), { abertura_de: '1995-02-10', abertura_ate: '2024-11-20' }).edgeWords).toEqual([filterToken.aberturaMes(1995, 2), filterToken.aberturaMes(2024, 11)])
  })

  test('with span words, a run of whole buckets or years is the fewest aligned spans; the FTS words stay plain', () => {
    const spans = withSpanWords()
    const plan = planFilters(spans, { natureza_juridica: '2062', capital_min: 1234.56, capital_max: 1000000, abertura_de: '2010-06-15' })
    // Buckets 11-19: 11 alone, 12-15 and 16-19 (level 2); years 2011-2026 (slots 62-77, nothing after
    // them in this index): 62-63 and 64-127 (levels 1 and 6), the empty spans beyond left out.
    expect(plan.clauses).toEqual([
      [{ token: filterToken.natureza('2062')! }],
      [{ token: filterToken.capitalPiso(20) }, { token: filterToken.capital(11) }, { token: filterToken.capitalFaixa(2, 3) }, { token: filterToken.capitalFaixa(2, 4) }],
      [...[6, 7, 8, 9, 10, 11, 12].map((m) => ({ token: filterToken.aberturaMes(2010, m) })), { token: filterToken.aberturaFaixa(1, 31) }, { token: filterToken.aberturaFaixa(6, 1) }],
    ])
    expect(plan.words).toEqual(planFilters(stats(), { natureza_juridica: '2062', capital_min: 1234.56, capital_max: 1000000, abertura_de: '2010-06-15' }).words)
    // The complement too: buckets 21-30 (21, 22-23, 24-31; 32-63 hold no row); a term minus its floor stays as it is.
    spans.rows.set(filterToken.capital(0), 600)
    expect(planFilters(spans, { capital_max: 1000000 }).excluded).toEqual([
      { token: filterToken.semCapital },
      { token: filterToken.capital(20), minus: filterToken.capitalPiso(20) },
      { token: filterToken.capital(21) }, { token: filterToken.capitalFaixa(1, 11) }, { token: filterToken.capitalFaixa(3, 3) },
    ])
    // A span's rows are its buckets' (the build's SPANS_OF): 12-15 hold 4 x 20.
    expect(spans.rows.get(filterToken.capitalFaixa(2, 3))).toBe(80)
  })

  test('a range no bucket of which has rows matches nothing', () => {
    expect(planFilters(stats(), { capital_min: 10 ** 12 }).nada).toBe(true)
    expect(planFilters(stats(), { abertura_ate: '1950-12-31' }).nada).toBe(true)
  })
})
