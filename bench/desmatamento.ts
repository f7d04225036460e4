// Deforestation at full size: the two DETER zips generated in the published format (~400 k alerts
// over the whole history, the .dbf as pgsql2shp writes it) and a 5,570-row municipality table,
// ingested through the CLI (goal: ≤ 60 s); a synthetic registry for the supplier route; then every
// route alone and under wrk (Debian package `wrk`; NOTES §1) beside a bare Bun server in the same run.
// `bun bench/desmatamento.ts [--work DIR] [--segundos 8] [--conexoes 4,32] [--alertas 400000] [--empresas 200000]`.
import { DuckDBInstance } from '@duckdb/node-api'
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { synthDeter } from '../ingest/desmatamento/synth'
import { seededRandom } from '../ingest/lib/random'
import { todosMunicipios } from '../ingest/desmatamento/microrregioes'
import { machineLoad, timed } from './lib'

const args = process.argv.slice(2)
const opt = (name: string, fallback: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1]! : fallback }
const work = resolve(opt('--work', '/tmp/dadosbr-bench-desmatamento'))
const seconds = Number(opt('--segundos', '8'))
const levels = opt('--conexoes', '4,32').split(',').map(Number)
const alertas = Number(opt('--alertas', '400000'))
const empresas = Number(opt('--empresas', '200000'))
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`

type WrkResult = { requests: number; seconds: number; p50: number; p99: number; max: number; errors: number; non2xx: number; rps: number }

/** wrk with a Lua script cycling through `paths`, each thread from its own place; percentiles from wrk's histogram. */
async function wrk(base: string, paths: string[], conns: number): Promise<WrkResult> {
  const script = join(work, `wrk-${Math.random().toString(36).slice(2)}.lua`)
  writeFileSync(script, `
local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}
local i = 0
init = function(args) math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16)); i = math.random(0, #paths - 1) end
request = function() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"max":%f,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.connect + e.read + e.write + e.timeout, e.status))
end`)
  const proc = Bun.spawn(['wrk', '-t', '2', '-c', String(conns), '-d', `${seconds}s`, '--timeout', '10s', '-s', script, base], { stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(proc.stdout).text()
  await proc.exited
  rmSync(script)
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
  if (!line) throw new Error(`wrk sem resultado: ${out}`)
  const r = JSON.parse(line) as Omit<WrkResult, 'rps'>
  return { ...r, rps: Math.round(r.requests / r.seconds) }
}

/** CPU seconds (user + system) a process has used so far (/proc; 100 ticks a second). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Sequential requests, one at a time: latency with no queue. */
async function alone(base: string, paths: string[]) {
  const times: number[] = []
  for (const p of paths) {
    const t = performance.now()
    const r = await fetch(base + p)
    await r.arrayBuffer()
    if (r.status !== 200) throw new Error(`${p} -> ${r.status}`)
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.floor(times.length * 0.99)]! }
}

async function startServer(data: string, processes: number) {
  for (let attempt = 1; ; attempt++) {
    const port = 42000 + Math.floor(Math.random() * 9000)
    const proc = Bun.spawn([bun, '--max-http-header-size=1048576', CLI, 'serve', '--gratis', '--port', String(port), '--host', '127.0.0.1', '--data', data, '--log', 'warn', '--processos', String(processes)], { stdout: 'ignore', stderr: 'pipe' })
    const base = `http://127.0.0.1:${port}`
    const pid = proc.pid
    // The machine is shared: starting can take a while; a port taken by another run means another try.
    for (let i = 0; i < 2400 && proc.exitCode === null; i++) {
      if (await fetch(`${base}/v1/desmatamento/municipio/1500602`).then((r) => r.ok).catch(() => false)) return { base, pid, stop: async () => { proc.kill(); await proc.exited } }
      await Bun.sleep(25)
    }
    proc.kill()
    const err = await new Response(proc.stderr).text()
    if (attempt === 3) throw new Error(`o servidor não respondeu: ${err.trim().split('\n').slice(-3).join(' | ')}`)
  }
}

async function bareBun(processes: number, conns: number) {
  const port = 42000 + Math.floor(Math.random() * 9000)
  const code = `Bun.serve({ port: ${port}, hostname: '127.0.0.1', reusePort: ${processes > 1}, fetch: () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }) }); await Bun.sleep(1e9)`
  const procs = Array.from({ length: processes }, () => Bun.spawn([bun, '-e', code]))
  await Bun.sleep(400)
  try {
    return await wrk(`http://127.0.0.1:${port}`, ['/'], conns)
  } finally {
    for (const p of procs) p.kill()
  }
}

rmSync(work, { recursive: true, force: true })
const src = join(work, 'deter')
const rfb = join(work, 'rfb-2026-08')
const data = join(work, 'data')
console.log(`desmatamento: DETER sintético no formato publicado, ${alertas.toLocaleString('pt-BR')} alertas (${new Date().toISOString()}, ${machineLoad()})`)
let t = performance.now()
const synth = await synthDeter({ out: src, alertas })
console.log(`synth DETER: ${fmt((performance.now() - t) / 1000)} s; zips ${mb(statSync(join(src, 'deter-amz-public-2026out01.zip')).size)} + ${mb(statSync(join(src, 'deter-cerrado-nb-public-2026out01.zip')).size)}; ${JSON.stringify(synth)}`)

const ingest = await timed([bun, CLI, 'ingest', 'desmatamento', '--from', src, '--data', data, '--quiet'])
const manifest = JSON.parse(readFileSync(join(data, 'desmatamento', 'current', 'manifest.json'), 'utf8'))
const dbBytes = statSync(join(data, 'desmatamento', 'current', 'desmatamento.sqlite')).size
console.log(`ingest desmatamento: ${fmt(ingest.seconds)} s de relógio (processo inteiro, com a partida do bun; meta ≤ 60 s), ${fmt(ingest.cpu)} s de CPU, pico de RSS ${mb(ingest.peak)}; ` +
  `${(manifest.arquivos[0].linhas_mantidas + manifest.arquivos[0].anteriores_ao_corte + manifest.arquivos[1].linhas_mantidas + manifest.arquivos[1].anteriores_ao_corte).toLocaleString('pt-BR')} alertas lidos, ` +
  `${(manifest.projetos.amazonia.alertas_desde_corte + manifest.projetos.cerrado.alertas_desde_corte).toLocaleString('pt-BR')} desde o corte, ${manifest.municipios_com_alertas} municípios com alertas; desmatamento.sqlite ${mb(dbBytes)}`)
console.log(`  ${ingest.line}`)

// The registry, for the supplier route: synthetic, with the same TOM codes as the municipality table.
t = performance.now()
await timed([bun, CLI, 'synth', 'cnpj', '--saida', rfb, '--empresas', String(empresas), '--quiet'])
const cnpjIngest = await timed([bun, CLI, 'ingest', 'cnpj', '--from', rfb, '--mes', '2026-08', '--data', data, '--quiet'])
console.log(`cadastro sintético (${empresas.toLocaleString('pt-BR')} empresas) para /fornecedor: synth + ingest ${fmt((performance.now() - t) / 1000)} s (ingest ${fmt(cnpjIngest.seconds)} s)`)
const duck = await DuckDBInstance.create(join(data, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
const conn = await duck.connect()
const cnpjs = (await conn.runAndReadAll('SELECT cnpj FROM estabelecimentos USING SAMPLE 6000')).getRows().map((r) => String(r[0]))
const grandes = (await conn.runAndReadAll('SELECT min(cnpj) FROM estabelecimentos GROUP BY substr(cnpj, 1, 8) HAVING count(*) >= 4 LIMIT 500')).getRows().map((r) => String(r[0]))
conn.closeSync()
duck.closeSync()

const next = seededRandom(7)
const shuffle = <T>(a: T[]) => { for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(next() * (i + 1)); [a[i], a[j]] = [a[j]!, a[i]!] } return a }
const codes = todosMunicipios().map(([c]) => c)
const municipio = shuffle([...codes, ...Array.from({ length: 500 }, (_, i) => String(9_000_000 + i))]).map((c) => `/v1/desmatamento/municipio/${c}`)
const fornecedor = shuffle([...cnpjs, ...grandes]).map((c) => `/v1/desmatamento/fornecedor/${c}`)
// Rankings: every (por, bioma, dias) asked anew (the per-build cache bounds at 5000 answers, so most are computed).
const ranking = Array.from({ length: 6000 }, () => {
  const q = [`por=${next() < 0.7 ? 'municipio' : 'uf'}`, `dias=${1 + Math.floor(next() * 2000)}`, `limite=${1 + Math.floor(next() * 50)}`]
  const b = next()
  if (b < 0.35) q.push('bioma=amazonia')
  else if (b < 0.6) q.push('bioma=cerrado')
  return `/v1/desmatamento/ranking?${q.join('&')}`
})
const amostra = ['/v1/desmatamento/amostra']
const routes: [string, string[]][] = [['municipio', municipio], ['fornecedor', fornecedor], ['ranking', ranking], ['amostra', amostra]]

if (!Bun.which('wrk')) {
  console.log('wrk não instalado (apt-get install -y wrk): medidas sob carga puladas')
  process.exit(0)
}
for (const processes of [1, navigator.hardwareConcurrency]) {
  const server = await startServer(data, processes)
  try {
    console.log(`\n-- ${processes} processo(s) do servidor --`)
    for (const [name, paths] of routes) {
      await alone(server.base, paths.slice(0, 200))
      const a = await alone(server.base, paths.slice(200, 2200).length ? paths.slice(200, 2200) : Array(2000).fill(paths[0]!))
      console.log(`sem carga (um pedido por vez): ${name} p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms`)
    }
    // The machine is shared: per level the routes run, then bare Bun twice, then the routes again
    // in reverse order; the figures are the means of the two runs of each.
    for (const connections of levels) {
      const first = new Map<string, WrkResult>()
      // With one server process, its CPU per answer: a figure the other processes on the machine move little.
      const cpu = new Map<string, number>()
      for (const [name, paths] of routes) {
        const before = processes === 1 ? cpuOf(server.pid) : 0
        const r = await wrk(server.base, paths, connections)
        if (processes === 1) cpu.set(name, ((cpuOf(server.pid) - before) * 1e6) / r.requests)
        first.set(name, r)
      }
      const b1 = await bareBun(processes, connections)
      const b2 = await bareBun(processes, connections)
      const second = new Map<string, WrkResult>()
      for (const [name, paths] of [...routes].reverse()) second.set(name, await wrk(server.base, paths, connections))
      const bare = { rps: Math.round((b1.rps + b2.rps) / 2), p50: (b1.p50 + b2.p50) / 2, p99: (b1.p99 + b2.p99) / 2 }
      console.log(`sob carga (wrk -t2 -c${connections}, ${seconds} s, cada carga duas vezes, médias):`)
      for (const [name] of routes) {
        const [x, y] = [first.get(name)!, second.get(name)!]
        const rps = Math.round((x.rps + y.rps) / 2)
        const perAnswer = cpu.has(name) ? `, CPU do servidor ${cpu.get(name)!.toFixed(0)} µs por resposta` : ''
        console.log(`  ${name}: ${rps} req/s (${((100 * rps) / bare.rps).toFixed(0)} % do Bun puro; ${x.rps} e ${y.rps}), p50 ${fmt((x.p50 + y.p50) / 2)} ms, p99 ${fmt((x.p99 + y.p99) / 2)} ms (${fmt(x.p99)} e ${fmt(y.p99)}), erros ${x.errors + y.errors + x.non2xx + y.non2xx}${perAnswer}`)
      }
      console.log(`  Bun puro (${processes} processo(s), mesma carga): ${bare.rps} req/s (${b1.rps} e ${b2.rps}), p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms (${machineLoad()})`)
    }
  } finally {
    await server.stop()
  }
}
