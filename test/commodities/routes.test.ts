// The commodities routes over the bundled samples (installed as `make run` does), with every
// upstream down, slow (30 s), 5xx or garbage: exact values, each part's `fonte` with its true age,
// 200 with the last copy (cache_servido), never a 5xx, never a wait on the upstream.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { sampleDataDir, SAMPLE_TIME, startUpstreams } from './helpers'

const up = startUpstreams()
const dataDir = await sampleDataDir()
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

const PATHS = ['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing', 'pacote', 'amostra']

describe('GET /v1/commodities/clima', () => {
  test('nine belts from the data file, observed and forecast rain, dry spell, 72-hour minimum, frost flag; the copy of the recording time', async () => {
    const r = await get(app, '/v1/commodities/clima')
    expect(r.status).toBe(200)
    expect(r.body.referencia).toBe('2026-01-29')
    expect(r.body.cinturoes.map((c: any) => c.id)).toEqual(['mt-norte', 'mt-centro', 'pr-oeste', 'rs-noroeste', 'go-sudoeste', 'mg-sul', 'mg-cerrado', 'sp-cana', 'ba-oeste'])
    const rs = r.body.cinturoes[3]
    expect(rs).toMatchObject({
      uf: 'RS',
      culturas: ['soja'],
      latitude: -28.6388,
      grade: { latitude: -28.65, longitude: -53.65, elevacao_m: 452 },
      chuva_observada_7d_mm: 0.9,
      chuva_observada_30d_mm: 104.4,
      dias_observados_30d: 30,
      chuva_prevista_7d_mm: 4.2,
      dias_secos_consecutivos: 16,
      dias_secos_no_limite: false,
      ultima_chuva: '2026-01-12',
      temp_min_72h_c: 16.7,
      temp_min_72h_em: '2026-02-01T03:00',
      geada: { alerta: false, limiar_c: 2, culturas_em_risco: [] },
    })
    expect(r.body.cinturoes[7]).toMatchObject({ id: 'sp-cana', chuva_observada_7d_mm: 56.2, chuva_observada_30d_mm: 232.5, chuva_prevista_7d_mm: 138.2, dias_secos_consecutivos: 2, ultima_chuva: '2026-01-26', temp_min_72h_c: 18.5 })
    expect(r.body.cinturoes[5].geada.limiar_c).toBe(3)
    expect(r.body.criterios).toEqual({ dia_seco_mm: 1, janela_observada_dias: 90, geada_limiar_c: { soja: 2, milho_safrinha: 2, cafe: 3, cana: 2, algodao: 2 } })
    expect(r.body.avisos).toEqual([])
    expect(r.body.fonte).toMatchObject({ base: 'Open-Meteo (forecast e archive/ERA5)', consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 720, cache: true, status: 'amostra' })
  })
})

describe('GET /v1/commodities/fogo', () => {
  test('7-day series per biome from the reference satellite, leading states, mean days without rain', async () => {
    const r = await get(app, '/v1/commodities/fogo')
    expect(r.status).toBe(200)
    expect(r.body.satelite_referencia).toBe('AQUA_M-T')
    expect(r.body.periodo).toEqual({ inicio: '2026-01-22', fim: '2026-01-28' })
    expect(r.body.biomas[0]).toEqual({
      bioma: 'Amazônia',
      focos_7d: 42,
      frp_medio_7d_mw: 64.4,
      serie: [
        { data: '2026-01-22', focos: 7, frp_medio_mw: 55 },
        { data: '2026-01-23', focos: 4, frp_medio_mw: 91.8 },
        { data: '2026-01-24', focos: 7, frp_medio_mw: 58.4 },
        { data: '2026-01-25', focos: 5, frp_medio_mw: 75 },
        { data: '2026-01-26', focos: 7, frp_medio_mw: 44.9 },
        { data: '2026-01-27', focos: 7, frp_medio_mw: 65.1 },
        { data: '2026-01-28', focos: 5, frp_medio_mw: 79.6 },
      ],
    })
    expect(r.body.estados[0]).toEqual({ estado: 'RORAIMA', uf: 'RR', focos_7d: 22 })
    expect([r.body.focos_referencia_7d, r.body.focos_todos_satelites_7d, r.body.dias_sem_chuva_medio]).toEqual([69, 353, 12])
    expect(r.body.dias).toBeUndefined()
    expect(r.body.fonte).toMatchObject({ base: 'INPE/Queimadas (focos diários, satélite de referência AQUA_M-T)', consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 1440, status: 'amostra' })
  })
})

describe('GET /v1/commodities/hidrologia', () => {
  test('EAR per subsystem with the 7-day delta and the SIN computed from MWmês', async () => {
    const r = await get(app, '/v1/commodities/hidrologia')
    expect(r.status).toBe(200)
    expect(r.body.data).toBe('2026-01-28')
    expect(r.body.sin).toMatchObject({ ear_percentual: 60.17, ear_mwmes: 175731.6, ear_max_mwmes: 292068, delta_7d_pp: 1.89 })
    expect(r.body.subsistemas[0]).toEqual({ id: 'SE', nome: 'Sudeste/Centro-Oeste', ear_percentual: 58.44, ear_mwmes: 119571.4, ear_max_mwmes: 204615.2, delta_7d_pp: 2.35, ear_percentual_7d_antes: 56.09 })
    expect(r.body.fonte).toMatchObject({ base: 'ONS (EAR diário por subsistema)', consultado_em: SAMPLE_TIME, status: 'amostra' })
  })
})

describe('GET /v1/commodities/exportacoes', () => {
  test('13 months per group with the year-on-year change; the build with its files', async () => {
    const r = await get(app, '/v1/commodities/exportacoes')
    expect(r.status).toBe(200)
    expect(r.body.referencia).toBe('2025-12')
    expect(r.body.grupos.map((g: any) => g.id)).toEqual(['soja', 'farelo_soja', 'oleo_soja', 'milho', 'cafe_verde', 'acucar', 'carne_bovina', 'frango', 'suco_laranja', 'celulose', 'minerio_ferro', 'petroleo_bruto', 'algodao'])
    const soja = r.body.grupos[0]
    expect(soja.serie).toHaveLength(13)
    expect(soja.ultimo_mes).toEqual({ mes: '2025-12', fob_usd: 2069389135, kg_liquido: 5102019333, fob_usd_ano_anterior: 2010966912, kg_liquido_ano_anterior: 4979725110, variacao_fob_pct: 2.9, variacao_kg_pct: 2.5 })
    expect(r.body.grupos[4].ncm_prefixos).toEqual(['090111', '090112'])
    expect(r.body.fonte).toMatchObject({ base: 'MDIC/ComexStat (EXP_AAAA.csv por NCM)', referencia: '2025-12' })
    expect(r.body.fonte.arquivos.map((a: any) => [a.nome, a.linhas])).toEqual([['EXP_2025.csv', 404], ['EXP_2024.csv', 409], ['EXP_2023.csv', 410]])
    // With the year before read, every month of the window has its year-earlier month.
    for (const g of r.body.grupos) for (const m of g.serie) expect(m.variacao_kg_pct).not.toBeNull()
  })
})

/** The value at a field path like `cinturoes[3].dias_secos_consecutivos` of a body. */
function at(body: any, path: string): unknown {
  return path.split('.').reduce((o, part) => {
    const m = /^(\w+)\[(\d+)\]$/.exec(part)
    return m ? o?.[m[1]!]?.[Number(m[2])] : o?.[part]
  }, body)
}

describe('GET /v1/commodities/briefing', () => {
  test('English summary and one highlight per commodity with its direction, written by the template', async () => {
    const r = await get(app, '/v1/commodities/briefing')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ data: '2026-01-29', dados_de: SAMPLE_TIME, idioma: 'en', escrito_por: 'template', modelo: null, llm_erro: null })
    // As old as its newest input, on a daily cadence.
    expect(r.body.fonte).toMatchObject({ consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 1440, status: 'amostra' })
    expect(r.body.destaques.map((d: any) => [d.id, d.direcao, d.pontuacao])).toEqual([
      ['soybeans', 'flat', 0],
      ['corn', 'down', -1],
      ['coffee', 'down', -2],
      ['sugar', 'down', -2],
      ['cotton', 'down', -1],
      ['beef', 'down', -2],
      ['chicken', 'flat', 0],
      ['orange_juice', 'down', -1],
      ['pulp', 'flat', 0],
      ['iron_ore', 'down', -1],
      ['crude_oil', 'down', -1],
      ['electricity', 'down', -1],
    ])
    expect(r.body.destaques[0].texto).toBe(
      'Soybeans: 16 dry days in a row in Cruz Alta (RS) with only 4.2 mm forecast for the next 7 days; exports of 5,102.0 thousand tonnes worth US$ 2,069.4 million in December 2025 (+2.5% in volume year on year); the dollar fell 2.434% against the real since 22 Jan 2026 (PTAX 5.1838).',
    )
    expect(r.body.destaques[11].texto).toBe('Electricity (hydro reservoirs): stored energy in the national grid at 60.17% of capacity (+1.89 points in 7 days).')
    expect(r.body.resumo).toStartWith('Brazil commodity briefing for 29 Jan 2026: signals point up for none and down for corn, coffee, sugar, cotton, beef, orange juice, iron ore, crude oil, electricity (hydro reservoirs); the rest are flat.')
    expect(r.body.entradas).toEqual({
      clima: { consultado_em: SAMPLE_TIME, referencia: '2026-01-29' },
      fogo: { consultado_em: SAMPLE_TIME, referencia: '2026-01-28' },
      hidrologia: { consultado_em: SAMPLE_TIME, referencia: '2026-01-28' },
      exportacoes: { consultado_em: null, referencia: '2025-12' },
      mercado_ptax: { consultado_em: SAMPLE_TIME, referencia: '2026-01-28' },
    })
  })

  test('every evidence value is the value of the field it names, in the route it names', async () => {
    const b = (await get(app, '/v1/commodities/briefing')).body
    const bodies: Record<string, any> = {}
    for (const s of ['clima', 'fogo', 'exportacoes', 'hidrologia']) bodies[s] = (await get(app, `/v1/commodities/${s}`)).body
    bodies.mercado = (await get(app, '/v1/mercado/cambio')).body
    let n = 0
    for (const d of b.destaques)
      for (const e of d.evidencias) {
        expect([d.id, e.campo, at(bodies[e.sinal], e.campo)]).toEqual([d.id, e.campo, e.valor])
        n++
      }
    expect(n).toBeGreaterThan(30)
    // The score is the sum of the effects, the direction its sign.
    for (const d of b.destaques) {
      const sum = d.evidencias.reduce((a: number, e: any) => a + e.efeito, 0)
      expect([d.id, d.pontuacao, d.direcao]).toEqual([d.id, sum, sum > 0 ? 'up' : sum < 0 ? 'down' : 'flat'])
    }
  })
})

describe('GET /v1/commodities/pacote and /amostra', () => {
  test('the pack holds the five answers keyed by name, each with its fonte, and nothing unavailable', async () => {
    const r = await get(app, '/v1/commodities/pacote')
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing', 'indisponiveis'])
    expect(r.body.indisponiveis).toEqual([])
    for (const k of ['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing']) expect(r.body[k].fonte.base).toBeString()
    // The same body as the route (the age may have moved on by a second between the two calls, and the
    // refresh the pack started may have failed since: the data is the same copy).
    const alone = (await get(app, '/v1/commodities/clima')).body
    const moving = (f: any) => ({ ...f, defasagem_segundos: 0, tentado_em: null, ultimo_erro: null })
    expect({ ...r.body.clima, fonte: moving(r.body.clima.fonte) }).toEqual({ ...alone, fonte: moving(alone.fonte) })
  })

  test('the free sample: amostra true, two belts, the SIN, soybeans of the last month, fire by biome, the summary', async () => {
    const r = await get(app, '/v1/commodities/amostra')
    expect(r.status).toBe(200)
    expect(r.body.amostra).toBe(true)
    expect(r.body.clima.map((c: any) => c.id)).toEqual(['mt-norte', 'mt-centro'])
    expect(r.body.clima[0].previsao).toBeUndefined()
    expect(r.body.hidrologia_sin.ear_percentual).toBe(60.17)
    expect(r.body.exportacoes_soja).toMatchObject({ mes: '2025-12', variacao_kg_pct: 2.5 })
    expect(r.body.fogo_biomas[0]).toEqual({ bioma: 'Amazônia', focos_7d: 42 })
    expect(r.body.briefing_resumo).toStartWith('Brazil commodity briefing for 29 Jan 2026')
    expect(r.body.fontes.exportacoes.referencia).toBe('2025-12')
  })

  test('an unknown query parameter is a 400', async () => {
    const r = await get(app, '/v1/commodities/clima?cinturao=mt-norte')
    expect(r.status).toBe(400)
    expect(r.body.erro.codigo).toBe('parametro_desconhecido')
  })
})

describe('upstreams misbehaving', () => {
  const faults: [string, () => void][] = [
    ['down', () => {}],
    ['slow (30 s)', () => up.all.forEach((s) => (s.start(), (s.fault = { kind: 'slow', delayMs: 30_000 })))],
    ['HTTP 503', () => up.all.forEach((s) => (s.start(), (s.fault = { kind: 'status', status: 503 })))],
    ['garbage', () => up.all.forEach((s) => (s.start(), (s.fault = { kind: 'garbage' })))],
  ]
  for (const [name, apply] of faults)
    test(`${name}: every route answers 200 at once with the last copy (the sample: amostra)`, async () => {
      apply()
      for (let round = 0; round < 2; round++)
        for (const p of PATHS) {
          const r = await get(app, `/v1/commodities/${p}`)
          expect([p, r.status]).toEqual([p, 200])
          if (p === 'clima') expect([r.body.cinturoes.length, r.body.fonte.status]).toEqual([9, 'amostra'])
          if (p === 'pacote') expect(r.body.indisponiveis).toEqual([])
        }
    }, 10_000)

  test('garbage from the upstreams is recorded as the feed error; the copy stays', async () => {
    up.all.forEach((s) => (s.start(), (s.fault = { kind: 'garbage' })))
    await app.ctx.feeds.refresh('commodities-hidrologia').catch(() => {})
    const copy = app.ctx.feeds.copy<any>('commodities-hidrologia')!
    expect(copy.ultimo_erro).toContain('ONS EAR')
    expect(copy.consultado_em).toBe(SAMPLE_TIME)
    expect(copy.dados.sin.ear_percentual).toBe(60.17)
  })
})

describe('nothing fetched or built yet', () => {
  test('feeds with no copy: a paid route with nothing to answer is a 503 (never charged), exports too; the pack with every part missing as well; the free sample says what is missing', async () => {
    const { app: empty } = await testApp({ dataDir: tempDir('commodities-vazio-') })
    try {
      for (const p of ['clima', 'fogo', 'hidrologia', 'briefing']) {
        const c = await get(empty, `/v1/commodities/${p}`)
        expect([p, c.status, c.body.erro.codigo]).toEqual([p, 503, 'dados_indisponiveis'])
        expect(c.body.erro.mensagem).toStartWith('Esta resposta não teria nenhum dado: nenhuma cópia de ')
      }
      const e = await get(empty, '/v1/commodities/exportacoes')
      expect(e.status).toBe(503)
      expect(e.body.erro.codigo).toBe('dados_indisponiveis')
      expect(e.body.erro.mensagem).toContain("rode 'dadosbr ingest exportacoes'")
      const p = await get(empty, '/v1/commodities/pacote')
      expect(p.status).toBe(503)
      expect(p.body.erro).toEqual({
        codigo: 'dados_indisponiveis',
        mensagem: 'Esta resposta não teria nenhum dado: as cinco partes (clima, fogo, exportações, hidrologia, briefing) estão sem dados. Nada foi cobrado; tente de novo em alguns minutos.',
      })
      const a = await get(empty, '/v1/commodities/amostra')
      expect([a.status, a.body.amostra, a.body.fontes.exportacoes]).toEqual([200, true, null])
    } finally {
      await empty.close()
    }
  }, 15_000)

  test('only the exports missing: the pack serves the other four and lists exportacoes', async () => {
    const dir = await sampleDataDir({ exportacoes: false })
    const { app: partial } = await testApp({ dataDir: dir })
    try {
      const p = await get(partial, '/v1/commodities/pacote')
      expect(p.status).toBe(200)
      expect(p.body.indisponiveis).toEqual(['exportacoes'])
      expect(p.body.briefing.entradas.exportacoes).toBeNull()
      expect(p.body.briefing.destaques.find((d: any) => d.id === 'soybeans').texto).not.toContain('exports')
    } finally {
      await partial.close()
    }
  })
})
