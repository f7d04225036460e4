// Each markets feed read through local replays of its upstreams' real-format recordings (exact
// values), and through their faults: an outlet, a series or an exchange down keeps the rest fresh
// and its own last data; everything down, slow, 5xx or garbage keeps the last good copy.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { MERCADO_FEEDS } from '../../src/datasets/mercado'
import type { FocusDados, PtaxDados, SgsDados } from '../../src/datasets/mercado/bcb'
import type { CriptoDados } from '../../src/datasets/mercado/cripto'
import type { NoticiasDados } from '../../src/datasets/mercado/noticias/feed'
import { tempDir } from '../temp'
import { GRAVADO_EM, startUpstreams } from './helpers'

const up = startUpstreams()
afterAll(() => up.close())
beforeEach(() => {
  for (const s of up.all) {
    s.fault = { kind: 'none' }
    s.start()
  }
})

function runner(clock = { t: GRAVADO_EM }) {
  return new FeedRunner(MERCADO_FEEDS, { dataDir: tempDir('mercado-feeds-'), log: createLogger('silent'), now: () => clock.t })
}

describe('the recorded upstreams, read by the feeds (exact values)', () => {
  test('news: nine outlets in four formats and two charsets; three headlines, newest first, classified; the 8-day-old one dropped', async () => {
    const d = (await runner().refresh('mercado-noticias')).dados as NoticiasDados
    expect(d.veiculos.map((v) => [v.id, v.status, v.itens, v.formato, v.charset])).toEqual([
      ['infomoney', 'ok', 0, 'rss 2.0', 'utf-8'],
      ['folha-mercado', 'ok', 0, 'rss 0.9', 'iso-8859-1'],
      ['g1-economia', 'ok', 1, 'rss 2.0', 'utf-8'],
      ['exame', 'ok', 1, 'rss 2.0', 'utf-8'],
      ['agencia-brasil', 'ok', 0, 'rss 2.0', 'utf-8'],
      ['poder360', 'ok', 1, 'rss 2.0', 'utf-8'],
      ['money-times', 'ok', 0, 'rss 2.0', 'utf-8'],
      ['cointelegraph', 'ok', 0, 'rss 2.0', 'utf-8'],
      ['portal-do-bitcoin', 'ok', 0, 'atom 1.0', 'utf-8'],
    ])
    expect(d.itens.map((n) => [n.veiculo, n.publicado_em, n.tema, n.sentimento, n.relevancia, n.classificador])).toEqual([
      ['g1', '2026-01-28T21:43:27.000Z', 'macro', 'neutro', 8, 'lexico'],
      ['Poder360', '2026-01-28T14:37:00.000Z', 'macro', 'positivo', 7, 'lexico'],
      ['Exame', '2026-01-28T10:00:00.000Z', 'macro', 'neutro', 3, 'lexico'],
    ])
    expect(d.itens[0]).toMatchObject({
      id: 'b8b799e79024528c',
      titulo: 'Copom mantém taxa básica de juros em 15% ao ano, maior nível em quase 20 anos',
      resumo: 'O Comitê de Política Monetária (Copom) do Banco Central decidiu nesta quarta-feira (28) manter a taxa básica de juros da economia, a Selic, estável em 15% ao ano.',
      link: 'https://g1.globo.com/economia/noticia/2026/01/28/copom-mantem-taxa-basica-de-juros-em-15percent-ao-ano-maior-nivel-em-quase-20-anos.ghtml',
      outras_fontes: [],
    })
    expect(d.classificacao).toEqual({ lexico: 'lexico-1', llm_modelo: null, llm_erros: [] })
  })

  test('SGS: the windows asked (dd/mm/aaaa, a daily series with its window), string values, last and previous point', async () => {
    const d = (await runner().refresh('mercado-sgs')).dados as SgsDados
    expect(d).toEqual({
      series: {
        selic_meta: { codigo: 432, data: '2026-01-29', valor: 15, anterior: { data: '2026-01-28', valor: 15 }, obtido_em: '2026-01-29T15:30:00.000Z' },
        ipca_mensal: { codigo: 433, data: '2025-12-01', valor: 0.33, anterior: { data: '2025-11-01', valor: 0.18 }, obtido_em: '2026-01-29T15:30:00.000Z' },
        ipca_12_meses: { codigo: 13522, data: '2025-12-01', valor: 4.26, anterior: { data: '2025-11-01', valor: 4.46 }, obtido_em: '2026-01-29T15:30:00.000Z' },
      },
      erros: {},
    })
    const asked = up.server('BCB_SGS_URL').requests.map((r) => r.path)
    expect(asked).toContain('/bcdata.sgs.432/dados?formato=json&dataInicial=09%2F01%2F2026&dataFinal=29%2F01%2F2026')
  })

  test("PTAX: the OData dates in quotes; at 12:30 the day's PTAX is not out yet, so the last business day's with the note", async () => {
    const d = (await runner().refresh('mercado-ptax')).dados as PtaxDados
    expect(d.serie.at(-1)).toEqual({ data: '2026-01-28', compra: 5.1832, venda: 5.1838, boletim: '2026-01-28 13:09:33.106' })
    expect(d.consultado_para).toBe('2026-01-29')
    expect(d.nota).toBe('29/01/2026: a PTAX do dia ainda não foi publicada; sai por volta das 13h; vale a do último dia útil com boletim, 28/01/2026 (quarta-feira)')
    expect(up.server('BCB_OLINDA_URL').requests.at(-1)!.path).toBe(
      "/PTAX/versao/v1/odata/CotacaoDolarPeriodo(dataInicial=@dataInicial,dataFinalCotacao=@dataFinalCotacao)?@dataInicial=%2701-22-2026%27&@dataFinalCotacao=%2701-29-2026%27&$top=100&$format=json&$select=cotacaoCompra,cotacaoVenda,dataHoraCotacao",
    )
  })

  test('Focus: this year and next, the latest survey day', async () => {
    const d = (await runner().refresh('mercado-focus')).dados as FocusDados
    expect(d.ano_base).toBe(2026)
    expect(d.medianas.map((m) => `${m.indicador} ${m.ano} ${m.mediana} ${m.data}`)).toEqual([
      'Câmbio 2026 5.5 2026-01-23',
      'Câmbio 2027 5.51 2026-01-23',
      'IPCA 2026 4 2026-01-23',
      'IPCA 2027 3.8 2026-01-23',
      'PIB Total 2026 1.8 2026-01-23',
      'PIB Total 2027 1.8 2026-01-23',
      'Selic 2026 12.25 2026-01-23',
      'Selic 2027 10.5 2026-01-23',
    ])
    const asked = decodeURIComponent(up.server('BCB_OLINDA_URL').requests.at(-1)!.path)
    expect(asked).toContain("$filter=(Indicador eq 'IPCA' or Indicador eq 'Selic' or Indicador eq 'PIB Total' or Indicador eq 'Câmbio') and baseCalculo eq 0 and (DataReferencia eq '2026' or DataReferencia eq '2027')")
  })

  test('crypto: three Brazilian exchanges and two global quotes; medians', async () => {
    const d = (await runner().refresh('mercado-cripto')).dados as CriptoDados
    expect(d.falhas).toEqual([])
    expect(d.pares.btc_brl!.mediana).toBe(458120)
    expect(d.pares.usdt_brl!.mediana).toBe(5.215)
    expect(d.pares.btc_usd!.mediana).toBe(87915.625)
    expect(d.pares.usdt_brl!.cotacoes.map((c) => [c.fonte, c.preco])).toEqual([
      ['Mercado Bitcoin', 5.215],
      ['Foxbit', 5.219],
      ['NovaDAX', 5.212],
    ])
  })
})

describe('faults', () => {
  test('one outlet failing (5xx) keeps its previous items, marked; an HTML page where the feed was is a failure too', async () => {
    const clock = { t: GRAVADO_EM }
    const r = runner(clock)
    await r.refresh('mercado-noticias')
    up.server('NOTICIAS_G1_URL').fault = { kind: 'status', status: 503 }
    up.server('NOTICIAS_EXAME_URL').on('/', { headers: { 'content-type': 'text/html' }, body: '<!DOCTYPE html><html><body>manutenção</body></html>' })
    clock.t += 20 * 60_000
    const d = (await r.refresh('mercado-noticias')).dados as NoticiasDados
    const g1 = d.veiculos.find((v) => v.id === 'g1-economia')!
    expect(g1).toMatchObject({ status: 'falhou', itens: 1, atualizado_em: '2026-01-29T15:30:00.000Z' })
    expect(g1.erro).toContain('HTTP 503')
    expect(d.veiculos.find((v) => v.id === 'exame')!.erro).toBe('Exame: a resposta é uma página HTML, não um feed')
    expect(d.itens.map((n) => n.veiculo)).toEqual(['g1', 'Poder360', 'Exame'])
    up.server('NOTICIAS_EXAME_URL').routes.shift()
  })

  test('every outlet down or garbage: the refresh fails and the last good copy stays', async () => {
    const r = runner()
    const good = await r.refresh('mercado-noticias')
    for (const s of up.all) s.fault = { kind: 'garbage' }
    await expect(r.refresh('mercado-noticias')).rejects.toThrow('nenhum feed respondeu')
    expect(r.copy('mercado-noticias')!.dados).toEqual(good.dados)
    for (const s of up.all) s.stop()
    await expect(r.refresh('mercado-noticias')).rejects.toThrow('nenhum feed respondeu')
    expect(r.copy('mercado-noticias')!.consultado_em).toBe(good.consultado_em)
  })

  test('SGS: a series answering 404 {erro} keeps its last value, with the error; the others refresh', async () => {
    const clock = { t: GRAVADO_EM }
    const r = runner(clock)
    await r.refresh('mercado-sgs')
    up.server('BCB_SGS_URL').on('/bcdata.sgs.433/dados', { status: 404, headers: { 'content-type': 'application/json' }, body: '{"erro":{"statusCode":404,"detail":"Value(s) not found"}}' })
    clock.t += 60_000 // the same day: the recordings answer that day's windows
    const d = (await r.refresh('mercado-sgs')).dados as SgsDados
    expect(d.erros).toEqual({ ipca_mensal: 'SGS 433 (HTTP 404): 404 Value(s) not found' })
    expect(d.series.ipca_mensal).toMatchObject({ valor: 0.33, obtido_em: '2026-01-29T15:30:00.000Z' })
    up.server('BCB_SGS_URL').routes.shift()
  })

  test('PTAX: "value": [] over the whole window is a failure (the last copy stays), not an empty rate', async () => {
    const r = runner()
    const good = await r.refresh('mercado-ptax')
    up.server('BCB_OLINDA_URL').on('/PTAX/versao/v1/odata/CotacaoDolarPeriodo(dataInicial=@dataInicial,dataFinalCotacao=@dataFinalCotacao)', { headers: { 'content-type': 'application/json' }, body: '{"@odata.context":"x","value":[]}' })
    await expect(r.refresh('mercado-ptax')).rejects.toThrow('PTAX: nenhuma cotação de 22/01/2026 a 29/01/2026 (a Olinda respondeu "value": [])')
    expect(r.copy('mercado-ptax')!.dados).toEqual(good.dados)
    up.server('BCB_OLINDA_URL').routes.shift()
  })

  test('crypto: one exchange down leaves the median of the others and names it; every Brazilian exchange down is a failure', async () => {
    const r = runner()
    up.server('MERCADO_BITCOIN_URL').fault = { kind: 'status', status: 502 }
    const d = (await r.refresh('mercado-cripto')).dados as CriptoDados
    expect(d.falhas.map((f) => f.fonte)).toEqual(['Mercado Bitcoin'])
    expect(d.pares.btc_brl!.mediana).toBe((458391.27 + 457950.62) / 2)
    up.server('FOXBIT_URL').fault = { kind: 'garbage' }
    up.server('NOVADAX_URL').stop()
    await expect(r.refresh('mercado-cripto')).rejects.toThrow('nenhuma corretora brasileira respondeu')
    expect(r.copy<CriptoDados>('mercado-cripto')!.dados!.pares.btc_brl!.mediana).toBe(d.pares.btc_brl!.mediana)
  })
})
