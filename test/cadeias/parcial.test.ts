// Chains over a partial window: the weather copy built from the real-format Open-Meteo recordings
// with the ERA5 archive down (only the forecast's 7 past days observed) and with it up. A link computed
// on incomplete data is `parcial`, never `ok`, and counts for every value it may still have; the
// briefing says "at least" where the chains would have said a number. Exact values, both ways.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startReplay } from '../../ingest/lib/replay'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { COMMODITIES_FEEDS } from '../../src/datasets/commodities'
import { CINTUROES } from '../../src/datasets/commodities/cinturoes'
import { get, testApp } from '../helpers'
import { recalcular } from './recalculo'
import { GRAVADO_EM, sampleDataDir } from './helpers'

const RECORDED = join(import.meta.dir, '..', 'commodities', 'fixtures', 'commodities-amostra')
const FORECAST = JSON.parse(readFileSync(join(RECORDED, 'open-meteo-forecast.json'), 'utf8'))
const ARCHIVE = JSON.parse(readFileSync(join(RECORDED, 'open-meteo-archive.json'), 'utf8'))

/** The recordings with the Sul de Minas belt dry since 20 December (40 days to the 28th of January), rain on the 19th. */
function secaNoSulDeMinas() {
  const i = CINTUROES.findIndex((c) => c.id === 'mg-sul')
  const forecast = structuredClone(FORECAST)
  const archive = structuredClone(ARCHIVE)
  forecast[i].daily.time.forEach((d: string, k: number) => {
    if (d < '2026-01-29') forecast[i].daily.precipitation_sum[k] = 0.2
  })
  archive[i].daily.time.forEach((d: string, k: number) => {
    if (archive[i].daily.precipitation_sum[k] === null) return
    if (d >= '2025-12-20') archive[i].daily.precipitation_sum[k] = 0
    else if (d === '2025-12-19') archive[i].daily.precipitation_sum[k] = 12.5
  })
  return { forecast, archive }
}

const meteo = startReplay()
const arquivo = startReplay()
const saved = { f: process.env.OPEN_METEO_URL, a: process.env.OPEN_METEO_ARCHIVE_URL }
process.env.OPEN_METEO_URL = meteo.url
process.env.OPEN_METEO_ARCHIVE_URL = arquivo.url
const apps: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const a of apps) await a.close()
  meteo.close()
  arquivo.close()
  process.env.OPEN_METEO_URL = saved.f
  process.env.OPEN_METEO_ARCHIVE_URL = saved.a
})

/** Every sample, with the weather copy (and the briefing over it) fetched at the recording time from these answers; served offline. */
async function appWith(forecast: unknown, archive: unknown | null) {
  const json = (body: unknown) => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) })
  meteo.on('/v1/forecast', json(forecast))
  arquivo.on('/v1/archive', archive === null ? { status: 502, body: 'Bad Gateway' } : json(archive))
  const dataDir = await sampleDataDir()
  const runner = new FeedRunner(COMMODITIES_FEEDS, { dataDir, log: createLogger('silent'), now: () => GRAVADO_EM })
  await runner.refresh('commodities-clima')
  await runner.refresh('commodities-briefing')
  const { app } = await testApp({ dataDir, semFontes: true })
  apps.push(app)
  return app
}

const elo = (body: any, id: string) => body.elos.find((e: any) => e.id === id)
const belt = (clima: any, id: string) => clima.cinturoes.find((c: any) => c.id === id)

describe('energia_br: the 30-day rain in the basins', () => {
  test('archive down: a 7-day sum is no 30-day rain; the link is partial, a lower bound, and the level is open between low and moderate', async () => {
    const app = await appWith(FORECAST, null)
    const clima = (await get(app, '/v1/commodities/clima')).body
    expect(['mg-sul', 'sp-cana', 'mg-cerrado', 'go-sudoeste'].map((id) => [belt(clima, id).chuva_observada_30d_mm, belt(clima, id).dias_observados_30d])).toEqual([
      [33.2, 7],
      [56.2, 7],
      [72.5, 7],
      [69.7, 7],
    ])
    const b = (await get(app, '/v1/cadeias/energia_br')).body
    const chuva = elo(b, 'chuva_bacias_30d')
    expect([chuva.valor, chuva.status, chuva.pontos, chuva.faixas]).toEqual([57.9, 'parcial', { nivel: null, direcao: null }, { nivel: null, direcao: null }])
    expect(chuva.motivo).toBe(
      'calculado sobre dados incompletos: cinturoes[id=mg-sul].dias_observados_30d = 7 (menos de 30); o valor completo é pelo menos 57,9 mm, e o elo conta por todos os que ainda pode ter',
    )
    expect(chuva.detalhe['cinturoes[id=go-sudoeste].dias_observados_30d']).toBe(7)
    // January bands: < 120 mm: 2, < 200: 1, else 0; from 57.9 up every band is possible.
    expect(b.leitura.nivel).toEqual({ nome: 'pressão sobre o custo da energia', valor: null, pontos: null, pontos_min: 0, pontos_max: 2, possiveis: ['baixa', 'moderada'] })
    expect(b.leitura).toMatchObject({ completa: false, elos_sem_valor_atual: ['chuva_bacias_30d'], direcao: { valor: 'aliviando', pontos: -3 } })
    recalcular(b)
  })

  test('archive up: the 30 observed days, ok, no points (262.88 mm)', async () => {
    const b = (await get(await appWith(FORECAST, ARCHIVE), '/v1/cadeias/energia_br')).body
    expect([elo(b, 'chuva_bacias_30d').valor, elo(b, 'chuva_bacias_30d').status, elo(b, 'chuva_bacias_30d').pontos.nivel]).toEqual([262.88, 'ok', 0])
    expect(b.leitura.nivel).toMatchObject({ valor: 'baixa', pontos: 0 })
    recalcular(b)
  })
})

describe('cafe_kc: a dry spell that reaches the edge of the observed window', () => {
  const { forecast, archive } = secaNoSulDeMinas()

  test('archive down: 7 dry days seen, all the window holds: partial, at least 7; the risk is open (0 to 2 points)', async () => {
    const app = await appWith(forecast, null)
    const mg = belt((await get(app, '/v1/commodities/clima')).body, 'mg-sul')
    expect([mg.dias_secos_consecutivos, mg.dias_secos_no_limite, mg.ultima_chuva]).toEqual([7, true, null])
    const b = (await get(app, '/v1/cadeias/cafe_kc')).body
    const seca = elo(b, 'dias_secos_mg_sul')
    expect([seca.valor, seca.status, seca.pontos.nivel]).toEqual([7, 'parcial', null])
    expect(seca.motivo).toBe('calculado sobre dados incompletos: cinturoes[id=mg-sul].dias_secos_no_limite = true; o valor completo é pelo menos 7 dias, e o elo conta por todos os que ainda pode ter')
    expect(seca.detalhe).toEqual({ ultima_chuva: null, no_limite_da_janela: true, 'cinturoes[id=mg-sul].dias_secos_no_limite': true })
    // January bands: < 10 days: 0, < 20: 1, else 2; the other links add 0.
    expect(b.leitura.nivel).toEqual({ nome: 'risco para a produtividade do arábica', valor: null, pontos: null, pontos_min: 0, pontos_max: 2, possiveis: ['baixo', 'moderado'] })
    expect(b.leitura.elos_sem_valor_atual).toEqual(['dias_secos_mg_sul'])
    recalcular(b)
  })

  test('archive up: the whole 40-day spell, ok, 2 points: risk moderate', async () => {
    const b = (await get(await appWith(forecast, archive), '/v1/cadeias/cafe_kc')).body
    const seca = elo(b, 'dias_secos_mg_sul')
    expect([seca.valor, seca.status, seca.pontos.nivel, seca.detalhe.ultima_chuva]).toEqual([40, 'ok', 2, '2025-12-19'])
    expect(b.leitura.nivel).toMatchObject({ valor: 'moderado', pontos: 2 })
    recalcular(b)
  })

  test('a spell at the edge but already past every band threshold is partial and still scored in full (at least 25 days: 2 points)', async () => {
    // Archive up but every one of its 90 days dry: the spell reaches the window start, at least 90 days.
    const i = CINTUROES.findIndex((c) => c.id === 'mg-sul')
    const seco = structuredClone(archive)
    seco[i].daily.precipitation_sum = seco[i].daily.precipitation_sum.map((v: number | null) => (v === null ? null : 0))
    const b = (await get(await appWith(forecast, seco), '/v1/cadeias/cafe_kc')).body
    const seca = elo(b, 'dias_secos_mg_sul')
    expect([seca.valor, seca.status]).toEqual([90, 'parcial'])
    expect(b.leitura.nivel).toMatchObject({ valor: 'moderado', pontos: 2, pontos_min: 2, pontos_max: 2 })
    recalcular(b)
  })
})

describe('the briefing over the same copies', () => {
  test('archive down: "at least" and the days observed, never a 30-day figure or a "no stress" it cannot know', async () => {
    const app = await appWith(FORECAST, null)
    const br = (await get(app, '/v1/commodities/briefing')).body
    const texto = (id: string) => br.destaques.find((d: any) => d.id === id).texto
    expect(texto('coffee')).toStartWith('Coffee: no weather stress flagged (driest arabica coffee belt: at least 33.2 mm in 30 days, only 7 of them observed); ')
    expect(texto('soybeans')).toStartWith(
      'Soybeans: at least 7 dry days in a row in Cruz Alta (RS), as far back as observed: whether the spell reaches 15 days is unknown; driest soybeans belt: at least 0.9 mm in 30 days, only 7 of them observed; ',
    )
    expect(br.resumo).toContain('Weather: 0 of 9 crop belts with a frost alert and 0 with 15+ dry days in a row (1 more dry as far back as observed, so undetermined).')
    const coffee = br.destaques.find((d: any) => d.id === 'coffee')
    expect(coffee.evidencias.filter((e: any) => e.sinal === 'clima')).toEqual([
      { sinal: 'clima', campo: 'cinturoes[5].chuva_observada_30d_mm', valor: 33.2, unidade: 'mm', efeito: 0 },
      { sinal: 'clima', campo: 'cinturoes[5].dias_observados_30d', valor: 7, unidade: 'days', efeito: 0 },
    ])
  })

  test('archive up: the 30-day figures as they are; the 16-day spell in Cruz Alta flagged', async () => {
    const br = (await get(await appWith(FORECAST, ARCHIVE), '/v1/commodities/briefing')).body
    const texto = (id: string) => br.destaques.find((d: any) => d.id === id).texto
    expect(texto('coffee')).toStartWith('Coffee: ample rain, at least 208.4 mm over the last 30 days in every arabica coffee belt; ')
    expect(texto('soybeans')).toStartWith('Soybeans: 16 dry days in a row in Cruz Alta (RS) with only ')
    expect(br.resumo).toContain('Weather: 0 of 9 crop belts with a frost alert and 1 with 15+ dry days in a row.')
  })
})
