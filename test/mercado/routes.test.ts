// The markets routes over the bundled sample (installed as `make run` does), with every upstream
// down, slow (30 s), 5xx or garbage: exact values, the `fonte` of each source with its true age,
// 200 with the last copy (the sample: amostra), never a 5xx, never a wait past the bound; nothing to
// answer with at all: 503, never charged. Bad input: 400.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import * as service from '../../src/datasets/mercado/service'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { sampleDataDir, startUpstreams } from './helpers'

const up = startUpstreams()
const dataDir = await sampleDataDir()
// Upstreams down by default: a request's refresh attempt fails at once; the sample is what is served.
const down = () => {
  for (const s of up.all) {
    s.fault = { kind: 'none' }
    s.stop()
  }
}
down()
const { app } = await testApp({ dataDir })
afterAll(async () => {
  await app.close()
  up.close()
})
beforeEach(down)

const SAMPLE_TIME = '2026-01-29T15:30:00.000Z'

describe('GET /v1/mercado/noticias', () => {
  test('the three sampled headlines, newest first, classified, with the feed fonte of the recording time', async () => {
    const r = await get(app, '/v1/mercado/noticias')
    expect(r.status).toBe(200)
    expect(r.body.total).toBe(3)
    expect(r.body.por_pagina).toBe(20)
    expect(r.body.noticias.map((n: any) => [n.veiculo, n.titulo, n.tema, n.sentimento, n.relevancia, n.classificador])).toEqual([
      ['g1', 'Copom mantém taxa básica de juros em 15% ao ano, maior nível em quase 20 anos', 'macro', 'neutro', 8, 'lexico'],
      ['Poder360', 'Bolsa opera a 184 mil às vésperas de Selic; dólar cai até R$ 5,17', 'macro', 'positivo', 7, 'lexico'],
      ['Exame', 'Juros no Brasil e nos EUA e balanços das big techs: o que move os mercados', 'macro', 'neutro', 3, 'lexico'],
    ])
    expect(r.body.veiculos).toHaveLength(9)
    expect(r.body.fonte).toMatchObject({ base: 'feeds RSS e Atom de veículos brasileiros (MERCADO_NOTICIAS_FONTES)', consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 15, cache: true, status: 'amostra' })
    expect(r.body.fonte.defasagem_segundos).toBeGreaterThan(0)
  })

  test('filters: tema, sentimento, relevancia_min, por_pagina (total counts before the cut)', async () => {
    const titles = async (q: string) => (await get(app, `/v1/mercado/noticias?${q}`)).body
    expect((await titles('tema=macro&sentimento=positivo')).noticias.map((n: any) => n.veiculo)).toEqual(['Poder360'])
    expect((await titles('relevancia_min=7')).noticias.map((n: any) => n.veiculo)).toEqual(['g1', 'Poder360'])
    expect((await titles('relevancia_min=0&por_pagina=1')).noticias.map((n: any) => n.veiculo)).toEqual(['g1'])
    expect((await titles('por_pagina=1')).total).toBe(3)
    expect(await titles('tema=cripto')).toMatchObject({ total: 0, noticias: [] })
  })

  test('bad input is a 400 that says what is allowed', async () => {
    const cases: [string, string, string][] = [
      ['tema=bolsa', 'parametro_invalido', "parâmetro de consulta 'tema': deve ser um destes valores: cripto, macro, cambio, regulacao, empresas"],
      ['sentimento=bom', 'parametro_invalido', "parâmetro de consulta 'sentimento': deve ser um destes valores: positivo, negativo, neutro"],
      ['relevancia_min=11', 'parametro_invalido', "parâmetro de consulta 'relevancia_min': deve ser um número inteiro de 0 a 10"],
      ['relevancia_min=-1', 'parametro_invalido', "parâmetro de consulta 'relevancia_min': deve ser um número inteiro de 0 a 10"],
      ['por_pagina=51', 'parametro_invalido', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
      ['por_pagina=0', 'parametro_invalido', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
      ['pagina=2', 'parametro_desconhecido', "parâmetro de consulta 'pagina' não existe nesta rota; aceitos: tema, sentimento, relevancia_min, por_pagina"],
    ]
    for (const [q, codigo, mensagem] of cases) {
      const r = await get(app, `/v1/mercado/noticias?${q}`)
      expect([q, r.status, r.body]).toEqual([q, 400, { erro: { codigo, mensagem } }])
    }
    expect((await get(app, '/v1/mercado/indicadores?x=1')).body.erro.codigo).toBe('parametro_desconhecido')
  })
})

describe('GET /v1/mercado/indicadores', () => {
  test('every indicator with value, unit, reference and origin; the PTAX of the last business day with the note', async () => {
    const r = await get(app, '/v1/mercado/indicadores')
    expect(r.status).toBe(200)
    const i = r.body.indicadores
    expect(i.selic_meta).toEqual({ descricao: 'Meta da taxa Selic definida pelo Copom', valor: 15, unidade: '% a.a.', referencia: '2026-01-29', data_pesquisa: null, origem: 'BCB/SGS série 432', nota: null })
    expect(i.ipca_mensal).toMatchObject({ valor: 0.33, unidade: '%', referencia: '2025-12', origem: 'BCB/SGS série 433 (IBGE)' })
    expect(i.ipca_12_meses).toMatchObject({ valor: 4.26, unidade: '%', referencia: '2025-12', origem: 'BCB/SGS série 13522 (IBGE)' })
    expect(i.ptax_compra).toMatchObject({ valor: 5.1832, unidade: 'R$/US$', referencia: '2026-01-28' })
    expect(i.ptax_venda).toEqual({
      descricao: 'PTAX de venda do dólar (boletim de fechamento)',
      valor: 5.1838,
      unidade: 'R$/US$',
      referencia: '2026-01-28',
      data_pesquisa: null,
      origem: 'BCB/PTAX (Olinda, CotacaoDolarPeriodo)',
      nota: '29/01/2026: a PTAX do dia ainda não foi publicada; sai por volta das 13h; vale a do último dia útil com boletim, 28/01/2026 (quarta-feira)',
    })
    expect(Object.fromEntries(Object.entries(i).filter(([k]) => k.startsWith('focus_')).map(([k, v]: [string, any]) => [k, [v.valor, v.unidade, v.referencia, v.data_pesquisa]]))).toEqual({
      focus_ipca_ano_atual: [4, '%', '2026', '2026-01-23'],
      focus_ipca_ano_seguinte: [3.8, '%', '2027', '2026-01-23'],
      focus_selic_ano_atual: [12.25, '% a.a.', '2026', '2026-01-23'],
      focus_selic_ano_seguinte: [10.5, '% a.a.', '2027', '2026-01-23'],
      focus_pib_ano_atual: [1.8, '%', '2026', '2026-01-23'],
      focus_pib_ano_seguinte: [1.8, '%', '2027', '2026-01-23'],
      focus_cambio_ano_atual: [5.5, 'R$/US$', '2026', '2026-01-23'],
      focus_cambio_ano_seguinte: [5.51, 'R$/US$', '2027', '2026-01-23'],
    })
    expect(i.focus_ipca_ano_atual.descricao).toBe('Focus: mediana das expectativas para o IPCA de 2026')
    expect(r.body.indisponiveis).toEqual([])
    for (const [nome, minutos] of [['sgs', 1440], ['ptax', 60], ['focus', 10080]] as const)
      expect(r.body.fontes[nome]).toMatchObject({ consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: minutos, cache: true, status: 'amostra' })
  })
})

describe('GET /v1/mercado/cambio', () => {
  test('PTAX with the week, each quote and the medians, and the premiums over PTAX', async () => {
    const r = await get(app, '/v1/mercado/cambio')
    expect(r.status).toBe(200)
    expect(r.body.ptax).toMatchObject({ compra: 5.1832, venda: 5.1838, data: '2026-01-28', boletim: '2026-01-28 13:09:33.106', variacao_pct: -2.434, variacao_desde: '2026-01-22' })
    expect(r.body.ptax.serie).toHaveLength(5)
    expect(r.body.btc_brl.mediana).toBe(458120)
    expect(r.body.btc_brl.cotacoes.map((c: any) => c.fonte)).toEqual(['Mercado Bitcoin', 'Foxbit', 'NovaDAX'])
    expect(r.body.usdt_brl.mediana).toBe(5.215)
    expect(r.body.btc_usd).toEqual({
      mediana: 87915.625,
      cotacoes: [
        { fonte: 'Coinbase', preco: 87912.45, compra: null, venda: null, horario: null },
        { fonte: 'Kraken', preco: 87918.8, compra: 87918.7, venda: 87918.8, horario: null },
      ],
    })
    // (5.215 / 5.1838 - 1) x 100 and (458120 / (87915.625 x 5.1838) - 1) x 100
    expect(r.body.premios).toEqual({ usdt_sobre_ptax_pct: 0.602, btc_sobre_paridade_pct: 0.523, btc_paridade_brl: 455737.02 })
    expect(r.body.indisponiveis).toEqual([])
    expect(r.body.fontes.cripto).toMatchObject({ base: 'Mercado Bitcoin, Foxbit e NovaDAX (BRL); Coinbase e Kraken (USD)', consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 0.25, status: 'amostra' })
  })
})

describe('GET /v1/mercado/pacote and /v1/mercado/amostra', () => {
  test('the pack holds the three answers keyed by name; the sample is free and says so', async () => {
    const pack = await get(app, '/v1/mercado/pacote')
    expect(pack.status).toBe(200)
    expect(Object.keys(pack.body)).toEqual(['cambio', 'indicadores', 'noticias', 'indisponiveis'])
    expect(pack.body.indisponiveis).toEqual([])
    expect(pack.body.cambio.premios.usdt_sobre_ptax_pct).toBe(0.602)
    expect(pack.body.indicadores.indicadores.selic_meta.valor).toBe(15)
    expect(pack.body.noticias.por_pagina).toBe(10)
    const sample = await get(app, '/v1/mercado/amostra')
    expect(sample.status).toBe(200)
    expect(sample.body.amostra).toBe(true)
    expect(sample.body.noticias).toHaveLength(3)
    expect(sample.body.indicadores.ptax_venda.valor).toBe(5.1838)
    expect(sample.body.aviso).toContain('(notícias consultadas em 29/01/2026)')
    expect(Object.keys(sample.body.fontes)).toEqual(['noticias', 'sgs', 'ptax', 'focus'])
  })

  test('the service functions other datasets call in-process give the route bodies', async () => {
    expect(JSON.parse(JSON.stringify(await service.indicadores(app.ctx)))).toEqual((await get(app, '/v1/mercado/indicadores')).body)
    const c = await service.cambio(app.ctx)
    expect(c.premios.usdt_sobre_ptax_pct).toBe(0.602)
    expect(c.ptax?.variacao_pct).toBe(-2.434)
  })
})

describe('upstreams slow (30 s), 5xx or garbage: 200 with the last copy, never a 5xx, never a wait past the bound', () => {
  for (const fault of [{ kind: 'slow', delayMs: 30_000 }, { kind: 'status', status: 503 }, { kind: 'garbage' }] as const) {
    test(fault.kind, async () => {
      // A fresh sample: its last attempt succeeded, so a price request does join the refresh it starts (bounded).
      const fresh = await testApp({ dataDir: await sampleDataDir() })
      for (const s of up.all) {
        s.start()
        s.fault = fault
      }
      const asked = up.server('MERCADO_BITCOIN_URL').requests.length
      try {
        // If any of these waited on the upstream, the 30 s fault would exceed the test's 25 s limit.
        for (const path of ['/v1/mercado/cambio', '/v1/mercado/noticias', '/v1/mercado/indicadores', '/v1/mercado/pacote', '/v1/mercado/amostra']) {
          const r = await get(fresh.app, path)
          expect([path, r.status]).toEqual([path, 200])
        }
        // The refresh was really tried (the attempt reaches the stand-in a moment after the answer left).
        for (let i = 0; i < 100 && up.server('MERCADO_BITCOIN_URL').requests.length === asked; i++) await Bun.sleep(50)
        expect(up.server('MERCADO_BITCOIN_URL').requests.length).toBeGreaterThan(asked)
        const c = await get(fresh.app, '/v1/mercado/cambio')
        expect(c.body.btc_brl.mediana).toBe(458120)
        expect(c.body.fontes.cripto).toMatchObject({ consultado_em: SAMPLE_TIME, status: 'amostra' })
      } finally {
        await fresh.app.close()
        down()
      }
      // Under the 30 s of the slow fault: a request that waited on the upstream would fail the test.
    }, 25_000)
  }
})

describe('no copy ever fetched and the upstreams down', () => {
  test('a paid answer with no data at all is a 503 dados_indisponiveis (never charged), the pack too; the free sample still answers', async () => {
    const empty = await testApp({ dataDir: tempDir('mercado-vazio-') })
    try {
      for (const [path, motivo] of [
        ['/v1/mercado/indicadores', 'nenhum indicador tem valor (nenhuma cópia do SGS, da PTAX nem do Focus)'],
        ['/v1/mercado/cambio', 'nenhuma cotação (PTAX, BTC/BRL, USDT/BRL, BTC/USD) tem valor'],
        ['/v1/mercado/noticias', 'nenhuma cópia de feeds RSS e Atom de veículos brasileiros (MERCADO_NOTICIAS_FONTES) foi obtida ainda'],
        ['/v1/mercado/pacote', 'as três partes (câmbio, indicadores, notícias) estão sem dados'],
      ]) {
        const r = await get(empty.app, path!)
        expect([path, r.status, r.body.erro]).toEqual([path, 503, { codigo: 'dados_indisponiveis', mensagem: `Esta resposta não teria nenhum dado: ${motivo}. Nada foi cobrado; tente de novo em alguns minutos.` }])
      }
      // The parts, read in-process, still say why each value is missing.
      const i = await service.indicadores(empty.app.ctx)
      expect(i.indisponiveis[0]).toEqual({ item: 'selic_meta', motivo: 'nenhuma cópia de BCB/SGS obtida ainda (a fonte não respondeu)' })
      expect(i.fontes.sgs).toMatchObject({ status: 'fonte_indisponivel', consultado_em: null, defasagem_segundos: null, cache: false })
      expect(await service.pacote(empty.app.ctx)).toEqual({ cambio: null, indicadores: null, noticias: null, indisponiveis: ['cambio', 'indicadores', 'noticias'] })
      const a = await get(empty.app, '/v1/mercado/amostra')
      expect([a.status, a.body.noticias]).toEqual([200, []])
    } finally {
      await empty.app.close()
    }
  })
})
