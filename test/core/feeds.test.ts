// The one mechanism for polled sources: served at once from the copy on disk, refreshed in the
// background, never a wait on the upstream beyond the first-need bound, the last good copy kept
// through outages and restarts, one refresher across processes, and an honest `fonte`.
import { afterAll, describe, expect, test } from 'bun:test'
import { FeedRunner, FIRST_NEED_WAIT_MS, type FeedDef } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { defineUpstream, upstreamUrl } from '../../src/core/upstream'
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
    expect(first.fonte).toEqual({ base: 'Teste/valor', consultado_em: '2026-11-24T12:00:00.000Z', defasagem_segundos: 0, atualiza_a_cada_minutos: 30, cache: true, status: 'ok' })
    clock.t += 10 * MIN
    const later = await r.get('teste')
    expect(later.fonte.defasagem_segundos).toBe(600)
    expect(later.fonte.status).toBe('ok')
  })

  test('upstream down: the last copy with cache_servido, no wait; health atrasada after three intervals; back again: ok', async () => {
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
    expect(r.health()[0]!.status).toBe('atrasada')
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
    expect(restarted.health()[0]).toMatchObject({ status: 'ok', ultimo_erro: null })
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
      await Bun.sleep(2300) // the background refresh lands
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

  test('an upstream URL setting must be http(s)', () => {
    expect(() => upstreamUrl(TESTE, { TESTE_FEED_URL: 'ftp://x' })).toThrow('configuração inválida: TESTE_FEED_URL: deve ser uma URL http(s), ex. https://exemplo.gov.br/api')
    expect(upstreamUrl(TESTE, {})).toBe('https://exemplo.gov.br/api')
    expect(upstreamUrl(TESTE, { TESTE_FEED_URL: 'http://127.0.0.1:9/x/' })).toBe('http://127.0.0.1:9/x')
  })
})
