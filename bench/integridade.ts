// Integrity screening and Banco Central lookups at full size: synthetic lists in the published
// format (CEIS 25 k rows, CNEP 3 k, CEPIM 4 k, leniency 200 agreements, MTE 800; BCB ~2 k
// institutions in five XLSX zips), both ingests timed through the CLI, then the server under wrk
// (Debian package `wrk`; NOTES §1) beside a bare Bun server in the same run.
// `bun bench/integridade.ts [--work DIR] [--segundos 10] [--conexoes 4,32]`. Figures go to stdout.
import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { synthBcb } from '../ingest/bcb/synth'
import { synthIntegridade } from '../ingest/integridade/synth'
import { completeCnpj } from '../src/core/documents'
import { haveWrk, machineLoad, timed, meanOf, mirrored, startServer, withBareBun, wrk, opt, alone } from './lib'

const work = resolve(opt('--work', '/tmp/dadosbr-bench-integridade'))
const seconds = Number(opt('--segundos', '10'))
/** Concurrent connections of each load (wrk -c), each level a run: few for latency, many for throughput. */
const levels = opt('--conexoes', '4,32').split(',').map(Number)
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`
type Mean = ReturnType<typeof meanOf>

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

if (!haveWrk()) process.exit(0)
for (const processes of [1, navigator.hardwareConcurrency]) {
  const server = await startServer({ data, processes })
  try {
    await alone(server.base, triagem.slice(0, 400))
    const a = await alone(server.base, triagem.slice(400, 2400))
    const b = await alone(server.base, bcb.slice(0, 2000))
    console.log(`\n-- ${processes} processo(s) do servidor --`)
    console.log(`sem carga (um pedido por vez, 2000 pedidos): triagem p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms; bcb p50 ${fmt(b.p50)} ms, p99 ${fmt(b.p99)} ms`)
    // The machine is shared: each load twice, in the order triagem, bcb, bare, bare, bcb, triagem (mirrored); the figures
    // are the means.
    for (const connections of levels) {
      const load = (paths: string[]) => wrk(server.base, paths, { connections, seconds })
      const bareLoad = () => withBareBun(processes, (bare) => wrk(bare.base, ['/'], { connections, seconds }))
      const runs = await mirrored([() => load(triagem), () => load(bcb)], bareLoad)
      const [t, k, bare] = [...runs.loads, runs.bare].map(meanOf) as [Mean, Mean, Mean]
      const pct = (rps: number) => `${((100 * rps) / bare.rps).toFixed(0)} % do Bun puro`
      console.log(`sob carga (wrk -t2 -c${connections}, ${seconds} s, cada carga duas vezes, médias): triagem ${t.rps} req/s (${pct(t.rps)}; ${t.runs}), p50 ${fmt(t.p50)} ms, p99 ${fmt(t.p99)} ms, erros ${t.errors}`)
      console.log(`  bcb ${k.rps} req/s (${pct(k.rps)}; ${k.runs}), p50 ${fmt(k.p50)} ms, p99 ${fmt(k.p99)} ms, erros ${k.errors}`)
      console.log(`  Bun puro (${processes} processo(s), mesma carga): ${bare.rps} req/s (${bare.runs}), p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms (${machineLoad()})`)
    }
  } finally {
    await server.stop()
  }
}
