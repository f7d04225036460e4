// /metrics in the Prometheus text format (version 0.0.4): requests by route template and status,
// a latency histogram per route, payments by result and the USD settled, each dataset's reference
// date and age, the polled sources' age and consecutive failures, and each serving process's memory
// and CPU.
//
// Cheap on the request path: recording a request is a few additions into a Float64Array, no
// labels hashed, no allocation. Several serving processes share the port (--processos) and a scrape
// reaches only one of them, so the counters live in a file mapped by every process (MAP_SHARED):
// each process adds into its own slot, whichever process answers the scrape sums every slot. A
// restarted process gets its old slot back and goes on counting, so the sums never go down while
// the server runs. The first process creates the file and passes its path to the others.
import { closeSync, ftruncateSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AppContext } from './context'
import type { RouteDef } from './route'

/** Upper bounds of the latency histogram, in seconds (a lookup is ~0.1-1 ms; a name search up to ~50 ms; a paid call waits on the chain). */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const
/** The statuses counted by their own label; any other is counted as "outro". */
const STATUSES = [200, 204, 206, 304, 400, 401, 402, 403, 404, 405, 409, 413, 414, 422, 429, 431, 500, 501, 502, 503, 504] as const
/** What the payment layer records for a payment presented (gate.ts), plus what it could not classify. */
export const PAYMENT_RESULTS = ['liquidado', 'recusado', 'nao_cobrado', 'falha_liquidacao', 'liquidacao_indeterminada', 'facilitador_indisponivel', 'repetido'] as const
export type PaymentResult = (typeof PAYMENT_RESULTS)[number]

/** The label of requests that matched no route (404 rota_inexistente, 405, 414, preflights). */
export const UNMATCHED = '(nenhuma)'
/** Slots in the shared file: the first process and up to 64 extra ones (config.ts caps --processos at 64). */
const MAX_SLOTS = 65
/** Environment variable through which the first process hands the file to the others. */
export const METRICS_FILE_ENV = 'DADOSBR_METRICAS_ARQUIVO'

const STATUS_INDEX = new Int8Array(600).fill(STATUSES.length)
STATUSES.forEach((s, i) => (STATUS_INDEX[s] = i))

// Layout of one route's cells: statuses (+ outro), histogram buckets (+ +Inf), sum of seconds, payments by result, USD settled.
const S = STATUSES.length + 1
const B = LATENCY_BUCKETS.length + 1
const P = PAYMENT_RESULTS.length
const OFF_BUCKETS = S
const OFF_SUM = S + B
const OFF_PAY = OFF_SUM + 1
const OFF_USD = OFF_PAY + P
const PER_ROUTE = OFF_USD + 1
/** Slot header: pid, start time (unix s). */
const HEADER = 2

export interface Metrics {
  /** The shared file (extra serving processes attach to it). */
  file: string
  /** The index a route's requests are recorded under (labels are built at scrape time). */
  indexOf(path: string): number
  /** One finished request: route index, HTTP status, seconds. */
  request(route: number, status: number, seconds: number): void
  /** One payment presented on a paid route, by what happened to it. */
  payment(path: string, result: PaymentResult, priceUsd: number | null): void
  /** The Prometheus text of every slot, with the datasets' and sources' state read now. */
  render(ctx: AppContext): Promise<string>
  close(): void
}

export interface MetricsOptions {
  /** This process's slot: 0 for the first serving process, N for the extra process N. */
  slot?: number
  /** The shared file to attach to (extra processes); the first process creates its own. */
  file?: string
  now?: () => number
}

/** Files this process created, removed at exit even when their app is never closed (tests, a crash that still runs exit handlers). */
const ownFiles = new Set<string>()
let exitHook = false
function removeAtExit(path: string): void {
  ownFiles.add(path)
  if (exitHook) return
  exitHook = true
  process.once('exit', () => {
    for (const f of ownFiles) rmSync(f, { force: true })
  })
}

/**
 * Metrics over `labels` (the route templates, static paths and UNMATCHED, in a fixed order every
 * process of one server computes the same way from the same route table).
 */
export function createMetrics(labels: string[], options: MetricsOptions = {}): Metrics {
  const slot = options.slot ?? 0
  if (slot < 0 || slot >= MAX_SLOTS) throw new Error(`processo ${slot} fora dos ${MAX_SLOTS} espaços de métricas`)
  const now = options.now ?? Date.now
  const routes = [...labels]
  const index = new Map(routes.map((l, i) => [l, i]))
  const slotSize = HEADER + routes.length * PER_ROUTE
  const bytes = slotSize * MAX_SLOTS * 8
  const owner = !options.file
  const path = options.file ?? join(process.env.TMPDIR || tmpdir(), `dadosbr-metricas-${process.pid}-${Math.random().toString(36).slice(2, 10)}.bin`)
  if (owner) {
    // A sparse file of zeros: the pages of slots never used take no memory nor disk.
    const fd = openSync(path, 'w+', 0o600)
    ftruncateSync(fd, bytes)
    closeSync(fd)
    removeAtExit(path)
  }
  const mapped = Bun.mmap(path, { shared: true })
  if (mapped.byteLength < bytes) throw new Error(`arquivo de métricas ${path} menor que o esperado (outra versão do dadosbr?)`)
  const all = new Float64Array(mapped.buffer, mapped.byteOffset, slotSize * MAX_SLOTS)
  const mine = all.subarray(slot * slotSize, (slot + 1) * slotSize)
  mine[0] = process.pid
  mine[1] = Math.floor(now() / 1000)

  const cell = (route: number, offset: number) => HEADER + route * PER_ROUTE + offset

  return {
    file: path,
    indexOf: (label) => index.get(label) ?? index.get(UNMATCHED) ?? 0,

    request(route, status, seconds) {
      const base = HEADER + route * PER_ROUTE
      mine[base + STATUS_INDEX[status < 600 && status >= 0 ? status : 0]!]! += 1
      let b = 0
      while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]!) b++
      mine[base + OFF_BUCKETS + b]! += 1
      mine[base + OFF_SUM]! += seconds
    },

    payment(label, result, priceUsd) {
      const route = index.get(label)
      if (route === undefined) return
      mine[cell(route, OFF_PAY + PAYMENT_RESULTS.indexOf(result))]! += 1
      if (result === 'liquidado' && priceUsd) mine[cell(route, OFF_USD)]! += priceUsd
    },

    async render(ctx) {
      const out = new Lines()
      const live: { slot: number; pid: number }[] = []
      const total = new Float64Array(routes.length * PER_ROUTE)
      for (let s = 0; s < MAX_SLOTS; s++) {
        const at = s * slotSize
        if (!all[at]) continue
        live.push({ slot: s, pid: all[at]! })
        for (let i = 0; i < total.length; i++) total[i]! += all[at + HEADER + i]!
      }
      const sum = (route: number, offset: number) => total[route * PER_ROUTE + offset]!

      out.help('dadosbr_http_requests_total', 'counter', 'Pedidos respondidos, pelo modelo da rota (não o caminho pedido) e o status HTTP.')
      routes.forEach((route, r) => {
        for (let k = 0; k < S; k++) {
          const n = sum(r, k)
          if (n) out.sample('dadosbr_http_requests_total', { rota: route, status: k < STATUSES.length ? String(STATUSES[k]) : 'outro' }, n)
        }
      })
      out.help('dadosbr_http_request_duration_seconds', 'histogram', 'Tempo de resposta por rota, do pedido recebido à resposta pronta (com a liquidação do pagamento, nas pagas).')
      routes.forEach((route, r) => {
        let count = 0
        for (let b = 0; b < B; b++) count += sum(r, OFF_BUCKETS + b)
        if (!count) return
        let cumulative = 0
        for (let b = 0; b < B; b++) {
          cumulative += sum(r, OFF_BUCKETS + b)
          out.sample('dadosbr_http_request_duration_seconds_bucket', { rota: route, le: b < LATENCY_BUCKETS.length ? String(LATENCY_BUCKETS[b]) : '+Inf' }, cumulative)
        }
        out.sample('dadosbr_http_request_duration_seconds_sum', { rota: route }, sum(r, OFF_SUM))
        out.sample('dadosbr_http_request_duration_seconds_count', { rota: route }, count)
      })
      out.help('dadosbr_payments_total', 'counter', 'Pagamentos apresentados em rotas pagas, pelo resultado: liquidado, recusado, nao_cobrado (a rota respondeu 4xx/5xx), falha_liquidacao, liquidacao_indeterminada, facilitador_indisponivel, repetido (a resposta guardada de um pagamento já liquidado, reenviado com o mesmo identificador: nada cobrado de novo).')
      out.help('dadosbr_payments_settled_usd_total', 'counter', 'Valor liquidado em USD (USDC), por rota.')
      routes.forEach((route, r) => {
        PAYMENT_RESULTS.forEach((result, k) => {
          const n = sum(r, OFF_PAY + k)
          if (n) out.sample('dadosbr_payments_total', { rota: route, resultado: result }, n)
        })
        const usd = sum(r, OFF_USD)
        if (usd) out.sample('dadosbr_payments_settled_usd_total', { rota: route }, Number(usd.toFixed(6)))
      })

      out.help('dadosbr_dataset_up', 'gauge', '1 quando a base está aberta e servindo; 0 quando falta ou não abre (veja /v1/health).')
      out.help('dadosbr_dataset_reference_timestamp_seconds', 'gauge', 'Data de referência dos dados servidos (o dia, ou o primeiro dia do mês), em segundos Unix.')
      out.help('dadosbr_dataset_age_seconds', 'gauge', 'Idade dos dados servidos: agora menos a data de referência.')
      out.help('dadosbr_dataset_built_timestamp_seconds', 'gauge', 'Quando a construção em uso terminou (manifest.json, construido_em).')
      const t = now() / 1000
      for (const ds of ctx.datasets) {
        if (!ds.open) continue
        const store = ctx.stores.get(ds.name)
        const health = store ? await store.health().catch(() => ({ ok: false, referencia: null })) : { ok: false, referencia: null }
        out.sample('dadosbr_dataset_up', { base: ds.name }, health.ok ? 1 : 0)
        const reference = referenceSeconds(health.referencia ?? null)
        if (reference !== null) {
          out.sample('dadosbr_dataset_reference_timestamp_seconds', { base: ds.name }, reference)
          out.sample('dadosbr_dataset_age_seconds', { base: ds.name }, Math.max(0, Math.round(t - reference)))
        }
        // The snapshot in use when the store says (openSnapshot's peek), else the manifest the current link points to.
        const peeked = (store as { peek?: () => { manifest?: { construido_em?: string } } | null } | null)?.peek?.()
        const built = peeked ? peeked.manifest?.construido_em : health.ok ? builtAt(ctx.config.dataDir, ds.name) : undefined
        if (built && !Number.isNaN(Date.parse(built))) out.sample('dadosbr_dataset_built_timestamp_seconds', { base: ds.name }, Math.floor(Date.parse(built) / 1000))
      }

      // The same record as /v1/health and each route's `fonte` (src/core/feeds): the main query of each source.
      out.help('dadosbr_feed_up', 'gauge', '1 quando a fonte não deixa o serviço degradado (fontes[].problema nulo em /v1/health).')
      out.help('dadosbr_feed_age_seconds', 'gauge', 'Idade dos dados servidos da fonte (defasagem_segundos).')
      out.help('dadosbr_feed_last_success_timestamp_seconds', 'gauge', 'Quando os dados servidos foram obtidos da fonte (consultado_em), em segundos Unix.')
      out.help('dadosbr_feed_last_attempt_timestamp_seconds', 'gauge', 'A última consulta à fonte, com ou sem sucesso (tentado_em), em segundos Unix.')
      out.help('dadosbr_feed_consecutive_failures', 'gauge', 'Consultas seguidas que falharam desde o último sucesso; volta a 0 quando a fonte responde.')
      for (const f of ctx.feeds.health()) {
        const labels = { fonte: f.nome, base: f.base, status: f.status }
        out.sample('dadosbr_feed_up', labels, f.problema ? 0 : 1)
        if (f.defasagem_segundos !== null) out.sample('dadosbr_feed_age_seconds', labels, f.defasagem_segundos)
        if (f.consultado_em) out.sample('dadosbr_feed_last_success_timestamp_seconds', labels, Math.floor(Date.parse(f.consultado_em) / 1000))
        if (f.tentado_em) out.sample('dadosbr_feed_last_attempt_timestamp_seconds', labels, Math.floor(Date.parse(f.tentado_em) / 1000))
        out.sample('dadosbr_feed_consecutive_failures', labels, f.falhas)
      }

      out.help('dadosbr_process_resident_memory_bytes', 'gauge', 'Memória residente de cada processo que atende (0 = o primeiro).')
      out.help('dadosbr_process_cpu_seconds_total', 'counter', 'CPU (usuário + sistema) de cada processo que atende, desde que ele subiu.')
      out.help('dadosbr_process_start_time_seconds', 'gauge', 'Quando cada processo que atende subiu, em segundos Unix.')
      for (const { slot: s, pid } of live) {
        const usage = processUsage(pid)
        if (!usage) continue
        const labels = { processo: String(s) }
        out.sample('dadosbr_process_resident_memory_bytes', labels, usage.rssBytes)
        out.sample('dadosbr_process_cpu_seconds_total', labels, usage.cpuSeconds)
        out.sample('dadosbr_process_start_time_seconds', labels, all[s * slotSize + 1]!)
      }
      return out.text()
    },

    close() {
      mine[0] = 0
      if (owner) {
        rmSync(path, { force: true })
        ownFiles.delete(path)
      }
    },
  }
}

/**
 * The metrics of this serving process: the first one (no DADOSBR_PROCESSO) creates the shared file
 * and leaves its path in the environment its extra processes inherit; an extra one attaches to it.
 */
export function processMetrics(labels: string[], env: Record<string, string | undefined> = process.env): Metrics {
  const slot = Number(env.DADOSBR_PROCESSO ?? 0)
  const extra = Number.isInteger(slot) && slot > 0 && env[METRICS_FILE_ENV]
  if (extra) {
    try {
      return createMetrics(labels, { slot, file: env[METRICS_FILE_ENV] })
    } catch (err) {
      // The file was removed under a running server (a /tmp cleaner): this process counts on its own rather than not start.
      process.stderr.write(`dadosbr: métricas do processo ${slot} fora do arquivo comum (${(err as Error).message}); /metrics respondido por ele mostra só os seus pedidos\n`)
    }
  }
  const metrics = createMetrics(labels)
  if (!extra) env[METRICS_FILE_ENV] = metrics.file
  return metrics
}

/** The labels a server's metrics are kept under: its routes, its static paths, then UNMATCHED. */
export function metricLabels(routes: RouteDef[], statics: { path: string }[]): string[] {
  return [...routes.map((r) => r.path), ...statics.map((s) => s.path), '/metrics', UNMATCHED]
}

/** YYYY-MM-DD, or YYYY-MM (its first day), as Unix seconds at 00:00 UTC; null otherwise. */
export function referenceSeconds(referencia: string | null): number | null {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(referencia ?? '')
  if (!m) return null
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3] ?? 1)) / 1000
}

function builtAt(dataDir: string, dataset: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dataDir, dataset, 'current', 'manifest.json'), 'utf8')) as { construido_em?: string }).construido_em
  } catch {
    return undefined
  }
}

const CLOCK_TICKS = 100
const PAGE_SIZE = 4096
/** CPU and memory of a live process, from /proc (Linux); null elsewhere or when it is gone. */
function processUsage(pid: number): { rssBytes: number; cpuSeconds: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 (utime, stime) and 24 (rss, pages), counted from the state (field 3).
    return { cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS, rssBytes: Number(fields[21]) * PAGE_SIZE }
  } catch {
    return null
  }
}

/** Builds the exposition text: HELP and TYPE once per metric, then its samples. */
class Lines {
  private readonly parts: string[] = []
  help(name: string, type: string, help: string) {
    this.parts.push(`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${name} ${type}`)
  }
  sample(name: string, labels: Record<string, string>, value: number) {
    const l = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    this.parts.push(`${name}${l.length ? `{${l.join(',')}}` : ''} ${Number.isInteger(value) ? value : Number(value.toPrecision(12))}`)
  }
  text(): string {
    return this.parts.join('\n') + '\n'
  }
}
