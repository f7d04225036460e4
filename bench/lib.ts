// What every bench/<base>.ts shares: the machine's load while it measured (the machine is shared,
// so a figure without it means little), a command timed to its end, a process tree's memory and
// CPU, the one way a bench starts the dadosbr server, the one wrk runner every load goes through
// and the bare Bun server every bench compares with.
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { RUNTIME_FLAGS } from '../src/core/self'
import { MUNICIPIOS_ARQUIVO } from '../src/core/municipios-rfb'

/** The load average over the last 1 and 5 minutes, and the cores it is shared by. */
export function machineLoad(): string {
  const [one, five] = readFileSync('/proc/loadavg', 'utf8').split(' ')
  return `carga ${one} (1 min), ${five} (5 min), ${navigator.hardwareConcurrency} núcleos`
}

/**
 * Runs a command to its end: wall seconds, CPU seconds (user + system, its waited-for children's
 * included), the peak resident memory of its process tree (sampled every 50 ms) and the last line it printed. A failure throws with its output.
 */
export async function timed(cmd: string[]) {
  const started = performance.now()
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  let peak = 0
  // The process's own high-water mark, or the sum of its tree (consultar's helper processes) when larger.
  const sampler = setInterval(() => {
    try { peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024) } catch {}
    peak = Math.max(peak, [...treeRss(proc.pid).values()].reduce((a, b) => a + b, 0))
  }, 50)
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()]
  await proc.exited
  clearInterval(sampler)
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')}: ${err || out}`)
  const usage = proc.resourceUsage()
  const cpu = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : NaN
  return { seconds: (performance.now() - started) / 1000, cpu, peak, line: (out || err).trim().split('\n').pop()! }
}

/** Resident memory of a process and each of its descendants now, in bytes, by pid (empty once it is gone). */
export function treeRss(pid: number, into = new Map<number, number>()): Map<number, number> {
  try {
    into.set(pid, Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024)
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) treeRss(child, into)
  } catch {}
  return into
}

/**
 * CPU seconds (user + system) used so far by these processes and their descendants (a server's
 * extra serving processes), from /proc at 100 ticks a second. Per request, a figure the machine's
 * other tenants barely move, unlike req/s.
 */
export function treeCpu(...pids: number[]): number {
  let total = 0
  for (const pid of pids)
    for (const p of treeRss(pid).keys()) {
      try {
        const fields = readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
        total += (Number(fields[11]) + Number(fields[12])) / 100
      } catch {}
    }
  return total
}

let wrkFound: boolean | undefined
/**
 * Whether wrk (Debian package `wrk`) is installed. The first time it is not, says so once: the
 * benches then skip their figures under load and still print the rest.
 */
export function haveWrk(): boolean {
  if (wrkFound === undefined) {
    wrkFound = Bun.which('wrk') !== null
    if (!wrkFound) console.log('wrk não instalado (apt-get install -y wrk): medidas sob carga puladas')
  }
  return wrkFound
}

/** One wrk run: latencies in ms from wrk's own histogram; `cpuUs` is NaN unless `cpuOf` was given. */
export type WrkResult = {
  requests: number
  seconds: number
  rps: number
  bytes: number
  bytesPerAnswer: number
  p50: number
  p90: number
  p95: number
  p99: number
  max: number
  /** Connect, read, write and timeout errors. */
  errors: number
  non2xx: number
  /** CPU µs per request spent by the `cpuOf` processes and their descendants during the run. */
  cpuUs: number
}

// Every field any bench prints, in one line wrk's `done` hook writes once the run ends.
const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  local p = function(q) return latency:percentile(q) / 1000 end
  io.write(string.format('{"requests":%d,"seconds":%f,"bytes":%d,"p50":%f,"p90":%f,"p95":%f,"p99":%f,"max":%f,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration / 1e6, summary.bytes, p(50), p(90), p(95), p(99), latency.max / 1000,
    e.connect + e.read + e.write + e.timeout, e.status))
end`

// A list of paths: each request the next one, each thread starting at its own place (wrk's
// setup() hook breaks request() here, so init seeds from the thread's own table address).
const cycle = (paths: string[]) => `
local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}
local i = 0
init = function(args) math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16)); i = math.random(0, #paths - 1) end
request = function() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end`

/**
 * Loads `base` with wrk (a load loop in Bun saturates before the server does: NOTES §1):
 * `connections` keep-alive connections on 2 threads (1 for a single connection) for `seconds`,
 * 10 s timeout. `paths` a list: wrk cycles through it, a Lua call per request. `paths` one
 * string: wrk sends that one request, built once, as the single-route benches always measured
 * (a per-request Lua call costs the load generator, which shares the cores with the server, so
 * the two are not mixed within one comparison). `cpuOf`: pids whose CPU per request to report.
 * Call haveWrk() first: without wrk this throws.
 */
export async function wrk(base: string, paths: string | string[], o: { connections: number; seconds: number; cpuOf?: number[] }): Promise<WrkResult> {
  if (!haveWrk()) throw new Error('wrk não instalado (apt-get install -y wrk)')
  const script = join(tmpdir(), `dadosbr-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`)
  writeFileSync(script, (typeof paths === 'string' ? '' : cycle(paths)) + DONE)
  try {
    const cpuBefore = o.cpuOf ? treeCpu(...o.cpuOf) : NaN
    const url = typeof paths === 'string' ? base + paths : base
    const proc = Bun.spawn(['wrk', '-t', String(Math.min(2, o.connections)), '-c', String(o.connections), '-d', `${o.seconds}s`, '--timeout', '10s', '-s', script, url], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    await proc.exited
    const cpu = o.cpuOf ? treeCpu(...o.cpuOf) - cpuBefore : NaN
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
    if (!line) throw new Error(`wrk sem resultado: ${out}${err}`)
    const r = JSON.parse(line) as Omit<WrkResult, 'rps' | 'bytesPerAnswer' | 'cpuUs'>
    return { ...r, rps: Math.round(r.requests / r.seconds), bytesPerAnswer: r.bytes / Math.max(1, r.requests), cpuUs: (cpu * 1e6) / r.requests }
  } finally {
    rmSync(script, { force: true })
  }
}

/** Reads a child's standard output up to its first line (a server's port); `what` names the child when it exits first. */
export async function firstLine(proc: Bun.Subprocess<'ignore', 'pipe', 'inherit'>, what: string): Promise<string> {
  const reader = proc.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${what} não subiu (saiu com ${await proc.exited})`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return text.split('\n')[0]!
}

/**
 * The floor every bench prints beside its figures: a bare Bun server answering a fixed JSON, in
 * `processes` processes sharing one port (reusePort) as `serve --processos` does. The first takes
 * a port the system chooses (a random one collides with the other benches on this shared machine)
 * and the others join it; each prints its port once it listens, so the load starts when all do.
 */
export async function bareBun(processes = 1) {
  const start = (port: number) => {
    const proc = Bun.spawn([process.execPath, '-e', `const s = Bun.serve({ port: ${port}, hostname: '127.0.0.1', reusePort: true, fetch: () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }) }); console.log(s.port); await Bun.sleep(1e9)`], { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' })
    return { proc, port: firstLine(proc, 'o Bun puro').then(Number) }
  }
  const first = start(0)
  const procs = [first.proc]
  const stop = async () => {
    for (const p of procs) p.kill()
    await Promise.all(procs.map((p) => p.exited))
  }
  try {
    const port = await first.port
    const others = Array.from({ length: processes - 1 }, () => start(port))
    procs.push(...others.map((o) => o.proc))
    await Promise.all(others.map((o) => o.port))
    return { base: `http://127.0.0.1:${port}`, pids: procs.map((p) => p.pid), stop }
  } catch (e) {
    await stop()
    throw e
  }
}

/** Runs `measure` against a bare Bun server of `processes` processes, stopped after. */
export async function withBareBun<T>(processes: number, measure: (bare: Awaited<ReturnType<typeof bareBun>>) => Promise<T>): Promise<T> {
  const bare = await bareBun(processes)
  try {
    return await measure(bare)
  } finally {
    await bare.stop()
  }
}

/** A load's two runs. */
export type TwoRuns = [WrkResult, WrkResult]

/**
 * Runs each load twice with the bare Bun server's two runs between: the loads in order, bare,
 * bare, the loads in reverse. The machine is shared, so a change in the others' load weighs on
 * every load and on the floor alike. Returns each load's two runs (in the loads' order) and bare's.
 */
export async function mirrored(loads: (() => Promise<WrkResult>)[], bare: () => Promise<WrkResult>): Promise<{ loads: TwoRuns[]; bare: TwoRuns }> {
  const first: WrkResult[] = []
  for (const load of loads) first.push(await load())
  const floor: TwoRuns = [await bare(), await bare()]
  const second: WrkResult[] = []
  for (const load of [...loads].reverse()) second.unshift(await load())
  return { loads: first.map((r, i) => [r, second[i]!]), bare: floor }
}

/** The figures of a load's two runs as the benches print them: means, the worst maximum, errors and non-2xx summed, both req/s. */
export function meanOf([x, y]: TwoRuns) {
  return {
    rps: Math.round((x.rps + y.rps) / 2),
    p50: (x.p50 + y.p50) / 2,
    p99: (x.p99 + y.p99) / 2,
    max: Math.max(x.max, y.max),
    errors: x.errors + y.errors + x.non2xx + y.non2xx,
    runs: `${x.rps} e ${y.rps}`,
    cpuUs: (x.cpuUs + y.cpuUs) / 2,
  }
}

const CLI = resolve(import.meta.dir, '..', 'src', 'cli.ts')

export type ServerOptions = {
  /** The data folder served. */
  data: string
  /** `--processos`; omitted, the server's own default (one per core here), read back from its announcement. */
  processes?: number
  /** More flags for `serve` (`--pre-leitura 0`, `--metricas 1`...). */
  args?: string[]
  /** Added to this process's environment (upstream URLs pointing at local stand-ins). */
  env?: Record<string, string>
  /** Every log line appended to this file. */
  logFile?: string
  /** WARN and ERROR lines written to this bench's stderr as they come. */
  echoWarnings?: boolean
  /** Called with every log line, as it comes (registry's prewarm lines). */
  onLine?: (line: string) => void
  /** Gives up after this long (default 10 min: a national registry opens slowly on a busy machine). */
  timeoutMs?: number
  /** Another checkout's src/cli.ts (a bench comparing two versions on the same data); default this one's. */
  cli?: string
}

export type Server = {
  base: string
  port: number
  /** The first process: the others are its children (treeCpu/treeRss follow them). */
  pid: number
  /** Serving processes, as the server announced. */
  processes: number
  /** From the spawn to every process answering. */
  startSeconds: number
  /** The first process's exit code, once it exits. */
  exited: Promise<number>
  /** SIGTERM (the first process stops the others), SIGKILL after a grace period; idempotent. */
  stop(): Promise<void>
}

/**
 * The server as shipped (--pre-leitura 1), resolved once its prewarm has read what fits: its log
 * says each file read, the one read in part, or that there was no memory for it. Before that, a
 * never-asked CNPJ is read from disk. `warm`: those log lines.
 */
export async function startWarmServer(data: string, cli?: string): Promise<Server & { warm: string[] }> {
  const warm: string[] = []
  let warmed: () => void = () => {}
  const prewarm = new Promise<void>((done) => (warmed = done))
  const s = await startServer({
    data,
    args: ['--pre-leitura', '1'],
    ...(cli ? { cli } : {}),
    onLine: (line) => {
      if (line.includes('cache de páginas') || line.includes('sem memória')) warm.push(line.replace(/^\S+ \w+ /, ''))
      if (line.includes('sem memória') || line.includes('lido em parte') || (line.includes('cnpj.duckdb') && line.includes('cache de páginas'))) warmed()
    },
  })
  await Promise.race([prewarm, s.exited])
  return { ...s, warm }
}

/** Whether `p` settles within `ms` (the timer cleared after, so a pending one does not keep the bench alive). */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: Timer | undefined
  const late = new Promise<false>((done) => (timer = setTimeout(done, ms, false)))
  try {
    return await Promise.race([p.then(() => true as const), late])
  } finally {
    clearTimeout(timer)
  }
}

const TAIL_LINES = 20
/** The first process gives its extra processes 10 s to finish after SIGTERM: a little more before SIGKILL. */
const STOP_GRACE_MS = 15_000
const ANNOUNCED = /ouvindo em http:\/\/[^\s:]+:(\d+)\b.*\bprocessos=(\d+)/
const JOINED = /ouvindo na porta (\d+)\b.*\bprocesso=(\d+)/
/** The first process restarts an extra one that died: during the start, that is a failure (it would retry for ever). */
const EXTRA_DIED = /processo de atendimento saiu/

/**
 * Starts `dadosbr serve --gratis` on a port the system chooses (--port 0) and resolves once it
 * serves on every process. Why: a random port in 41000-51000 overlaps the kernel's ephemeral range
 * and the other benches on this shared machine; the server died on a taken one while the bench
 * polled it for ever. Here the port is the one the first process announces; ready means the first
 * process announced it, each of the n-1 extra processes announced joining it (each opens the data
 * on its own, so before that the load would fall on fewer processes) and /v1/health answers. The
 * data is opened before the port is bound, so no route of a dataset needs its own probe. A server
 * that exits, or an extra process that dies, or the timeout, rejects at once with one line in
 * Portuguese ending with the last log lines, and the server is stopped.
 */
export async function startServer(o: ServerOptions): Promise<Server> {
  const started = performance.now()
  const timeoutMs = o.timeoutMs ?? 10 * 60_000
  const deadline = Date.now() + timeoutMs
  const cmd = [process.execPath, ...RUNTIME_FLAGS, o.cli ?? CLI, 'serve', '--gratis', '--port', '0', '--host', '127.0.0.1', '--data', o.data, '--log', 'info', '--log-formato', 'texto',
    ...(o.processes === undefined ? [] : ['--processos', String(o.processes)]), ...(o.args ?? [])]
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...o.env }, stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' })
  const logFd = o.logFile ? openSync(o.logFile, 'a') : undefined
  const tail: string[] = []
  let port = 0
  let processes = 0
  let extraDied: string | undefined
  const joined = new Map<number, number>()
  const handle = (line: string) => {
    if (logFd !== undefined) writeSync(logFd, line + '\n')
    tail.push(line.replace(/^\S+Z /, ''))
    if (tail.length > TAIL_LINES) tail.shift()
    if (o.echoWarnings && / (WARN|ERROR) /.test(line)) process.stderr.write(line + '\n')
    let m: RegExpExecArray | null
    if (!port && (m = ANNOUNCED.exec(line))) [port, processes] = [Number(m[1]), Number(m[2])]
    else if ((m = JOINED.exec(line))) joined.set(Number(m[2]), Number(m[1]))
    else if (!extraDied && EXTRA_DIED.test(line)) extraDied = line
    o.onLine?.(line)
  }
  // Read to the end, always: a full pipe would block the server's log writes.
  const reading = (async () => {
    const decoder = new TextDecoder()
    let pending = ''
    for await (const chunk of proc.stderr) {
      const lines = (pending + decoder.decode(chunk, { stream: true })).split('\n')
      pending = lines.pop()!
      for (const line of lines) handle(line)
    }
    if (pending) handle(pending)
  })()
  let stopping: Promise<void> | undefined
  const stop = () => (stopping ??= (async () => {
    proc.kill('SIGTERM')
    if (!(await settlesWithin(proc.exited, STOP_GRACE_MS))) proc.kill('SIGKILL')
    await proc.exited
    // The extra processes hold the pipe until they exit (they follow the first one out).
    await settlesWithin(reading, 2000)
    if (logFd !== undefined) closeSync(logFd)
  })())
  const fail = async (why: string) => {
    await settlesWithin(reading, 1000)
    await stop()
    return new Error(`o servidor (dadosbr serve --data ${o.data}) ${why}; últimas linhas do log: ${tail.join(' | ') || '(nenhuma)'}`)
  }
  const base = () => `http://127.0.0.1:${port}`
  const healthy = () => fetch(`${base()}/v1/health`, { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false)
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw await fail(`saiu (${proc.exitCode ?? proc.signalCode}) antes de ficar pronto`)
    if (extraDied) throw await fail(`perdeu um processo de atendimento durante a partida`)
    if (Date.now() > deadline) throw await fail(`não ficou pronto em ${timeoutMs / 1000} s (porta ${port || 'não anunciada'}, ${joined.size} de ${processes ? processes - 1 : '?'} processos extras na porta)`)
    const allJoined = port > 0 && [...joined.values()].filter((p) => p === port).length >= processes - 1
    if (allJoined && (await healthy())) break
    await Bun.sleep(25)
  }
  return { base: base(), port, pid: proc.pid, processes, startSeconds: (performance.now() - started) / 1000, exited: proc.exited, stop }
}

/** This run's command-line arguments (after the script). */
export const benchArgs = process.argv.slice(2)

/** The value after `--name` on the command line, or the fallback. */
/**
 * Whether a synthetic dump folder is whole: municipios.csv is the synth's last file, so a dump cut
 * short by an interrupted synth (or made by a version before the table) is made again.
 */
export const synthDone = (dir: string) => existsSync(join(dir, MUNICIPIOS_ARQUIVO))

export function opt(name: string, fallback: string): string {
  const i = benchArgs.indexOf(name)
  return i >= 0 ? benchArgs[i + 1]! : fallback
}

/**
 * Latency with no queue: the paths requested one at a time, each answer read whole and required
 * to be a 200 (its first 300 characters in the error). Percentiles by rank in ms, the largest
 * answer in bytes.
 */
export async function alone(base: string, paths: string[]) {
  const times: number[] = []
  let bytes = 0
  for (const p of paths) {
    const t = performance.now()
    const r = await fetch(base + p)
    const b = await r.arrayBuffer()
    if (r.status !== 200) throw new Error(`${p} -> ${r.status}: ${new TextDecoder().decode(b).slice(0, 300)}`)
    times.push(performance.now() - t)
    bytes = Math.max(bytes, b.byteLength)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!
  return { p50: at(0.5), p99: at(0.99), max: times[times.length - 1]!, bytes }
}
