// The rules the ingest applies to the CVM's values, each on its own.
import { describe, expect, test } from 'bun:test'
import { canonicalClassification, isCancelled } from '../../ingest/fundos/cadastro'
import { consolidatedDay, DailyAggregator, dailyLayout } from '../../ingest/fundos/daily'
import { cnpjDigits } from '../../ingest/fundos/files'
import { kindOf } from '../../ingest/fundos/portfolio'

describe('CNPJs as the CVM writes them', () => {
  test('punctuated, bare, and bare without leading zeros', () => {
    expect(cnpjDigits('00.017.024/0001-53')).toBe('00017024000153')
    expect(cnpjDigits('00017024000153')).toBe('00017024000153')
    expect(cnpjDigits('17024000153')).toBe('00017024000153')
    // Alphanumeric CNPJs (from July 2026) are CNPJs too.
    expect(cnpjDigits('12.abc.345/01de-35')).toBe('12ABC34501DE35')
    expect([cnpjDigits(''), cnpjDigits('12.345'), cnpjDigits('ABC')]).toEqual([null, null, null])
  })
})

describe('daily layout by header', () => {
  test('RCVM 175 and the one before; a header without the wanted columns says which', () => {
    expect(dailyLayout('TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;ID_SUBCLASSE;DT_COMPTC;VL_TOTAL;VL_QUOTA;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST'.split(';')).layout).toBe('rcvm175')
    expect(dailyLayout('TP_FUNDO;CNPJ_FUNDO;DT_COMPTC;VL_TOTAL;VL_QUOTA;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST'.split(';')).layout).toBe('legado')
    // The files before 2021 lack TP_FUNDO.
    expect(dailyLayout('CNPJ_FUNDO;DT_COMPTC;VL_TOTAL;VL_QUOTA;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST'.split(';')).index.tipo).toBe(-1)
    expect(() => dailyLayout(['CNPJ_FUNDO', 'DT_COMPTC'])).toThrow('colunas ausentes: VL_QUOTA, VL_PATRIM_LIQ, CAPTC_DIA, RESG_DIA, NR_COTST')
  })
})

describe('the latest consolidated day', () => {
  test('the last day with at least 80 % of the median of the 20 days before it', () => {
    expect(consolidatedDay([100, 100, 100, 100, 81, 79])).toBe(4)
    expect(consolidatedDay([100, 100, 100, 3])).toBe(2)
    expect(consolidatedDay([5])).toBe(0)
    // A day of few reports in the middle does not move the answer.
    expect(consolidatedDay([100, 2, 100, 100])).toBe(3)
  })
})

describe('each class as of the consolidated day (what the rankings show, #29.5)', () => {
  const HEADER = 'TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;ID_SUBCLASSE;DT_COMPTC;VL_TOTAL;VL_QUOTA;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST'
  // Classes by key: CNPJs of the sample's constructed roots (99.1xx.xxx), valid check digits.
  const CNPJ: Record<string, string> = {
    A: '99.100.001/0001-75', B: '99.100.002/0001-10', C: '99.100.003/0001-64', D: '99.100.004/0001-09', E: '99.100.005/0001-53',
    F1: '99.100.006/0001-06', F2: '99.100.007/0001-42', F3: '99.100.008/0001-97', F4: '99.100.009/0001-31', F5: '99.100.010/0001-66',
  }
  /** A row as the CVM writes it; the values tell the row apart: net assets = 1000 x class number + day of month. */
  const row = (key: string, date: string, sub = '') => {
    const n = Object.keys(CNPJ).indexOf(key) + 1
    const day = Number(date.slice(8))
    return ['CLASSES - FIF', CNPJ[key]!, sub, date, '0', `${n}.${day}`, String(n * 1000 + day + (sub === 'S2' ? 0.5 : 0)), '0', '0', String(n * 10 + day)]
  }
  const rows = async function* (lines: string[][]) {
    yield HEADER.split(';')
    yield* lines
  }
  const fillers = ['F1', 'F2', 'F3', 'F4', 'F5']
  const day = (date: string, keys: string[]) => keys.flatMap((k) => (k === 'E' ? [row('E', date, 'S1'), row('E', date, 'S2')] : k === 'E1' ? [row('E', date, 'S1')] : [row(k, date)]))

  test('a later, partial day and a month that is all partial leave it on the consolidated day; /consulta keeps the latest', async () => {
    const agg = new DailyAggregator(() => ({ classificacao: 'Renda Fixa', cotasDeFundos: false }), true)
    await agg.addMonth('2026-08', 'inf_diario_fi_202608.csv', rows([...day('2026-08-28', ['A', 'B', 'C', 'D', 'E', ...fillers]), ...day('2026-08-31', ['A', 'B', 'C', 'D', 'E', ...fillers])]))
    // 09-01: eight of ten (C and D absent): consolidated. 09-02: three: not.
    await agg.addMonth('2026-09', 'inf_diario_fi_202609.csv', rows([...day('2026-09-01', ['A', 'B', 'E', ...fillers]), ...day('2026-09-02', ['A', 'D', 'E1'])]))
    // October so far: one class on 10-01; not consolidated either.
    await agg.addMonth('2026-10', 'inf_diario_fi_202610.csv', rows(day('2026-10-01', ['A'])))
    const r = agg.result()
    expect(r.dates).toEqual(['2026-08-28', '2026-08-31', '2026-09-01', '2026-09-02', '2026-10-01'])
    expect(r.reporting).toEqual([10, 10, 8, 3, 1])
    const T = consolidatedDay(r.reporting)
    expect(r.dates[T]).toBe('2026-09-01')
    const of = (key: string) => r.classes.find((c) => c.cnpj === CNPJ[key]!.replace(/\D/g, ''))!
    const at = (l: { day: number; cota: number | null; pl: number | null; cotistas: number | null } | null) => l && { data: r.dates[l.day], cota: l.cota, pl: l.pl, cotistas: l.cotistas }
    // A reported on every day: on the consolidated day, 09-01; its latest is October's.
    expect([at(of('A').consolidado), at(of('A').latest)]).toEqual([{ data: '2026-09-01', cota: 1.1, pl: 1001, cotistas: 11 }, { data: '2026-10-01', cota: 1.1, pl: 1001, cotistas: 11 }])
    // C did not report in September: its last report, 08-31.
    expect(at(of('C').consolidado)).toEqual({ data: '2026-08-31', cota: 3.31, pl: 3031, cotistas: 61 })
    // D reported in September only after the consolidated day: its August report.
    expect([at(of('D').consolidado), at(of('D').latest)]).toEqual([{ data: '2026-08-31', cota: 4.31, pl: 4031, cotistas: 71 }, { data: '2026-09-02', cota: 4.2, pl: 4002, cotistas: 42 }])
    // E reports per subclass: both on 09-01 summed, no single quota; one subclass alone on 09-02 is its latest.
    expect([at(of('E').consolidado), at(of('E').latest)]).toEqual([{ data: '2026-09-01', cota: null, pl: 10002.5, cotistas: 102 }, { data: '2026-09-02', cota: null, pl: 5002, cotistas: 52 }])
    // Nothing is as of a day past the consolidated one.
    expect(r.classes.filter((c) => c.consolidado && c.consolidado.day > T)).toEqual([])
  })
})

describe('portfolio rows kept (block 4)', () => {
  test('stocks (owned and lent), units, BDRs; not options, futures, borrowed shares or debentures', () => {
    expect(kindOf('Ações', 'Ação ordinária')).toEqual({ tipo: 'acao', emprestada: false })
    expect(kindOf('Ações e outros TVM cedidos em empréstimo', 'Ação preferencial')).toEqual({ tipo: 'acao', emprestada: true })
    expect(kindOf('Certificado ou recibo de depósito de valores mobiliários', 'Certificado de depósito de ações')).toEqual({ tipo: 'unit', emprestada: false })
    expect(kindOf('Brazilian Depository Receipt - BDR', 'BDR Nível I')).toEqual({ tipo: 'bdr', emprestada: false })
    expect(kindOf('Ações', 'UNIT')).toEqual({ tipo: 'unit', emprestada: false })
    expect(kindOf('ACOES', 'Ação ordinária')).toEqual({ tipo: 'acao', emprestada: false })
    for (const other of ['Obrigações por ações e outros TVM recebidos em empréstimo', 'Opções - Posições titulares', 'Mercado Futuro - Posições compradas', 'Debêntures', 'Compras a termo a receber'])
      expect(kindOf(other, 'Ação ordinária')).toBeNull()
  })
})

describe('registry values', () => {
  test('one spelling per CVM classification; cancelled in either spelling', () => {
    expect(['Fundo de Ações', 'Ações', 'ACOES', 'Fundo de Renda Fixa', 'Fundo Multimercado', 'Fundo Cambial', 'FIDC', '', null].map(canonicalClassification))
      .toEqual(['Ações', 'Ações', 'Ações', 'Renda Fixa', 'Multimercado', 'Cambial', 'FIDC', null, null])
    expect(['CANCELADA', 'Cancelado', 'Em Funcionamento Normal', null].map(isCancelled)).toEqual([true, true, false, false])
  })
})
