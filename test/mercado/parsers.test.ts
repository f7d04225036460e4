// The Banco Central's and the exchanges' answers in their real formats and quirks (SOURCES.md
// §4.2-4.4; the exchanges' public ticker APIs): exact values, and the documented error for each
// way an answer can be wrong.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseFocus, parsePtax, parseSgs, ptaxNota } from '../../src/datasets/mercado/bcb'
import { median, parseCoinbase, parseFoxbit, parseKraken, parseMercadoBitcoin, parseNovadax } from '../../src/datasets/mercado/cripto'

const SAMPLE = join(import.meta.dir, 'fixtures', 'amostra')
const json = (f: string) => JSON.parse(readFileSync(join(SAMPLE, f), 'utf8'))

describe('SGS', () => {
  test('valor as a string with a dot, data as dd/mm/aaaa; oldest first whatever the order', () => {
    expect(parseSgs([{ data: '01/12/2025', valor: '0.33' }, { data: '01/11/2025', valor: '0.18' }], 433)).toEqual([
      { data: '2025-11-01', valor: 0.18 },
      { data: '2025-12-01', valor: 0.33 },
    ])
    expect(parseSgs(json('sgs-13522.json'), 13522).at(-1)).toEqual({ data: '2025-12-01', valor: 4.26 })
  })

  test('the Selic target is published ahead (up to the next Copom): days after today are dropped', () => {
    const body = [{ data: '04/10/2026', valor: '13.75' }, { data: '05/10/2026', valor: '13.75' }, { data: '02/11/2026', valor: '13.75' }]
    expect(parseSgs(body, 432, '2026-10-05').map((p) => p.data)).toEqual(['2026-10-04', '2026-10-05'])
  })

  test("the API's refusals carry their own message", () => {
    expect(() => parseSgs({ erro: { statusCode: 404, detail: 'Value(s) not found' } }, '433 (HTTP 404)')).toThrow('SGS 433 (HTTP 404): 404 Value(s) not found')
    expect(() => parseSgs({ error: 'O sistema aceita uma janela de consulta de, no máximo, 10 anos em séries de periodicidade diária' }, 432)).toThrow(
      'SGS 432: O sistema aceita uma janela de consulta de, no máximo, 10 anos em séries de periodicidade diária',
    )
  })

  test('rows out of the format are refused, not guessed (a comma decimal, an ISO date, 31/02, an empty value); an empty list is an error', () => {
    for (const row of [{ data: '02/10/2026', valor: '5,2238' }, { data: '2026-10-02', valor: '5.2' }, { data: '31/02/2026', valor: '5.2' }, { data: '02/10/2026', valor: '' }])
      expect(() => parseSgs([row], 1)).toThrow('SGS 1: linha fora do formato')
    expect(() => parseSgs([], 432)).toThrow('SGS 432: nenhum valor na janela pedida')
    expect(() => parseSgs('<html>', 432)).toThrow('SGS 432: resposta inesperada (não é uma lista)')
  })
})

describe('PTAX', () => {
  test('CotacaoDolarPeriodo: numbers, fractional seconds of any length, oldest first; a day twice keeps the later bulletin', () => {
    expect(parsePtax(json('ptax-periodo.json')).map((d) => [d.data, d.compra, d.venda])).toEqual([
      ['2026-01-22', 5.3125, 5.3131],
      ['2026-01-23', 5.2927, 5.2933],
      ['2026-01-26', 5.2851, 5.2857],
      ['2026-01-27', 5.2382, 5.2388],
      ['2026-01-28', 5.1832, 5.1838],
    ])
    const body = {
      value: [
        { cotacaoCompra: 5.1484, cotacaoVenda: 5.149, dataHoraCotacao: '2026-09-15 13:09:19.199664' },
        { cotacaoCompra: 5.1521, cotacaoVenda: 5.1527, dataHoraCotacao: '2026-09-16 13:05:30.35873' },
        { cotacaoCompra: 5.1, cotacaoVenda: 5.2, dataHoraCotacao: '2026-09-16 10:00:00.0' },
      ],
    }
    expect(parsePtax(body).map((d) => [d.data, d.venda, d.boletim])).toEqual([
      ['2026-09-15', 5.149, '2026-09-15 13:09:19.199664'],
      ['2026-09-16', 5.1527, '2026-09-16 13:05:30.35873'],
    ])
  })

  test('weekend or holiday: "value": [] is an empty list (the feed then says no PTAX in the window); a row out of format is refused', () => {
    expect(parsePtax({ '@odata.context': 'x', value: [] })).toEqual([])
    expect(() => parsePtax({ value: [{ cotacaoCompra: '5.2', cotacaoVenda: 5.2, dataHoraCotacao: 'ontem' }] })).toThrow('PTAX: linha fora do formato')
    expect(() => parsePtax({ value: [{ cotacaoCompra: 0, cotacaoVenda: 5.2, dataHoraCotacao: '2026-09-22 13:03:30.1' }] })).toThrow('PTAX: linha fora do formato')
    expect(() => parsePtax({ d: [] })).toThrow('PTAX: resposta sem a lista "value"')
  })

  test('the note says why the latest PTAX is not of the day asked', () => {
    expect(ptaxNota('2026-01-28', Date.parse('2026-01-29T15:30:00Z'))).toBe('29/01/2026: a PTAX do dia ainda não foi publicada; sai por volta das 13h; vale a do último dia útil com boletim, 28/01/2026 (quarta-feira)')
    expect(ptaxNota('2026-01-30', Date.parse('2026-01-31T15:00:00Z'))).toBe('31/01/2026: sábado, sem PTAX; vale a do último dia útil com boletim, 30/01/2026 (sexta-feira)')
    // 20/11 (Consciência Negra) is a national holiday since 2024: no bulletin all day.
    expect(ptaxNota('2026-11-19', Date.parse('2026-11-20T20:00:00Z'))).toBe('20/11/2026: sem PTAX publicada no dia (feriado ou boletim atrasado); vale a do último dia útil com boletim, 19/11/2026 (quinta-feira)')
    expect(ptaxNota('2026-11-20', Date.parse('2026-11-20T20:00:00Z'))).toBeNull()
    // 23:30 in Brasília is already the next day in UTC: "today" is Brasília's.
    expect(ptaxNota('2026-01-28', Date.parse('2026-01-29T02:30:00Z'))).toBeNull()
  })
})

describe('Focus', () => {
  test('the latest survey day of each indicator and year; breakdown rows and other indicators ignored', () => {
    const body = {
      value: [
        { Indicador: 'IPCA', IndicadorDetalhe: null, Data: '2026-01-23', DataReferencia: '2026', Mediana: 4.0, baseCalculo: 0 },
        { Indicador: 'IPCA', IndicadorDetalhe: null, Data: '2026-01-16', DataReferencia: '2026', Mediana: 4.02, baseCalculo: 0 },
        { Indicador: 'Balança comercial', IndicadorDetalhe: 'Saldo', Data: '2026-01-23', DataReferencia: '2026', Mediana: 70.0, baseCalculo: 0 },
        { Indicador: 'Câmbio', IndicadorDetalhe: null, Data: '2026-01-23', DataReferencia: '2027', Mediana: 5.51, baseCalculo: 0 },
        { Indicador: 'Câmbio', IndicadorDetalhe: null, Data: '2026-01-23', DataReferencia: '2027', Mediana: 5.6, baseCalculo: 1 },
      ],
    }
    expect(parseFocus(body)).toEqual([
      { indicador: 'Câmbio', ano: '2027', mediana: 5.51, data: '2026-01-23' },
      { indicador: 'IPCA', ano: '2026', mediana: 4, data: '2026-01-23' },
    ])
    expect(parseFocus(json('focus-anuais.json'))).toHaveLength(8)
  })

  test('nothing usable is an error', () => {
    expect(() => parseFocus({ value: [] })).toThrow('Focus: nenhuma mediana de IPCA, Selic, PIB Total ou Câmbio na resposta')
    expect(() => parseFocus({ value: [{ Indicador: 'IPCA', Data: '23/01/2026', DataReferencia: '2026', Mediana: 4, baseCalculo: 0 }] })).toThrow('Focus: linha fora do formato')
  })
})

describe('exchange tickers', () => {
  test('Mercado Bitcoin v4: both pairs from one answer, prices as strings, date in seconds', () => {
    expect(parseMercadoBitcoin(json('mercadobitcoin-tickers.json'))).toEqual([
      { par: 'btc_brl', fonte: 'Mercado Bitcoin', preco: 458120, compra: 458010, venda: 458120, horario: '2026-01-29T15:29:53.000Z' },
      { par: 'usdt_brl', fonte: 'Mercado Bitcoin', preco: 5.215, compra: 5.2141, venda: 5.215, horario: '2026-01-29T15:29:53.000Z' },
    ])
    expect(() => parseMercadoBitcoin([])).toThrow('Mercado Bitcoin: nenhum dos pares BTC-BRL, USDT-BRL na resposta')
    expect(() => parseMercadoBitcoin([{ pair: 'BTC-BRL', last: 'x' }])).toThrow('Mercado Bitcoin: preço fora do formato')
  })

  test('Foxbit v3: last trade and best bid/ask; the market must be the one asked', () => {
    expect(parseFoxbit(json('foxbit-usdtbrl.json'), 'usdt_brl')).toEqual({ par: 'usdt_brl', fonte: 'Foxbit', preco: 5.219, compra: 5.218, venda: 5.2195, horario: '2026-01-29T15:29:12.402Z' })
    expect(() => parseFoxbit(json('foxbit-usdtbrl.json'), 'btc_brl')).toThrow('Foxbit: mercado btcbrl ausente da resposta')
  })

  test('NovaDAX: code A10000 and data; any other code is the error it names', () => {
    expect(parseNovadax(json('novadax-btcbrl.json'), 'btc_brl')).toEqual({ par: 'btc_brl', fonte: 'NovaDAX', preco: 457950.62, compra: 457801.33, venda: 458010.52, horario: '2026-01-29T15:29:49.214Z' })
    expect(() => parseNovadax({ code: 'A30004', data: null, message: 'Symbol not found' }, 'btc_brl')).toThrow('NovaDAX: resposta de erro (A30004 Symbol not found)')
  })

  test('Coinbase spot and Kraken ticker (its error list is the message)', () => {
    expect(parseCoinbase(json('coinbase-btc-usd.json'))).toEqual({ par: 'btc_usd', fonte: 'Coinbase', preco: 87912.45, compra: null, venda: null, horario: null })
    expect(parseKraken(json('kraken-xbtusd.json'))).toEqual({ par: 'btc_usd', fonte: 'Kraken', preco: 87918.8, compra: 87918.7, venda: 87918.8, horario: null })
    expect(() => parseKraken({ error: ['EQuery:Unknown asset pair'] })).toThrow('Kraken: EQuery:Unknown asset pair')
    expect(() => parseCoinbase({ data: { amount: '1', base: 'ETH', currency: 'USD' } })).toThrow('Coinbase: resposta sem o preço BTC-USD')
  })

  test('median of odd and even counts', () => {
    expect(median([458391.27, 458120, 457950.62])).toBe(458120)
    expect(median([87912.45, 87918.8])).toBe(87915.625)
  })
})
