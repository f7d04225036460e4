// Tax reform at full size: a synthetic NCM table in the layout the Portal Único serves (~10 400
// subitems, every code the annexes of LC 214/2025 cite), its ingest timed through the CLI, then the
// server alone and under wrk (Debian package `wrk`; NOTES §1) beside a bare Bun server in the same run:
// NCM lookups (annex codes, short codes that split into several items, codes no annex cites, codes
// absent from the table; every year 2026-2033), term searches (annex words, NCM-description words,
// codes), and the calendar and the free sample.
// `bun bench/tributos.ts [--work DIR] [--segundos 10] [--conexoes 4,32]`. Figures go to stdout.
import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { synthTributos } from '../ingest/tributos/synth'
import { formatarNcm } from '../src/datasets/tributos/codigos'
import { haveWrk, machineLoad, timed, treeRss, meanOf, mirrored, startServer, withBareBun, wrk, opt, alone } from './lib'

const work = resolve(opt('--work', '/tmp/dadosbr-bench-tributos'))
const seconds = Number(opt('--segundos', '10'))
/** Concurrent connections of each load (wrk -c), each level a run: few for latency, many for throughput. */
const levels = opt('--conexoes', '4,32').split(',').map(Number)
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`
type Mean = ReturnType<typeof meanOf>

rmSync(work, { recursive: true, force: true })
const src = join(work, 'src')
const data = join(work, 'data')
console.log(`tributos: tabela NCM sintética no formato do Portal Único (${new Date().toISOString()}, ${machineLoad()})`)
const synthStart = performance.now()
const synth = synthTributos({ out: src })
console.log(`synth: ${fmt((performance.now() - synthStart) / 1000)} s, ${synth.codigos.toLocaleString('pt-BR')} códigos (${synth.subitens.toLocaleString('pt-BR')} de 8 dígitos), ${mb(readFileSync(synth.file).byteLength)}`)
const ing = await timed([bun, CLI, 'ingest', 'tributos', '--from', src, '--data', data])
console.log(`ingest tributos: ${fmt(ing.seconds)} s (processo inteiro, com a partida do bun), pico de RSS ${mb(ing.peak)}: ${ing.line}`)

// Requests. NCM: annex codes (dotted and not), the short codes the annexes cite (answers listing
// several items), codes no annex cites, codes absent from the table; the year cycles 2026-2033.
const ano = (i: number) => 2026 + (i % 8)
const citados8 = synth.citados.filter((c) => c.length === 8)
const curtos = synth.citados.filter((c) => c.length >= 4 && c.length < 8)
const ncm: string[] = []
for (let i = 0; i < 2400; i++) {
  const k = i % 6
  const c = k === 0 || k === 1 ? citados8[i % citados8.length]! : k === 2 ? curtos[i % curtos.length]! : k === 3 || k === 4 ? synth.outros[(i * 7) % synth.outros.length]! : String(98_000_000 + i * 37)
  ncm.push(`/v1/tributos/ncm/${i % 2 ? formatarNcm(c) : c}${i % 3 ? `?ano=${ano(i)}` : ''}`)
}
// Searches: words of the annexes' wording, of the NCM descriptions (made-up ones here), phrases,
// prefixes, codes, misses; the limit varies.
const termos = [
  'arroz', 'feijão', 'leite', 'carnes', 'farinha de trigo', 'pão francês', 'café', 'açúcar', 'manteiga', 'queijos', 'ovos', 'frutas', 'hortícolas',
  'mandioca', 'massas alimentícias', 'óleo de soja', 'sal', 'erva-mate', 'medicamentos', 'absorventes', 'fraldas', 'sabões', 'pasta de dentes',
  'insumos agropecuários', 'fertilizantes', 'sementes', 'cadeira de rodas', 'aparelhos auditivos', 'livros', 'produtos hortícolas', 'peixes',
  'crustáceos', 'automóveis', 'cerveja', 'bebidas açucaradas', 'tabaco', 'embarcações', 'veiculos', 'acucar', 'CAFE', 'galos', 'suínos',
  'máquinas', 'tecidos', 'alumínio', 'instrumentos', 'congelados', 'refinados', 'torrados', 'brinquedos', 'farm', 'lacti',
  '1006', '1006.30', '0207.14', '3004', '8703', 'zzzzzz', 'inexistente',
]
const busca = Array.from({ length: termos.length * 4 }, (_, i) => `/v1/tributos/busca?termo=${encodeURIComponent(termos[i % termos.length]!)}${i % 4 ? `&limite=${[5, 10, 30][i % 3]}` : ''}`)
const outras = ['/v1/tributos/calendario', '/v1/tributos/amostra']

if (!haveWrk()) process.exit(0)
for (const processes of [1, navigator.hardwareConcurrency]) {
  const server = await startServer({ data, processes })
  try {
    await alone(server.base, [...ncm.slice(0, 400), ...busca])
    const a = await alone(server.base, ncm)
    const b = await alone(server.base, [...busca, ...busca, ...busca, ...busca])
    const c = await alone(server.base, Array.from({ length: 400 }, () => outras[0]!))
    const d = await alone(server.base, Array.from({ length: 400 }, () => outras[1]!))
    const rss = [...treeRss(server.pid).values()].reduce((x, y) => x + y, 0)
    console.log(`\n-- ${processes} processo(s) do servidor (RSS ${mb(rss)} depois dos pedidos sem carga) --`)
    console.log(`sem carga (um pedido por vez): ncm p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms, máx ${fmt(a.max)} ms (${ncm.length} pedidos, maior resposta ${a.bytes} B)`)
    console.log(`  busca p50 ${fmt(b.p50)} ms, p99 ${fmt(b.p99)} ms, máx ${fmt(b.max)} ms (${busca.length * 4} pedidos, maior resposta ${b.bytes} B)`)
    console.log(`  calendario p50 ${fmt(c.p50)} ms, p99 ${fmt(c.p99)} ms (${c.bytes} B); amostra p50 ${fmt(d.p50)} ms, p99 ${fmt(d.p99)} ms (${d.bytes} B)`)
    // The machine is shared: each load twice, in the order ncm, busca, outras, bare, bare, outras, busca, ncm (mirrored);
    // the figures are the means.
    for (const connections of levels) {
      // With the server's CPU time per request (independent of what else runs on the machine).
      const load = (paths: string[]) => wrk(server.base, paths, { connections, seconds, cpuOf: [server.pid] })
      const bareLoad = () => withBareBun(processes, (bare) => wrk(bare.base, ['/'], { connections, seconds, cpuOf: bare.pids }))
      const runs = await mirrored([() => load(ncm), () => load(busca), () => load(outras)], bareLoad)
      const [n, s, o, bare] = [...runs.loads, runs.bare].map(meanOf) as [Mean, Mean, Mean, Mean]
      const pct = (rps: number) => `${((100 * rps) / bare.rps).toFixed(0)} % do Bun puro`
      const show = (label: string, r: Mean) => `${label} ${r.rps} req/s (${pct(r.rps)}; ${r.runs}), p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, máx ${fmt(r.max)} ms, CPU do servidor ${r.cpuUs.toFixed(0)} µs/pedido, erros ${r.errors}`
      console.log(`sob carga (wrk -t2 -c${connections}, ${seconds} s, cada carga duas vezes, médias): ${show('ncm', n)}`)
      console.log(`  ${show('busca', s)}`)
      console.log(`  ${show('calendario e amostra', o)}`)
      console.log(`  Bun puro (${processes} processo(s), mesma carga): ${bare.rps} req/s (${bare.runs}), p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms, CPU ${bare.cpuUs.toFixed(0)} µs/pedido (${machineLoad()})`)
    }
  } finally {
    await server.stop()
  }
}
