// Deforestation at full size: the two DETER zips generated in the published format (~400 k alerts
// over the whole history, the .dbf as pgsql2shp writes it) and a 5,570-row municipality table,
// ingested through the CLI (goal: ≤ 60 s); a synthetic registry for the supplier route; then every
// route alone and under wrk (Debian package `wrk`; NOTES §1) beside a bare Bun server in the same run.
// `bun bench/desmatamento.ts [--work DIR] [--segundos 8] [--conexoes 4,32] [--alertas 400000] [--empresas 200000]`.
import { DuckDBInstance } from '@duckdb/node-api'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { synthDeter } from '../ingest/desmatamento/synth'
import { seededRandom } from '../ingest/lib/random'
import { todosMunicipios } from '../ingest/desmatamento/microrregioes'
import { haveWrk, machineLoad, timed, meanOf, mirrored, startServer, withBareBun, wrk, opt, alone } from './lib'

const work = resolve(opt('--work', '/tmp/dadosbr-bench-desmatamento'))
const seconds = Number(opt('--segundos', '8'))
const levels = opt('--conexoes', '4,32').split(',').map(Number)
const alertas = Number(opt('--alertas', '400000'))
const empresas = Number(opt('--empresas', '200000'))
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`

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

if (!haveWrk()) process.exit(0)
for (const processes of [1, navigator.hardwareConcurrency]) {
  const server = await startServer({ data, processes })
  try {
    console.log(`\n-- ${processes} processo(s) do servidor --`)
    for (const [name, paths] of routes) {
      await alone(server.base, paths.slice(0, 200))
      const a = await alone(server.base, paths.slice(200, 2200).length ? paths.slice(200, 2200) : Array(2000).fill(paths[0]!))
      console.log(`sem carga (um pedido por vez): ${name} p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms`)
    }
    // The machine is shared: per level the routes run, then bare Bun twice, then the routes again
    // in reverse order (mirrored); the figures are the means of the two runs of each.
    for (const connections of levels) {
      const bareLoad = () => withBareBun(processes, (bare) => wrk(bare.base, ['/'], { connections, seconds }))
      const runs = await mirrored(routes.map(([, paths]) => () => wrk(server.base, paths, { connections, seconds, cpuOf: [server.pid] })), bareLoad)
      const bare = meanOf(runs.bare)
      console.log(`sob carga (wrk -t2 -c${connections}, ${seconds} s, cada carga duas vezes, médias):`)
      routes.forEach(([name], i) => {
        const [x, y] = runs.loads[i]!
        const m = meanOf([x, y])
        // With one server process, its CPU per answer (first run): a figure the other processes on the machine move little.
        const perAnswer = processes === 1 ? `, CPU do servidor ${x.cpuUs.toFixed(0)} µs por resposta` : ''
        console.log(`  ${name}: ${m.rps} req/s (${((100 * m.rps) / bare.rps).toFixed(0)} % do Bun puro; ${m.runs}), p50 ${fmt(m.p50)} ms, p99 ${fmt(m.p99)} ms (${fmt(x.p99)} e ${fmt(y.p99)}), erros ${m.errors}${perAnswer}`)
      })
      console.log(`  Bun puro (${processes} processo(s), mesma carga): ${bare.rps} req/s (${bare.runs}), p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms (${machineLoad()})`)
    }
  } finally {
    await server.stop()
  }
}
