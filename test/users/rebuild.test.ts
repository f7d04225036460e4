// scripts/rebuild-monthly.sh, the script of the CI example (docs/ci.md), run as the workflow runs
// it: against a local stand-in for the official sources (real paths, real-format files), with a
// `dadosbr` on the PATH. First run: downloads, builds, exports, checksums and publishes; second
// run: nothing new downloaded, the same data published again; a source down: the script goes on
// with the others, keeps the base in use and exits 1. The workflow file in docs/ci.md calls it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DuckDBInstance } from '@duckdb/node-api'
import { existsSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import YAML from 'yaml'
import { tempDir } from '../helpers'
import { dadosbrShim, MONTH, startUpstreams, STAND_IN_BASES, type Upstreams } from './upstreams'

const ROOT = join(import.meta.dir, '..', '..')
const SCRIPT = join(ROOT, 'scripts', 'rebuild-monthly.sh')
let upstreams: Upstreams
let bin: string
let data: string
let saida: string
let destino: string

beforeAll(() => {
  upstreams = startUpstreams()
  bin = tempDir('dadosbr-bin-')
  dadosbrShim(bin)
  data = tempDir('dadosbr-ci-data-')
  saida = tempDir('dadosbr-ci-saida-')
  destino = tempDir('dadosbr-ci-publicado-')
})
afterAll(() => upstreams?.close())

/** Runs the script asynchronously: the stand-in answers from this same process. */
async function rebuild(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(['bash', SCRIPT, ...args], {
    env: { ...process.env, ...upstreams.env, PATH: `${bin}:${process.env.PATH}`, DADOSBR_PUBLICACAO: '2026-11', UV_THREADPOOL_SIZE: '8', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out, err }
}

const args = () => ['--data', data, '--saida', saida, '--publicar', destino, ...STAND_IN_BASES]

describe('scripts/rebuild-monthly.sh', () => {
  test('first run: downloads every file, builds, exports Parquet, checksums and publishes', async () => {
    const r = await rebuild(args())
    expect(r.code, r.err).toBe(0)
    // The whole month of the registry (37 zips) and the other sources, each once.
    const got = upstreams.downloads()
    expect(got.filter((p) => p.startsWith('/public.php/dav/files/')).length).toBe(37)
    expect(got.filter((p) => !p.startsWith('/public.php/'))).toHaveLength(3)
    for (const base of STAND_IN_BASES) expect(readlinkSync(join(data, base, 'current'))).toBeTruthy()
    const published = join(destino, '2026-11')
    for (const base of STAND_IN_BASES) {
      expect(existsSync(join(published, base, 'manifest.json'))).toBe(true)
      expect(existsSync(join(published, base, 'dicionario.md'))).toBe(true)
    }
    // Every file is in SHA256SUMS, and every sum is right.
    const check = Bun.spawnSync(['sha256sum', '--check', '--quiet', 'SHA256SUMS'], { cwd: published })
    expect(check.exitCode, check.stdout.toString() + check.stderr.toString()).toBe(0)
    const listed = readFileSync(join(published, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.slice(66))
    expect(listed).toContain('cnpj/estabelecimentos/uf=DF/parte_0.parquet')
    expect(listed).toContain('desmatamento/municipios.parquet')
    const indice = JSON.parse(readFileSync(join(published, 'indice.json'), 'utf8'))
    expect(indice.publicacao).toBe('2026-11')
    expect(indice.bases).toContainEqual({ base: 'cnpj', referencia: MONTH, dicionario: 'cnpj/dicionario.md' })
    // What a researcher then reads: the registry from the published Parquet.
    const conn = await (await DuckDBInstance.create(':memory:')).connect()
    const rows = (await conn.runAndReadAll(`SELECT count(*) FROM read_parquet('${published}/cnpj/estabelecimentos/*/*.parquet', hive_partitioning = true) WHERE cnpj = '33683111000280' AND uf = 'DF'`)).getRows()
    expect(Number(rows[0]![0])).toBe(1)
  }, 240_000)

  test('second run: nothing new upstream, nothing downloaded, the same files published again', async () => {
    const before = upstreams.downloads().length
    const sums = readFileSync(join(destino, '2026-11', 'SHA256SUMS'), 'utf8')
    const r = await rebuild(args())
    expect(r.code, r.err).toBe(0)
    expect(upstreams.downloads().length).toBe(before)
    expect(r.err).toContain(`base CNPJ ${MONTH} já está em`)
    // Parquet files are the same bytes when the data is the same (the manifests too).
    expect(readFileSync(join(destino, '2026-11', 'SHA256SUMS'), 'utf8')).toBe(sums)
  }, 240_000)

  // A 404 (the source moved), not a 503: a 5xx is retried with backoff for minutes, as it should be in production.
  test('a source failing: its base in use is kept, the others still exported and published, exit 1', async () => {
    const inUse = readlinkSync(join(data, 'desmatamento', 'current'))
    upstreams.server.fault = { kind: 'status', status: 404, body: '<html><body>Not Found</body></html>', headers: { 'content-type': 'text/html' } }
    try {
      const r = await rebuild(['--data', data, '--saida', saida, '--publicar', join(destino, 'falha'), 'desmatamento', 'cnpj'])
      expect(r.code).toBe(1)
      expect(r.err).toContain('rebuild-monthly: desmatamento falhou; a base em uso foi mantida')
      expect(readlinkSync(join(data, 'desmatamento', 'current'))).toBe(inUse)
      // Both bases exported and published: desmatamento from the build kept, cnpj as usual.
      expect(existsSync(join(destino, 'falha', '2026-11', 'desmatamento', 'municipios.parquet'))).toBe(true)
      expect(existsSync(join(destino, 'falha', '2026-11', 'cnpj', 'manifest.json'))).toBe(true)
    } finally {
      upstreams.server.fault = { kind: 'none' }
    }
  }, 240_000)

  test('bad use: an unknown option, no dadosbr', async () => {
    expect((await rebuild(['--nada'])).err).toBe('rebuild-monthly: opção desconhecida: --nada (veja --help)\n')
    const none = await rebuild(['cnpj'], { DADOSBR: '/nao/existe/dadosbr' })
    expect(none.code).toBe(2)
    expect(none.err).toContain("'/nao/existe/dadosbr' não encontrado")
  })
})

describe('docs/ci.md', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8')
  const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1]

  test('the example workflow parses, runs monthly, and calls this script with the sources it rebuilds', () => {
    const workflow = YAML.parse(yaml!)
    expect(workflow.on.schedule[0].cron).toMatch(/^\d+ \d+ \d+ \* \*$/)
    expect(workflow.on.workflow_dispatch).toBeDefined()
    const steps = Object.values(workflow.jobs as Record<string, { steps: { run?: string }[] }>).flatMap((j) => j.steps)
    const runs = steps.map((s) => s.run ?? '').join('\n')
    expect(runs).toContain('scripts/rebuild-monthly.sh')
    expect(runs).toMatch(/--publicar s3:\/\//)
    // Every option the workflow passes exists in the script.
    for (const [, flag] of runs.matchAll(/rebuild-monthly\.sh[^\n]*?(--[a-z-]+)/g)) expect(readFileSync(SCRIPT, 'utf8')).toContain(`${flag})`)
  })
})
