// The markets dataset under load and its refresh cost, at real sizes:
//  1. CPU of refreshing: every feed fetched repeatedly from local stand-ins (a separate process)
//     serving synthetic answers in the real formats at the real sizes (nine news feeds of 100 items,
//     Folha's in ISO-8859-1, one Atom; SGS, Olinda OData and the exchanges' tickers as recorded);
//     CPU-seconds per refresh, extrapolated to an hour at each feed's cadence.
//  2. Every markets route under wrk (Debian package `wrk`; NOTES §1) over those copies made two days
//     old (so each route tries a refresh), while the upstreams take 30 s to answer, then while they
//     are down, beside a bare Bun server under the same load.
// `bun bench/mercado.ts [--work DIR] [--segundos 10] [--conexoes 32] [--repeticoes 20]`.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { readRecordingIndex, startReplay, type Route } from '../ingest/lib/replay'
import { FeedRunner } from '../src/core/feeds/feed'
import { createLogger } from '../src/core/log'
import { MERCADO_FEEDS } from '../src/datasets/mercado'
import { haveWrk, machineLoad, startServer, withBareBun, wrk, opt, benchArgs as args } from './lib'

const ROOT = resolve(import.meta.dir, '..')
const SAMPLE = join(ROOT, 'test', 'mercado', 'fixtures', 'amostra')
const bun = process.execPath
const fmt = (n: number, d = 2) => n.toFixed(d)

// ------------------------------------------------------------------ the upstream stand-ins

const HEADLINES = readFileSync(join(ROOT, 'test', 'mercado', 'fixtures', 'manchetes-rotuladas.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t')[5]!)
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
const SUMMARY = 'O mercado acompanha os dados de inflação, a decisão de juros e o fluxo estrangeiro na bolsa; analistas ouvidos avaliam que o cenário segue incerto nas próximas semanas, com atenção ao câmbio e às commodities.'

/** A feed of `n` items in the outlet's format: RSS 2.0 (WordPress-like, CDATA HTML), RSS 0.91 in ISO-8859-1, or Atom. */
function syntheticFeed(kind: 'rss' | 'rss091' | 'atom', outlet: number, n: number, now: number): Uint8Array {
  const items = Array.from({ length: n }, (_, i) => {
    const title = HEADLINES[(outlet * 37 + i * 7) % HEADLINES.length]!
    const when = new Date(now - (i * 40 + outlet) * 60_000)
    const link = `https://veiculo${outlet}.exemplo.com.br/noticia/${i}-${outlet}/`
    if (kind === 'atom')
      return `<entry><author><name>Redação</name></author><title type="html"><![CDATA[${title}]]></title><link rel="alternate" type="text/html" href="${link}" /><id>${link}</id><updated>${when.toISOString()}</updated><published>${when.toISOString()}</published><summary type="html"><![CDATA[${SUMMARY} [&#8230;]]]></summary></entry>`
    if (kind === 'rss091') return `<item><title>${esc(title)}</title><link>${link}</link><pubDate>${when.toUTCString().replace('GMT', '-0000')}</pubDate><description>${esc(SUMMARY)}</description></item>`
    return `<item><title>${esc(title)}</title><link>${link}</link><dc:creator><![CDATA[Redação]]></dc:creator><pubDate>${when.toUTCString().replace('GMT', '+0000')}</pubDate><category><![CDATA[Mercados]]></category><description><![CDATA[<p>${SUMMARY}</p><p>O post <a href="${link}">${esc(title)}</a> apareceu primeiro em <a href="https://veiculo${outlet}.exemplo.com.br">Veículo ${outlet}</a>.</p>]]></description></item>`
  })
  if (kind === 'atom') return new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="pt-BR"><title type="text">Veículo ${outlet}</title><id>https://veiculo${outlet}.exemplo.com.br/feed/atom/</id><updated>${new Date(now).toISOString()}</updated>${items.join('\n')}</feed>`)
  if (kind === 'rss091') {
    const text = `<?xml version="1.0" encoding="ISO-8859-1"?>\n<rss version="0.91"><channel><title>Veículo ${outlet}</title><link>https://veiculo${outlet}.exemplo.com.br/</link><description>Mercado</description><language>pt-br</language>\n${items.join('\n')}</channel></rss>`
    return Uint8Array.from(text, (c) => (c.charCodeAt(0) < 256 ? c.charCodeAt(0) : 63))
  }
  return new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Veículo ${outlet}</title><link>https://veiculo${outlet}.exemplo.com.br</link><description>Mercado</description>\n${items.join('\n')}</channel></rss>`)
}

/**
 * Child mode: one replay server per upstream setting; news feeds synthetic at full size, the rest the
 * recorded answers (any query, so today's windows match). Prints {env: url} and serves until killed.
 */
async function serveUpstreams(fault: string) {
  const index = readRecordingIndex(join(SAMPLE, 'recordings.json'))
  const now = Date.now()
  const byEnv = new Map<string, Route[]>()
  let outlet = 0
  for (const r of index.respostas) {
    const list = byEnv.get(r.upstream) ?? []
    if (r.upstream.startsWith('NOTICIAS_')) {
      const kind = r.upstream === 'NOTICIAS_FOLHA_URL' ? 'rss091' : r.upstream === 'NOTICIAS_PORTAL_DO_BITCOIN_URL' ? 'atom' : 'rss'
      list.push({ path: '/', reply: { headers: r.headers, body: syntheticFeed(kind, outlet++, 100, now) } })
    } else list.push({ path: r.path, query: r.upstream === 'NOVADAX_URL' ? r.query : undefined, reply: { headers: r.headers, file: join(SAMPLE, r.file) } })
    byEnv.set(r.upstream, list)
  }
  const urls: Record<string, string> = {}
  for (const [env, routes] of byEnv) {
    const s = startReplay(routes)
    if (fault === 'slow') s.fault = { kind: 'slow', delayMs: 30_000 }
    urls[env] = s.url
  }
  console.log(JSON.stringify(urls))
  await Bun.sleep(1e9)
}

async function startUpstreams(fault: 'none' | 'slow') {
  const proc = Bun.spawn([bun, import.meta.path, '--upstreams', fault], { stdout: 'pipe', stderr: 'inherit' })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error('as fontes simuladas não subiram')
    text += new TextDecoder().decode(value)
  }
  return { proc, urls: JSON.parse(text.split('\n')[0]!) as Record<string, string> }
}

// ------------------------------------------------------------------ 1. refresh cost

/** Refreshes per hour at each feed's cadence; the price feed at its most (continuous traffic, refreshed ahead at 10 s). */
const PER_HOUR: Record<string, { n: number; why: string }> = {
  'mercado-noticias': { n: 4, why: 'a cada 15 min' },
  'mercado-sgs': { n: 1 / 24, why: 'diária' },
  'mercado-ptax': { n: 1, why: 'de hora em hora' },
  'mercado-focus': { n: 1 / 168, why: 'semanal' },
  'mercado-cripto': { n: 360, why: 'no máximo 360/h: tráfego contínuo, renovada adiantada a cada 10 s' },
}

async function refreshCost(work: string, repetitions: number) {
  const up = await startUpstreams('none')
  for (const [env, url] of Object.entries(up.urls)) process.env[env] = url
  const dataDir = join(work, 'custo')
  rmSync(dataDir, { recursive: true, force: true })
  const runner = new FeedRunner(MERCADO_FEEDS, { dataDir, log: createLogger('silent') })
  let total = 0
  try {
    console.log(`-- custo de CPU das atualizações (${repetitions} de cada; fontes simuladas em outro processo; ${machineLoad()}) --`)
    for (const feed of MERCADO_FEEDS) {
      await runner.refresh(feed.name) // warm: first parse, JIT
      const cpu = process.cpuUsage()
      const t = performance.now()
      for (let i = 0; i < repetitions; i++) await runner.refresh(feed.name)
      const used = process.cpuUsage(cpu)
      const perRefresh = (used.user + used.system) / 1e6 / repetitions
      const wall = (performance.now() - t) / 1000 / repetitions
      const hour = perRefresh * PER_HOUR[feed.name]!.n
      total += hour
      const size = readFileSync(join(dataDir, 'feeds', feed.name, '_.json')).length
      console.log(`${feed.name}: ${fmt(perRefresh * 1000, 1)} ms de CPU por atualização (${fmt(wall * 1000, 1)} ms de relógio; cópia de ${fmt(size / 1024, 0)} KiB), ${PER_HOUR[feed.name]!.why}: ${fmt(hour, 3)} CPU-s/h`)
    }
    console.log(`todas as fontes: ${fmt(total, 2)} CPU-s por hora (limite 30)`)
  } finally {
    up.proc.kill()
  }
}

// ------------------------------------------------------------------ 2. routes under load

/**
 * The time a request spends in the server itself (app.handle, no network, one at a time), the
 * upstreams taking 30 s: what the route costs, apart from the load generator and the machine's
 * other tenants (whose share inflates wrk's percentiles on a shared machine).
 */
async function inProcess(dataDir: string) {
  const up = await startUpstreams('slow')
  const before = { ...process.env }
  Object.assign(process.env, up.urls)
  const { createApp } = await import('../src/app')
  const { loadConfig } = await import('../src/core/config')
  const own = join(dataDir, '..', 'dados-processo')
  rmSync(own, { recursive: true, force: true })
  cpSync(dataDir, own, { recursive: true })
  const app = await createApp(loadConfig({ free: true, dataDir: own }, {}), { log: createLogger('silent') })
  try {
    console.log(`-- tempo dentro do servidor (app.handle, sem rede, um pedido por vez, 20 000 por rota; fontes lentas; ${machineLoad()}) --`)
    for (const r of ROUTES) {
      await app.handle(new Request(`http://localhost${r}`)) // the first: starts the refresh attempts (the prices wait at most 0.8 s)
      await Bun.sleep(900)
      const times: number[] = []
      for (let i = 0; i < 20_000; i++) {
        // Let timers and sockets run between requests, as a server's event loop does (a tight loop
        // of in-memory requests would starve them: the refreshes' timeouts would never fire).
        await new Promise((done) => setImmediate(done))
        const t = performance.now()
        const res = await app.handle(new Request(`http://localhost${r}`))
        await res.arrayBuffer()
        times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!
      console.log(`${r}: p50 ${fmt(q(0.5), 3)} ms, p99 ${fmt(q(0.99), 3)} ms, p99.9 ${fmt(q(0.999), 3)} ms, máx ${fmt(times[times.length - 1]!, 1)} ms`)
    }
  } finally {
    await app.close()
    up.proc.kill()
    for (const k of Object.keys(up.urls)) if (before[k] === undefined) delete process.env[k]
  }
}

const ROUTES = ['/v1/mercado/cambio', '/v1/mercado/noticias?tema=macro&por_pagina=50', '/v1/mercado/indicadores', '/v1/mercado/pacote', '/v1/mercado/amostra']

async function underLoad(work: string, connections: number, seconds: number) {
  if (!haveWrk()) return
  // The full-size copies of the cost measurement (300 merged headlines), made two days old: every
  // route finds its copies stale, tries a refresh, and must not wait on it.
  const dataDir = join(work, 'dados')
  rmSync(dataDir, { recursive: true, force: true })
  cpSync(join(work, 'custo'), dataDir, { recursive: true })
  const old = new Date(Date.now() - 2 * 86_400_000).toISOString()
  for (const feed of MERCADO_FEEDS) {
    const path = join(dataDir, 'feeds', feed.name, '_.json')
    const copy = JSON.parse(readFileSync(path, 'utf8'))
    writeFileSync(path, JSON.stringify({ ...copy, consultado_em: old, tentado_em: old, ultimo_erro: null, falhas: 0 }))
  }
  const news = JSON.parse(readFileSync(join(dataDir, 'feeds', 'mercado-noticias', '_.json'), 'utf8'))
  console.log(`cópias de dois dias atrás; notícias: ${news.dados.itens.length} manchetes depois da fusão`)
  await inProcess(dataDir)
  for (const scenario of ['lentas (30 s)', 'fora do ar'] as const) {
    const up = await startUpstreams(scenario === 'fora do ar' ? 'none' : 'slow')
    if (scenario === 'fora do ar') up.proc.kill() // the ports it had are now refused
    const server = await startServer({ data: dataDir, env: up.urls }).catch((e) => { up.proc.kill(); throw e })
    const base = server.base
    try {
      // Warm-up: each route once, so the first refresh attempts (and the bounded first wait of the prices) are behind.
      for (const r of ROUTES) await fetch(base + r)
      await Bun.sleep(1000)
      console.log(`-- rotas sob carga, fontes ${scenario}: wrk, ${connections} conexões, 2 threads, ${seconds} s por rota (${machineLoad()}) --`)
      for (const r of ROUTES) {
        // The server's CPU per answer: a figure the machine's other tenants barely move.
        const w = await wrk(base, r, { connections, seconds, cpuOf: [server.pid] })
        console.log(`${r}: ${w.rps} req/s, p50 ${fmt(w.p50)} ms, p99 ${fmt(w.p99)} ms, máx ${fmt(w.max)} ms, erros ${w.errors}, não-2xx ${w.non2xx}; CPU do servidor ${fmt(w.cpuUs, 0)} µs por resposta`)
      }
    } finally {
      await server.stop()
      up.proc.kill()
    }
  }
  const w = await withBareBun(1, (bare) => wrk(bare.base, '/', { connections, seconds }))
  console.log(`Bun puro (1 processo), mesma carga: ${w.rps} req/s, p50 ${fmt(w.p50)} ms, p99 ${fmt(w.p99)} ms (${machineLoad()})`)
}

if (args[0] === '--upstreams') await serveUpstreams(args[1] ?? 'none')
else {
  const work = resolve(opt('--work', '/tmp/dadosbr-bench-mercado'))
  mkdirSync(work, { recursive: true })
  process.chdir(ROOT)
  await refreshCost(work, Number(opt('--repeticoes', '20')))
  await underLoad(work, Number(opt('--conexoes', '32')), Number(opt('--segundos', '10')))
}
