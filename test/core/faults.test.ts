// Fault injection, short (make test; the long run is bench/faults.ts): what a production server
// meets, against the real command line and the real files. An ingest killed outright at any moment
// leaves nothing that can swap and the data in use as it was; a damaged data file makes its
// dataset unavailable (503, health, metrics) and never takes the process or the other datasets
// down; routing does not depend on the Host header; every answer this server writes carries the
// error envelope, and what the runtime answers before it is the documented set (docs/operacao.md).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { syncContracts } from '../../ingest/licitacoes/sync'
import { BuildError, buildSnapshot, takeBuildLock } from '../../ingest/lib/snapshot'
import type { App } from '../../src/app'
import type { CnpjStore } from '../../src/datasets/cnpj/store'
import { openDuckDb } from '../../src/core/stores/duckdb'
import { checkDuckDbFile, checkSqliteFile, DamagedFileError } from '../../src/core/stores/file-check'
import { RUNTIME_FLAGS } from '../../src/core/self'
import { FIXTURES, buildFixtureData } from '../cnpj/helpers'
import { buildSampleData, get, tempDir, testApp } from '../helpers'
import { contract, fakePncp } from '../licitacoes/fake-pncp'
import { rawRequest } from '../raw-http'
import { fileInUse, scribble } from '../damage'
import { alive, childrenOf, startServe, until } from '../serve-process'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const SERPRO = '33683111000280'

/** The environment of a user's shell: no UV_THREADPOOL_SIZE, so `dadosbr ingest` re-runs itself as an internal process (src/cli.ts). */
function userEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra }
  delete env.UV_THREADPOOL_SIZE
  delete env.DADOSBR_PAI
  return env
}

/** Every process below `pid` (children, their children...). */
function descendantsOf(pid: number): number[] {
  const out: number[] = []
  for (let level = [pid]; level.length; ) {
    level = level.flatMap(childrenOf)
    out.push(...level)
  }
  return out
}

/** `dadosbr ingest <args>` started as a user starts it, its stderr collected. */
function startIngest(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, ...RUNTIME_FLAGS, CLI, 'ingest', ...args], { env: userEnv(env), stdout: 'ignore', stderr: 'pipe' })
  const log = { text: '' }
  const read = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr) log.text += decoder.decode(chunk, { stream: true })
  })()
  return { proc, log, read }
}

/** Kills `proc` with SIGKILL and waits for every process it had started to be gone. */
async function killOutright(proc: Bun.Subprocess): Promise<number[]> {
  const below = descendantsOf(proc.pid)
  proc.kill('SIGKILL')
  await proc.exited
  await until(() => (below.some(alive) ? undefined : true), `o fim dos processos internos do ingest (${below.join(', ')})`, 15_000)
  return below
}

const currentOf = (dataDir: string, dataset: string) => readlinkSync(join(dataDir, dataset, 'current'))

describe('a killed ingest leaves no process behind that can swap', () => {
  /** Where the running build writes (build_<pid>_<time>.tmp), or undefined. */
  const workDir = (dataDir: string) => {
    const name = readdirSync(join(dataDir, 'cnpj')).find((e) => e.startsWith('build_') && e.endsWith('.tmp'))
    return name ? join(dataDir, 'cnpj', name) : undefined
  }
  const moments: [string, (dataDir: string, pid: number) => boolean][] = [
    ['with the lock just taken', (d) => existsSync(join(d, 'cnpj', '.ingest.lock'))],
    ['while the registry loads into DuckDB', (d) => existsSync(join(workDir(d) ?? '/nonexistent', 'cnpj.duckdb'))],
    ['while the name-index processes run', (_, pid) => descendantsOf(pid).length >= 3],
  ]

  for (const [i, [moment, reached]] of moments.entries()) {
    test(`dadosbr ingest cnpj killed -9 ${moment}: the data in use never changes, and the next ingest runs`, async () => {
      const dataDir = await buildFixtureData('2026-08')
      const inUse = currentOf(dataDir, 'cnpj')
      const { proc, log, read } = startIngest(['cnpj', '--from', FIXTURES, '--mes', '2026-09', '--data', dataDir, '--quiet'])
      await until(() => (reached(dataDir, proc.pid) ? true : proc.exitCode !== null ? Promise.reject(new Error(`o ingest terminou antes: ${log.text}`)) : undefined), moment, 60_000)
      const internal = await killOutright(proc)
      expect(internal.length).toBeGreaterThan(0)
      await read
      // Nothing left alive that could swap: the data in use is the one before, whole.
      expect(currentOf(dataDir, 'cnpj')).toBe(inUse)
      expect(JSON.parse(readFileSync(join(dataDir, 'cnpj', 'current', 'manifest.json'), 'utf8')).referencia).toBe('2026-08')
      if (i < moments.length - 1) {
        // The dead build's lock is stale: the next build takes it (its own test below runs a whole one).
        const release = await takeBuildLock(join(dataDir, 'cnpj'), () => {})
        await release()
        return
      }
      const next = startIngest(['cnpj', '--from', FIXTURES, '--mes', '2026-09', '--data', dataDir, '--quiet'])
      expect(await next.proc.exited).toBe(0)
      await next.read
      expect(next.log.text).toMatch(/a trava de .*cnpj era de um ingest que terminou sem liberá-la \(pid \d+\); assumida por este/)
      expect(next.log.text).toMatch(/removidos restos de construções interrompidas em .*cnpj: build_\d+_\d+\.tmp/)
      expect(currentOf(dataDir, 'cnpj')).not.toBe(inUse)
      expect(JSON.parse(readFileSync(join(dataDir, 'cnpj', 'current', 'manifest.json'), 'utf8')).referencia).toBe('2026-09')
      expect(readdirSync(join(dataDir, 'cnpj')).filter((e) => e.endsWith('.tmp') || e === '.ingest.lock')).toEqual([])
    }, 120_000)
  }

  test('a PNCP sync killed -9 leaves no process behind; the next sync is not refused', async () => {
    const fake = fakePncp()
    try {
      for (let d = 1; d <= 28; d++) fake.days.set(`2024-02-${String(d).padStart(2, '0')}`, [contract(1000 + d, '11222333000181')])
      fake.server.fault = { kind: 'slow', delayMs: 200 }
      const dataDir = tempDir('dadosbr-falha-pncp-')
      const { proc, read } = startIngest(['licitacoes', '--desde', '2024-02-01', '--ate', '2024-02-28', '--concorrencia', '1', '--data', dataDir, '--quiet'], { PNCP_URL: fake.server.url })
      await until(() => (fake.asked.length >= 2 ? true : undefined), 'o sync pedindo ao PNCP', 60_000)
      await killOutright(proc)
      await read
      // A page asked just before the kill is still counted when its delay ends.
      await Bun.sleep(500)
      const asked = fake.asked.length
      await Bun.sleep(1000)
      // Nobody asks the PNCP anymore: the internal process died with the command.
      expect(fake.asked.length).toBe(asked)
      fake.server.fault = { kind: 'none' }
      const lines: string[] = []
      process.env.PNCP_URL = fake.server.url
      const s = await syncContracts({ dataDir, desde: '2024-02-01', ate: '2024-02-28', quiet: true, log: (l) => lines.push(l), retries: 1, backoffMs: 1 })
      expect(s.sincronizado_ate).toBe('2024-02-28')
      expect(lines.join('\n')).toMatch(/licitacoes era de um ingest que terminou sem liberá-la \(pid \d+\); assumida por este/)
    } finally {
      fake.server.close()
    }
  }, 120_000)

  test('dadosbr ingest bcb killed -9 mid-download leaves no process behind', async () => {
    const { startReplay } = await import('../../ingest/lib/replay')
    const bcb = startReplay()
    try {
      bcb.fault = { kind: 'slow', delayMs: 60_000 }
      const dataDir = tempDir('dadosbr-falha-bcb-')
      const { proc, read } = startIngest(['bcb', '--data', dataDir, '--quiet'], { BCB_INSTITUICOES_URL: bcb.url })
      await until(() => (bcb.requests.length > 0 ? true : undefined), 'o download do Banco Central', 60_000)
      const internal = await killOutright(proc)
      expect(internal.length).toBeGreaterThan(0)
      await read
      expect(existsSync(join(dataDir, 'bcb', 'current'))).toBe(false)
    } finally {
      bcb.close()
    }
  }, 60_000)

  test("a killed --amostra run's copy in TMPDIR is removed by the next run", async () => {
    const temp = tempDir('dadosbr-falha-tmp-')
    const dataDir = tempDir('dadosbr-falha-amostra-')
    const { proc, read } = startIngest(['cnpj', '--amostra', '--data', dataDir, '--quiet'], { TMPDIR: temp })
    await until(() => (existsSync(join(dataDir, 'cnpj', '.ingest.lock')) ? true : undefined), 'o lock da amostra', 60_000)
    await killOutright(proc)
    await read
    const left = readdirSync(temp).filter((e) => e.startsWith('dadosbr-amostra-'))
    expect(left.length).toBe(1)
    const next = startIngest(['bcb', '--amostra', '--data', dataDir, '--quiet'], { TMPDIR: temp })
    expect(await next.proc.exited).toBe(0)
    expect(readdirSync(temp).filter((e) => e.startsWith('dadosbr-amostra-'))).toEqual([])
  }, 60_000)

  test('a lock whose pid now belongs to a process started after it (a reboot reused the number) is taken over', async () => {
    const root = join(tempDir('dadosbr-falha-lock-'), 'cnpj')
    mkdirSync(root, { recursive: true })
    const other = Bun.spawn(['sleep', '30'])
    try {
      const lock = join(root, '.ingest.lock')
      writeFileSync(lock, String(other.pid))
      const hourAgo = Date.now() / 1000 - 3600
      utimesSync(lock, hourAgo, hourAgo)
      const lines: string[] = []
      const release = await takeBuildLock(root, (l) => lines.push(l))
      expect(lines).toEqual([`aviso: a trava de ${root} era de um ingest que terminou sem liberá-la (pid ${other.pid}); assumida por este (pid ${process.pid})`])
      expect(readFileSync(lock, 'utf8')).toBe(String(process.pid))
      await release()
      expect(existsSync(lock)).toBe(false)
    } finally {
      other.kill()
    }
  })

  describe('the swap checks that this process is still the builder', () => {
    const build = (dataDir: string, during: () => void) =>
      buildSnapshot({
        dataDir,
        dataset: 'teste',
        build: async (work) => {
          writeFileSync(join(work, 'valor.txt'), 'novo')
          during()
          return { base: 'Teste', formato: 1, referencia: '2026-11-25', arquivos: [] }
        },
      })

    test('a lock taken over meanwhile: refused, the data in use kept, the build removed', async () => {
      const dataDir = tempDir('dadosbr-falha-swap-')
      await build(dataDir, () => {})
      const before = currentOf(dataDir, 'teste')
      const err = await build(dataDir, () => writeFileSync(join(dataDir, 'teste', '.ingest.lock'), '999999')).catch((e) => e)
      expect(err).toBeInstanceOf(BuildError)
      expect(err.message).toBe(`a trava de ${join(dataDir, 'teste')} não é mais deste ingest (agora é do pid 999999); a base em uso foi mantida`)
      expect(currentOf(dataDir, 'teste')).toBe(before)
      expect(readdirSync(join(dataDir, 'teste')).sort()).toEqual(['.ingest.lock', 'current', before].sort())
    })

    test('its starting command gone (an internal process outliving the ingest the user killed): refused', async () => {
      const dataDir = tempDir('dadosbr-falha-swap-')
      await build(dataDir, () => {})
      const before = currentOf(dataDir, 'teste')
      // As if started by a process that is no longer its parent.
      const saved = process.env.DADOSBR_PAI
      const err = await build(dataDir, () => void (process.env.DADOSBR_PAI = String(process.ppid + 1_000_000))).catch((e) => e)
      if (saved === undefined) delete process.env.DADOSBR_PAI
      else process.env.DADOSBR_PAI = saved
      expect(err).toBeInstanceOf(BuildError)
      expect(err.message).toBe('o comando que iniciou este ingest terminou (foi encerrado); a base em uso foi mantida')
      expect(currentOf(dataDir, 'teste')).toBe(before)
    })
  })

  test('a full disk (the file size limit) fails the build; the data in use and no temp directory stay', async () => {
    const dataDir = await buildFixtureData('2026-08')
    const inUse = currentOf(dataDir, 'cnpj')
    // ulimit -f: writes past 2 MB fail (EFBIG), as on a full disk; the DuckDB file alone is 3 MB.
    const env = userEnv()
    const proc = Bun.spawn(['sh', '-c', `ulimit -f 4096; exec "$@"`, 'sh', process.execPath, ...RUNTIME_FLAGS, CLI, 'ingest', 'cnpj', '--from', FIXTURES, '--mes', '2026-09', '--data', dataDir, '--quiet'], { env, stdout: 'ignore', stderr: 'pipe' })
    const code = await proc.exited
    const err = await new Response(proc.stderr).text()
    expect(code).toBe(1)
    expect(err).toMatch(/sem espaço em disco para construir em .*cnpj \(.*File too large.*\); libere espaço e rode de novo; a base em uso foi mantida\n$/)
    expect(currentOf(dataDir, 'cnpj')).toBe(inUse)
    expect(readdirSync(join(dataDir, 'cnpj')).filter((e) => e.endsWith('.tmp') || e === '.ingest.lock')).toEqual([])
  }, 60_000)
})

/** A copy of the sample data directory (every dataset's bundled sample), to damage. */
async function sampleCopy(): Promise<string> {
  const copy = tempDir('dadosbr-falha-dados-')
  cpSync(await buildSampleData(), copy, { recursive: true, verbatimSymlinks: true })
  return copy
}


describe('a damaged data file makes its dataset unavailable, never the process or the others', () => {
  test('the headers tell a whole file from a cut or overwritten one, before SQLite or DuckDB reads it', async () => {
    const dataDir = await sampleCopy()
    const duck = fileInUse(dataDir, 'cnpj', 'cnpj.duckdb')
    const cards = fileInUse(dataDir, 'cnpj', 'fichas.sqlite')
    checkDuckDbFile(duck)
    checkSqliteFile(cards)
    const size = statSync(duck).size
    truncateSync(duck, size - 1)
    expect(() => checkDuckDbFile(duck)).toThrow(new DamagedFileError(`${duck}: arquivo DuckDB truncado (${size - 1} bytes, o cabeçalho diz ${(size - 12288) / 262144} blocos = ${size})`))
    const pages = statSync(cards).size / 4096
    truncateSync(cards, 4096 * 10)
    expect(() => checkSqliteFile(cards)).toThrow(`${cards}: arquivo SQLite truncado (40960 bytes, o cabeçalho diz ${pages} páginas de 4096 = ${pages * 4096})`)
    scribble(cards, 0, 16)
    expect(() => checkSqliteFile(cards)).toThrow(`${cards}: não é um arquivo SQLite (cabeçalho ausente ou sobrescrito)`)
  })

  test('a DuckDB reader closed while queries wait or run: those waiting are refused, the running one finishes, then it closes', async () => {
    const dataDir = await buildSampleData()
    const reader = await openDuckDb(fileInUse(dataDir, 'cnpj', 'cnpj.duckdb'), 1)
    const running = reader.query('SELECT count(*) AS n FROM range(3000000) t(i) WHERE i % 7 = 0')
    const waiting = reader.query('SELECT 1 AS um').then(() => 'respondida', (e: Error) => e.message)
    const closing = reader.close()
    expect(await running).toEqual([{ n: 428572n }])
    expect(await waiting).toBe('base fechada')
    await closing
    await expect(reader.query('SELECT 1')).rejects.toThrow('base fechada')
  })

  test('starting on a truncated cnpj.duckdb: the process stays up, cnpj answers 503 with the reason, health and metrics say so, the others answer', async () => {
    const dataDir = await sampleCopy()
    const duck = fileInUse(dataDir, 'cnpj', 'cnpj.duckdb')
    truncateSync(duck, 1_000_000)
    const server = startServe(['--data', dataDir, '--port', '0', '--processos', '1'])
    try {
      const { port } = await server.announced
      const base = `http://127.0.0.1:${port}`
      const cnpj = await fetch(`${base}/v1/cnpj/situacao/${SERPRO}`)
      expect(cnpj.status).toBe(503)
      const erro = ((await cnpj.json()) as { erro: { codigo: string; mensagem: string } }).erro
      expect(erro.codigo).toBe('dados_indisponiveis')
      expect(erro.mensagem).toContain(`${duck}: arquivo DuckDB truncado (1000000 bytes`)
      expect((await fetch(`${base}/v1/bcb/amostra`)).status).toBe(200)
      expect((await fetch(`${base}/v1/integridade/consulta/${SERPRO}`)).status).toBe(200)
      const health = (await (await fetch(`${base}/v1/health`)).json()) as { status: string; bases: { nome: string; ok: boolean; motivo: string | null }[] }
      expect(health.status).toBe('degradado')
      expect(health.bases.find((b) => b.nome === 'cnpj')).toMatchObject({ ok: false, motivo: expect.stringContaining('arquivo DuckDB truncado') })
      expect(health.bases.find((b) => b.nome === 'bcb')).toMatchObject({ ok: true })
      const metrics = await (await fetch(`${base}/metrics`)).text()
      expect(metrics).toContain('dadosbr_dataset_up{base="cnpj"} 0\n')
      expect(metrics).toContain('dadosbr_dataset_up{base="bcb"} 1\n')
      expect(server.proc.exitCode).toBeNull()
    } finally {
      server.proc.kill('SIGKILL')
    }
  }, 60_000)

  describe('a file damaged while the server runs', () => {
    let app: App
    let dataDir: string
    let cards: string
    let original: Buffer
    beforeAll(async () => {
      dataDir = await sampleCopy()
      cards = fileInUse(dataDir, 'cnpj', 'fichas.sqlite')
      original = readFileSync(cards)
      ;({ app } = await testApp({ dataDir }))
    })
    afterAll(() => app?.close())

    test('pages of fichas.sqlite overwritten: 503 dados_indisponiveis (never 500), health and metrics say why, the other datasets answer', async () => {
      expect((await get(app, `/v1/cnpj/empresa/${SERPRO}`)).status).toBe(200)
      // Every page but the first (the header and the schema still read): the cards are garbage.
      scribble(cards, 4096, statSync(cards).size - 4096)
      const r = await get(app, `/v1/cnpj/empresa/${SERPRO}/completo`)
      expect(r.status).toBe(503)
      expect(r.body.erro.codigo).toBe('dados_indisponiveis')
      expect(r.body.erro.mensagem).toContain('arquivo danificado na construção')
      expect(r.body.erro.mensagem).toContain('database disk image is malformed')
      // Dropped: the next ones are refused at once, with the same reason.
      expect((await get(app, `/v1/cnpj/situacao/${SERPRO}`)).status).toBe(503)
      const health = (await get(app, '/v1/health')).body
      expect(health.status).toBe('degradado')
      expect(health.bases.find((b: { nome: string }) => b.nome === 'cnpj')).toMatchObject({ ok: false, motivo: expect.stringContaining('database disk image is malformed') })
      expect(health.base_referencia).toBeNull()
      expect((await get(app, '/metrics')).text).toContain('dadosbr_dataset_up{base="cnpj"} 0\n')
      expect((await get(app, `/v1/bcb/instituicao/${SERPRO}`)).status).not.toBe(503)
      expect((await get(app, `/v1/integridade/consulta/${SERPRO}`)).status).toBe(200)
      // The free sample falls back to its bundled copy.
      expect((await get(app, '/v1/cnpj/amostra')).status).toBe(200)
    })

    test('the file restored: the same build is opened again at the next check and serves', async () => {
      writeFileSync(cards, original)
      const store = app.ctx.stores.get('cnpj') as unknown as CnpjStore
      expect(await store.reload()).toBe(true)
      expect((await get(app, `/v1/cnpj/empresa/${SERPRO}`)).status).toBe(200)
      expect((await get(app, '/v1/health')).body.bases.find((b: { nome: string }) => b.nome === 'cnpj')).toMatchObject({ ok: true, motivo: null })
    })
  })

  test('a SQLite header overwritten before the start: that dataset is unavailable with the reason, the registry serves', async () => {
    const dataDir = await sampleCopy()
    const bcb = fileInUse(dataDir, 'bcb', 'bcb.sqlite')
    scribble(bcb, 0, 100)
    const { app } = await testApp({ dataDir })
    try {
      const r = await get(app, `/v1/bcb/instituicao/${SERPRO}`)
      expect(r.status).toBe(503)
      expect(r.body.erro.mensagem).toContain(`${bcb}: não é um arquivo SQLite`)
      expect((await get(app, `/v1/cnpj/situacao/${SERPRO}`)).status).toBe(200)
      // The enrichment still answers, its Banco Central part marked missing with the reason.
      const e = await get(app, `/v1/empresa/enriquecer/${SERPRO}`)
      expect(e.status).toBe(200)
      expect(e.body.fontes.banco_central).toMatchObject({ disponivel: false, motivo: expect.stringContaining('não é um arquivo SQLite') })
    } finally {
      await app.close()
    }
  })

  test('the ingest refuses to swap in a build whose SQLite file is cut short', async () => {
    const dataDir = tempDir('dadosbr-falha-corte-')
    const err = await buildSnapshot({
      dataDir,
      dataset: 'teste',
      build: async (work) => {
        const db = new Database(join(work, 'dados.sqlite'))
        db.run('CREATE TABLE t (x)')
        db.run("INSERT INTO t SELECT hex(randomblob(500)) FROM (WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100) SELECT i FROM r)")
        db.close()
        truncateSync(join(work, 'dados.sqlite'), 8192)
        return { base: 'Teste', formato: 1, referencia: '2026-11-25', arquivos: [] }
      },
    }).catch((e) => e)
    expect(err).toBeInstanceOf(BuildError)
    expect(err.message).toMatch(/dados\.sqlite: arquivo SQLite truncado \(8192 bytes, o cabeçalho diz \d+ páginas de 4096 = \d+\); a base em uso foi mantida$/)
    expect(existsSync(join(dataDir, 'teste', 'current'))).toBe(false)
    expect(readdirSync(join(dataDir, 'teste'))).toEqual([])
  })
})

describe('the HTTP layer, through a real socket', () => {
  let server: ReturnType<typeof startServe>
  let port: number
  beforeAll(async () => {
    server = startServe(['--data', await buildSampleData(), '--port', '0', '--processos', '1'])
    ;({ port } = await server.announced)
  }, 60_000)
  afterAll(() => server?.proc.kill('SIGKILL'))

  const ask = (path: string, headers: string, version = 'HTTP/1.1') => rawRequest(port, `GET ${path} ${version}\r\n${headers}Connection: close\r\n\r\n`)

  // A reverse proxy or a container network names the service (api, web:80); clients send IPv6 literals; HTTP/1.0 may send no Host.
  const hosts: [string, string, string][] = [
    ['Host: api', 'HTTP/1.1', 'http://api'],
    ['Host: web:80', 'HTTP/1.1', 'http://web'],
    ['Host: x', 'HTTP/1.1', 'http://x'],
    ['Host: a.b', 'HTTP/1.1', 'http://a.b'],
    ['Host: [::1]:8080', 'HTTP/1.1', 'http://[::1]:8080'],
    ['Host: dadosbr.exemplo.com.br', 'HTTP/1.1', 'http://dadosbr.exemplo.com.br'],
    ['Host: api', 'HTTP/1.0', 'http://api'],
    ['', 'HTTP/1.0', 'http://localhost'],
  ]
  for (const [host, version, origin] of hosts) {
    test(`${version} ${host || 'without Host'}: every kind of route answers, and absolute links use ${origin}`, async () => {
      const headers = host ? `${host}\r\n` : ''
      const health = await ask('/v1/health', headers, version)
      expect(health.status).toBe(200)
      expect(JSON.parse(health.body).servico).toBe('dadosbr')
      expect((await ask(`/v1/cnpj/situacao/${SERPRO}`, headers, version)).status).toBe(200)
      expect((await ask('/v1/cnpj/empresa/33.683.111/0002-80', headers, version)).status).toBe(200)
      expect((await ask('/v1/health/', headers, version)).status).toBe(200)
      expect((await ask('/openapi.json', headers, version)).status).toBe(200)
      expect((await ask('/v1/nada', headers, version)).status).toBe(404)
      const tools = JSON.parse((await ask('/v1/ferramentas', headers, version)).body) as { ferramentas: { url: string }[] }
      expect(tools.ferramentas[0]!.url).toStartWith(`${origin}/v1/ferramentas/`)
    })
  }

  test('a body over 64 KiB on a method that may carry one: 413 in the envelope (the runtime no longer answers it bare)', async () => {
    const body = 'x'.repeat(100_000)
    const r = await rawRequest(port, `POST /v1/health HTTP/1.1\r\nHost: api\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body)).toEqual({ erro: { codigo: 'corpo_muito_grande', mensagem: 'O corpo do pedido passa de 65536 bytes.' } })
    // Without Content-Length (chunked), read here up to the limit: over it, the same 413.
    const chunk = (n: number) => `${n.toString(16)}\r\n${'y'.repeat(n)}\r\n`
    const chunked = await rawRequest(port, `POST /v1/health HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk(40_000)}${chunk(40_000)}0\r\n\r\n`)
    expect(chunked.status).toBe(413)
    expect(JSON.parse(chunked.body).erro.codigo).toBe('corpo_muito_grande')
    const small = await rawRequest(port, `POST /v1/health HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk(10)}0\r\n\r\n`)
    expect(small.status).toBe(405)
    // A small one on a GET route: 405, in the envelope.
    const post = await rawRequest(port, 'POST /v1/health HTTP/1.1\r\nHost: api\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}')
    expect(post.status).toBe(405)
    expect(JSON.parse(post.body).erro.codigo).toBe('metodo_nao_permitido')
    // A GET's body is ignored, whatever its size.
    expect((await rawRequest(port, `GET /v1/health HTTP/1.1\r\nHost: api\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)).status).toBe(200)
  })

  test("what the runtime answers before our code is exactly the documented set (docs/operacao.md): status line, no body", async () => {
    const bare = (r: { status: number; body: string; headers: Record<string, string> }, status: number) => {
      expect(r.status).toBe(status)
      expect(r.body).toBe('')
      expect(r.headers['content-type']).toBeUndefined()
    }
    // Headers (request line included) over the 1 MiB the runtime reads: 431.
    bare(await rawRequest(port, `GET /v1/health HTTP/1.1\r\nHost: api\r\nX-Grande: ${'a'.repeat(2 * 1024 * 1024)}\r\nConnection: close\r\n\r\n`), 431)
    // A request line the parser cannot split in three (a raw space or NUL in the path): 505.
    bare(await rawRequest(port, 'GET /v1/he alth HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n'), 505)
    bare(await rawRequest(port, 'GET /v1/he\0alth HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n'), 505)
    // HTTP/1.1 without Host, or a header line without a colon: 400.
    bare(await rawRequest(port, 'GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n'), 400)
    bare(await rawRequest(port, 'GET /v1/health HTTP/1.1\r\nHost: api\r\nSem dois pontos\r\nConnection: close\r\n\r\n'), 400)
    // An unknown method token: the connection is closed without an answer.
    expect((await rawRequest(port, 'BREW /v1/health HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n')).raw).toBe('')
    // Headers up to the limit reach the app: a URL of 20 KB gets the app's 414, in the envelope.
    const long = await rawRequest(port, `GET /v1/health?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n`)
    expect(long.status).toBe(414)
    expect(JSON.parse(long.body).erro.codigo).toBe('uri_muito_longa')
  })
})

describe('what held before, kept from regressing (the long runs: bench/faults.ts)', () => {
  test('SIGTERM under load: every answer given is whole, and the server exits 0', async () => {
    const server = startServe(['--data', await buildSampleData(), '--port', '0', '--processos', '2'])
    const { port } = await server.announced
    await until(() => (/ouvindo na porta \d+ processo=1/.test(server.log.text) ? true : undefined), 'o segundo processo na porta')
    const answers: { status: number; whole: boolean }[] = []
    let stopped = false
    const loops = Array.from({ length: 16 }, async () => {
      while (!stopped) {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/v1/cnpj/empresa/${SERPRO}`)
          const text = await r.text()
          let whole = true
          try {
            JSON.parse(text)
          } catch {
            whole = false
          }
          answers.push({ status: r.status, whole })
        } catch {
          // The port closed: a request after the stop has no server to answer it.
          await Bun.sleep(5)
        }
      }
    })
    await until(() => (answers.length >= 200 ? true : undefined), 'respostas sob carga')
    server.proc.kill('SIGTERM')
    expect(await server.proc.exited).toBe(0)
    stopped = true
    await Promise.all(loops)
    expect(answers.filter((a) => a.status !== 200 || !a.whole)).toEqual([])
  }, 60_000)

  test('slowloris: connections that send a header byte at a time do not keep others from being answered', async () => {
    const server = startServe(['--data', await buildSampleData(), '--port', '0', '--processos', '1'])
    const sockets: Socket[] = []
    try {
      const { port } = await server.announced
      for (let i = 0; i < 100; i++) {
        const s = connect(port, '127.0.0.1')
        s.on('error', () => {})
        s.write('GET /v1/health HTTP/1.1\r\nHost: api\r\nX-Lento: ')
        sockets.push(s)
      }
      const drip = setInterval(() => sockets.forEach((s) => s.write('a')), 200)
      try {
        for (let i = 0; i < 50; i++) expect((await fetch(`http://127.0.0.1:${port}/v1/cnpj/situacao/${SERPRO}`)).status).toBe(200)
      } finally {
        clearInterval(drip)
      }
    } finally {
      for (const s of sockets) s.destroy()
      server.proc.kill('SIGKILL')
    }
  }, 60_000)
})
