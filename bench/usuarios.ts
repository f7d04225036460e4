// For the users' features: (1) `dadosbr exportar cnpj` on a synthetic registry in the real format
// (wall, CPU, peak RSS, Parquet size, largest file) and DuckDB reading it back; (2) the cost of
// /metrics on the lookup benchmark: /v1/cnpj/situacao under wrk with metrics on and off, alternated,
// in the same run, beside a bare Bun server.
// `bun bench/usuarios.ts [--empresas 10000000] [--work DIR] [--reuse] [--dados DIR] [--segundos 10] [--so-metricas]`
// --dados DIR: a data folder already holding a registry build (make bench passes the one bench/registry.ts
// built at its largest size, so `make bench BENCH_ARGS="--companies 65000000"` exports the national registry).
import { DuckDBInstance } from '@duckdb/node-api'
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { haveWrk, machineLoad, startServer, withBareBun, wrk, type WrkResult, opt, benchArgs as args } from './lib'

/** 10 M companies: the largest the shared disk allows next to the others' work (dump + build + Parquet ~10 GB; the national size needs ~80 GB). */
const companies = Number(opt('--empresas', '10000000'))
const work = resolve(opt('--work', '/tmp/dadosbr-bench-usuarios'))
const seconds = Number(opt('--segundos', '10'))
const given = args.includes('--dados') ? resolve(opt('--dados', '')) : undefined
const reuse = args.includes('--reuse') || given !== undefined
const metricsOnly = args.includes('--so-metricas')
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const data = given ?? join(work, 'data')
const gb = (b: number) => `${(b / 1e9).toFixed(2)} GB`
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`

/** Resident memory of a process tree (bytes) and its CPU seconds (user + system, children included once they are reaped). */
function treeRss(pid: number): number {
  let total = 0
  try {
    total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
    for (const task of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) total += treeRss(Number(child))
  } catch {}
  return total
}

async function measured(cmd: string[], env: Record<string, string> = {}) {
  const started = performance.now()
  const proc = Bun.spawn(cmd, { stdout: 'inherit', stderr: 'inherit', env: { ...process.env, ...env } })
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(proc.pid))), 200)
  await proc.exited
  clearInterval(sampler)
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')} saiu com ${proc.exitCode}`)
  const usage = proc.resourceUsage()
  return { seconds: (performance.now() - started) / 1000, cpu: usage ? Number(usage.cpuTime.total) / 1e6 : NaN, peak }
}

function sizeOf(path: string): { bytes: number; files: number; largest: number } {
  const st = statSync(path)
  if (!st.isDirectory()) return { bytes: st.size, files: 1, largest: st.size }
  let bytes = 0, files = 0, largest = 0
  for (const entry of readdirSync(path)) {
    const s = sizeOf(join(path, entry))
    bytes += s.bytes
    files += s.files
    largest = Math.max(largest, s.largest)
  }
  return { bytes, files, largest }
}

console.log(`bench/usuarios.ts ${new Date().toISOString()}: ${companies.toLocaleString('pt-BR')} empresas sintéticas em ${work}; ${machineLoad()}`)
if (haveWrk()) console.log('wrk: ok')

if (!reuse && !metricsOnly) {
  rmSync(work, { recursive: true, force: true })
  const dump = join(work, 'dump', '2026-08')
  const synth = await measured([bun, CLI, 'synth', 'cnpj', '--saida', dump, '--empresas', String(companies), '--quiet'])
  console.log(`dump sintético: ${synth.seconds.toFixed(0)} s, ${gb(sizeOf(dump).bytes)} de zips`)
  const ingest = await measured([bun, CLI, 'ingest', 'cnpj', '--from', dump, '--data', data, '--quiet'])
  console.log(`ingest cnpj: ${ingest.seconds.toFixed(0)} s, pico ${gb(ingest.peak)}`)
  rmSync(join(work, 'dump'), { recursive: true, force: true })
}

if (!metricsOnly) {
  const build = join(data, 'cnpj', 'current')
  const manifest = JSON.parse(readFileSync(join(build, 'manifest.json'), 'utf8'))
  const duck = sizeOf(join(build, 'cnpj.duckdb')).bytes
  const out = join(work, 'parquet')
  rmSync(out, { recursive: true, force: true })
  const exp = await measured([bun, CLI, 'exportar', 'cnpj', '--saida', out, '--data', data, '--quiet'])
  const pq = sizeOf(join(out, 'cnpj'))
  const est = sizeOf(join(out, 'cnpj', 'estabelecimentos'))
  console.log(`exportar cnpj (${Object.entries(manifest.linhas).filter(([k]) => ['empresas', 'estabelecimentos', 'socios', 'simples'].includes(k)).map(([k, v]) => `${k} ${Number(v).toLocaleString('pt-BR')}`).join(', ')}):`)
  console.log(`  ${exp.seconds.toFixed(1)} s de relógio, ${exp.cpu.toFixed(1)} s de CPU, pico de RSS ${mb(exp.peak)}; ${machineLoad()}`)
  console.log(`  Parquet ${gb(pq.bytes)} em ${pq.files} arquivos (maior ${mb(pq.largest)}; estabelecimentos ${gb(est.bytes)}), contra cnpj.duckdb ${gb(duck)}`)
  const conn = await (await DuckDBInstance.create(':memory:')).connect()
  const q = async (label: string, sql: string) => {
    const t = performance.now()
    const rows = (await conn.runAndReadAll(sql)).getRows()
    console.log(`  DuckDB sobre o Parquet, ${label}: ${((performance.now() - t) / 1000).toFixed(2)} s (${rows.length} linhas)`)
  }
  await q('ativos por UF', `SELECT uf, count(*) FROM read_parquet('${out}/cnpj/estabelecimentos/*/*.parquet', hive_partitioning = true) WHERE situacao = '02' GROUP BY uf`)
  const cnae = (await conn.runAndReadAll(`SELECT cnae_principal FROM read_parquet('${out}/cnpj/estabelecimentos/uf=AC/*.parquet') GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`)).getRows()[0]?.[0]
  await q(`ativos de um CNAE (${cnae}) com a razão social`, `SELECT e.cnpj, m.razao_social FROM read_parquet('${out}/cnpj/estabelecimentos/*/*.parquet', hive_partitioning = true) e JOIN read_parquet('${out}/cnpj/empresas/*.parquet') m USING (cnpj_basico) WHERE e.cnae_principal = '${cnae}' AND e.situacao = '02'`)
  await q('uma UF (lê só a pasta uf=SP)', `SELECT count(*) FROM read_parquet('${out}/cnpj/estabelecimentos/*/*.parquet', hive_partitioning = true) WHERE uf = 'SP'`)
}

if (haveWrk() && existsSync(join(data, 'cnpj', 'current'))) {
  // CNPJs that exist, spread over the registry: each request a lookup of the card store.
  const conn = await (await DuckDBInstance.create(join(data, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })).connect()
  const cnpjs = (await conn.runAndReadAll(`SELECT cnpj FROM estabelecimentos USING SAMPLE 5000 ROWS`)).getRows().map((r) => `/v1/cnpj/situacao/${r[0]}`)
  conn.closeSync()
  // In-process first: the server's own CPU per request with and without metrics, no network nor load generator in between.
  {
    const { createApp } = await import('../src/app')
    const { loadConfig } = await import('../src/core/config')
    const { createLogger } = await import('../src/core/log')
    const apps = { on: await createApp(loadConfig({ free: true, dataDir: data, metrics: '1', prewarm: '0' }, {}), { log: createLogger('silent') }), off: await createApp(loadConfig({ free: true, dataDir: data, metrics: '0', prewarm: '0' }, {}), { log: createLogger('silent') }) }
    const requests = cnpjs.map((p) => `http://localhost${p}`)
    const perRequest = async (mode: 'on' | 'off', n: number) => {
      const t = performance.now()
      for (let i = 0; i < n; i++) await (await apps[mode].handle(new Request(requests[i % requests.length]!))).arrayBuffer()
      return ((performance.now() - t) * 1000) / n
    }
    await perRequest('on', 20_000)
    await perRequest('off', 20_000)
    const us: Record<'on' | 'off', number[]> = { on: [], off: [] }
    for (let round = 0; round < 6; round++) for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) us[mode].push(await perRequest(mode, 50_000))
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    console.log(`\n/metrics, no processo (app.handle, /v1/cnpj/situacao, 6 rodadas de 50 000 alternadas): ligadas ${median(us.on).toFixed(2)} µs/pedido, desligadas ${median(us.off).toFixed(2)} µs/pedido (medianas; rodadas ligadas ${us.on.map((x) => x.toFixed(2)).join(' ')}, desligadas ${us.off.map((x) => x.toFixed(2)).join(' ')}); ${machineLoad()}`)
    for (const a of Object.values(apps)) await a.close()
  }
  // Both servers up at once, short wrk bursts alternated between them: the shared machine's noise (others'
  // builds and tests) falls on both alike; the figure is the median of the paired ratios.
  const bursts = Number(opt('--rajadas', '10'))
  const burst = Number(opt('--rajada-segundos', '3'))
  console.log(`\n/metrics sob carga: /v1/cnpj/situacao com ${cnpjs.length} CNPJs, wrk -t2 -c32, ${bursts} rajadas de ${burst} s em cada servidor, alternadas, os dois servidores no ar ao mesmo tempo, 2 processos cada (o padrão aqui):`)
  // Each ready once all its processes have joined the port (startServer waits for their announcements).
  const serve = (metrics: string) => startServer({ data, args: ['--pre-leitura', '0', '--metricas', metrics] })
  const metricsOn = await serve('1')
  const servers = { on: metricsOn, off: await serve('0').catch(async (e) => { await metricsOn.stop(); throw e }) }
  const rounds: { on: WrkResult[]; off: WrkResult[] } = { on: [], off: [] }
  try {
    for (const s of Object.values(servers)) await wrk(s.base, cnpjs.slice(0, 500), { connections: 8, seconds: 3 })
    for (let round = 0; round < bursts; round++)
      for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) rounds[mode].push(await wrk(servers[mode].base, cnpjs, { connections: 32, seconds: burst }))
    const scraped = await (await fetch(`${servers.on.base}/metrics`)).text()
    console.log(`  raspagem: ${scraped.split('\n').find((l) => l.startsWith('dadosbr_http_requests_total{rota="/v1/cnpj/situacao/{cnpj}",status="200"}'))}`)
    const t = performance.now()
    for (let i = 0; i < 20; i++) await (await fetch(`${servers.on.base}/metrics`)).text()
    console.log(`  uma raspagem de /metrics: ${((performance.now() - t) / 20).toFixed(2)} ms`)
  } finally {
    for (const s of Object.values(servers)) await s.stop()
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  for (const mode of ['on', 'off'] as const)
    console.log(`  métricas ${mode === 'on' ? 'ligadas   ' : 'desligadas'}: req/s ${rounds[mode].map((r) => r.rps).join(' ')}; mediana ${median(rounds[mode].map((r) => r.rps))}, p50 ${median(rounds[mode].map((r) => r.p50)).toFixed(2)} ms, p99 ${median(rounds[mode].map((r) => r.p99)).toFixed(2)} ms, falhas ${rounds[mode].reduce((a, r) => a + r.errors + r.non2xx, 0)}`)
  const ratios = rounds.on.map((r, i) => r.rps / rounds.off[i]!.rps)
  console.log(`  ligadas/desligadas, rajada a rajada: ${ratios.map((x) => x.toFixed(3)).join(' ')}; mediana ${median(ratios).toFixed(3)}; ${machineLoad()}`)
  const on = median(rounds.on.map((r) => r.rps)), off = median(rounds.off.map((r) => r.rps))
  const bare = await withBareBun(1, (b) => wrk(b.base, ['/'], { connections: 32, seconds }))
  console.log(`  medianas: ligadas ${on} req/s, desligadas ${off} req/s; Bun puro ${bare.rps} req/s na mesma rodada`)
}
