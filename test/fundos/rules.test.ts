// The rules the ingest applies to the CVM's values, each on its own.
import { describe, expect, test } from 'bun:test'
import { canonicalClassification, isCancelled } from '../../ingest/fundos/cadastro'
import { consolidatedDay, dailyLayout } from '../../ingest/fundos/daily'
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
