// /metrics scraped over HTTP as Prometheus does: requests by route template and status, the
// latency histogram, datasets' reference dates and ages, the polled sources; the counters of
// several serving processes summed whichever process answers; the setting that turns it off.
// JSON log lines, and the scrubbing of CPFs and payment signatures from every line.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createApp, type App } from '../../src/app'
import { loadConfig } from '../../src/core/config'
import { createLogger, lineWriter, scrub } from '../../src/core/log'
import { createMetrics, referenceSeconds, UNMATCHED } from '../../src/core/metrics'
import { buildSampleData } from '../helpers'
import { childrenOf, startServe, until } from '../serve-process'
import { parseExposition, valueOf } from './prometheus'

let app: App
let server: ReturnType<typeof Bun.serve>
let base: string
let dataDir: string
const logs: string[] = []

beforeAll(async () => {
  dataDir = await buildSampleData()
  const config = loadConfig({ free: true, dataDir, logLevel: 'debug', logFormat: 'json' }, {})
  app = await createApp(config, { log: createLogger('debug', (l) => logs.push(l), undefined, 'json'), checkResponses: true })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.handle })
  base = `http://127.0.0.1:${server.port}`
}, 120_000)

afterAll(async () => {
  server?.stop(true)
  await app?.close()
})

const scrape = async (url = base) => {
  const r = await fetch(`${url}/metrics`)
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  return parseExposition(await r.text())
}

describe('/metrics', () => {
  test('counts requests by route template and status, with a latency histogram', async () => {
    const before = (await scrape()).samples
    const situacao = '/v1/cnpj/situacao/{cnpj}'
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/v1/cnpj/situacao/33683111000280`)).status).toBe(200)
    expect((await fetch(`${base}/v1/cnpj/situacao/123`)).status).toBe(400)
    expect((await fetch(`${base}/v1/nada/aqui`)).status).toBe(404)
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200)
    const { samples, types } = await scrape()
    const delta = (name: string, labels: Record<string, string>) => valueOf(samples, name, labels) - valueOf(before, name, labels)
    expect(delta('dadosbr_http_requests_total', { rota: situacao, status: '200' })).toBe(3)
    expect(delta('dadosbr_http_requests_total', { rota: situacao, status: '400' })).toBe(1)
    expect(delta('dadosbr_http_requests_total', { rota: UNMATCHED, status: '404' })).toBe(1)
    expect(delta('dadosbr_http_requests_total', { rota: '/openapi.json', status: '200' })).toBe(1)
    // The path asked never becomes a label: only route templates do (a CNPJ, or a CPF, never reaches the metrics).
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes('33683111000280') || v.includes('/nada')))).toBe(false)
    expect(types.get('dadosbr_http_request_duration_seconds')).toBe('histogram')
    const count = valueOf(samples, 'dadosbr_http_request_duration_seconds_count', { rota: situacao })
    expect(count).toBe(valueOf(samples, 'dadosbr_http_requests_total', { rota: situacao, status: '200' }) + valueOf(samples, 'dadosbr_http_requests_total', { rota: situacao, status: '400' }))
    expect(valueOf(samples, 'dadosbr_http_request_duration_seconds_bucket', { rota: situacao, le: '+Inf' })).toBe(count)
    const buckets = samples.filter((s) => s.name === 'dadosbr_http_request_duration_seconds_bucket' && s.labels.rota === situacao).map((s) => s.value)
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b)) // cumulative
    expect(valueOf(samples, 'dadosbr_http_request_duration_seconds_sum', { rota: situacao })).toBeGreaterThan(0)
  })

  test("each dataset's reference date, age and build time; the polled sources' state", async () => {
    const { samples } = await scrape()
    expect(valueOf(samples, 'dadosbr_dataset_up', { base: 'cnpj' })).toBe(1)
    expect(valueOf(samples, 'dadosbr_dataset_reference_timestamp_seconds', { base: 'cnpj' })).toBe(Date.UTC(2026, 7, 1) / 1000)
    const age = valueOf(samples, 'dadosbr_dataset_age_seconds', { base: 'cnpj' })
    expect(Math.abs(age - (Date.now() / 1000 - Date.UTC(2026, 7, 1) / 1000))).toBeLessThan(60)
    const manifest = await Bun.file(`${dataDir}/cnpj/current/manifest.json`).json()
    expect(valueOf(samples, 'dadosbr_dataset_built_timestamp_seconds', { base: 'cnpj' })).toBe(Math.floor(Date.parse(manifest.construido_em) / 1000))
    // Every dataset with files has its line.
    for (const ds of app.ctx.datasets.filter((d) => d.open)) expect(samples.some((s) => s.name === 'dadosbr_dataset_up' && s.labels.base === ds.name)).toBe(true)
    // Every polled source has its lines; the sample's copies are old (recorded), never failed.
    for (const f of app.ctx.feeds.health()) {
      expect(valueOf(samples, 'dadosbr_feed_consecutive_failures', { fonte: f.nome })).toBe(0)
      if (f.defasagem_segundos !== null) expect(valueOf(samples, 'dadosbr_feed_age_seconds', { fonte: f.nome })).toBeGreaterThan(0)
    }
    expect(valueOf(samples, 'dadosbr_process_resident_memory_bytes', { processo: '0' })).toBeGreaterThan(10_000_000)
    expect(valueOf(samples, 'dadosbr_process_cpu_seconds_total', { processo: '0' })).toBeGreaterThan(0)
  })

  test('is free, not in the route table, and 405 for other methods', async () => {
    expect((await fetch(`${base}/openapi.json`).then((r) => r.text())).includes('/metrics')).toBe(false)
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405)
  })

  test('referenceSeconds reads a day or a month', () => {
    expect(referenceSeconds('2026-08')).toBe(Date.UTC(2026, 7, 1) / 1000)
    expect(referenceSeconds('2026-11-23')).toBe(Date.UTC(2026, 10, 23) / 1000)
    expect(referenceSeconds('agosto')).toBeNull()
  })

  test('two processes of one server share the counters through the mapped file', () => {
    const first = createMetrics(['/a', UNMATCHED])
    const second = createMetrics(['/a', UNMATCHED], { slot: 3, file: first.file })
    first.request(0, 200, 0.001)
    second.request(0, 200, 0.002)
    second.request(1, 404, 0.0001)
    first.payment('/a', 'liquidado', 0.001)
    second.payment('/a', 'liquidado', 0.001)
    return Promise.all([first.render(app.ctx), second.render(app.ctx)]).then(([a, b]) => {
      for (const text of [a, b]) {
        const { samples } = parseExposition(text)
        expect(valueOf(samples, 'dadosbr_http_requests_total', { rota: '/a', status: '200' })).toBe(2)
        expect(valueOf(samples, 'dadosbr_http_request_duration_seconds_bucket', { rota: '/a', le: '0.001' })).toBe(1)
        expect(valueOf(samples, 'dadosbr_http_request_duration_seconds_bucket', { rota: '/a', le: '0.0025' })).toBe(2)
        expect(valueOf(samples, 'dadosbr_payments_total', { rota: '/a', resultado: 'liquidado' })).toBe(2)
        expect(valueOf(samples, 'dadosbr_payments_settled_usd_total', { rota: '/a' })).toBe(0.002)
      }
      second.close()
      first.close()
    })
  })
})

describe('logs', () => {
  test('--log-formato json: every line of the server is one JSON object with time, level and msg', async () => {
    await fetch(`${base}/v1/ferramentas/cpf/529.982.247-25`)
    expect(logs.length).toBeGreaterThan(0)
    for (const line of logs) {
      const o = JSON.parse(line)
      expect(Object.keys(o).slice(0, 3)).toEqual(['time', 'level', 'msg'])
      expect(Number.isNaN(Date.parse(o.time))).toBe(false)
    }
    expect(logs.some((l) => JSON.parse(l).msg === 'pedido')).toBe(true)
    expect(logs.join('\n')).not.toMatch(/52998224725|529\.982\.247-25/)
  })

  test('a CPF, a signature or a payment header that reaches a log line is scrubbed, in both formats', () => {
    const signature = `0x${'ab'.repeat(65)}`
    const header = btoa(JSON.stringify({ x402Version: 2, payload: { signature } }))
    const lines: string[] = []
    for (const format of ['texto', 'json'] as const) {
      const log = createLogger('info', (l) => lines.push(l), undefined, format)
      log.info('erro com 529.982.247-25', { cpf: '52998224725', assinatura: signature, cabecalho: header, aninhado: { cpf: '529.982.247-25' }, cnpj: '33683111000280' })
    }
    const all = lines.join('\n')
    expect(all).not.toMatch(/52998224725|529\.982\.247-25|abababab|eyJ4NDAyVmVyc2lvbi/)
    expect(all).toContain('***982247**')
    expect(all).toContain('33683111000280') // a CNPJ (14 digits) is not a CPF
    expect(scrub('tx 0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08')).toBe('tx 0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08')
  })

  test('the batch commands: a plain line, or a JSON line with the command', () => {
    const lines: string[] = []
    lineWriter('ingest', 'json', (l) => lines.push(l))('dadosbr ingest bcb: falhou: HTTP 503')
    lineWriter('ingest', 'texto', (l) => lines.push(l))('base bcb pronta')
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'dadosbr ingest bcb: falhou: HTTP 503', comando: 'ingest' })
    expect(lines[1]).toBe('base bcb pronta')
  })
})

describe('dadosbr serve', () => {
  test('--processos 2: /metrics sums both processes whichever answers; --log-formato json lines', async () => {
    const served = startServe(['--port', '0', '--processos', '2', '--data', dataDir, '--log-formato', 'json', '--log', 'debug', '--pre-leitura', '0'])
    try {
      const port = await until(() => {
        const m = /"msg":"ouvindo em http:\/\/127\.0\.0\.1:(\d+)"/.exec(served.log.text)
        return m ? Number(m[1]) : undefined
      }, 'o anúncio da porta em JSON', 30_000)
      await until(() => (childrenOf(served.proc.pid).length === 1 ? true : undefined), 'o segundo processo')
      const url = `http://127.0.0.1:${port}`
      await until(() => (/"processo":1/.test(served.log.text) ? true : undefined), 'o segundo processo', 30_000)
      await Bun.sleep(1500) // its port is bound once it has opened the data
      const total = async () => valueOf((await scrape(url)).samples, 'dadosbr_http_requests_total', { rota: '/v1/ferramentas/cnpj/{valor}', status: '200' })
      // Fresh connections, spread by the kernel over both processes.
      for (let i = 0; i < 30; i++) expect((await fetch(`${url}/v1/ferramentas/cnpj/33683111000280`, { headers: { connection: 'close' } })).status).toBe(200)
      for (let i = 0; i < 6; i++) expect(await total()).toBe(30)
    } finally {
      served.proc.kill('SIGTERM')
      await served.proc.exited
      await served.read
    }
    const lines = served.log.text.trim().split('\n')
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
    // Both processes answered (the kernel spread the connections), and each counted into the sum.
    const answered = lines.map((l) => JSON.parse(l)).filter((o) => o.msg === 'pedido' && o.status === 200 && !String(o.ms).includes('metrics'))
    expect(answered.some((o) => o.processo === 1)).toBe(true)
    expect(answered.some((o) => o.processo === undefined)).toBe(true)
  }, 60_000)

  test('--metricas 0: no /metrics', async () => {
    const config = loadConfig({ free: true, dataDir, metrics: '0' }, {})
    const off = await createApp(config, { log: createLogger('silent') })
    expect((await off.handle(new Request('http://localhost/metrics'))).status).toBe(404)
    await off.close()
  })
})
