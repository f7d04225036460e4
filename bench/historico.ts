// The registry's history on two consecutive synthetic months in the real format (dadosbr synth cnpj
// --mes 0 and --mes 1: openings, closings, moves, partner turnover...): what the comparison adds to
// the monthly ingest (time, CPU by step, peak memory), the month file's size (and a year of it,
// extrapolated to the national registry), then /historico, /mudancas (filters and pages of every
// kind) and the card ?referencia= under wrk, beside a bare Bun server in the same run.
// `bun bench/historico.ts [--companies 1000000,10000000] [--meses 2] [--work DIR] [--reuse] [--conexoes 16] [--segundos 10]`
// `bun bench/historico.ts --data DIR [--pre-leitura 1]`: the routes only, on a data folder already
// built with two months or more (a national one made by hand where the disk cannot hold the bench's
// own synthetic months beside two builds); with --pre-leitura 1, the server as shipped, measured
// once its prewarm has read what fits.
// With --meses 3 or more, each month after the second is compared through the fingerprints the one
// before kept (the monthly steady state); the routes ask the oldest month held (?referencia=) and
// the newest month's feed.
import { DuckDBInstance } from '@duckdb/node-api'
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { haveWrk, machineLoad, opt, benchArgs as args, startServer, startWarmServer, treeCpu, treeRss, withBareBun, wrk, synthDone } from './lib'
import { synthMonth } from '../ingest/cnpj/synth'

const given = opt('--data', '')
const sizes = given ? [0] : opt('--companies', '1000000').split(',').map(Number)
const warmServer = opt('--pre-leitura', '0') === '1'
const work = resolve(opt('--work', '/tmp/dadosbr-bench'))
const reuse = args.includes('--reuse')
const monthCount = Math.max(2, Number(opt('--meses', '2')))
const connections = Number(opt('--conexoes', '16'))
const seconds = Number(opt('--segundos', '10'))
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`
/** The national registry (docs/desempenho.md): the synthetic month of that size. */
const NATIONAL_ESTABLISHMENTS = 71_500_000

/** Bytes under a folder. */
function dirSize(dir: string): number {
  if (!existsSync(dir)) return 0
  return readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? dirSize(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)
}

/** Runs a command; samples its process tree's memory every 200 ms, with the time of each sample. */
async function run(cmd: string[]) {
  const started = performance.now()
  const proc = Bun.spawn(cmd, { stdout: 'inherit', stderr: 'inherit', env: { ...process.env, UV_THREADPOOL_SIZE: '8' } })
  const samples: [number, number][] = []
  const sampler = setInterval(() => samples.push([(performance.now() - started) / 1000, [...treeRss(proc.pid).values()].reduce((a, b) => a + b, 0)]), 200)
  await proc.exited
  clearInterval(sampler)
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')} saiu com ${proc.exitCode}`)
  return { seconds: (performance.now() - started) / 1000, samples }
}

for (const companies of sizes) {
  const data = given ? resolve(given) : join(work, `hist-data-${companies}`)
  const current = join(data, 'cnpj', 'current')
  // A folder given: its months are the ones its history holds.
  const months = given ? readdirSync(join(current, 'historico')).map((f) => f.replace(/\.sqlite$/, '')).sort() : Array.from({ length: monthCount }, (_, k) => synthMonth(k))
  const [oldest, newest] = [months[0]!, months.at(-1)!]
  console.log(`\n== histórico, ${given ? `${data} (${months.join(', ')})` : `${companies.toLocaleString('en')} empresas`} (${machineLoad()}) ==`)
  const src = months.map((_, k) => join(work, `hist-syn-${companies}-${k}`))
  for (const [k, dir] of given ? [] : src.entries())
    if (!synthDone(dir)) {
      const s = await run([bun, CLI, 'synth', 'cnpj', '--saida', dir, '--empresas', String(companies), '--mes', String(k), '--quiet'])
      console.log(`synth mês ${k}: ${fmt(s.seconds)} s`)
    }
  const done = given || (reuse && existsSync(join(current, 'historico', `${newest}.sqlite`)))
  if (!done) {
    rmSync(data, { recursive: true, force: true })
    for (const [k, month] of months.entries()) {
      const b = await run([bun, CLI, 'ingest', 'cnpj', '--from', src[k]!, '--mes', month, '--data', data, '--quiet'])
      if (k === 0) {
        console.log(`ingest ${month} (o primeiro mês, sem comparação): ${fmt(b.seconds)} s (${machineLoad()})`)
        continue
      }
      const m = JSON.parse(readFileSync(join(current, 'manifest.json'), 'utf8'))
      const phase = m.segundos.historico as number
      // The comparison is the build's last phase: its window is the build's last `phase` seconds (the swap after it is instant).
      const inPhase = b.samples.filter(([t]) => t >= b.seconds - phase - 0.5)
      const peak = Math.max(0, ...inPhase.map(([, rss]) => rss))
      const atStart = inPhase[0]?.[1] ?? 0
      const h = m.historico
      console.log(
        `ingest ${month}: ${fmt(b.seconds)} s, das quais a comparação com ${h.referencia_anterior} ${phase} s (${((100 * phase) / b.seconds).toFixed(1)} %; ${k === 1 ? 'os dois meses com hash' : 'com os hashes guardados pelo mês anterior'}), ` +
          `${m.cpu_segundos.historico} s de CPU (${JSON.stringify(h.cpu_segundos)}; segundos ${JSON.stringify(h.segundos)}); RSS da ingestão ao começar a comparação ${mb(atStart)}, pico nela ${mb(peak)} (+${mb(peak - atStart)}); ` +
          `pico da ingestão inteira ${mb(Math.max(...b.samples.map(([, r]) => r)))} (${machineLoad()})`,
      )
      // The month before's hashes are made only when its build did not keep them (the first comparison, a build of an older version).
      const before = h.segundos.impressoes_anterior ?? 0
      if (before) console.log(`sem as impressões do mês anterior (o caso mensal: a base anterior as guarda): a comparação leva ${fmt(phase - before)} s, ${fmt(m.cpu_segundos.historico - (h.cpu_segundos.impressoes_anterior ?? 0))} s de CPU`)
      console.log(`fases: ${JSON.stringify(m.segundos)}; CPU: ${JSON.stringify(m.cpu_segundos)}`)
    }
  }
  const m = JSON.parse(readFileSync(join(current, 'manifest.json'), 'utf8'))
  const h = m.historico
  const monthFile = statSync(join(current, 'historico', `${newest}.sqlite`)).size
  const establishments = m.linhas.estabelecimentos as number
  const perItem = monthFile / h.itens
  const nationalItems = (h.itens * NATIONAL_ESTABLISHMENTS) / establishments
  console.log(`mudanças em ${newest}: ${h.itens.toLocaleString('en')} (${((100 * h.itens) / establishments).toFixed(2)} por 100 estabelecimentos): ${JSON.stringify(h.por_tipo)}`)
  console.log(
    `arquivo do mês: ${mb(monthFile)}, ${perItem.toFixed(1)} bytes por mudança; em escala nacional (${NATIONAL_ESTABLISHMENTS.toLocaleString('en')} estabelecimentos, ` +
      `${Math.round(nationalItems).toLocaleString('en')} mudanças por mês na mesma proporção): ${mb(nationalItems * perItem)} por mês, ${((12 * nationalItems * perItem) / 1e9).toFixed(2)} GB por ano (extrapolado); ` +
      `impressoes/ da base: ${mb(dirSize(join(current, 'impressoes')))}`,
  )

  // What the routes are asked: CNPJs with changes and without; every filter kind, on pages from the first to the last.
  const db = await DuckDBInstance.create(join(current, 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
  const c = await db.connect()
  // Random CNPJs of the month before the newest (its build is kept beside the current one).
  const previous = readdirSync(join(data, 'cnpj')).find((d) => d.startsWith(`${months.at(-2)}_`) && existsSync(join(data, 'cnpj', d, 'cnpj.duckdb')))
  // Without it (a folder given whose month before was dropped), the month in use's.
  if (previous) await c.run(`ATTACH '${join(data, 'cnpj', previous, 'cnpj.duckdb')}' AS anterior (READ_ONLY)`)
  else console.log(`(sem a base de ${months.at(-2)}: CNPJs sorteados da base em uso)`)
  const random = (await c.runAndReadAll(`SELECT cnpj FROM ${previous ? 'anterior.' : ''}estabelecimentos USING SAMPLE 20000 ROWS`)).getRows().map((r) => String(r[0]))
  const municipios = (await c.runAndReadAll("SELECT municipio, count(*) n FROM estabelecimentos WHERE uf = 'SP' GROUP BY 1 ORDER BY 2 DESC LIMIT 3")).getRows().map((r) => String(r[0]))
  const cnaes = (await c.runAndReadAll('SELECT cnae_principal, count(*) n FROM estabelecimentos GROUP BY 1 ORDER BY 2 DESC LIMIT 3')).getRows().map((r) => String(r[0]))
  c.closeSync()
  db.closeSync()

  const server = warmServer ? await startWarmServer(data) : { ...(await startServer({ data, args: ['--pre-leitura', '0'] })), warm: [] as string[] }
  if (warmServer) console.log(`pré-leitura: ${server.warm.join('; ')} (${machineLoad()})`)
  try {
    const base = server.base
    const get = async (path: string) => (await fetch(base + path)).json() as Promise<any>
    // CNPJs with changes: 200 pages spread over the newest month's feed; for ?referencia=, those that were in the dump the month before (no abertura).
    const feedPages = Math.ceil(h.itens / 100)
    const seen = new Map<string, boolean>()
    for (let k = 0; k < Math.min(200, feedPages); k++) {
      const r = await get(`/v1/cnpj/mudancas?por_pagina=100&pagina=${1 + Math.floor((k * feedPages) / Math.min(200, feedPages))}`)
      for (const x of r.mudancas as { cnpj: string; tipo: string }[]) seen.set(x.cnpj, (seen.get(x.cnpj) ?? true) && x.tipo !== 'abertura' && x.tipo !== 'voltou_ao_cadastro')
    }
    const fill = (xs: string[]) => Array.from({ length: 15000 }, (_, k) => xs[k % xs.length]!)
    const changed = fill([...seen.keys()])
    // A CNPJ opened this month whose opening fell outside the pages read (only its partners' items
    // were seen) was not in the month before: asked as of then, a right 404. Each is asked once here.
    const candidates = [...seen].filter(([, then]) => then).map(([c]) => c)
    const inOldest: string[] = []
    for (const c of candidates) {
      if (inOldest.length >= 10000) break
      const r = await fetch(`${base}/v1/cnpj/empresa/${c}?referencia=${oldest}`)
      await r.arrayBuffer()
      if (r.status === 200) inOldest.push(c)
    }
    const changedThen = fill(inOldest)
    const filters: [string, string][] = [
      ['sem filtro', ''],
      ['tipo', 'tipo=endereco'],
      ['uf', 'uf=SP'],
      ['municipio', `municipio=${municipios[0]}`],
      ['cnae', `cnae=${cnaes[0]}`],
      ['tipo + uf + cnae', `tipo=abertura&uf=SP&cnae=${cnaes[1]}`],
      ['uf + cnae', `uf=MG&cnae=${cnaes[0]}`],
      ['municipio + cnae', `municipio=${municipios[1]}&cnae=${cnaes[2]}`],
      ['tipo + municipio', `tipo=contato&municipio=${municipios[2]}`],
    ]
    const pagesOf = async (query: string) => {
      const r = await get(`/v1/cnpj/mudancas?${query}&por_pagina=100`)
      const pages = Math.max(1, Math.ceil(r.total / 100))
      return { total: r.total as number, paths: Array.from({ length: 200 }, (_, k) => `/v1/cnpj/mudancas?${query}${query ? '&' : ''}por_pagina=100&pagina=${1 + Math.floor((k * pages) / 200)}`) }
    }
    const loads: [string, string[]][] = [
      [`/historico, CNPJs com mudanças`, changed.slice(0, 5000).map((x) => `/v1/cnpj/empresa/${x}/historico`)],
      [`/historico, CNPJs sorteados`, random.slice(0, 5000).map((x) => `/v1/cnpj/empresa/${x}/historico`)],
      [`/empresa?referencia=${oldest} (${months.length - 1} meses desfeitos), CNPJs com mudanças`, changedThen.slice(0, 5000).map((x) => `/v1/cnpj/empresa/${x}?referencia=${oldest}`)],
      [`/empresa?referencia=${oldest}, CNPJs sorteados`, random.slice(5000, 10000).map((x) => `/v1/cnpj/empresa/${x}?referencia=${oldest}`)],
      [`/completo?referencia=${oldest}, CNPJs com mudanças`, changedThen.slice(5000, 10000).map((x) => `/v1/cnpj/empresa/${x}/completo?referencia=${oldest}`)],
      [`/empresa (sem referencia), os mesmos sorteados`, random.slice(5000, 10000).map((x) => `/v1/cnpj/empresa/${x}`)],
    ]
    for (const [name, query] of filters) {
      const { total, paths } = await pagesOf(query)
      loads.push([`/mudancas ${name} (${total.toLocaleString('en')} mudanças, páginas da 1ª à última, 100 por página)`, paths])
    }
    console.log(`-- sob carga: wrk, ${connections} conexões, ${seconds} s por rota, ${server.processes} processos (${machineLoad()}) --`)
    if (!haveWrk()) continue
    // A freshly opened process compiles the history's code under the first load: 3 s of it, not
    // counted, over other CNPJs with changes than the routes below ask (where the feed has enough of them).
    const warmup = await wrk(base, changed.slice(10000, 15000).map((x) => `/v1/cnpj/empresa/${x}/historico`), { connections, seconds: 3 })
    console.log(`(aquecimento, não contado: ${warmup.rps} req/s, p99 ${fmt(warmup.p99)} ms)`)
    for (const [name, paths] of loads) {
      const cpu0 = treeCpu(server.pid)
      const r = await wrk(base, paths, { connections, seconds })
      const cpu = ((treeCpu(server.pid) - cpu0) * 1e6) / Math.max(1, r.requests)
      console.log(`${name}: ${r.rps} req/s, p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, p99 ${fmt(r.p99)} ms, máx. ${fmt(r.max)} ms, ${Math.round(r.bytesPerAnswer)} bytes/resposta, ${Math.round(cpu)} µs de CPU do servidor por pedido${r.errors || r.non2xx ? `, erros ${r.errors}, não 2xx ${r.non2xx}` : ''}`)
    }
    const bare = await withBareBun(1, (b) => wrk(b.base, ['/'], { connections, seconds }))
    console.log(`Bun puro (1 processo), mesma carga: ${bare.rps} req/s, p50 ${fmt(bare.p50)} ms, p95 ${fmt(bare.p95)} ms, p99 ${fmt(bare.p99)} ms (${machineLoad()})`)
    console.log(`RSS do servidor: ${mb([...treeRss(server.pid).values()].reduce((a, b) => a + b, 0))}`)
  } finally {
    await server.stop()
  }
  if (!reuse && !given) console.log(`(dados em ${data}; --reuse mede de novo sem construir)`)
}
