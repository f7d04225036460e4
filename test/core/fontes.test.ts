// One record per polled source: every route that reports a source's state (its `fonte`, each of its
// `fontes`, a pack's parts, a chain link's source) reports the same state as /v1/health for that
// source, and /metrics the same numbers; checked for every feed of the registry, over the bundled
// samples served offline (amostra, nothing attempted) and with every upstream down (each attempt
// failed and recorded). Plus the cases that used to contradict themselves: the FX route with every
// exchange down, the news outlets all failing, the briefing's age and cadence, the crypto copy's age.
import { afterAll, describe, expect, test } from 'bun:test'
import { startReplay } from '../../ingest/lib/replay'
import { ROUTES, type App } from '../../src/app'
import { exampleInputOf } from '../../src/core/examples'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { createMetrics, metricLabels } from '../../src/core/metrics'
import { DATASETS } from '../../src/datasets/registry'
import { buildSampleData, get, testApp } from '../helpers'
import { parseExposition, valueOf } from '../users/prometheus'

const T = Date.parse('2026-11-24T12:00:00Z')
const SAMPLE_TIME = '2026-01-29T15:30:00.000Z'
const FEEDS = DATASETS.flatMap((d) => d.feeds ?? [])
const FIELDS = ['consultado_em', 'defasagem_segundos', 'atualiza_a_cada_minutos', 'cache', 'status', 'tentado_em', 'ultimo_erro'] as const

// Every polled upstream at a closed port: an attempt fails at once.
const closed = startReplay()
closed.stop()
const envs = [...new Set(FEEDS.flatMap((f) => f.upstreams.map((u) => u.env)))]
const saved = new Map(envs.map((e) => [e, process.env[e]]))
for (const e of envs) process.env[e] = closed.url
const apps: App[] = []
afterAll(async () => {
  for (const a of apps) await a.close()
  closed.close()
  for (const [e, v] of saved) v === undefined ? delete process.env[e] : (process.env[e] = v)
})

/** An app over every bundled sample (a copy of its own), its sources on the fixed clock T. */
async function appAt(offline: boolean): Promise<{ app: App; runner: FeedRunner }> {
  const { app } = await testApp({ dataDir: await buildSampleData(), semFontes: offline })
  apps.push(app)
  const runner = new FeedRunner(app.ctx.feeds.feeds, { dataDir: app.ctx.config.dataDir, log: createLogger('silent'), now: () => T, offline })
  app.ctx.feeds = runner
  return { app, runner }
}

const pathOf = (path: string, input: { params: Record<string, string>; query: Record<string, string> }) => {
  const p = path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(input.params[n] ?? ''))
  const q = new URLSearchParams(input.query).toString()
  return q ? `${p}?${q}` : p
}
/** Every served route with its example input, and the tenders of one UF (filtered from the same copy). */
const PATHS = [...ROUTES.filter((r) => r.path !== '/v1/health').map((r) => pathOf(r.path, exampleInputOf(r))), '/v1/licitacoes/abertas?uf=MG']

/** Every object in an answer that states a source's state: a base, a status and when it was fetched. */
function statesIn(value: unknown, where: string, out: { where: string; fonte: Record<string, unknown> }[] = []) {
  if (Array.isArray(value)) value.forEach((v, i) => statesIn(v, `${where}[${i}]`, out))
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>
    if (typeof o.base === 'string' && typeof o.status === 'string' && 'consultado_em' in o) out.push({ where, fonte: o })
    for (const [k, v] of Object.entries(o)) statesIn(v, `${where}.${k}`, out)
  }
  return out
}

/** Calls every route; each source state found must equal health's record of that source (the fields it carries). */
async function compareEveryRoute(app: App) {
  const answers = await Promise.all(PATHS.map(async (p) => ({ path: p, r: await get(app, p) })))
  const health = (await get(app, '/v1/health')).body
  const byBase = new Map<string, any>(health.fontes.map((f: any) => [f.base, f]))
  const seen = new Set<string>()
  for (const { path, r } of answers) {
    expect([path, r.status]).toEqual([path, 200])
    for (const { where, fonte } of statesIn(r.body, path)) {
      const h = byBase.get(fonte.base as string)
      if (!h) continue // a chain's own reading, an ingested base: not a polled source
      seen.add(h.nome)
      const fields = FIELDS.filter((k) => k in fonte)
      expect({ where, ...Object.fromEntries(fields.map((k) => [k, fonte[k]])) }).toEqual({ where, ...Object.fromEntries(fields.map((k) => [k, h[k]])) })
    }
  }
  // Every source of the registry is reported by at least one route.
  expect([...seen].sort()).toEqual(FEEDS.map((f) => f.name).sort())
  return { health, answers: new Map(answers.map((a) => [a.path, a.r.body])) }
}

/** /metrics reads the same record: age, last success, last attempt, failures, up. */
async function compareMetrics(app: App, health: any) {
  const metrics = createMetrics(metricLabels(ROUTES, []))
  try {
    const { samples } = parseExposition(await metrics.render(app.ctx))
    for (const f of health.fontes) {
      const labels = { fonte: f.nome, status: f.status }
      expect([f.nome, valueOf(samples, 'dadosbr_feed_up', labels)]).toEqual([f.nome, f.problema ? 0 : 1])
      expect([f.nome, valueOf(samples, 'dadosbr_feed_age_seconds', labels)]).toEqual([f.nome, f.defasagem_segundos])
      expect([f.nome, valueOf(samples, 'dadosbr_feed_last_success_timestamp_seconds', labels)]).toEqual([f.nome, Math.floor(Date.parse(f.consultado_em) / 1000)])
      expect([f.nome, valueOf(samples, 'dadosbr_feed_last_attempt_timestamp_seconds', labels)]).toEqual([f.nome, Math.floor(Date.parse(f.tentado_em) / 1000)])
      expect([f.nome, valueOf(samples, 'dadosbr_feed_consecutive_failures', labels)]).toEqual([f.nome, f.falhas])
    }
  } finally {
    metrics.close()
  }
}

describe('every source, every route, /v1/health and /metrics: one record', () => {
  test('offline (serve --sem-fontes): every source is the sample of its date, nothing attempted, health ok', async () => {
    const { app } = await appAt(true)
    const { health } = await compareEveryRoute(app)
    expect(health.status).toBe('ok')
    expect(health.sem_fontes).toBe(true)
    for (const f of health.fontes) expect([f.nome, f.status, f.ultimo_erro, f.problema, f.falhas]).toEqual([f.nome, 'amostra', null, null, 0])
    // The briefing: as old as its newest input, one promise (a daily edition) in the route and in health alike.
    expect(health.fontes.find((f: any) => f.nome === 'commodities-briefing')).toMatchObject({ consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 1440 })
    await compareMetrics(app, health)
  })

  test('every upstream down: each attempt recorded with its error, in the routes as in health; the 302-day-old crypto copy is no live quote', async () => {
    const { app, runner } = await appAt(false)
    const tried = () => FEEDS.every((f) => runner.state(f.name).tentado_em === new Date(T).toISOString())
    // A first round starts every refresh (PNCP retries twice, 2 s then 4 s apart).
    await Promise.all(PATHS.map((p) => get(app, p)))
    for (let i = 0; i < 400 && !tried(); i++) await Bun.sleep(50)
    expect(FEEDS.filter((f) => runner.state(f.name).tentado_em !== new Date(T).toISOString()).map((f) => f.name)).toEqual([])
    // Answers are built at most once a second: the next round sees the recorded attempts.
    await Bun.sleep(1000 - (Date.now() % 1000) + 20)
    const { health, answers } = await compareEveryRoute(app)
    await compareMetrics(app, health)

    expect(health.status).toBe('degradado')
    const cripto = health.fontes.find((f: any) => f.nome === 'mercado-cripto')
    expect(cripto).toMatchObject({ status: 'amostra', consultado_em: SAMPLE_TIME, defasagem_segundos: 25_821_000, tentado_em: '2026-11-24T12:00:00.000Z', falhas: 1 })
    expect(cripto.ultimo_erro).toStartWith('nenhuma corretora brasileira respondeu: Mercado Bitcoin: ')
    expect(cripto.problema).toBe(`a última consulta falhou (último erro: ${cripto.ultimo_erro})`)

    // FX: the failures of the last attempt (every exchange), and a warning that the quotes are not live.
    const cambio = answers.get('/v1/mercado/cambio')
    expect(cambio.falhas.map((f: any) => f.fonte)).toEqual(['Mercado Bitcoin', 'Foxbit (BTC/BRL)', 'Foxbit (USDT/BRL)', 'NovaDAX (BTC/BRL)', 'NovaDAX (USDT/BRL)', 'Coinbase', 'Kraken'])
    expect(cambio.falhas[0].erro).toStartWith(`${closed.url}/api/v4/tickers: `)
    expect(cambio.btc_brl.mediana).toBe(458120)
    expect(cambio.avisos[0]).toBe(`cotações das corretoras: amostra embutida no programa, gravada em ${SAMPLE_TIME} (há 299 dias): não são dados atuais; a última consulta falhou (${cripto.ultimo_erro}).`)
    expect(cambio.avisos[1]).toStartWith(`PTAX: amostra embutida no programa, gravada em ${SAMPLE_TIME} (há 299 dias): não são dados atuais; a última consulta falhou (`)

    // News: every outlet of the failed attempt says it failed (the items are the older copy's).
    const noticias = answers.get('/v1/mercado/noticias?tema=macro&relevancia_min=5&por_pagina=2')
    expect(noticias.veiculos).toHaveLength(9)
    for (const v of noticias.veiculos) {
      expect([v.id, v.status]).toEqual([v.id, 'falhou'])
      expect(v.erro).toStartWith(`${closed.url}`)
    }
    expect(noticias.veiculos[0]).toMatchObject({ id: 'infomoney', atualizado_em: SAMPLE_TIME, formato: 'rss 2.0', charset: 'utf-8' })

    // The briefing is recomputed from the copies (it has no upstream of its own): as old as its newest input.
    const briefing = health.fontes.find((f: any) => f.nome === 'commodities-briefing')
    expect(briefing).toMatchObject({ consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 1440, status: 'cache_servido', tentado_em: '2026-11-24T12:00:00.000Z', ultimo_erro: null })
    expect(answers.get('/v1/commodities/briefing').fonte).toMatchObject({ consultado_em: SAMPLE_TIME, atualiza_a_cada_minutos: 1440 })
  }, 60_000)
})
