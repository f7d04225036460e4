// The commodities dataset at real sizes:
//  1. `dadosbr ingest exportacoes --from DIR` over two synthetic ComexStat years in the exact format
//     (EXP_2024.csv and EXP_2025.csv, 1.5 M rows and ~117 MB each): wall, CPU, peak memory; and the
//     parse of one year alone.
//  2. The fire feed's refresh at fire-season size (7 daily INPE files of 14 000 rows, ~2 MB each, as
//     on 2026-09-26) from a local stand-in: CPU per refresh.
//  3. Every commodities route under wrk (Debian package `wrk`; NOTES §1) over copies months old (each
//     route tries a refresh and must not wait), while the upstreams take 30 s, then while they are
//     down, beside a bare Bun server under the same load; plus the time inside the server (app.handle).
// `bun bench/commodities.ts [--work DIR] [--segundos 10] [--conexoes 8,32]`.
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { commoditiesIngest } from '../ingest/commodities/command'
import { somarArquivo, novasSomas } from '../ingest/commodities/exportacoes'
import { writeSyntheticExp } from '../ingest/commodities/synth'
import { mercadoIngest } from '../ingest/mercado/command'
import { seededRandom } from '../ingest/lib/random'
import { startReplay } from '../ingest/lib/replay'
import { FeedRunner } from '../src/core/feeds/feed'
import { createLogger } from '../src/core/log'
import { COMMODITIES_FEEDS } from '../src/datasets/commodities'
import { haveWrk, machineLoad, startServer, withBareBun, wrk, opt } from './lib'

const ROOT = resolve(import.meta.dir, '..')
const bun = process.execPath
const CLI = join(ROOT, 'src', 'cli.ts')
const fmt = (n: number, d = 2) => n.toFixed(d)

// ------------------------------------------------------------------ 1. exports ingest

async function ingestExports(work: string, dataDir: string) {
  const dir = join(work, 'comexstat')
  mkdirSync(dir, { recursive: true })
  let t = performance.now()
  let bytes = 0
  for (const ano of [2024, 2025]) bytes += (await writeSyntheticExp(join(dir, `EXP_${ano}.csv`), ano)).bytes
  console.log(`-- exportações: 2 anos sintéticos no formato exato, 3 000 000 linhas, ${fmt(bytes / 1e6, 0)} MB, gerados em ${fmt((performance.now() - t) / 1000, 1)} s --`)
  for (let run = 1; run <= 2; run++) {
    t = performance.now()
    const child = Bun.spawn([bun, CLI, 'ingest', 'exportacoes', '--from', dir, '--data', dataDir, '--forcar', '--quiet'], { stdout: 'ignore', stderr: 'pipe' })
    const err = await new Response(child.stderr).text()
    if ((await child.exited) !== 0) throw new Error(`ingest falhou: ${err}`)
    const u = child.resourceUsage()!
    console.log(
      `dadosbr ingest exportacoes (rodada ${run}): ${fmt((performance.now() - t) / 1000, 1)} s, CPU ${fmt((Number(u.cpuTime.user) + Number(u.cpuTime.system)) / 1e6, 1)} s, pico ${fmt(u.maxRSS / 1024 / 1024, 0)} MB (${machineLoad()}): ${err.trim()}`,
    )
  }
  const cpu = process.cpuUsage()
  t = performance.now()
  const somas = novasSomas()
  await somarArquivo(Bun.file(join(dir, 'EXP_2025.csv')).stream() as unknown as AsyncIterable<Uint8Array>, 'EXP_2025.csv', somas)
  const c = process.cpuUsage(cpu)
  console.log(`um ano só (EXP_2025.csv, ${somas.linhas} linhas), leitura e somas no processo: ${fmt((performance.now() - t) / 1000, 1)} s, CPU ${fmt((c.user + c.system) / 1e6, 1)} s (limite do pedido: 30 s)`)
}

// ------------------------------------------------------------------ 2. fire refresh at season size

const INPE_HEADER = 'id,lat,lon,data_hora_gmt,satelite,municipio,estado,pais,municipio_id,estado_id,pais_id,numero_dias_sem_chuva,precipitacao,risco_fogo,bioma,frp\n'
function inpeFile(day: string, rows: number, seed: number): Uint8Array {
  const rnd = seededRandom(seed)
  const places = [['PORTEL', 'PARÁ', '1505809', '15', 'Amazônia'], ['ANGICAL', 'BAHIA', '2901403', '29', 'Cerrado'], ['POCONÉ', 'MATO GROSSO', '5106505', '51', 'Pantanal'], ['MORPARÁ', 'BAHIA', '2921609', '29', 'Caatinga'], ['SERTÃOZINHO', 'SÃO PAULO', '3551702', '35', 'Mata Atlântica']]
  const sats = ['AQUA_M-T', 'TERRA_M-T', 'NOAA-20', 'NPP-375D', 'GOES-19', 'GOES-19', 'GOES-19']
  let s = INPE_HEADER
  for (let i = 0; i < rows; i++) {
    const p = places[Math.floor(rnd() * places.length)]!
    const sat = sats[Math.floor(rnd() * sats.length)]!
    const met = sat.startsWith('GOES') || sat === 'NPP-375D' ? ',,' : `${Math.floor(rnd() * 60)},0,${rnd().toFixed(2)}`
    s += `${i.toString(16).padStart(8, '0')}-f497-3b55-a21b-b1016675aba4, ${(-3 - rnd() * 15).toFixed(6).padStart(10)}, ${(-40 - rnd() * 20).toFixed(6)},${day} 16:40:00,${sat},${p[0]},${p[1]},Brasil,${p[2]},${p[3]},33,${met},${p[4]},${(10 + rnd() * 200).toFixed(1)}\n`
  }
  return new TextEncoder().encode(s)
}

async function fireRefresh(work: string) {
  const now = Date.parse('2026-09-27T15:00:00Z')
  const server = startReplay()
  let bytes = 0
  for (let d = 20; d <= 26; d++) {
    const body = inpeFile(`2026-09-${d}`, 14_000, d)
    bytes += body.length
    server.on(`/diario/Brasil/focos_diario_br_202609${d}.csv`, { headers: { 'content-type': 'text/csv' }, body })
  }
  process.env.INPE_QUEIMADAS_URL = server.url
  const runner = new FeedRunner(COMMODITIES_FEEDS, { dataDir: join(work, 'fogo'), log: createLogger('silent'), now: () => now })
  try {
    for (const [label, at] of [['primeira consulta (7 arquivos)', now], ['consulta seguinte (relê os 2 últimos dias)', now + 3600_000]] as const) {
      const r = new FeedRunner(COMMODITIES_FEEDS, { dataDir: join(work, 'fogo'), log: createLogger('silent'), now: () => at })
      const cpu = process.cpuUsage()
      const t = performance.now()
      await r.refresh('commodities-fogo')
      const c = process.cpuUsage(cpu)
      console.log(`fogo, ${label}, ${fmt(bytes / 1e6, 1)} MB na janela: ${fmt(performance.now() - t, 0)} ms, CPU ${fmt((c.user + c.system) / 1000, 0)} ms`)
    }
    void runner
  } finally {
    server.close()
    delete process.env.INPE_QUEIMADAS_URL
  }
}

// ------------------------------------------------------------------ 3. routes under load

const ROUTES = ['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing', 'pacote', 'amostra'].map((r) => `/v1/commodities/${r}`)
const UPSTREAM_ENVS = ['OPEN_METEO_URL', 'OPEN_METEO_ARCHIVE_URL', 'INPE_QUEIMADAS_URL', 'ONS_EAR_URL', 'BCB_OLINDA_URL', 'BCB_SGS_URL']

/** Stand-ins that take 30 s to answer anything (one per upstream setting), in this process. */
function slowUpstreams() {
  const servers = UPSTREAM_ENVS.map((env) => {
    const s = startReplay()
    s.fault = { kind: 'slow', delayMs: 30_000 }
    return [env, s] as const
  })
  return { urls: Object.fromEntries(servers.map(([e, s]) => [e, s.url])), close: () => servers.forEach(([, s]) => s.close()) }
}

async function inProcess(dataDir: string) {
  const up = slowUpstreams()
  Object.assign(process.env, up.urls)
  const { createApp } = await import('../src/app')
  const { loadConfig } = await import('../src/core/config')
  const app = await createApp(loadConfig({ free: true, dataDir }, {}), { log: createLogger('silent') })
  try {
    console.log(`-- tempo dentro do servidor (app.handle, sem rede, um pedido por vez, 20 000 por rota; fontes lentas; ${machineLoad()}) --`)
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
      const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!
      console.log(`${r}: p50 ${fmt(q(0.5), 3)} ms, p99 ${fmt(q(0.99), 3)} ms, máx ${fmt(times[times.length - 1]!, 1)} ms`)
    }
  } finally {
    await app.close()
    up.close()
    for (const k of UPSTREAM_ENVS) delete process.env[k]
  }
}

async function underLoad(work: string, dataDir: string, levels: number[], seconds: number) {
  if (!haveWrk()) return
  await inProcess(dataDir)
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
          console.log(`${r}: ${w.rps} req/s, p50 ${fmt(w.p50)} ms, p99 ${fmt(w.p99)} ms, máx ${fmt(w.max)} ms, erros ${w.errors}, não-2xx ${w.non2xx}`)
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

const work = resolve(opt('--work', '/tmp/dadosbr-bench-commodities'))
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
process.chdir(ROOT)
const dataDir = join(work, 'dados')
await ingestExports(work, dataDir)
await fireRefresh(work)
// The feeds' copies: the recorded samples (months old, so every route finds them stale); the exports: the full-size build above.
const ctx = { flags: {}, dataDir, quiet: true, log: () => {} }
await mercadoIngest.sample(ctx, false)
await commoditiesIngest.sample(ctx, false)
await underLoad(work, dataDir, opt('--conexoes', '8,32').split(',').map(Number), Number(opt('--segundos', '10')))
