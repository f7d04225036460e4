// Each feed's fetch through the replay server at the recording time: the requests it makes (one
// for all belts), what it does when part of the upstream is missing or broken.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { COMMODITIES_FEEDS } from '../../src/datasets/commodities'
import { tempDir } from '../temp'
import { GRAVADO_EM, startUpstreams } from './helpers'

const up = startUpstreams()
afterAll(() => up.close())
beforeEach(() => {
  for (const s of up.all) {
    s.start()
    s.fault = { kind: 'none' }
    s.requests.length = 0
  }
})

const runner = (now = GRAVADO_EM, dataDir = tempDir('commodities-feeds-')) => new FeedRunner(COMMODITIES_FEEDS, { dataDir, log: createLogger('silent'), now: () => now })
const DAY = 86_400_000

describe('weather feed', () => {
  test('one forecast and one archive request for every belt (comma-separated coordinates, the date window of the feed clock)', async () => {
    const copy = await runner().refresh('commodities-clima')
    const f = up.server('OPEN_METEO_URL').requests.map((r) => new URL(`http://x${r.path}`))
    const a = up.server('OPEN_METEO_ARCHIVE_URL').requests.map((r) => new URL(`http://x${r.path}`))
    expect([f.length, a.length]).toEqual([1, 1])
    expect(f[0]!.searchParams.get('latitude')).toBe('-12.5453,-13.8374,-24.9555,-28.6388,-17.7923,-21.5513,-18.944,-21.1775,-12.0918')
    expect(Object.fromEntries([...f[0]!.searchParams].filter(([k]) => !['latitude', 'longitude'].includes(k)))).toEqual({
      daily: 'precipitation_sum,temperature_2m_min',
      hourly: 'temperature_2m',
      timezone: 'America/Sao_Paulo',
      past_days: '7',
      forecast_days: '8',
    })
    expect([a[0]!.searchParams.get('start_date'), a[0]!.searchParams.get('end_date')]).toEqual(['2025-10-31', '2026-01-28'])
    expect((copy.dados as any).cinturoes).toHaveLength(9)
  })

  test('archive down: the forecast past days stand in, and the answer says so; forecast 400: the reason, the last copy kept', async () => {
    const r = runner()
    up.server('OPEN_METEO_ARCHIVE_URL').fault = { kind: 'status', status: 502 }
    const copy = (await r.refresh('commodities-clima')).dados as any
    expect(copy.avisos[0]).toStartWith('histórico indisponível nesta consulta (')
    const rs = copy.cinturoes[3]
    expect([rs.chuva_observada_7d_mm, rs.dias_observados_30d, rs.dias_secos_no_limite]).toEqual([0.9, 7, true])
    up.server('OPEN_METEO_URL').on('/v1/forecast', { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":true,"reason":"Cannot initialize WeatherVariable from invalid String value tempeature_2m for key hourly"}' })
    await expect(r.refresh('commodities-clima')).rejects.toThrow('Open-Meteo forecast (HTTP 400): Cannot initialize WeatherVariable from invalid String value tempeature_2m for key hourly')
    expect((r.copy('commodities-clima')!.dados as any).cinturoes[3].dias_observados_30d).toBe(7)
    up.server('OPEN_METEO_URL').routes.shift()
  })
})

describe('fire feed', () => {
  test('seven daily files; the next refresh re-reads only the last two days', async () => {
    const dir = tempDir('commodities-feeds-')
    await runner(GRAVADO_EM, dir).refresh('commodities-fogo')
    const inpe = up.server('INPE_QUEIMADAS_URL')
    expect(inpe.requests.map((r) => r.path.slice(-12, -4))).toEqual(['20260128', '20260127', '20260126', '20260125', '20260124', '20260123', '20260122'])
    inpe.requests.length = 0
    await runner(GRAVADO_EM + 3600_000, dir).refresh('commodities-fogo')
    expect(inpe.requests.map((r) => r.path.slice(-12, -4))).toEqual(['20260128', '20260127'])
  })

  test("yesterday's file not published yet (404): the window ends the day before", async () => {
    // On 30 January the file of the 29th is missing from the recordings: the window is 22-28.
    const copy = (await runner(GRAVADO_EM + DAY).refresh('commodities-fogo')).dados as any
    expect(copy.periodo).toEqual({ inicio: '2026-01-22', fim: '2026-01-28' })
    await expect(runner(GRAVADO_EM + 3 * DAY).refresh('commodities-fogo')).rejects.toThrow('INPE: nem o arquivo de 2026-01-31 nem o de 2026-01-30 estão publicados (HTTP 404)')
  })
})

describe('reservoirs feed', () => {
  test("this year's file; early January also reads last year's for the 7-day delta", async () => {
    await runner().refresh('commodities-hidrologia')
    const ons = up.server('ONS_EAR_URL')
    expect(ons.requests.map((r) => r.path)).toEqual(['/EAR_DIARIO_SUBSISTEMA_2026.csv'])
    ons.requests.length = 0
    // On 3 January 2027 the 2027 file does not exist (403 from S3 here, a 404 in the stand-in): 2026 is read.
    const copy = (await runner(Date.parse('2027-01-03T12:00:00Z')).refresh('commodities-hidrologia')).dados as any
    expect(ons.requests.map((r) => r.path)).toEqual(['/EAR_DIARIO_SUBSISTEMA_2027.csv', '/EAR_DIARIO_SUBSISTEMA_2026.csv'])
    expect(copy.data).toBe('2026-01-28')
  })
})
