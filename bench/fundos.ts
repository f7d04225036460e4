// Fund benchmark on synthetic CVM files at the real size, in the real format: 12 months of daily
// reports (~8 M rows), the registry, one portfolio month (~1.5 M rows). Figures: ingest wall time,
// CPU and peak memory, the build's size; then every route under wrk beside a bare Bun server in
// the same run (latency percentiles from wrk's histogram), and each route alone (one connection).
// `bun bench/fundos.ts [--work DIR] [--reuse] [--conexoes 4,32] [--segundos 10] [--classes 29000]`. Figures go to stdout.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { synthFundos, type SynthSummary } from '../ingest/fundos/synth'
import { haveWrk, machineLoad, startServer, treeRss, withBareBun, wrk, opt, alone, benchArgs as args } from './lib'

const work = resolve(opt('--work', '/tmp/dadosbr-bench-fundos'))
/** Serve the previous build again instead of ingesting (to iterate on the server). */
const reuse = args.includes('--reuse')
/** Concurrent connections of the load (wrk -c), each level a run. */
const levels = opt('--conexoes', '4,32').split(',').map(Number)
const seconds = Number(opt('--segundos', '10'))
/** Classes reporting as a whole (the real size: 29 000); fewer for a quick check of the bench itself, the rest scaled alike. */
const classes = Number(opt('--classes', '29000'))
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`

/** CPU seconds the whole machine spent busy, and per state, from /proc/stat (to say what else ran). */
function cpuTotals() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number)
  const idle = f[3]! + f[4]!
  const total = f.reduce((a, b) => a + b, 0)
  return { busy: (total - idle) / 100, total: total / 100 }
}

/** Runs a command: wall seconds, its CPU seconds (user + system), peak memory of its process tree, and the machine's busy CPU meanwhile. */
async function run(cmd: string[]) {
  const started = performance.now()
  const before = cpuTotals()
  const proc = Bun.spawn(cmd, { stdout: 'inherit', stderr: 'inherit' })
  let peak = 0
  const sampler = setInterval(() => { peak = Math.max(peak, [...treeRss(proc.pid).values()].reduce((a, b) => a + b, 0)) }, 200)
  await proc.exited
  clearInterval(sampler)
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')} saiu com ${proc.exitCode}`)
  const usage = proc.resourceUsage()!
  const after = cpuTotals()
  const wall = (performance.now() - started) / 1000
  const own = Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6
  return { seconds: wall, cpu: own, peak, othersCpu: Math.max(0, after.busy - before.busy - own) }
}

// --- synthetic files ---
const src = join(work, 'cvm')
const summaryFile = join(src, 'sintetico.json')
let synth: SynthSummary
if (existsSync(summaryFile)) synth = JSON.parse(readFileSync(summaryFile, 'utf8'))
else {
  const t = performance.now()
  const scale = classes / 29_000
  synth = await synthFundos({ outDir: src, quiet: true, classes, subclassClasses: Math.ceil(1000 * scale), portfolioRows: Math.ceil(1_450_000 * scale) })
  writeFileSync(summaryFile, JSON.stringify(synth))
  console.log(`sintético: ${fmt((performance.now() - t) / 1000)} s`)
}
const csvBytes = [...new Bun.Glob('*.zip').scanSync(src)].reduce((n, f) => n + statSync(join(src, f)).size, 0)
console.log(`arquivos: ${synth.meses.length} meses de informes (${synth.linhas_diarias.toLocaleString('pt-BR')} linhas, ${synth.classes.toLocaleString('pt-BR')} classes), carteira ${synth.competencia} (${synth.linhas_carteira.toLocaleString('pt-BR')} linhas); zips ${mb(csvBytes)}`)

// --- ingest ---
const data = join(work, 'data')
const dir = join(data, 'fundos', 'current')
if (!(reuse && existsSync(join(dir, 'manifest.json')))) {
  console.log(`-- ingestão (${machineLoad()}) --`)
  const r = await run([bun, CLI, 'ingest', 'fundos', '--from', src, '--data', data, '--quiet'])
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
  console.log(`ingest: ${fmt(r.seconds)} s, CPU ${fmt(r.cpu)} s, pico de RSS ${mb(r.peak)}; fases (s): ${JSON.stringify(manifest.segundos)}; ` +
    `CPU de outros processos na máquina durante a ingestão: ${fmt(r.othersCpu)} s (${fmt((100 * r.othersCpu) / (r.seconds * navigator.hardwareConcurrency))} % dos núcleos)`)
  console.log(`base: fundos.sqlite ${mb(statSync(join(dir, 'fundos.sqlite')).size)}; ${JSON.stringify(manifest.tabelas)}; ${(synth.linhas_diarias / r.seconds / 1e6).toFixed(2)} M linhas diárias/s de ponta a ponta`)
} else console.log('ingest: reaproveitada (--reuse)')

// --- routes ---
const rnd = (n: number) => Math.floor(Math.random() * n)
const classificacoes = ['Renda%20Fixa', 'acoes', 'multimercado', 'cambial']
const months = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).carteiras.competencias as { competencia: string }[]).map((c) => c.competencia)
const routes: [string, string[]][] = [
  ['fluxos', Array.from({ length: 60 }, (_, i) => `/v1/fundos/fluxos?dias=${i + 1}`)],
  ['consulta', [...synth.amostras.classes, '33683111000280'].map((c) => `/v1/fundos/consulta/${c}`)],
  ['ranking', Array.from({ length: 400 }, () => {
    const por = ['patrimonio', 'captacao', 'cotistas'][rnd(3)]
    return `/v1/fundos/ranking?por=${por}&dias=${1 + rnd(365)}&limite=${1 + rnd(50)}${rnd(2) ? `&classificacao=${classificacoes[rnd(4)]}` : ''}`
  })],
  ['carteira', synth.amostras.fundos_com_carteira.map((c) => `/v1/fundos/carteira/${c}`)],
  ['movimentacoes', months.flatMap((m) => [10, 20, 50].map((l) => `/v1/fundos/movimentacoes?competencia=${m}&limite=${l}`)).concat(['/v1/fundos/movimentacoes?limite=50'])],
  ['amostra', ['/v1/fundos/amostra']],
]
// The server's default process count (one per core, as in production); its warnings pass through, as before.
const server = await startServer({ data, echoWarnings: true })
try {
  console.log(`-- cada rota sozinha: uma conexão, um pedido por vez (${machineLoad()}) --`)
  for (const [name, paths] of routes) {
    await alone(server.base, paths.slice(0, 50)) // warm-up
    const r = await alone(server.base, paths)
    console.log(`${name}: p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms (${paths.length} caminhos)`)
  }
  for (const connections of levels) {
    console.log(`-- sob carga: wrk, ${connections} conexões, 2 threads, ${seconds} s por rota; servidor como em produção (um processo por núcleo) --`)
    if (!haveWrk()) break
    for (const [name, paths] of routes) {
      // CPU per answer: what the route costs the server, whatever else the shared machine runs.
      const r = await wrk(server.base, paths, { connections, seconds, cpuOf: [server.pid] })
      console.log(`${name}: ${r.rps} req/s, p50 ${fmt(r.p50)} ms, p90 ${fmt(r.p90)} ms, p99 ${fmt(r.p99)} ms, máx ${fmt(r.max)} ms, CPU do servidor ${fmt(r.cpuUs)} µs/resposta, ${fmt(r.bytesPerAnswer / 1000)} kB/resposta, erros ${r.errors}, não-2xx ${r.non2xx} (${machineLoad()})`)
    }
    // The same load against a bare Bun server, right after (the machine is shared: its state moves).
    const r = await withBareBun(1, (bare) => wrk(bare.base, ['/'], { connections, seconds, cpuOf: bare.pids }))
    console.log(`Bun puro (1 processo, resposta fixa), mesma carga: ${r.rps} req/s, p50 ${fmt(r.p50)} ms, p90 ${fmt(r.p90)} ms, p99 ${fmt(r.p99)} ms, CPU ${fmt(r.cpuUs)} µs/resposta (${machineLoad()})`)
  }
} finally {
  await server.stop()
}
