// Procurement benchmark: a synthetic PNCP (ingest/licitacoes/synth.ts, the real JSON shape, one
// supplier root with 100 000 contracts) served by a local HTTP server in its own process; the sync
// of every day since 2021 (wall time, the sync's own CPU and peak memory, files); supplier lookups,
// the enriched profile and open tenders (PNCP 30 s slow, then down) under wrk, beside a bare Bun
// server in the same run.
//   bun bench/licitacoes.ts [--contratos 2000000] [--work DIR] [--reuse] [--concorrencia 8]
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { BIG_ROOT, cnpjOf, supplierOf, type SynthPlan } from '../ingest/licitacoes/synth'
import { DATASETS } from '../src/datasets/registry'
import { haveWrk, machineLoad, startServer, withBareBun, wrk, opt, benchArgs as args } from './lib'

const contratos = Number(opt('--contratos', '2000000'))
const work = resolve(opt('--work', '/tmp/dadosbr-bench-licitacoes'))
const reuse = args.includes('--reuse')
const concurrency = opt('--concorrencia', '8')
const plan: SynthPlan = { contratos, ate: '2026-10-31' }
const bun = process.execPath
const ROOT = resolve(import.meta.dir, '..')
const CLI = join(ROOT, 'src', 'cli.ts')
const dataDir = join(work, `dados-${contratos}`)
const fmt = (n: number) => n.toFixed(2)
const gb = (b: number) => `${(b / 1e9).toFixed(2)} GB`

function duBytes(dir: string): number {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) n += duBytes(p)
    else if (e.isFile()) n += statSync(p).size
  }
  return n
}

/** The synthetic PNCP in its own process (its CPU is not the sync's), on a port the system chooses (it prints its URL). */
async function startSynth() {
  const proc = Bun.spawn([bun, join(ROOT, 'ingest', 'licitacoes', 'synth.ts'), '--porta', '0', '--contratos', String(contratos)], { stdout: 'pipe', stderr: 'inherit' })
  const reader = proc.stdout.getReader()
  const { value } = await reader.read()
  reader.releaseLock()
  const { url } = JSON.parse(new TextDecoder().decode(value!).split('\n')[0]!) as { url: string }
  return { proc, url }
}

/** One load of 10 s under wrk, printed; nothing when wrk is missing (haveWrk says so once). */
async function show(label: string, base: string, paths: string[], connections: number) {
  if (!haveWrk()) return
  const r = await wrk(base, paths, { connections, seconds: 10 })
  console.log(`${label}: ${r.rps} req/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, máx ${fmt(r.max)} ms${r.errors || r.non2xx ? `, ${r.errors} erros, ${r.non2xx} não-2xx` : ''} (${machineLoad()})`)
}

mkdirSync(work, { recursive: true })
console.log(`licitações: ${contratos.toLocaleString('pt-BR')} contratos sintéticos de ${plan.ate.slice(0, 4)} para trás, desde 2021-01-01; pasta ${work}`)
const synth = await startSynth()
// Every other upstream at a closed local port: the server's other feeds never leave the machine.
const closed = Object.fromEntries(DATASETS.flatMap((d) => [...(d.upstreams ?? []), ...(d.feeds ?? []).flatMap((f) => f.upstreams)]).map((u) => [u.env, 'http://127.0.0.1:9']))
const upstreams = { ...closed, PNCP_URL: synth.url, UV_THREADPOOL_SIZE: '4' }
const env = { ...process.env, ...upstreams }
try {
  // 1. The sync of the whole history.
  if (!reuse || !existsSync(join(dataDir, 'licitacoes', 'current'))) {
    rmSync(dataDir, { recursive: true, force: true })
    const load = machineLoad()
    const started = performance.now()
    const proc = Bun.spawn([bun, CLI, 'ingest', 'licitacoes', '--desde', '2021-01-01', '--ate', plan.ate, '--concorrencia', concurrency, '--data', dataDir], { env, stdout: 'inherit', stderr: 'pipe' })
    const log = await new Response(proc.stderr).text()
    await proc.exited
    const seconds = (performance.now() - started) / 1000
    if (proc.exitCode !== 0) throw new Error(`ingest saiu com ${proc.exitCode}: ${log}`)
    const usage = proc.resourceUsage()!
    const cpu = Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6
    console.log(log.trim())
    console.log(`sincronização: ${seconds.toFixed(1)} s de relógio, ${cpu.toFixed(1)} s de CPU do ingest (${(cpu / 60).toFixed(1)} min), pico de memória ${gb(usage.maxRSS)}; antes: ${load}; depois: ${machineLoad()}`)
  }
  console.log(`arquivos: ${gb(duBytes(join(dataDir, 'licitacoes')))} em data/licitacoes (${readdirSync(join(dataDir, 'licitacoes')).join(', ')})`)

  // The other bases of the enriched profile: their bundled samples (registry, integrity, central bank).
  for (const base of ['cnpj', 'integridade', 'bcb']) {
    const p = Bun.spawn([bun, CLI, 'ingest', base, '--amostra', '--data', dataDir, '--quiet'], { env, stdout: 'ignore', stderr: 'inherit' })
    await p.exited
  }
  // The open tenders' copy, fetched once from the synthetic PNCP, then made older than its interval.
  await Bun.spawn([bun, CLI, 'atualizar', 'licitacoes-abertas', '--data', dataDir, '--quiet'], { env, stdout: 'ignore', stderr: 'inherit' }).exited
  const copyFile = join(dataDir, 'feeds', 'licitacoes-abertas', '6.json')
  const copy = JSON.parse(readFileSync(copyFile, 'utf8'))
  copy.consultado_em = new Date(Date.now() - 2 * 3600_000).toISOString()
  writeFileSync(copyFile, JSON.stringify(copy))
  console.log(`licitações abertas: cópia de ${copy.dados.oportunidades.length} oportunidades, envelhecida 2 h (além dos 30 min do intervalo)`)
  // PNCP now takes 30 s per answer.
  await fetch(`${synth.url}/_atraso?ms=30000`)

  // 2. The server.
  const server = await startServer({ data: dataDir, env: upstreams, echoWarnings: true })
  const base = server.base
  try {
    // Suppliers as the sync saw them: 2 000 roots drawn like the contracts, and the big one.
    const roots = new Set<string>()
    for (let n = 1; roots.size < 2000 && n < contratos; n += 9973) {
      const s = supplierOf(plan, n)
      roots.add(cnpjOf(s.root, s.branch))
    }
    const mixed = [...roots].map((c) => `/v1/licitacoes/fornecedor/${c}`)
    const big = `/v1/licitacoes/fornecedor/${cnpjOf(Number(BIG_ROOT), 1)}`
    const bigAnswer = await (await fetch(base + big)).json()
    console.log(`fornecedor grande: ${bigAnswer.resumo.total_contratos} contratos, ${bigAnswer.resumo.orgaos_distintos} órgãos, ${bigAnswer.contratos.length} listados`)
    const one = async (path: string, n = 200) => {
      const t: number[] = []
      for (let i = 0; i < n; i++) {
        const s = performance.now()
        await (await fetch(base + path)).arrayBuffer()
        t.push(performance.now() - s)
      }
      t.sort((a, b) => a - b)
      return { p50: t[Math.floor(n / 2)]!, p99: t[Math.floor(n * 0.99)]! }
    }
    const alone = await one(big)
    console.log(`fornecedor grande, um pedido por vez (fetch): p50 ${fmt(alone.p50)} ms, p99 ${fmt(alone.p99)} ms`)
    for (const c of [1, 4]) {
      await show(`fornecedores variados, wrk ${c} conexão(ões)`, base, mixed, c)
      await show(`fornecedor com ${bigAnswer.resumo.total_contratos} contratos, wrk ${c} conexão(ões)`, base, [big], c)
    }
    // The enriched profile of the registry sample's 11.222.333/0001-81: the root of the big supplier (100 000 contracts).
    const enrich = ['/v1/empresa/enriquecer/11222333000181', '/v1/empresa/enriquecer/33683111000280']
    const e = await (await fetch(base + enrich[0]!)).json()
    console.log(`perfil enriquecido de 11.222.333/0001-81: cadastro ${e.cadastro ? 'ok' : 'null'}, ${e.contratos_publicos?.resumo.total_contratos} contratos, integridade ${e.integridade ? 'ok' : 'null'}, banco central ${e.banco_central ? 'ok' : 'null'}`)
    await show('perfil enriquecido, wrk 1 conexão', base, enrich, 1)
    await show('perfil enriquecido, wrk 4 conexões', base, enrich, 4)
    // Open tenders while PNCP takes 30 s, then while it is down.
    const abertas = Array.from({ length: 20 }, (_, i) => `/v1/licitacoes/abertas?pagina=${i + 1}&por_pagina=50`)
    const status = async () => (await (await fetch(base + abertas[0]!)).json()).fonte.status
    console.log(`licitações abertas com o PNCP levando 30 s: fonte.status ${await status()}`)
    await show('licitações abertas, PNCP lento (30 s), wrk 4 conexões', base, abertas, 4)
    synth.proc.kill()
    await synth.proc.exited
    console.log(`licitações abertas com o PNCP fora do ar: fonte.status ${await status()}`)
    await show('licitações abertas, PNCP fora do ar, wrk 4 conexões', base, abertas, 4)
  } finally {
    await server.stop()
  }
  // The floor: a bare Bun server answering a fixed JSON, same load.
  await withBareBun(1, async (bare) => {
    await show('Bun puro, wrk 1 conexão', bare.base, ['/'], 1)
    await show('Bun puro, wrk 4 conexões', bare.base, ['/'], 4)
  })
} finally {
  synth.proc.kill()
  if (!args.includes('--manter')) rmSync(dataDir, { recursive: true, force: true })
}
