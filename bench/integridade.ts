// Integrity screening and Banco Central lookups at full size: synthetic lists in the published
// format (CEIS 25 k rows, CNEP 3 k, CEPIM 4 k, leniency 200 agreements, MTE 800; BCB ~2 k
// institutions in five XLSX zips), both ingests timed through the CLI, then the server under wrk
// (Debian package `wrk`; NOTES §1) beside a bare Bun server in the same run.
// `bun bench/integridade.ts [--work DIR] [--segundos 10] [--conexoes 4,32]`. Figures go to stdout.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { synthBcb } from '../ingest/bcb/synth'
import { synthIntegridade } from '../ingest/integridade/synth'
import { completeCnpj } from '../src/core/documents'
import { machineLoad, timed } from './lib'

const args = process.argv.slice(2)
const opt = (name: string, fallback: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1]! : fallback }
const work = resolve(opt('--work', '/tmp/dadosbr-bench-integridade'))
const seconds = Number(opt('--segundos', '10'))
/** Concurrent connections of each load (wrk -c), each level a run: few for latency, many for throughput. */
const levels = opt('--conexoes', '4,32').split(',').map(Number)
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`

/** wrk with a Lua script cycling through `paths`, each thread from its own place; percentiles from wrk's histogram. */
async function wrk(base: string, paths: string[], conns: number) {
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
  const r = JSON.parse(line) as { requests: number; seconds: number; p50: number; p99: number; max: number; errors: number; non2xx: number }
  return { ...r, rps: Math.round(r.requests / r.seconds) }
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
  const port = 42000 + Math.floor(Math.random() * 9000)
  const proc = Bun.spawn([bun, '--max-http-header-size=1048576', CLI, 'serve', '--gratis', '--port', String(port), '--host', '127.0.0.1', '--data', data, '--log', 'warn', '--processos', String(processes)], { stdout: 'ignore', stderr: 'ignore' })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 400; i++) {
    if (await fetch(`${base}/v1/bcb/amostra`).then((r) => r.ok).catch(() => false)) break
    await Bun.sleep(25)
  }
  return { base, stop: async () => { proc.kill(); await proc.exited } }
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
const srcI = join(work, 'integridade')
const srcB = join(work, 'bcb')
const data = join(work, 'data')
console.log(`integridade e bcb: listas sintéticas no formato publicado (${new Date().toISOString()}, ${machineLoad()})`)
const synthStart = performance.now()
const { sancionados } = await synthIntegridade({ out: srcI })
const { raizes } = await synthBcb(srcB)
console.log(`synth: ${fmt((performance.now() - synthStart) / 1000)} s`)

const i1 = await timed([bun, CLI, 'ingest', 'integridade', '--from', srcI, '--data', data, '--quiet'])
const i2 = await timed([bun, CLI, 'ingest', 'bcb', '--from', srcB, '--data', data, '--quiet'])
const mi = JSON.parse(readFileSync(join(data, 'integridade', 'current', 'manifest.json'), 'utf8'))
const mb2 = JSON.parse(readFileSync(join(data, 'bcb', 'current', 'manifest.json'), 'utf8'))
const rows = (m: { arquivos: { linhas_mantidas?: number; linhas_descartadas?: number }[] }) => m.arquivos.reduce((n, a) => n + (a.linhas_mantidas ?? 0) + (a.linhas_descartadas ?? 0), 0)
console.log(`ingest integridade: ${fmt(i1.seconds)} s (processo inteiro, com a partida do bun), ${rows(mi).toLocaleString('pt-BR')} linhas lidas, registros ${JSON.stringify(mi.registros)}, pico de RSS ${mb(i1.peak)}`)
console.log(`ingest bcb: ${fmt(i2.seconds)} s, ${rows(mb2).toLocaleString('pt-BR')} linhas, ${mb2.raizes} raízes, pico de RSS ${mb(i2.peak)}`)
console.log(`as duas ingestões: ${fmt(i1.seconds + i2.seconds)} s (meta: ≤ 30 s)`)

// Requests: half with records (by the CNPJ filed, or another establishment of the root), half clean.
const misses = Array.from({ length: 2000 }, (_, i) => completeCnpj(String(95_000_000 + i * 13).padStart(8, '0') + '0001'))
const hits = sancionados.slice(0, 2000).map((c, i) => (i % 3 === 0 ? completeCnpj(c.slice(0, 8) + '0009') : c))
const triagem = hits.flatMap((h, i) => [`/v1/integridade/consulta/${h}`, `/v1/integridade/consulta/${misses[i]}`])
const bcb = raizes.slice(0, 1800).flatMap((r, i) => [i % 2 ? `/v1/bcb/instituicao/${r}` : `/v1/bcb/instituicao/${completeCnpj(r + '0001')}`, `/v1/bcb/instituicao/${misses[i]!.slice(0, 8)}`])

if (!Bun.which('wrk')) {
  console.log('wrk não instalado (apt-get install -y wrk): medidas sob carga puladas')
  process.exit(0)
}
for (const processes of [1, navigator.hardwareConcurrency]) {
  const server = await startServer(data, processes)
  try {
    await alone(server.base, triagem.slice(0, 400))
    const a = await alone(server.base, triagem.slice(400, 2400))
    const b = await alone(server.base, bcb.slice(0, 2000))
    console.log(`\n-- ${processes} processo(s) do servidor --`)
    console.log(`sem carga (um pedido por vez, 2000 pedidos): triagem p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms; bcb p50 ${fmt(b.p50)} ms, p99 ${fmt(b.p99)} ms`)
    // The machine is shared: each load runs twice, in the order triagem, bcb, bare, bare, bcb,
    // triagem, so a change in the others' load weighs on all three alike; the figures are the means.
    for (const connections of levels) {
      const t1 = await wrk(server.base, triagem, connections)
      const k1 = await wrk(server.base, bcb, connections)
      const b1 = await bareBun(processes, connections)
      const b2 = await bareBun(processes, connections)
      const k2 = await wrk(server.base, bcb, connections)
      const t2 = await wrk(server.base, triagem, connections)
      const mean = (a: Awaited<ReturnType<typeof wrk>>, b: Awaited<ReturnType<typeof wrk>>) => ({
        rps: Math.round((a.rps + b.rps) / 2), p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, errors: a.errors + b.errors + a.non2xx + b.non2xx, runs: `${a.rps} e ${b.rps}`,
      })
      const [t, k, bare] = [mean(t1, t2), mean(k1, k2), mean(b1, b2)]
      const pct = (rps: number) => `${((100 * rps) / bare.rps).toFixed(0)} % do Bun puro`
      console.log(`sob carga (wrk -t2 -c${connections}, ${seconds} s, cada carga duas vezes, médias): triagem ${t.rps} req/s (${pct(t.rps)}; ${t.runs}), p50 ${fmt(t.p50)} ms, p99 ${fmt(t.p99)} ms, erros ${t.errors}`)
      console.log(`  bcb ${k.rps} req/s (${pct(k.rps)}; ${k.runs}), p50 ${fmt(k.p50)} ms, p99 ${fmt(k.p99)} ms, erros ${k.errors}`)
      console.log(`  Bun puro (${processes} processo(s), mesma carga): ${bare.rps} req/s (${bare.runs}), p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms (${machineLoad()})`)
    }
  } finally {
    await server.stop()
  }
}
