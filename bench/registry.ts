// Registry benchmark on synthetic dumps in the real format: ingest time, peak memory and file
// sizes; lookup latency and throughput (beside a bare Bun Response); search latency, alone and
// under concurrent load (wrk, beside a bare Bun server); server RSS.
// `bun bench/registry.ts [--companies 1000000,5000000] [--work DIR] [--reuse] [--pausar-damon] [--so-busca] [--sem-pares]`. Figures go to stdout.
import { DuckDBInstance } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { haveWrk, machineLoad, startServer, treeRss, withBareBun, wrk, opt, benchArgs as args, synthDone } from './lib'

const sizes = opt('--companies', '1000000').split(',').map(Number)
const work = resolve(opt('--work', '/tmp/dadosbr-bench'))
/** Serve an earlier build of the same size again instead of ingesting (to iterate on the server). */
const reuse = args.includes('--reuse')
/** Also measure the server with the kernel's DAMON page-out paused (root; restored afterwards). */
const pauseDamon = args.includes('--pausar-damon')
/** Only synth + ingest, no server measurements. */
const ingestOnly = args.includes('--so-ingestao')
/** Only the search measurements (alone and under load) on the server as shipped: to iterate on the search. */
const searchOnly = args.includes('--so-busca')
/**
 * Also measure the searches without the pair tokens, on the same build (docs/busca.md): the
 * indexes' `frequente` table is renamed away, so the server searches the plain way, as a build made
 * before the pairs, then put back. Beside the figures with pairs, in the same run.
 */
const comparePlain = args.includes('--sem-pares')
/** Concurrent connections of the search load (wrk -c), each level a run. */
const searchConnections = opt('--conexoes', '4,16').split(',').map(Number)
const DAMON = '/sys/kernel/mm/damon/admin/kdamonds/0/state'
const damonState = () => { try { return readFileSync(DAMON, 'utf8').trim() } catch { return 'ausente' } }
const setDamon = (state: 'on' | 'off') => writeFileSync(DAMON, state)
const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]! }
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`

/** What a process of the ingest is, from its command line. */
function labelOf(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    const i = args.indexOf('--tipo')
    return i >= 0 ? `índice de ${args[i + 1]}` : args.includes('ingest') ? 'ingest' : (args[0] ?? '?')
  } catch {
    return '?'
  }
}

/**
 * Runs a command; its peak memory is the peak of the sum over its process tree, sampled every
 * 200 ms (the ingest runs the name indexes in children, and getrusage reports one process only),
 * and each kind of process's own peak.
 */
async function run(cmd: string[]) {
  const started = performance.now()
  const proc = Bun.spawn(cmd, { stdout: 'inherit', stderr: 'inherit' })
  let peak = 0
  const peakBy = new Map<string, number>()
  const labels = new Map<number, string>()
  const sampler = setInterval(() => {
    const rss = treeRss(proc.pid)
    peak = Math.max(peak, [...rss.values()].reduce((a, b) => a + b, 0))
    for (const [pid, bytes] of rss) {
      if (!labels.has(pid)) labels.set(pid, labelOf(pid))
      const label = labels.get(pid)!
      peakBy.set(label, Math.max(peakBy.get(label) ?? 0, bytes))
    }
  }, 200)
  await proc.exited
  clearInterval(sampler)
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')} saiu com ${proc.exitCode}`)
  return { seconds: (performance.now() - started) / 1000, maxRssBytes: peak, peakBy }
}

async function timed(urls: string[], repeat = 1) {
  const times: number[] = []
  for (let k = 0; k < repeat; k++)
    for (const url of urls) {
      const t = performance.now()
      const r = await fetch(url)
      await r.arrayBuffer()
      if (r.status !== 200) throw new Error(`${url} -> ${r.status}`)
      times.push(performance.now() - t)
    }
  return { p50: pct(times, 0.5), p95: pct(times, 0.95), p99: pct(times, 0.99), n: times.length }
}

async function load(urls: string[], seconds = 10, concurrency = 32) {
  const file = join(work, `urls-${Math.random().toString(36).slice(2)}.txt`)
  writeFileSync(file, urls.join('\n'))
  const proc = Bun.spawn([bun, resolve(import.meta.dir, 'load.ts'), file, String(seconds), String(concurrency)], { stdout: 'pipe' })
  const result = JSON.parse(await new Response(proc.stdout).text()) as { rps: number; p50: number; p99: number; errors: number }
  rmSync(file)
  return result
}

/** The load average and the CPU share other processes took during a measurement (the machine is shared). */

/** The server's processes (serve --processos): resident memory summed now and at each one's peak. Shared library pages count once per process, so the sum overstates. */
const rssOf = (pid: number) => {
  const statuses = [...treeRss(pid).keys()].map((p) => readFileSync(`/proc/${p}/status`, 'utf8'))
  const field = (name: string) => statuses.reduce((n, status) => n + Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)![1]) * 1024, 0)
  return { processes: statuses.length, rss: field('VmRSS'), hwm: field('VmHWM') }
}

/** A bare Bun server answering a fixed JSON, in `processes` processes sharing the port as the server's do; the same load against it. */
const bareBunLoad = (processes: number) => withBareBun(processes, (bare) => load([`${bare.base}/`]))

/** Empties the OS page cache (root only), so the next reads of the served files come from disk. */
function dropPageCache(): boolean {
  return Bun.spawnSync(['sh', '-c', 'sync && echo 3 > /proc/sys/vm/drop_caches'], { stderr: 'ignore' }).exitCode === 0
}

/**
 * The server (startServer), with the prewarm's log lines: `prewarmed` resolves with them once the
 * prewarm logged its last file (or the server exited without); `firstAnswerSeconds` is the time from
 * the spawn to the first process's announcement that it listens (it answers from then on).
 */
async function startRegistryServer(data: string, flags: string[]) {
  const started = performance.now()
  let firstAnswerSeconds = NaN
  const warmLines: string[] = []
  let warmed: (lines: string) => void = () => {}
  const prewarmLog = new Promise<string>((done) => (warmed = done))
  const server = await startServer({
    data,
    args: flags,
    echoWarnings: true,
    onLine: (line) => {
      if (Number.isNaN(firstAnswerSeconds) && line.includes(' ouvindo em ')) firstAnswerSeconds = (performance.now() - started) / 1000
      // The prewarm logs each file it reads (cnpj.duckdb last), the one it reads in part, or the one it skips.
      const last = line.includes('sem memória') || line.includes('lido em parte') || (line.includes('cnpj.duckdb') && line.includes('cache de páginas'))
      if (last || line.includes('cache de páginas')) warmLines.push(`${fmt((performance.now() - started) / 1000)} s: ${line.replace(/^\S+ \w+ /, '')}`)
      if (last) warmed(warmLines.join('; '))
    },
  })
  const prewarmed = Promise.race([prewarmLog, server.exited.then(() => warmLines.join('; ') || 'sem registro')])
  return { ...server, firstAnswerSeconds, prewarmed }
}

for (const companies of sizes) {
  const src = join(work, `syn-${companies}`)
  const data = join(work, `data-${companies}`)
  console.log(`\n== ${companies.toLocaleString('en')} empresas ==`)
  if (!synthDone(src)) {
    const s = await run([bun, CLI, 'synth', 'cnpj', '--saida', src, '--empresas', String(companies), '--quiet'])
    console.log(`synth: ${fmt(s.seconds)} s`)
  }
  const dir = join(data, 'cnpj', 'current')
  const reused = reuse && existsSync(join(dir, 'manifest.json'))
  const ingest = reused ? undefined : await run([bun, CLI, 'ingest', 'cnpj', '--from', src, '--mes', '2026-08', '--data', data, '--quiet'])
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
  const csv = manifest.arquivos.reduce((n: number, a: { bytes_csv: number }) => n + a.bytes_csv, 0)
  if (ingest) console.log(`ingest: ${fmt(ingest.seconds)} s total (${JSON.stringify(manifest.segundos)}; CPU em s: ${JSON.stringify(manifest.cpu_segundos)}), ${manifest.linhas.estabelecimentos.toLocaleString('en')} estabelecimentos, CSV ${mb(csv)} (${fmt(csv / 1e6 / ingest.seconds)} MB/s), pico de RSS somando os processos ${mb(ingest.maxRssBytes)} (pico de cada um: ${[...ingest.peakBy].map(([k, v]) => `${k} ${mb(v)}`).join(', ')})`)
  else console.log(`ingest: reaproveitada (--reuse) a base de ${manifest.construido_em}, ${JSON.stringify(manifest.segundos)}`)
  console.log(`files: cnpj.duckdb ${mb(statSync(join(dir, 'cnpj.duckdb')).size)}, fichas.sqlite ${mb(statSync(join(dir, 'fichas.sqlite')).size)}, busca.sqlite ${mb(statSync(join(dir, 'busca.sqlite')).size)}, busca_socios.sqlite ${mb(statSync(join(dir, 'busca_socios.sqlite')).size)}`)
  const indexFiles = ['busca.sqlite', 'busca_socios.sqlite'].map((f) => join(dir, f))
  for (const file of indexFiles) {
    const index = new Database(file, { readonly: true })
    const has = index.query("SELECT 1 FROM sqlite_master WHERE name = 'frequente'").get()
    console.log(`${file.split('/').pop()}: ${has ? `${(index.query('SELECT count(*) AS n FROM frequente').get() as { n: number }).n} palavras frequentes (pares)` : 'sem pares (tabela frequente ausente)'}`)
    index.close()
  }
  /** Renames the pair table of both indexes away (`off`) or back, for --sem-pares. */
  const pairTables = (off: boolean) => {
    for (const file of indexFiles) {
      const index = new Database(file)
      const [from, to] = off ? ['frequente', 'frequente_desligada'] : ['frequente_desligada', 'frequente']
      if (index.query('SELECT 1 FROM sqlite_master WHERE name = ?').get(from)) index.exec(`ALTER TABLE ${from} RENAME TO ${to}`)
      index.close()
    }
  }
  pairTables(false)

  if (ingestOnly) continue

  // Samples, read before the server opens the file.
  const db = await DuckDBInstance.create(join(dir, 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
  const c = await db.connect()
  // Distinct CNPJs: 200 to warm up, 2000 each for /empresa, /completo, from disk and /socios, the
  // rest for the load (more than it sends in 10 s, so every request is a CNPJ not asked before).
  const sample = (await c.runAndReadAll('SELECT cnpj FROM estabelecimentos USING SAMPLE 402000')).getRows().map((r) => String(r[0]))
  const disk = sample.slice(0, 2000)
  // Per pass: warm-up, /empresa, /completo, /socios and /situacao, and the load's CNPJs.
  const passes = [0, 1].map((k) => {
    const at = 2000 + k * 200_000
    const take = (from: number, n: number) => sample.slice(at + from, at + from + n)
    return [take(0, 200), take(200, 2000), take(2200, 2000), take(4200, 2000), take(6200, 190_000)] as const
  })
  const rare = (await c.runAndReadAll("SELECT m.razao_social FROM estabelecimentos e JOIN empresas m USING (cnpj_basico) WHERE e.situacao = '02' USING SAMPLE 50")).getRows().map((r) => String(r[0]))
  const partners = (await c.runAndReadAll('SELECT nome FROM socios USING SAMPLE 50')).getRows().map((r) => String(r[0]))
  const cnae = String((await c.runAndReadAll("SELECT cnae_principal FROM estabelecimentos WHERE uf = 'SP' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")).getRows()[0]![0])
  c.closeSync()
  db.closeSync()

  // Lookups from disk: OS page cache dropped (needs root) and no prewarm, as on a server whose
  // file is bigger than its RAM. Then the server as shipped, once its prewarm has finished.
  if (!searchOnly && dropPageCache()) {
    const server = await startRegistryServer(data, ['--pre-leitura', '0'])
    try {
      const fromDisk = await timed(disk.map((x) => `${server.base}/v1/cnpj/empresa/${x}`))
      console.log(`/empresa com o cache de páginas do SO esvaziado, sem pré-leitura (1 cliente, ${fromDisk.n} pedidos): p50 ${fmt(fromDisk.p50)} ms, p99 ${fmt(fromDisk.p99)} ms`)
    } finally {
      await server.stop()
    }
  }
  const enc = encodeURIComponent
  /**
   * The search kinds measured: common words, rare names (a whole legal name), words being typed
   * (prefixes: docs/busca.md), each with and without uf; partner searches; filters alone.
   */
  const searchSets = (base: string): [string, string[]][] => {
    const busca = (nome: string, uf?: string) => `${base}/v1/cnpj/busca?nome=${enc(nome)}${uf ? `&uf=${uf}` : ''}`
    const common = ['COMERCIO', 'SILVA', 'SERVICOS', 'ALIMENTOS']
    const prefixes = ['FARM', 'COMERC', 'JOA', 'SIL', 'TRANSP', 'ALIMENT', 'MARIA SIL', 'JOAO SANT', 'DISTRIB', 'CONSTRU', 'PADARIA LI']
    return [
      ['busca nome comum (COMERCIO, SILVA, SERVICOS, ALIMENTOS)', common.map((w) => busca(w))],
      ['busca nome comum + uf (SP, AC)', common.slice(0, 3).flatMap((w) => ['SP', 'AC'].map((uf) => busca(w, uf)))],
      ['busca nome raro (razão social inteira)', rare.map((n) => busca(n))],
      ['busca nome raro + uf', rare.map((n) => busca(n, 'SP'))],
      [`busca por começo de palavra (${prefixes.join(', ')})`, prefixes.map((p) => busca(p))],
      ['busca por começo de palavra + uf (SP, AC)', prefixes.flatMap((p) => ['SP', 'AC'].map((uf) => busca(p, uf)))],
      ['busca dois termos comuns raros juntos (COMERCIO JOAO)', [busca('COMERCIO JOAO'), busca('FARMACIA SILVA')]],
      ['socio/busca comum (SILVA, MARIA)', ['SILVA', 'MARIA', 'JOSE SANTOS'].map((w) => `${base}/v1/cnpj/socio/busca?nome=${enc(w)}`)],
      ['socio/busca raro (nome inteiro)', partners.map((n) => `${base}/v1/cnpj/socio/busca?nome=${enc(n)}`)],
      ['socio/busca por começo de palavra (JOA, MARIA SIL, FERR)', ['JOA', 'MARIA SIL', 'FERR'].map((w) => `${base}/v1/cnpj/socio/busca?nome=${enc(w)}`)],
      [`filtros: uf + cnae + situacao (cnae ${cnae})`, ['SP', 'AC', 'MG'].map((uf) => `${base}/v1/cnpj/busca?uf=${uf}&cnae=${cnae}&situacao=ativa`)],
      ['filtros: uf só', ['SP', 'RR'].map((uf) => `${base}/v1/cnpj/busca?uf=${uf}`)],
    ]
  }
  /** Each search kind under wrk at each level of concurrency, beside a bare Bun server under the same load. */
  const searchUnderLoad = async (base: string, searches: [string, string[]][]) => {
    for (const connections of searchConnections) {
      console.log(`-- buscas sob carga: wrk, ${connections} conexões, 2 threads, 10 s por tipo (${machineLoad()}) --`)
      if (!haveWrk()) return
      for (const [name, urls] of searches) {
        const r = await wrk(base, urls.map((u) => u.slice(base.length)), { connections, seconds: 10 })
        console.log(`${name}: ${r.rps} req/s, p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, p99 ${fmt(r.p99)} ms, máx. ${fmt(r.max)} ms${r.errors || r.non2xx ? `, erros ${r.errors}, não 2xx ${r.non2xx}` : ''}`)
      }
      // A bare Bun server (one process) under the same wrk load, for the floor of the search figures.
      const bare = await withBareBun(1, (b) => wrk(b.base, ['/'], { connections, seconds: 10 }))
      console.log(`Bun puro (1 processo), mesma carga: ${bare.rps} req/s, p50 ${fmt(bare.p50)} ms, p95 ${fmt(bare.p95)} ms, p99 ${fmt(bare.p99)} ms (${machineLoad()})`)
    }
  }

  /** The server as shipped (prewarm on), measured with one set of never-asked CNPJs. */
  const measureServer = async (pass: number) => {
    const [warm, cnpjs, completos, sociosCnpjs, cold] = passes[pass]!
    const server = await startRegistryServer(data, [])
    const base = server.base
    try {
      console.log(`start to first answer: ${fmt(server.firstAnswerSeconds)} s`)
      const warmed = await server.prewarmed
      console.log(`pré-leitura: ${warmed}`)
      if (searchOnly) {
        const searches = searchSets(base)
        for (const [name, urls] of searches) {
          const r = await timed(urls, Math.max(1, Math.ceil(40 / urls.length)))
          console.log(`${name}: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms (${r.n} pedidos)`)
        }
        await searchUnderLoad(base, searches)
        return
      }
      await timed(warm.map((x) => `${base}/v1/cnpj/empresa/${x}`))
      const empresa = await timed(cnpjs.map((x) => `${base}/v1/cnpj/empresa/${x}`))
      const completo = await timed(completos.map((x) => `${base}/v1/cnpj/empresa/${x}/completo`))
      const socios = await timed(sociosCnpjs.map((x) => `${base}/v1/cnpj/empresa/${x}/socios`))
      const situacao = await timed(sociosCnpjs.map((x) => `${base}/v1/cnpj/situacao/${x}`))
      const cached = await timed(cnpjs.slice(0, 1000).map((x) => `${base}/v1/cnpj/empresa/${x}`))
      console.log(`/empresa (1 cliente, ${empresa.n} pedidos): p50 ${fmt(empresa.p50)} ms, p99 ${fmt(empresa.p99)} ms`)
      console.log(`/completo (1 cliente): p50 ${fmt(completo.p50)} ms, p99 ${fmt(completo.p99)} ms`)
      console.log(`/socios (1 cliente): p50 ${fmt(socios.p50)} ms, p99 ${fmt(socios.p99)} ms`)
      console.log(`/situacao, mesmos CNPJs logo depois (1 cliente): p50 ${fmt(situacao.p50)} ms, p99 ${fmt(situacao.p99)} ms`)
      console.log(`/empresa repetida (páginas já lidas): p50 ${fmt(cached.p50)} ms, p99 ${fmt(cached.p99)} ms`)
      const searches = searchSets(base)
      for (const [name, urls] of searches) {
        const r = await timed(urls, Math.max(1, Math.ceil(40 / urls.length)))
        console.log(`${name}: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms (${r.n} pedidos)`)
      }
      const loaded = await load(cold.map((x) => `${base}/v1/cnpj/empresa/${x}`))
      const loadedHot = await load(cnpjs.slice(0, 1000).map((x) => `${base}/v1/cnpj/empresa/${x}`))
      const rss = rssOf(server.pid)
      // The same load against a bare Bun server, measured in the same run: one process, and as many
      // as the server has; the ratio is to the faster of the two.
      const bareOne = await bareBunLoad(1)
      const bareSame = rss.processes > 1 ? await bareBunLoad(rss.processes) : bareOne
      const bareLoad = bareSame.rps > bareOne.rps ? bareSame : bareOne
      const ratio = (rps: number) => `${((100 * rps) / bareLoad.rps).toFixed(1)} % do Bun puro`
      console.log(`vazão /empresa, CNPJs nunca pedidos (32 conexões, 10 s): ${loaded.rps} req/s, p50 ${loaded.p50} ms, p99 ${loaded.p99} ms, erros ${loaded.errors} → ${ratio(loaded.rps)}`)
      console.log(`vazão /empresa, 1000 CNPJs repetidos: ${loadedHot.rps} req/s, p50 ${loadedHot.p50} ms, p99 ${loadedHot.p99} ms, erros ${loadedHot.errors} → ${ratio(loadedHot.rps)}`)
      console.log(`vazão Bun puro (mesma carga): ${bareOne.rps} req/s com 1 processo${rss.processes > 1 ? `, ${bareSame.rps} req/s com ${rss.processes}` : ''}`)
      console.log(`RSS do servidor após a carga (${rss.processes} processo(s), somados): ${mb(rss.rss)} (soma dos picos ${mb(rss.hwm)})`)
      await searchUnderLoad(base, searches)
    } finally {
      await server.stop()
    }
  }
  await measureServer(0)
  if (comparePlain) {
    console.log('\n-- a mesma base sem os pares (tabela frequente fora do lugar: a busca de antes) --')
    pairTables(true)
    try {
      await measureServer(searchOnly ? 0 : 1)
    } finally {
      pairTables(false)
    }
  }
  // This VM pages out file pages idle for 60 s (DAMON), so nationally part of each file is read
  // from disk again: measured once more with DAMON paused, as on an ordinary server.
  if (pauseDamon && damonState() === 'on') {
    console.log('\n-- de novo, com o DAMON do kernel pausado (como num servidor comum) --')
    setDamon('off')
    const restore = () => { setDamon('on'); process.exit(130) }
    process.once('SIGINT', restore).once('SIGTERM', restore)
    try {
      await measureServer(1)
    } finally {
      setDamon('on')
    }
  }
}
