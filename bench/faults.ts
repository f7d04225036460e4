// Fault injection, long (make bench; the short one is test/core/faults.test.ts): the built server
// and the real command line under the faults a production server meets, each with its count.
//   partidas           N starts on a truncated cnpj.duckdb: crashes, cnpj 503, the others 200
//   ingest-morto       `dadosbr ingest cnpj` killed -9 at K random moments: swaps after the kill, processes left
//   troca-sob-carga    builds swapped in while wrk loads the server: failed requests
//   dano-sob-carga     fichas.sqlite overwritten, then restored, under load: 500s, 503s, the other dataset
//   processo-morto     an extra serving process killed -9 under load: failed requests, time to come back
//   sigterm-sob-carga  SIGTERM under load: answers cut, time to exit, exit code
//   conexoes-lentas    idle and slowloris connections beside a load: throughput, and which the server closed
//   disco-cheio        an ingest on a full disk (a small tmpfs, as root; else a file size limit) while serving
//   memoria            RSS of the serving processes over minutes of load
// `bun bench/faults.ts [--so partidas,memoria] [--partidas 20] [--mortes 10] [--empresas 200000] [--minutos 10] [--work DIR]`
// Every figure is printed with the machine's load (the machine is shared).
import { cpSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { join, resolve } from 'node:path'
import { RUNTIME_FLAGS } from '../src/core/self'
import { IDLE_TIMEOUT_SECONDS } from '../src/cli/serve'
import { haveWrk, machineLoad, opt, startServer, treeRss, wrk, benchArgs as args, type Server, synthDone } from './lib'
import { fileInUse, scribble } from '../test/damage'

const bun = process.execPath
const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')
const work = resolve(opt('--work', '/tmp/dadosbr-bench-faults'))
const only = args.includes('--so') ? opt('--so', '').split(',') : null
const want = (name: string) => !only || only.includes(name)
const SERPRO = '33683111000280'
const PATHS = [`/v1/cnpj/situacao/${SERPRO}`, `/v1/cnpj/empresa/${SERPRO}`, '/v1/bcb/amostra', '/v1/health', `/v1/integridade/consulta/${SERPRO}`]

mkdirSync(work, { recursive: true })
const say = (line: string) => console.log(`${line}  [${machineLoad()}]`)

/** The environment of a user's shell: no UV_THREADPOOL_SIZE (the ingest then re-runs itself as an internal process, as a user's does). */
function userEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env }
  delete env.UV_THREADPOOL_SIZE
  delete env.DADOSBR_PAI
  return env
}

async function run(cmd: string[], env = userEnv()): Promise<{ code: number; err: string; seconds: number }> {
  const started = performance.now()
  const proc = Bun.spawn(cmd, { env, stdout: 'ignore', stderr: 'pipe' })
  const err = await new Response(proc.stderr).text()
  return { code: await proc.exited, err, seconds: (performance.now() - started) / 1000 }
}

/** Live processes below pid (from /proc; zombies count as gone). */
function descendants(pid: number): number[] {
  const out: number[] = []
  const children = (p: number) => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    } catch {
      return []
    }
  }
  for (let level = [pid]; level.length; ) {
    level = level.flatMap(children)
    out.push(...level)
  }
  return out
}
const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** The bundled sample of every dataset, built once into work/amostra. */
async function sampleData(): Promise<string> {
  const dir = join(work, 'amostra')
  // --se-preciso: a sample kept from a run of an earlier version (another layout) is built again, else nothing is done.
  const r = await run([bun, CLI, 'ingest', 'todas', '--amostra', '--se-preciso', '--data', dir, '--quiet'])
  if (r.code !== 0) throw new Error(`amostra: ${r.err}`)
  return dir
}

/** A fresh copy of a data folder (symlinks kept). */
function copyOf(from: string, name: string): string {
  const to = join(work, name)
  rmSync(to, { recursive: true, force: true })
  cpSync(from, to, { recursive: true, verbatimSymlinks: true })
  return to
}


/** A synthetic month of `companies` companies in the Receita's format, made once. */
async function synthMonth(companies: number): Promise<string> {
  const dir = join(work, `rfb-${companies}`)
  if (!synthDone(dir)) {
    const r = await run([bun, CLI, 'synth', 'cnpj', '--saida', dir, '--empresas', String(companies), '--quiet'])
    if (r.code !== 0) throw new Error(`synth: ${r.err}`)
  }
  return dir
}

/**
 * fetch loops counting answers by dataset and status, and requests without an answer by the
 * error's code (ECONNREFUSED: the port was closed; ECONNRESET or a cut body: an answer lost), until
 * `stop` resolves.
 */
async function countingLoad(base: string, paths: string[], concurrency: number, stop: Promise<unknown>) {
  const counts = new Map<string, number>()
  let done = false
  void stop.then(() => (done = true))
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!done) {
        const path = paths[next++ % paths.length]!
        const family = path.split('/').slice(0, 3).join('/')
        try {
          const r = await fetch(base + path, { signal: AbortSignal.timeout(10_000) })
          await r.arrayBuffer()
          add(`${family} ${r.status}`)
        } catch (err) {
          add(`${family} sem resposta (${(err as { code?: string }).code ?? (err as Error).name})`)
          await Bun.sleep(5)
        }
      }
    }),
  )
  return [...counts].sort().map(([k, v]) => `${k}: ${v}`).join(', ')
}

// 1. Starts on a truncated cnpj.duckdb.
if (want('partidas')) {
  const n = Number(opt('--partidas', '20'))
  const sample = await sampleData()
  let crashes = 0
  let cnpj503 = 0
  let othersOk = 0
  for (let i = 0; i < n; i++) {
    const data = copyOf(sample, 'partida')
    truncateSync(fileInUse(data, 'cnpj', 'cnpj.duckdb'), 1_000_000)
    let server: Server | undefined
    try {
      server = await startServer({ data, processes: 1, timeoutMs: 60_000 })
      const status = async (p: string) => (await fetch(server!.base + p)).status
      if ((await status(`/v1/cnpj/situacao/${SERPRO}`)) === 503) cnpj503++
      if ((await status('/v1/bcb/amostra')) === 200 && (await status(`/v1/integridade/consulta/${SERPRO}`)) === 200) othersOk++
      await Bun.sleep(1500)
      const alive = await fetch(`${server.base}/v1/health`).then(() => true, () => false)
      if (!alive) crashes++
    } catch (err) {
      crashes++
      console.log(`partida ${i + 1}: ${(err as Error).message.slice(0, 300)}`)
    } finally {
      await server?.stop()
    }
  }
  say(`partidas sobre um cnpj.duckdb truncado: ${n}, quedas ${crashes}; cnpj 503 dados_indisponiveis em ${cnpj503}, bcb e integridade 200 em ${othersOk}`)
}

// 2. `dadosbr ingest cnpj` killed -9 at random moments.
if (want('ingest-morto')) {
  const companies = Number(opt('--empresas', '200000'))
  const kills = Number(opt('--mortes', '10'))
  const month = await synthMonth(companies)
  const data = join(work, 'ingest-morto')
  rmSync(data, { recursive: true, force: true })
  const ingest = () => [bun, ...RUNTIME_FLAGS, CLI, 'ingest', 'cnpj', '--from', month, '--mes', '2026-09', '--data', data, '--quiet']
  const first = await run(ingest())
  if (first.code !== 0) throw new Error(`ingest: ${first.err}`)
  say(`ingest-morto: uma construção inteira de ${companies.toLocaleString('pt-BR')} empresas leva ${first.seconds.toFixed(1)} s`)
  let swappedAfter = 0
  let left = 0
  let finishedBefore = 0
  const moments: string[] = []
  for (let k = 0; k < kills; k++) {
    const inUse = readlinkSync(join(data, 'cnpj', 'current'))
    const at = 200 + Math.random() * (first.seconds * 1000 - 200)
    const proc = Bun.spawn(ingest(), { env: userEnv(), stdout: 'ignore', stderr: 'ignore' })
    await Bun.sleep(at)
    if (proc.exitCode !== null) {
      finishedBefore++
      continue
    }
    const below = descendants(proc.pid)
    proc.kill('SIGKILL')
    await proc.exited
    const atKill = readlinkSync(join(data, 'cnpj', 'current'))
    // A build that swapped before the kill landed is legitimate; one that swaps after is the fault.
    for (let waited = 0; below.some(running) && waited < 15_000; waited += 50) await Bun.sleep(50)
    left += below.filter(running).length
    await Bun.sleep(2000)
    const after = readlinkSync(join(data, 'cnpj', 'current'))
    if (after !== atKill) swappedAfter++
    moments.push(`${(at / 1000).toFixed(1)} s${atKill !== inUse ? ' (já trocada)' : ''}`)
  }
  const next = await run(ingest())
  const tookOver = /assumida por este/.test(next.err)
  say(`ingest-morto: ${kills} mortes (-9) em ${moments.join(', ')}; trocas depois da morte ${swappedAfter}; processos que sobraram ${left}; terminadas antes do sinal ${finishedBefore}; ingest seguinte: saída ${next.code}${tookOver ? ', trava assumida com aviso' : ''}, ${readdirSync(join(data, 'cnpj')).filter((e) => e.endsWith('.tmp')).length} pastas .tmp restantes`)
}

// 3. Builds swapped in under load.
if (want('troca-sob-carga') && haveWrk()) {
  const companies = Number(opt('--empresas', '200000'))
  const month = await synthMonth(companies)
  const data = copyOf(await sampleData(), 'troca')
  const ingest = (mes: string) => run([bun, ...RUNTIME_FLAGS, CLI, 'ingest', 'cnpj', '--from', month, '--mes', mes, '--data', data, '--quiet'])
  // The registry in use is the synthetic one, so the CNPJs asked exist in every build swapped in.
  if ((await ingest('2026-01')).code !== 0) throw new Error('troca-sob-carga: a primeira construção falhou')
  const server = await startServer({ data, processes: 2 })
  try {
    const found = (await (await fetch(`${server.base}/v1/cnpj/busca?uf=SP&situacao=ativa`)).json()) as { resultados: { cnpj: string }[] }
    const cnpjs = found.resultados.slice(0, 5).map((r) => r.cnpj)
    const paths = [...cnpjs.flatMap((c) => [`/v1/cnpj/situacao/${c}`, `/v1/cnpj/empresa/${c}`]), '/v1/bcb/amostra', '/v1/health', `/v1/integridade/consulta/${SERPRO}`]
    const swaps = Number(opt('--trocas', '3'))
    let built = 0
    const started = performance.now()
    const building = (async () => {
      for (let i = 0; i < swaps; i++) if ((await ingest(`2026-0${(i % 8) + 2}`)).code === 0) built++
    })()
    const results = []
    let finished = false
    void building.then(() => (finished = true))
    while (!finished) results.push(await wrk(server.base, paths, { connections: 32, seconds: 5 }))
    const requests = results.reduce((n, r) => n + r.requests, 0)
    const errors = results.reduce((n, r) => n + r.errors, 0)
    const non2xx = results.reduce((n, r) => n + r.non2xx, 0)
    const month = ((await (await fetch(`${server.base}/v1/health`)).json()) as { base_referencia: string }).base_referencia
    say(`troca-sob-carga: ${built} de ${swaps} construções de ${companies.toLocaleString('pt-BR')} empresas trocadas em ${((performance.now() - started) / 1000).toFixed(0)} s sob wrk (32 conexões, 2 processos; o servidor serve ${month} no fim): ${requests} pedidos, ${errors} erros de conexão, ${non2xx} não-2xx`)
  } finally {
    await server.stop()
  }
}

// 4. A data file damaged, then restored, under load.
if (want('dano-sob-carga')) {
  const data = copyOf(await sampleData(), 'dano')
  const cards = fileInUse(data, 'cnpj', 'fichas.sqlite')
  const original = readFileSync(cards)
  const server = await startServer({ data, processes: 1 })
  try {
    const paths = [`/v1/cnpj/empresa/${SERPRO}/completo`, `/v1/cnpj/situacao/${SERPRO}`, '/v1/bcb/amostra', `/v1/integridade/consulta/${SERPRO}`]
    const phase = async (ms: number, only = paths) => countingLoad(server.base, only, 16, Bun.sleep(ms))
    // The registry's card pages stay in SQLite's cache once read (the sample's whole file fits): it is
    // damaged before any lookup reads it, as a page of a national file not read yet would be.
    const before = await phase(3000, paths.slice(2))
    scribble(cards, 4096, statSync(cards).size - 4096)
    const damaged = await phase(3000)
    writeFileSync(cards, original)
    // The follower tries the build again when its files change, at its next check (every 2 s).
    const restored = await phase(5000)
    say(`dano-sob-carga: antes {${before}}; fichas.sqlite sobrescrito {${damaged}}; restaurado {${restored}}`)
  } finally {
    await server.stop()
  }
}

// 5. An extra serving process killed -9 under load.
if (want('processo-morto') && haveWrk()) {
  const data = await sampleData()
  const server = await startServer({ data, processes: 2 })
  try {
    const extra = descendants(server.pid)[0]!
    const load = wrk(server.base, PATHS, { connections: 32, seconds: 10 })
    await Bun.sleep(3000)
    const killedAt = performance.now()
    process.kill(extra, 'SIGKILL')
    let back = NaN
    for (let waited = 0; waited < 20_000; waited += 50) {
      const now = descendants(server.pid).filter((p) => p !== extra && running(p))
      if (now.length) {
        back = (performance.now() - killedAt) / 1000
        break
      }
      await Bun.sleep(50)
    }
    const r = await load
    const after = await wrk(server.base, PATHS, { connections: 32, seconds: 5 })
    say(`processo-morto: kill -9 do processo extra sob wrk (32 conexões): ${r.requests} pedidos, ${r.errors} erros de conexão, ${r.non2xx} não-2xx; novo processo em ${back.toFixed(1)} s; depois: ${after.requests} pedidos, ${after.errors} erros, ${after.non2xx} não-2xx`)
  } finally {
    await server.stop()
  }
}

// 6. SIGTERM under load.
if (want('sigterm-sob-carga')) {
  const data = await sampleData()
  const server = await startServer({ data, processes: 2 })
  const load = countingLoad(server.base, PATHS, 32, server.exited)
  await Bun.sleep(3000)
  const sent = performance.now()
  process.kill(server.pid, 'SIGTERM')
  const code = await server.exited
  const exitSeconds = (performance.now() - sent) / 1000
  const counts = await load
  say(`sigterm-sob-carga: saída ${code} em ${exitSeconds.toFixed(2)} s; até a saída {${counts}} (ECONNREFUSED: pedidos novos depois que a porta fechou; ECONNRESET: respostas perdidas)`)
}

// 7. Idle and slowloris connections beside a load.
if (want('conexoes-lentas') && haveWrk()) {
  const data = await sampleData()
  const server = await startServer({ data, processes: 2 })
  const sockets: { socket: Socket; closedAt?: number; kind: string }[] = []
  try {
    const baseline = await wrk(server.base, '/v1/health', { connections: 16, seconds: 5 })
    const open = (kind: string) => {
      const entry: (typeof sockets)[number] = { socket: connect(server.port, '127.0.0.1'), kind }
      entry.socket.on('close', () => (entry.closedAt = performance.now()))
      entry.socket.on('error', () => {})
      sockets.push(entry)
      return entry.socket
    }
    const opened = performance.now()
    for (let i = 0; i < 500; i++) open('ociosa')
    const slow = Array.from({ length: 100 }, () => open('lenta'))
    for (const s of slow) s.write('GET /v1/health HTTP/1.1\r\nHost: api\r\n')
    // One header byte every 5 s (slowloris): never a whole request.
    const drip = setInterval(() => slow.forEach((s) => s.writable && s.write('X')), 5000)
    const loaded = await wrk(server.base, '/v1/health', { connections: 16, seconds: 5 })
    await Bun.sleep((IDLE_TIMEOUT_SECONDS + 10) * 1000 - (performance.now() - opened))
    clearInterval(drip)
    const closed = (kind: string) => sockets.filter((s) => s.kind === kind && s.closedAt !== undefined).length
    const after = await wrk(server.base, '/v1/health', { connections: 16, seconds: 5 })
    say(`conexoes-lentas: sem elas ${baseline.rps} req/s p99 ${baseline.p99.toFixed(2)} ms; com 500 ociosas e 100 slowloris ${loaded.rps} req/s p99 ${loaded.p99.toFixed(2)} ms (${loaded.errors + loaded.non2xx} falhas); ${IDLE_TIMEOUT_SECONDS + 10} s depois o servidor fechou ${closed('ociosa')} de 500 ociosas e ${closed('lenta')} de 100 lentas; depois ${after.rps} req/s, ${after.errors + after.non2xx} falhas`)
  } finally {
    for (const s of sockets) s.socket.destroy()
    await server.stop()
  }
}

// 8. An ingest on a full disk, while the server reads the same disk.
if (want('disco-cheio')) {
  const companies = Number(opt('--empresas', '200000'))
  const month = await synthMonth(companies)
  const mount = join(work, 'disco-pequeno')
  mkdirSync(mount, { recursive: true })
  const mounted = process.getuid?.() === 0 && Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mount]).exitCode === 0
  const data = mounted ? join(mount, 'dados') : join(work, 'disco-cheio')
  try {
    rmSync(data, { recursive: true, force: true })
    cpSync(await sampleData(), data, { recursive: true, verbatimSymlinks: true })
    const inUse = readlinkSync(join(data, 'cnpj', 'current'))
    const server = await startServer({ data, processes: 1 })
    try {
      const stop = Promise.withResolvers<void>()
      const load = countingLoad(server.base, PATHS, 8, stop.promise)
      const cmd = [bun, ...RUNTIME_FLAGS, CLI, 'ingest', 'cnpj', '--from', month, '--mes', '2026-09', '--data', data, '--quiet']
      const r = mounted ? await run(cmd) : await run(['sh', '-c', 'ulimit -f 40960; exec "$@"', 'sh', ...cmd])
      stop.resolve()
      const counts = await load
      const why = r.err.trim().split('\n').pop() ?? ''
      say(`disco-cheio (${mounted ? 'tmpfs de 48 MB' : 'limite de 20 MB por arquivo (sem root para um tmpfs)'}): ingest saída ${r.code} (${why.slice(0, 160)}); base em uso ${readlinkSync(join(data, 'cnpj', 'current')) === inUse ? 'mantida' : 'TROCADA'}; pastas .tmp restantes ${readdirSync(join(data, 'cnpj')).filter((e) => e.endsWith('.tmp')).length}; respostas durante {${counts}}`)
    } finally {
      await server.stop()
    }
  } finally {
    if (mounted) Bun.spawnSync(['umount', mount])
  }
}

// 9. Memory over minutes of load.
if (want('memoria') && haveWrk()) {
  const minutes = Number(opt('--minutos', '10'))
  const data = await sampleData()
  const server = await startServer({ data, processes: 2 })
  try {
    const rss = () => [...treeRss(server.pid).values()].reduce((a, b) => a + b, 0)
    const samples: number[] = [rss()]
    let requests = 0
    let failures = 0
    for (let t = 0; t < minutes * 60; t += 30) {
      const r = await wrk(server.base, PATHS, { connections: 32, seconds: 30 })
      requests += r.requests
      failures += r.errors + r.non2xx
      samples.push(rss())
    }
    const mb = (b: number) => `${Math.round(b / 1e6)} MB`
    say(`memoria: ${minutes} min de wrk (32 conexões, 2 processos), ${requests} pedidos, ${failures} falhas; RSS somado no início ${mb(samples[0]!)}, após o 1º meio minuto ${mb(samples[1]!)}, no fim ${mb(samples.at(-1)!)}, máximo ${mb(Math.max(...samples))}`)
  } finally {
    await server.stop()
  }
}
