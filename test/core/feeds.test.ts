// The one mechanism for polled sources: served at once from the copy on disk, refreshed in the
// background, never a wait on the upstream beyond the first-need bound, the last good copy kept
// through outages and restarts, one refresher across processes, and an honest `fonte`.
import { afterAll, describe, expect, test } from 'bun:test'
import { avisoDaFonte } from '../../src/core/feeds/aviso'
import { FeedFailure, FeedRunner, FIRST_NEED_WAIT_MS, type FeedDef } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { defineUpstream, describeUrl, upstreamUrl } from '../../src/core/upstream'
import { startReplay } from '../../ingest/lib/replay'
import { tempDir } from '../temp'

const upstream = startReplay()
afterAll(() => upstream.close())
process.env.TESTE_FEED_URL = upstream.url
let served = 0
upstream.on('/valor', () => ({ status: 200, body: JSON.stringify({ valor: ++served }) }))

const TESTE = defineUpstream('TESTE_FEED_URL', 'https://exemplo.gov.br/api', 'fonte de teste')
const feed: FeedDef<{ valor: number }> = {
  name: 'teste',
  dataset: 'teste',
  base: 'Teste/valor',
  upstreams: [TESTE],
  intervalMinutes: 30,
  timeoutMs: 20_000,
  async fetch(_key, ctx) {
    const r = await ctx.fetch(`${ctx.url(TESTE)}/valor`)
    const body = (await r.json()) as { valor?: unknown }
    if (typeof body.valor !== 'number') throw new Error('resposta sem valor')
    return { valor: body.valor }
  },
}

function runner(dataDir: string, clock: { t: number }, logs: string[] = []) {
  return new FeedRunner([feed], { dataDir, log: createLogger('info', (l) => logs.push(l)), now: () => clock.t })
}

const T0 = Date.parse('2026-11-24T12:00:00Z')

/** Polls until a background refresh has landed (a loaded machine may take longer than a fixed sleep); at most 5 s. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await Bun.sleep(50)
}
const MIN = 60_000

describe('feeds', () => {
  test('first need waits for the first copy; then ok with its age', async () => {
    upstream.fault = { kind: 'none' }
    const clock = { t: T0 }
    const r = runner(tempDir('feeds-'), clock)
    const first = await r.get<{ valor: number }>('teste')
    expect(first.dados).toEqual({ valor: served })
    expect(first.fonte).toEqual({ base: 'Teste/valor', consultado_em: '2026-11-24T12:00:00.000Z', defasagem_segundos: 0, atualiza_a_cada_minutos: 30, cache: true, status: 'ok', tentado_em: '2026-11-24T12:00:00.000Z', ultimo_erro: null })
    clock.t += 10 * MIN
    const later = await r.get('teste')
    expect(later.fonte.defasagem_segundos).toBe(600)
    expect(later.fonte.status).toBe('ok')
  })

  test('upstream down: the last copy with cache_servido, no wait; a problem in health after three intervals; back again: ok', async () => {
    const dir = tempDir('feeds-')
    const clock = { t: T0 }
    const logs: string[] = []
    const r = runner(dir, clock, logs)
    upstream.fault = { kind: 'none' }
    const good = (await r.get<{ valor: number }>('teste')).dados
    upstream.stop()
    clock.t += 31 * MIN
    const started = performance.now()
    const stale = await r.get<{ valor: number }>('teste')
    expect(performance.now() - started).toBeLessThan(100)
    expect(stale.dados).toEqual(good)
    expect(stale.fonte.status).toBe('cache_servido')
    expect(stale.fonte.defasagem_segundos).toBe(31 * 60)
    await Bun.sleep(300) // the background attempt fails
    expect(r.copy('teste')!.ultimo_erro).toContain('/valor')
    expect(logs.filter((l) => l.includes('fonte falhou')).length).toBe(1)
    clock.t += 60 * MIN
    expect(r.health()[0]).toMatchObject({ status: 'cache_servido', defasagem_segundos: 91 * 60, falhas: 1 })
    expect(r.health()[0]!.problema).toStartWith('cópia de 91 min, mais velha que três intervalos (30 min) (último erro: ')
    // A restart during the outage serves the copy on disk.
    const restarted = runner(dir, clock)
    expect((await restarted.get<{ valor: number }>('teste')).dados).toEqual(good)
    await Bun.sleep(300) // its own attempt, still during the outage, fails (else it may race the start below)
    upstream.start()
    clock.t += 5 * MIN // past the retry backoff
    await restarted.get('teste')
    await Bun.sleep(300)
    const back = await restarted.get<{ valor: number }>('teste')
    expect(back.fonte.status).toBe('ok')
    expect(back.dados!.valor).toBeGreaterThan(good!.valor)
    expect(restarted.health()[0]).toMatchObject({ status: 'ok', ultimo_erro: null, problema: null, falhas: 0 })
  })

  test('no copy and a slow upstream: the request waits at most the first-need bound, then fonte_indisponivel', async () => {
    const clock = { t: T0 }
    const r = runner(tempDir('feeds-'), clock)
    upstream.fault = { kind: 'slow', delayMs: 3000 }
    try {
      const started = performance.now()
      const answer = await r.get('teste')
      const waited = performance.now() - started
      expect(waited).toBeGreaterThanOrEqual(FIRST_NEED_WAIT_MS - 50)
      expect(waited).toBeLessThan(FIRST_NEED_WAIT_MS + 500)
      expect(answer.dados).toBeNull()
      expect(answer.fonte).toMatchObject({ status: 'fonte_indisponivel', consultado_em: null, defasagem_segundos: null, cache: false })
    } finally {
      upstream.fault = { kind: 'none' }
    }
  })

  test('a feed with firstNeedWaitMs 0 never waits, even for a first copy: fonte_indisponivel at once, the copy once the refresh lands', async () => {
    const clock = { t: T0 }
    const dataDir = tempDir('feeds-')
    const r = new FeedRunner([{ ...feed, name: 'sem-espera', firstNeedWaitMs: 0 }], { dataDir, log: createLogger('silent'), now: () => clock.t })
    upstream.fault = { kind: 'slow', delayMs: 2000 }
    try {
      const started = performance.now()
      const answer = await r.get('sem-espera')
      expect(performance.now() - started).toBeLessThan(FIRST_NEED_WAIT_MS / 2)
      expect(answer.dados).toBeNull()
      expect(answer.fonte.status).toBe('fonte_indisponivel')
      await until(() => r.copy('sem-espera') !== null) // the background refresh lands (2 s; longer on a loaded machine)
      expect((await r.get<{ valor: number }>('sem-espera')).fonte.status).toBe('ok')
    } finally {
      upstream.fault = { kind: 'none' }
    }
  })

  test('garbage and 5xx keep the last good copy', async () => {
    const clock = { t: T0 }
    const r = runner(tempDir('feeds-'), clock)
    upstream.fault = { kind: 'none' }
    const good = await r.refresh('teste')
    for (const fault of [{ kind: 'garbage' as const }, { kind: 'status' as const, status: 503 }]) {
      upstream.fault = fault
      clock.t += 31 * MIN
      await expect(r.refresh('teste')).rejects.toThrow()
      expect(r.copy('teste')!.dados).toEqual(good.dados)
      expect(r.copy('teste')!.consultado_em).toBe(good.consultado_em)
    }
    upstream.fault = { kind: 'none' }
  })

  test('two processes: one refreshes (lock file), both serve the same copy', async () => {
    const dir = tempDir('feeds-')
    const clock = { t: T0 }
    const a = runner(dir, clock)
    const b = runner(dir, clock)
    upstream.fault = { kind: 'slow', delayMs: 300 }
    const before = upstream.requests.length
    const [x, y] = await Promise.all([a.get<{ valor: number }>('teste'), b.get<{ valor: number }>('teste')])
    upstream.fault = { kind: 'none' }
    expect(upstream.requests.length - before).toBe(1)
    expect(x.dados).not.toBeNull()
    await Bun.sleep(1100) // b re-reads the file a wrote
    expect((await b.get<{ valor: number }>('teste')).dados).toEqual(x.dados)
    expect(y.fonte.status === 'ok' || y.fonte.status === 'fonte_indisponivel').toBe(true)
  })

  test('a request-time feed: a stale copy is refreshed while the request waits (bounded); a slow upstream is not waited on past the bound, a failed one not at all; refreshed ahead under traffic', async () => {
    const prices: FeedDef<{ valor: number }> = { ...feed, name: 'precos', base: 'Teste/precos', intervalMinutes: 0.25, timeoutMs: 1000, waitOnStaleMs: 400 }
    const clock = { t: T0 }
    const r = new FeedRunner([prices], { dataDir: tempDir('feeds-'), log: createLogger('silent'), now: () => clock.t })
    upstream.fault = { kind: 'none' }
    const first = (await r.get<{ valor: number }>('precos')).dados!.valor
    // Stale (20 s > 15 s) and the upstream answers at once: this request gets the fresh copy.
    clock.t += 20_000
    const fresh = await r.get<{ valor: number }>('precos')
    expect(fresh.dados!.valor).toBeGreaterThan(first)
    expect(fresh.fonte).toMatchObject({ status: 'ok', defasagem_segundos: 0, atualiza_a_cada_minutos: 0.25 })
    // Stale and the upstream takes 3 s: the request gives up at the bound and gets the old copy.
    upstream.fault = { kind: 'slow', delayMs: 3000 }
    clock.t += 20_000
    const slow = await r.get<{ valor: number }>('precos')
    expect(slow.dados).toEqual(fresh.dados)
    expect(slow.fonte).toMatchObject({ status: 'cache_servido', defasagem_segundos: 20 })
    await until(() => Boolean(r.copy('precos')!.ultimo_erro)) // the attempt times out (1 s) and is recorded as failed
    expect(r.copy('precos')!.ultimo_erro).toContain('sem resposta em 1 s')
    // After a failed attempt, past the 30 s backoff: a new attempt starts, but nobody waits on it.
    upstream.fault = { kind: 'none' }
    clock.t += 31_000
    const after = await r.get<{ valor: number }>('precos')
    expect(after.dados).toEqual(fresh.dados)
    expect(after.fonte.status).toBe('cache_servido')
    await until(() => !r.copy('precos')!.ultimo_erro)
    const back = await r.get<{ valor: number }>('precos')
    expect(back.dados!.valor).toBeGreaterThan(fresh.dados!.valor)
    expect(back.fonte.status).toBe('ok')
    // Refresh ahead: at 11 s (past two thirds of 15 s) the copy is served as it is and renewed behind it.
    clock.t += 11_000
    const ahead = await r.get<{ valor: number }>('precos')
    expect(ahead.dados).toEqual(back.dados)
    expect(ahead.fonte.status).toBe('ok')
    await until(() => r.copy<{ valor: number }>('precos')!.dados!.valor > back.dados!.valor)
    expect(r.copy<{ valor: number }>('precos')!.dados!.valor).toBeGreaterThan(back.dados!.valor)
  })

  test('two processes and a request-time feed: the one whose view of the copy is a second old does not refresh again (nor wait) right after the other failed', async () => {
    const prices: FeedDef<{ valor: number }> = { ...feed, name: 'precos2', base: 'Teste/precos', intervalMinutes: 0.25, timeoutMs: 500, waitOnStaleMs: 400 }
    const dir = tempDir('feeds-')
    const clock = { t: T0 }
    const a = new FeedRunner([prices], { dataDir: dir, log: createLogger('silent'), now: () => clock.t })
    const b = new FeedRunner([prices], { dataDir: dir, log: createLogger('silent'), now: () => clock.t })
    upstream.fault = { kind: 'none' }
    const good = (await a.get<{ valor: number }>('precos2')).dados
    expect((await b.get<{ valor: number }>('precos2')).dados).toEqual(good) // b reads the copy a wrote
    upstream.fault = { kind: 'slow', delayMs: 3000 }
    clock.t += 20_000
    const attempt = a.get<{ valor: number }>('precos2') // a starts the attempt (and waits at most 400 ms)
    expect((await b.get<{ valor: number }>('precos2')).dados).toEqual(good) // b: a holds the lock; b's view is now without an error
    expect((await attempt).dados).toEqual(good)
    await until(() => Boolean(a.copy('precos2')!.ultimo_erro)) // a's attempt times out (500 ms), written to disk
    const asked = upstream.requests.length
    // b last read the file before a's failure was written: with the lock it reads it again and stands down.
    expect((await b.get<{ valor: number }>('precos2')).fonte.status).toBe('cache_servido')
    await Bun.sleep(200) // a second attempt, had b started one, would have reached the upstream by now
    expect(upstream.requests.length).toBe(asked)
    expect(b.copy('precos2')!.ultimo_erro).toContain('sem resposta')
    upstream.fault = { kind: 'none' }
  })

  test('the fetch reads the feed clock (date windows follow it; a bundled sample is fetched at its recording time)', async () => {
    const clocked: FeedDef<{ agora: number }> = { ...feed, name: 'relogio', async fetch(_key, ctx) { return { agora: ctx.now() } } } as FeedDef<{ agora: number }>
    const clock = { t: Date.parse('2026-01-28T22:30:00Z') }
    const r = new FeedRunner([clocked], { dataDir: tempDir('feeds-'), log: createLogger('silent'), now: () => clock.t })
    expect((await r.refresh('relogio')).dados).toEqual({ agora: clock.t })
  })

  test('a derived feed reads the copies of other feeds in the runner\'s data directory (ctx.dataDir)', async () => {
    const dir = tempDir('feeds-')
    const clock = { t: T0 }
    const r = runner(dir, clock)
    upstream.fault = { kind: 'none' }
    const base = (await r.refresh('teste')).dados as { valor: number }
    const derived: FeedDef<{ dobro: number }> = {
      ...feed,
      name: 'derivada',
      upstreams: [],
      async fetch(_key, ctx) {
        const other = new FeedRunner([feed], { dataDir: ctx.dataDir, log: createLogger('silent'), now: ctx.now }).copy<{ valor: number }>('teste')
        if (!other?.dados) throw new Error('sem cópia da fonte teste')
        return { dobro: other.dados.valor * 2 }
      },
    } as FeedDef<{ dobro: number }>
    const d = new FeedRunner([derived], { dataDir: dir, log: createLogger('silent'), now: () => clock.t })
    expect((await d.refresh('derivada')).dados).toEqual({ dobro: base.valor * 2 })
    await expect(new FeedRunner([derived], { dataDir: tempDir('feeds-'), log: createLogger('silent') }).refresh('derivada')).rejects.toThrow('sem cópia da fonte teste')
  })

  test("an upstream's address in a message never carries its user and password, nor its query", () => {
    expect(describeUrl('https://usuario:segredo@espelho.exemplo/api/v1/x?token=abc')).toBe('https://espelho.exemplo/api/v1/x')
    expect(describeUrl('http://127.0.0.1:9/v1/forecast')).toBe('http://127.0.0.1:9/v1/forecast')
  })

  test('an upstream URL setting must be http(s)', () => {
    expect(() => upstreamUrl(TESTE, { TESTE_FEED_URL: 'ftp://x' })).toThrow('configuração inválida: TESTE_FEED_URL: deve ser uma URL http(s), ex. https://exemplo.gov.br/api')
    expect(upstreamUrl(TESTE, {})).toBe('https://exemplo.gov.br/api')
    expect(upstreamUrl(TESTE, { TESTE_FEED_URL: 'http://127.0.0.1:9/x/' })).toBe('http://127.0.0.1:9/x')
  })
})

describe('one record per source: the route, /v1/health and /metrics read the same', () => {
  const fields = (f: Record<string, unknown>) => {
    const { base, consultado_em, defasagem_segundos, atualiza_a_cada_minutos, cache, status, tentado_em, ultimo_erro } = f
    return { base, consultado_em, defasagem_segundos, atualiza_a_cada_minutos, cache, status, tentado_em, ultimo_erro }
  }

  test("a failed attempt is in the route's fonte as in health: when it was tried, the error, the older copy's age", async () => {
    const clock = { t: T0 }
    const r = runner(tempDir('feeds-'), clock)
    upstream.fault = { kind: 'none' }
    await r.refresh('teste')
    upstream.fault = { kind: 'status', status: 503 }
    clock.t += 40 * MIN
    await expect(r.refresh('teste')).rejects.toThrow('HTTP 503')
    upstream.fault = { kind: 'none' }
    const answer = r.peek('teste')
    expect(answer.fonte).toEqual({
      base: 'Teste/valor',
      consultado_em: '2026-11-24T12:00:00.000Z',
      defasagem_segundos: 40 * 60,
      atualiza_a_cada_minutos: 30,
      cache: true,
      status: 'cache_servido',
      tentado_em: '2026-11-24T12:40:00.000Z',
      ultimo_erro: `${upstream.url}/valor: HTTP 503`,
    })
    const [h] = r.health()
    expect(fields(h as unknown as Record<string, unknown>)).toEqual(answer.fonte)
    expect(h).toMatchObject({ nome: 'teste', falhas: 1, problema: null })
    expect(avisoDaFonte('o valor', answer.fonte)).toBe(`o valor: dados de 2026-11-24T12:00:00.000Z (há 40 min), mais velhos que o prometido (30 min); a última consulta falhou (${upstream.url}/valor: HTTP 503).`)
  })

  test('a failure that names its parts (FeedFailure): the route gets them while the older copy is served, and not after a success', async () => {
    let fail = true
    const parts: FeedDef<{ valor: number }> = {
      ...feed,
      name: 'partes',
      async fetch() {
        if (fail) throw new FeedFailure('as duas partes falharam', [{ parte: 'a', erro: 'HTTP 500' }, { parte: 'b', erro: 'tempo' }])
        return { valor: 7 }
      },
    }
    const clock = { t: T0 }
    const r = new FeedRunner([parts], { dataDir: tempDir('feeds-'), log: createLogger('silent'), now: () => clock.t })
    await expect(r.refresh('partes')).rejects.toThrow('as duas partes falharam')
    expect(r.peek('partes')).toMatchObject({ dados: null, falha: [{ parte: 'a', erro: 'HTTP 500' }, { parte: 'b', erro: 'tempo' }], fonte: { status: 'fonte_indisponivel', ultimo_erro: 'as duas partes falharam' } })
    fail = false
    await r.refresh('partes')
    expect(r.peek('partes')).toMatchObject({ dados: { valor: 7 }, falha: null, fonte: { status: 'ok', ultimo_erro: null } })
  })

  test('the bundled sample is `amostra` until a fetch replaces it, also through failed attempts', async () => {
    const dir = tempDir('feeds-')
    const clock = { t: T0 }
    upstream.fault = { kind: 'none' }
    await new FeedRunner([feed], { dataDir: dir, log: createLogger('silent'), now: () => clock.t, sample: true }).refresh('teste')
    clock.t += 300 * 86_400_000
    const r = runner(dir, clock)
    expect(r.peek('teste').fonte).toMatchObject({ status: 'amostra', consultado_em: '2026-11-24T12:00:00.000Z', defasagem_segundos: 300 * 86_400 })
    expect(r.health()[0]!.problema).toBe('amostra gravada em 2026-11-24T12:00:00.000Z, mais velha que três intervalos (30 min)')
    upstream.fault = { kind: 'status', status: 500 }
    await expect(r.refresh('teste')).rejects.toThrow()
    expect(r.peek('teste').fonte).toMatchObject({ status: 'amostra', ultimo_erro: `${upstream.url}/valor: HTTP 500` })
    expect(avisoDaFonte('o valor', r.peek('teste').fonte)).toBe(`o valor: amostra embutida no programa, gravada em 2026-11-24T12:00:00.000Z (há 300 dias): não são dados atuais; a última consulta falhou (${upstream.url}/valor: HTTP 500).`)
    upstream.fault = { kind: 'none' }
    await r.refresh('teste')
    expect(r.peek('teste').fonte).toMatchObject({ status: 'ok', defasagem_segundos: 0 })
    expect(r.copy('teste')!.amostra).toBeUndefined()
  })

  test('offline (serve --sem-fontes): nothing is fetched, not even a first copy; the sample is served as `amostra` and is no problem; a missing copy still is', async () => {
    const dir = tempDir('feeds-')
    const clock = { t: T0 }
    upstream.fault = { kind: 'none' }
    await new FeedRunner([feed], { dataDir: dir, log: createLogger('silent'), now: () => clock.t, sample: true }).refresh('teste')
    clock.t += 365 * 86_400_000
    const before = upstream.requests.length
    const offline = new FeedRunner([feed, { ...feed, name: 'nunca' }], { dataDir: dir, log: createLogger('silent'), now: () => clock.t, offline: true })
    offline.startBackground(10)
    const answer = await offline.get<{ valor: number }>('teste')
    expect(answer.dados).not.toBeNull()
    expect(answer.fonte).toMatchObject({ status: 'amostra', tentado_em: '2026-11-24T12:00:00.000Z', ultimo_erro: null })
    expect((await offline.get('nunca')).fonte.status).toBe('fonte_indisponivel')
    await Bun.sleep(50) // ticks of a background that must not run
    offline.stop()
    expect(upstream.requests.length).toBe(before)
    expect(offline.health().map((h) => [h.nome, h.status, h.problema])).toEqual([
      ['teste', 'amostra', null],
      ['nunca', 'fonte_indisponivel', 'nenhuma cópia obtida ainda (servidor sem fontes: rode dadosbr ingest --amostra ou dadosbr atualizar)'],
    ])
  })

  test('a derived feed is as old as its newest input (dataTime), refreshed on its own cadence (refreshMinutes)', async () => {
    const clock = { t: T0 }
    let runs = 0
    const derived: FeedDef<{ de: string }> = {
      ...feed,
      name: 'derivada2',
      upstreams: [],
      intervalMinutes: 1440,
      refreshMinutes: 60,
      dataTime: (d) => d.de,
      async fetch() {
        runs++
        return { de: '2026-11-24T06:00:00.000Z' }
      },
    }
    const r = new FeedRunner([derived], { dataDir: tempDir('feeds-'), log: createLogger('silent'), now: () => clock.t })
    await r.get('derivada2')
    expect(r.peek('derivada2').fonte).toMatchObject({ consultado_em: '2026-11-24T06:00:00.000Z', defasagem_segundos: 6 * 3600, atualiza_a_cada_minutos: 1440, status: 'ok', tentado_em: '2026-11-24T12:00:00.000Z' })
    clock.t += 30 * MIN
    await r.get('derivada2')
    expect(runs).toBe(1) // within its refresh cadence
    clock.t += 31 * MIN
    await r.get('derivada2')
    await until(() => runs === 2)
    expect(runs).toBe(2)
    clock.t += 24 * 60 * MIN
    expect(r.state('derivada2')).toMatchObject({ status: 'cache_servido', defasagem_segundos: (30 * 3600) + 61 * 60 })
  })

  test('a request-time feed is tried once when the background starts, then only on request', async () => {
    const clock = { t: T0 }
    const prices: FeedDef<{ valor: number }> = { ...feed, name: 'precos3', intervalMinutes: 0.25, waitOnStaleMs: 400 }
    const r = new FeedRunner([prices], { dataDir: tempDir('feeds-'), log: createLogger('silent'), now: () => clock.t })
    upstream.fault = { kind: 'none' }
    const before = upstream.requests.length
    r.startBackground(20)
    await until(() => r.copy('precos3') !== null)
    clock.t += 60_000
    await Bun.sleep(100) // several ticks: none refreshes it
    r.stop()
    expect(upstream.requests.length - before).toBe(1)
    expect(r.state('precos3')).toMatchObject({ status: 'cache_servido', defasagem_segundos: 60, problema: null })
  })
})
