// The causal chains and the packs at real sizes:
//  1. The thermal feed's refresh on ONS's balance file at its December size (a whole synthetic year
//     in the exact format: 8 760 hours × 5 rows, ~3 MB) from a local stand-in: wall and CPU.
//  2. The cost of building each answer (service functions, no HTTP): a chain reads its sources and
//     applies its rule; the pack runs its 14 parts. The routes build once a second and serve bytes.
//  3. Every route under wrk (Debian package `wrk`; NOTES §1) over the bundled samples, every
//     polled upstream slow (30 s) and then down (each chain's sources find their copies stale and
//     try a refresh that must never be waited on), beside a bare Bun server under the same load;
//     plus the time inside the server (app.handle, one request at a time).
// `bun bench/cadeias.ts [--work DIR] [--segundos 8] [--conexoes 8,32]`.
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { INGESTS } from '../ingest/registry'
import { seededRandom } from '../ingest/lib/random'
import { startReplay } from '../ingest/lib/replay'
import { FeedRunner } from '../src/core/feeds/feed'
import { createLogger } from '../src/core/log'
import { CADEIAS_FEEDS } from '../src/datasets/cadeias'
import { DATASETS } from '../src/datasets/registry'
import { haveWrk, machineLoad, startServer, withBareBun, wrk, opt } from './lib'

const ROOT = resolve(import.meta.dir, '..')
const fmt = (n: number, d = 2) => n.toFixed(d)

// ------------------------------------------------------------------ 1. thermal feed at December size

function balancoAno(ano: number): string {
  const rnd = seededRandom(ano)
  const subs: [string, string, number][] = [['N  ', 'NORTE', 0.12], ['NE ', 'NORDESTE', 0.16], ['S  ', 'SUL', 0.17], ['SE ', 'SUDESTE/CENTRO-OESTE', 0.55]]
  const out = ['id_subsistema;nom_subsistema;din_instante;val_gerhidraulica;val_gertermica;val_gereolica;val_gersolar;val_carga;val_intercambio']
  const r3 = (x: number) => String(Math.round(x * 1000) / 1000)
  for (let t = Date.UTC(ano, 0, 1); t < Date.UTC(ano + 1, 0, 1); t += 3_600_000) {
    const d = new Date(t)
    const instante = `${d.toISOString().slice(0, 10)} ${String(d.getUTCHours()).padStart(2, '0')}:00:00`
    const carga = 75_000 + 9_000 * Math.sin(((d.getUTCHours() - 9) / 24) * 2 * Math.PI) + (rnd() - 0.5) * 2_000
    const termica = carga * (0.09 + rnd() * 0.04)
    let sums = [0, 0, 0, 0, 0]
    for (const [id, nome, f] of subs) {
      const v = [carga * f * 0.8, termica * f, 2_000 * f, 1_000 * f, carga * f]
      sums = sums.map((s, i) => s + Math.round(v[i]! * 1000) / 1000)
      out.push(`${id};${nome};${instante};${v.map(r3).join(';')};0`)
    }
    out.push(`SIN;SISTEMA INTERLIGADO NACIONAL;${instante};${sums.map(r3).join(';')};0`)
  }
  return out.join('\n') + '\n'
}

async function thermalRefresh(work: string) {
  const body = balancoAno(2025)
  const server = startReplay()
  server.on('/BALANCO_ENERGIA_SUBSISTEMA_2025.csv', { headers: { 'content-type': 'text/csv' }, body })
  process.env.ONS_BALANCO_URL = server.url
  try {
    for (let run = 1; run <= 3; run++) {
      const r = new FeedRunner(CADEIAS_FEEDS, { dataDir: join(work, 'termica'), log: createLogger('silent'), now: () => Date.parse('2025-12-31T15:00:00Z') })
      const cpu = process.cpuUsage()
      const t = performance.now()
      const copy = await r.refresh('cadeias-termica')
      const c = process.cpuUsage(cpu)
      console.log(
        `térmica, ano inteiro (${fmt(body.length / 1e6, 1)} MB, ${body.split('\n').length - 2} linhas), rodada ${run}: ${fmt(performance.now() - t, 0)} ms, CPU ${fmt((c.user + c.system) / 1000, 0)} ms; janela até ${(copy.dados as any).dia} (${machineLoad()})`,
      )
    }
  } finally {
    server.close()
    delete process.env.ONS_BALANCO_URL
  }
}

// ------------------------------------------------------------------ 2. building the answers

const ROUTES = ['energia_br', 'cafe_kc', 'soja_zs', 'capital_br', 'amostra'].map((r) => `/v1/cadeias/${r}`).concat(['/v1/pacotes/brasil', '/v1/pacotes/amostra'])
const UPSTREAM_ENVS = [...new Set(DATASETS.flatMap((d) => (d.feeds ?? []).flatMap((f) => f.upstreams.map((u) => u.env))))]

/** Stand-ins that take 30 s to answer anything (one per upstream setting), in this process. */
function slowUpstreams() {
  const servers = UPSTREAM_ENVS.map((env) => {
    const s = startReplay()
    s.fault = { kind: 'slow', delayMs: 30_000 }
    return [env, s] as const
  })
  return { urls: Object.fromEntries(servers.map(([e, s]) => [e, s.url])), close: () => servers.forEach(([, s]) => s.close()) }
}

const quantile = (times: number[], p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!

async function inProcess(dataDir: string) {
  const up = slowUpstreams()
  Object.assign(process.env, up.urls)
  const { createApp } = await import('../src/app')
  const { loadConfig } = await import('../src/core/config')
  const cadeias = await import('../src/datasets/cadeias/service')
  const pacotes = await import('../src/datasets/pacotes/service')
  const app = await createApp(loadConfig({ free: true, dataDir }, {}), { log: createLogger('silent') })
  try {
    console.log(`-- construir cada resposta (funções do serviço, sem HTTP nem cache; fontes lentas; ${machineLoad()}) --`)
    const builds: [string, () => Promise<unknown>][] = [
      ...(['energia_br', 'cafe_kc', 'soja_zs', 'capital_br'] as const).map((id) => [id, () => cadeias.cadeia(app.ctx, id)] as [string, () => Promise<unknown>]),
      ['pacotes/brasil', () => pacotes.brasil(app.ctx, new Request('http://localhost/v1/pacotes/brasil'), 'http://localhost')],
    ]
    for (const [name, build] of builds) {
      await build()
      const times: number[] = []
      for (let i = 0; i < 300; i++) {
        const t = performance.now()
        const out = await build()
        JSON.stringify(out)
        times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      console.log(`${name}: p50 ${fmt(quantile(times, 0.5), 3)} ms, p99 ${fmt(quantile(times, 0.99), 3)} ms`)
    }
    console.log(`-- tempo dentro do servidor (app.handle, sem rede, um pedido por vez, 20 000 por rota; ${machineLoad()}) --`)
    for (const r of ROUTES) {
      await app.handle(new Request(`http://localhost${r}`))
      const times: number[] = []
      for (let i = 0; i < 20_000; i++) {
        await new Promise((done) => setImmediate(done))
        const t = performance.now()
        await (await app.handle(new Request(`http://localhost${r}`))).arrayBuffer()
        times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      console.log(`${r}: p50 ${fmt(quantile(times, 0.5), 3)} ms, p99 ${fmt(quantile(times, 0.99), 3)} ms, máx ${fmt(times[times.length - 1]!, 1)} ms`)
    }
  } finally {
    await app.close()
    up.close()
    for (const k of UPSTREAM_ENVS) delete process.env[k]
  }
}

// ------------------------------------------------------------------ 3. routes under load

async function underLoad(work: string, dataDir: string, levels: number[], seconds: number) {
  if (!haveWrk()) return
  for (const scenario of ['lentas (30 s)', 'fora do ar'] as const) {
    const up = slowUpstreams()
    if (scenario === 'fora do ar') up.close() // their ports now refuse connections
    const server = await startServer({ data: dataDir, env: up.urls, logFile: join(work, 'servidor.log') }).catch((e) => { if (scenario !== 'fora do ar') up.close(); throw e })
    const base = server.base
    try {
      for (const r of ROUTES) await fetch(base + r)
      await Bun.sleep(1000)
      for (const connections of levels) {
        console.log(`-- rotas sob carga, fontes ${scenario}: wrk, ${connections} conexões, 2 threads, ${seconds} s por rota (${machineLoad()}) --`)
        for (const r of ROUTES) {
          const w = await wrk(base, r, { connections, seconds })
          console.log(`${r}: ${w.rps} req/s (${Math.round(w.bytesPerAnswer / 1024)} KB cada), p50 ${fmt(w.p50)} ms, p99 ${fmt(w.p99)} ms, máx ${fmt(w.max)} ms, erros ${w.errors}, não-2xx ${w.non2xx}`)
        }
      }
    } finally {
      await server.stop()
      if (scenario !== 'fora do ar') up.close()
    }
  }
  await withBareBun(1, async (bare) => {
    for (const connections of levels) {
      const w = await wrk(bare.base, '/', { connections, seconds })
      console.log(`Bun puro (1 processo), ${connections} conexões: ${w.rps} req/s, p50 ${fmt(w.p50)} ms, p99 ${fmt(w.p99)} ms (${machineLoad()})`)
    }
  })
}

const work = resolve(opt('--work', '/tmp/dadosbr-bench-cadeias'))
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
process.chdir(ROOT)
const dataDir = join(work, 'dados')
await thermalRefresh(work)
// Every bundled sample (the chains read four datasets, the pack seven): the copies are months old, so every source finds them stale.
const t = performance.now()
for (const d of INGESTS) await d.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
console.log(`amostras embutidas de todas as bases instaladas em ${fmt((performance.now() - t) / 1000, 1)} s`)
await inProcess(dataDir)
await underLoad(work, dataDir, opt('--conexoes', '8,32').split(',').map(Number), Number(opt('--segundos', '8')))
