// Ingest end to end: from a directory, from a local HTTP share (with a dropped connection that
// must resume), corrupt and truncated zips, the malformed-row threshold, and the live swap.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { buildCnpj, buildPlan } from '../../ingest/cnpj/load'
import { BuildError } from '../../ingest/lib/snapshot'
import { writeZip } from '../../ingest/lib/zip-write'
import { machineCores, quotaCores } from '../../src/core/cores'
import { availableParallelism } from 'node:os'
import { Database } from 'bun:sqlite'
import { CARD_SEPARATOR, CARD_TABLES, cardKey, CARDS_FILE, cardTable, FICHA, FORMAT, PARTITIONS, PARTNER_SEPARATOR, partitionOfRoot, rootKey, SOCIO } from '../../src/datasets/cnpj/layout'
import { TABLES } from '../../ingest/cnpj/parse'
import { CardCodec } from '../../src/datasets/cnpj/card-codec'
import { downloadMonth } from '../../ingest/cnpj/sources'
import { ZipError } from '../../ingest/lib/zip'
import type { CnpjStore } from '../../src/datasets/cnpj/store'
import { get, tempDir, testApp } from '../helpers'
import { buildFixtureData, copyFixtures, FIXTURES, withRejects } from './helpers'
import { childrenOf, startServe, until } from '../serve-process'

// Every test here builds at least once: on a machine busy with other work a build of the fixtures
// took over bun's default 5 s.
setDefaultTimeout(60_000)

const quiet = { quiet: true, log: () => {} }
const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const tmp = tempDir

describe('build from a directory', () => {
  test('manifest: month, each file with size and sha256, row counts, malformed rows with file and line', async () => {
    const data = await buildFixtureData('2026-07', withRejects())
    const link = join(data, 'cnpj', 'current')
    const manifest = JSON.parse(readFileSync(join(link, 'manifest.json'), 'utf8'))
    expect(manifest.referencia).toBe('2026-07')
    expect(manifest.linhas).toEqual({ empresas: 8, estabelecimentos: 11, socios: 13, simples: 3, cnaes: 15, motivos: 2, municipios: 8, naturezas: 5, paises: 3, qualificacoes: 8 })
    expect(manifest.rejeitadas).toEqual({ total: 1, exemplos: [{ arquivo: 'Estabelecimentos9', linha: 1, erro: 'Value with unterminated quote found.' }] })
    // The TOM ↔ IBGE table the IBGE codes come from: 8 rows kept (EXTERIOR's IBGE 0 is not), Boa Esperança do Norte added.
    expect(manifest.municipios_ibge).toMatchObject({ arquivo: 'municipios.csv', municipios: 8, sem_codigo_ibge: ['9707'] })
    expect(manifest.municipios_ibge.sha256).toBe(new Bun.CryptoHasher('sha256').update(readFileSync(join(FIXTURES, 'municipios.csv'))).digest('hex'))
    // The malformed row's establishment is nowhere.
    const { app } = await testApp({ dataDir: data })
    expect((await get(app, '/v1/cnpj/situacao/99999999000191')).body.existe).toBe(false)
    await app.close()
    const serpro = manifest.arquivos.find((a: { nome: string }) => a.nome === 'Socios0.zip')
    expect(serpro).toEqual({ nome: 'Socios0.zip', bytes: 449, sha256: new Bun.CryptoHasher('sha256').update(readFileSync(join(FIXTURES, 'Socios0.zip'))).digest('hex'), bytes_csv: 715 })
    expect(readlinkSync(link)).toMatch(/^2026-07_\d{8}T\d{9}_\d+_\d+$/)
    // CPU per phase of this process, and of each index process (a Bun start alone is tens of ms).
    expect(Object.keys(manifest.cpu_segundos)).toEqual(['verificacao', 'carga', 'particoes', 'impressoes', 'historico', 'fichas_e_busca', 'indice_empresas', 'indice_socios'])
    for (const v of Object.values(manifest.cpu_segundos)) expect(v).toBeGreaterThanOrEqual(0)
    expect(manifest.cpu_segundos.carga).toBeGreaterThan(0)
    expect(manifest.cpu_segundos.indice_empresas).toBeGreaterThan(0)
    expect(manifest.cpu_segundos.indice_socios).toBeGreaterThan(0)
  })

  test('served files: the registry as typed DuckDB tables; the card store with cards, partners and companies without establishment', async () => {
    const data = await buildFixtureData('2026-07')
    const db = await DuckDBInstance.create(join(data, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
    const c = await db.connect()
    const one = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS()
    try {
      expect((await one(`SELECT table_name FROM duckdb_tables() ORDER BY table_name`)).map((r) => r.table_name)).toEqual(
        ['cnaes', 'empresas', 'estabelecimentos', 'meta', 'motivos', 'municipios', 'naturezas', 'paises', 'qualificacoes', 'simples', 'socios'],
      )
      const columns = (await one(`SELECT column_name FROM information_schema.columns WHERE table_name = 'estabelecimentos' ORDER BY ordinal_position`)).map((r) => r.column_name)
      expect(columns.join(', ')).toBe(TABLES.estabelecimentos.split(', ').map((col) => col.split(' ')[0]).join(', '))
      expect(await one(`SELECT count(*)::INTEGER AS n FROM estabelecimentos`)).toEqual([{ n: 11 }])
      const [serpro] = await one(`SELECT cnpj_basico, matriz_filial, situacao, data_inicio, uf, municipio, cnaes_secundarios IS NOT NULL AS secundarios FROM estabelecimentos WHERE cnpj = '33683111000280'`)
      expect(serpro).toEqual({ cnpj_basico: '33683111', matriz_filial: 2, situacao: '02', data_inicio: new Date('1967-06-30T00:00:00Z') as never, uf: 'DF', municipio: '9701', secundarios: true })
      const types = await one(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'estabelecimentos' AND column_name IN ('matriz_filial', 'data_inicio', 'cnpj') ORDER BY column_name`)
      expect(types).toEqual([{ column_name: 'cnpj', data_type: 'VARCHAR' }, { column_name: 'data_inicio', data_type: 'DATE' }, { column_name: 'matriz_filial', data_type: 'UTINYINT' }])
      expect(await one(`SELECT referencia FROM meta`)).toEqual([{ referencia: '2026-07' }])
    } finally {
      c.closeSync()
      db.closeSync()
    }
    for (const file of ['busca.sqlite', 'busca_socios.sqlite', 'manifest.json']) expect(existsSync(join(data, 'cnpj', 'current', file))).toBe(true)
    // SERPRO's root 33683111 ends in 11: partition 11 of the card store.
    expect(partitionOfRoot('33683111')).toBe(11)
    const cards = new Database(join(data, 'cnpj', 'current', CARDS_FILE), { readonly: true })
    const count = (table: (typeof CARD_TABLES)[number]) =>
      Array.from({ length: PARTITIONS }, (_, p) => (cards.query(`SELECT count(*) AS n FROM ${cardTable(table, p)}`).get() as { n: number }).n).reduce((a, b) => a + b)
    try {
      const tables = cards.query("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get() as { n: number }
      // Three tables per partition, and the dictionary the cards are coded with.
      expect(tables.n).toBe(PARTITIONS * CARD_TABLES.length + 1)
      // Every establishment once; partners grouped by company; the one company with no establishment.
      expect([count('estabelecimentos'), count('socios'), count('empresas_sem_estab')]).toEqual([11, 7, 1])
      const row = cards.query(`SELECT dados FROM ${cardTable('estabelecimentos', 11)} WHERE chave = ?`).get(cardKey('33683111000280')) as { dados: string }
      // Stored coded (card-codec.ts), with the month's dictionary: the words of the sample's cards.
      const dictionary = (cards.query('SELECT palavra FROM dicionario ORDER BY codigo').values() as [string][]).map(([w]) => w)
      expect(dictionary).toEqual(expect.arrayContaining(['NACIONAL', 'CENTRO', 'FARMÁCIAS', '4771701', '2062']))
      expect(row.dados).not.toContain('1967-06-30')
      const values = new CardCodec(dictionary).fields(row.dados)
      expect(values).toHaveLength(FICHA.length)
      expect(Object.fromEntries(values.map((v, i) => [FICHA[i], v]))).toMatchObject({
        dv: '80', matriz_filial: '2', situacao: '02', data_inicio: '1967-06-30', uf: 'DF', municipio: '9701',
        razao_social: 'SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)', capital_social: '1061004829.23', complemento: 'MODULO G', email: '',
      })
      const partners = (cards.query(`SELECT dados FROM ${cardTable('socios', 11)} WHERE chave = ?`).get(rootKey('33683111')) as { dados: string }).dados.split(PARTNER_SEPARATOR)
      expect(partners.map((p) => p.split(CARD_SEPARATOR)).every((p) => p.length === SOCIO.length)).toBe(true)
    } finally {
      cards.close()
    }
  })

  test('a company listed twice does not duplicate its establishments', async () => {
    const src = copyFixtures()
    // SERPRO's company row again, in a zip of its own.
    await writeZip(join(src, 'Empresas9.zip'), 'K3241.K03200Y9.D60711.EMPRECSV', new TextEncoder().encode('"33683111";"SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)";"2011";"16";"1061004829,23";"05";""\n'))
    const data = tmp('dadosbr-dup-')
    const manifest = await buildCnpj({ sourceDir: src, month: '2026-07', dataDir: data, allowPartial: true, ...quiet })
    expect(manifest.linhas.empresas).toBe(9)
    const { app } = await testApp({ dataDir: data })
    const r = await get(app, '/v1/cnpj/empresa/33683111000280/completo')
    expect(r.status).toBe(200)
    expect(r.body.razao_social).toBe('SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)')
    const db = await DuckDBInstance.create(join(data, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
    const c = await db.connect()
    const rows = (await c.runAndReadAll(`SELECT cnpj FROM estabelecimentos WHERE cnpj_basico = '33683111'`)).getRows()
    c.closeSync()
    db.closeSync()
    expect(rows).toEqual([['33683111000280']])
  })

  test("partner rows that tie on name, root and date come out in the same order whatever the dump's order", async () => {
    // The same person twice in SERPRO, same entry date, two qualifications (49 and 22).
    const a = '"33683111";"2";"FULANO DE TAL";"***123456**";"49";"20200101";"";"***000000**";"";"00";"5"\n'
    const b = '"33683111";"2";"FULANO DE TAL";"***123456**";"22";"20200101";"";"***000000**";"";"00";"5"\n'
    const build = async (rows: string) => {
      const src = copyFixtures()
      await writeZip(join(src, 'Socios9.zip'), 'K3241.K03200Y9.D60711.SOCIOCSV', new TextEncoder().encode(rows))
      const data = tmp('dadosbr-ties-')
      await buildCnpj({ sourceDir: src, month: '2026-07', dataDir: data, allowPartial: true, ...quiet })
      const dir = join(data, 'cnpj', 'current')
      const index = new Database(join(dir, 'busca_socios.sqlite'), { readonly: true })
      const cards = new Database(join(dir, CARDS_FILE), { readonly: true })
      try {
        return {
          docs: index.query(`SELECT id, qualificacao FROM socio_doc WHERE nome = 'FULANO DE TAL' ORDER BY id`).values(),
          card: (cards.query(`SELECT dados FROM ${cardTable('socios', partitionOfRoot('33683111'))} WHERE chave = ?`).get(rootKey('33683111')) as { dados: string }).dados,
        }
      } finally {
        index.close()
        cards.close()
      }
    }
    const [x, y] = [await build(a + b), await build(b + a)]
    expect(y).toEqual(x)
    expect(x.docs.map((d) => d[1])).toEqual(['22', '49'])
    const fulano = x.card.split(PARTNER_SEPARATOR).filter((p) => p.includes('FULANO')).map((p) => p.split(CARD_SEPARATOR)[SOCIO.indexOf('qualificacao')])
    expect(fulano).toEqual(['22', '49'])
  })

  test('a month with missing zips needs --parcial', async () => {
    const src = copyFixtures()
    for (const zip of ['Empresas0.zip', 'Empresas3.zip', 'Paises.zip']) rmSync(join(src, zip))
    expect(buildCnpj({ sourceDir: src, month: '2026-08', dataDir: tmp('dadosbr-data-'), ...quiet })).rejects.toThrow('faltam 3 dos 37 zips em ' + src + ': Empresas0, Empresas3, Paises (use --parcial para construir assim mesmo)')
    expect((await buildCnpj({ sourceDir: src, month: '2026-08', dataDir: tmp('dadosbr-data-'), allowPartial: true, ...quiet })).linhas.estabelecimentos).toBe(11)
  })

  test('--parcial without a whole table (no Simples zip): it builds, and the month keeps the fingerprints of the tables it has', async () => {
    const src = copyFixtures()
    rmSync(join(src, 'Simples.zip'))
    const data = tmp('dadosbr-data-')
    const manifest = await buildCnpj({ sourceDir: src, month: '2026-08', dataDir: data, allowPartial: true, ...quiet })
    expect(manifest.linhas.simples).toBeUndefined()
    // One hash per root of the tables it has, in one file per root partition.
    const conn = await (await DuckDBInstance.create(':memory:')).connect()
    await conn.run(`ATTACH '${join(data, 'cnpj', 'current', 'cnpj.duckdb')}' AS m (READ_ONLY)`)
    const [hashed, roots] = (await conn.runAndReadAll(
      `SELECT (SELECT count(*) FROM read_parquet('${join(data, 'cnpj', 'current', 'impressoes', '*.parquet')}')), (SELECT count(DISTINCT cnpj_basico) FROM (SELECT cnpj_basico FROM m.estabelecimentos UNION ALL SELECT cnpj_basico FROM m.empresas UNION ALL SELECT cnpj_basico FROM m.socios))`,
    )).getRows()[0] as bigint[]
    conn.closeSync()
    expect(hashed).toBe(roots)
    expect(readdirSync(join(data, 'cnpj', 'current', 'impressoes')).length).toBe(PARTITIONS + 1)
  })

  test('the bundled sample is a whole month with no malformed row: it builds without --parcial, and `make sample` prints nothing but its summary', async () => {
    const env = { ...process.env, UV_THREADPOOL_SIZE: '8' }
    const run = async (args: string[]) => {
      const data = tmp('dadosbr-sample-')
      const child = Bun.spawn([process.execPath, CLI, 'ingest', 'cnpj', ...args, '--data', data, '--quiet'], { env, stderr: 'pipe' })
      const err = await new Response(child.stderr).text()
      return { code: await child.exited, lines: err.split('\n').filter(Boolean).map((l) => l.replace(/ em [\d.]+ s:/, ' em X s:')), data }
    }
    const summary = 'base CNPJ 2026-08 pronta em X s: empresas=8 estabelecimentos=11 socios=13 simples=3 cnaes=15 motivos=2 municipios=8 naturezas=5 paises=3 qualificacoes=8'
    const fromDir = await run(['--from', FIXTURES, '--mes', '2026-08'])
    expect(fromDir).toMatchObject({ code: 0, lines: [summary] })
    expect(JSON.parse(readFileSync(join(fromDir.data, 'cnpj', 'current', 'manifest.json'), 'utf8')).rejeitadas).toEqual({ total: 0, exemplos: [] })
    // The sample is two months (the history's July first): the summary is August's, with what changed since July.
    const sample = await run(['--amostra', '--se-preciso'])
    expect(sample).toMatchObject({ code: 0, lines: [`${summary}; histórico 2026-07 a 2026-08: 20 mudanças desde 2026-07`] })
    // The 37 zips and the Receita's TOM ↔ IBGE table.
    expect(readdirSync(FIXTURES).length).toBe(38)
  })

  test('bad month and missing directory are refused up front', async () => {
    expect(buildCnpj({ sourceDir: FIXTURES, month: '2026-13', dataDir: tmp('d-'), allowPartial: true, ...quiet })).rejects.toThrow('mês de referência inválido')
    expect(buildCnpj({ sourceDir: '/nope', month: '2026-08', dataDir: tmp('d-'), allowPartial: true, ...quiet })).rejects.toThrow('pasta de origem não existe')
  })
})

describe('cores', () => {
  test('the plan: one zip per core at once as far as the native pool allows (4 threads a load), the split on every core, a third of them per index and the rest for the cards', () => {
    expect(buildPlan(2, 8)).toEqual({ loadsAtOnce: 2, duckdbThreads: 2, cardThreads: 1, indexThreads: 1 })
    expect(buildPlan(8, 32)).toEqual({ loadsAtOnce: 8, duckdbThreads: 8, cardThreads: 4, indexThreads: 2 })
    expect(buildPlan(8, 8)).toEqual({ loadsAtOnce: 2, duckdbThreads: 8, cardThreads: 4, indexThreads: 2 })
    // libuv's default pool (4): one load at a time.
    expect(buildPlan(2, 4)).toEqual({ loadsAtOnce: 1, duckdbThreads: 2, cardThreads: 1, indexThreads: 1 })
    expect(buildPlan(1, 8)).toEqual({ loadsAtOnce: 1, duckdbThreads: 1, cardThreads: 1, indexThreads: 1 })
    expect(buildPlan(0.5, 0)).toEqual({ loadsAtOnce: 1, duckdbThreads: 1, cardThreads: 1, indexThreads: 1 })
    // Loads stop at 8 (memory), the split still gets every core.
    expect(buildPlan(64, 256)).toEqual({ loadsAtOnce: 8, duckdbThreads: 64, cardThreads: 22, indexThreads: 21 })
  })

  test("a container's CPU quota bounds the cores (cgroup v2 cpu.max)", () => {
    expect(quotaCores('200000 100000\n')).toBe(2)
    expect(quotaCores('150000 100000')).toBe(2)
    expect(quotaCores('50000 100000')).toBe(1)
    expect(quotaCores('max 100000')).toBeNull()
    expect(quotaCores('')).toBeNull()
    const file = join(tmp('dadosbr-cpu-'), 'cpu.max')
    writeFileSync(file, '100000 100000\n')
    expect(machineCores(file)).toBe(1)
    expect(machineCores('/nope/cpu.max')).toBe(availableParallelism())
  })

  /** Every row of every table of the build's files, in a stable order. */
  async function contents(data: string): Promise<Record<string, unknown>> {
    const dir = join(data, 'cnpj', 'current')
    const out: Record<string, unknown> = {}
    const db = await DuckDBInstance.create(join(dir, 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
    const c = await db.connect()
    for (const table of Object.keys(TABLES)) out[`cnpj.duckdb ${table}`] = (await c.runAndReadAll(`SELECT * FROM ${table} ORDER BY ALL`)).getRowsJS()
    c.closeSync()
    db.closeSync()
    for (const file of ['fichas.sqlite', 'busca.sqlite', 'busca_socios.sqlite']) {
      const sqlite = new Database(join(dir, file), { readonly: true })
      const tables = sqlite.query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`).all()
      for (const { name } of tables) out[`${file} ${name}`] = sqlite.query(`SELECT * FROM "${name}" ORDER BY 1`).all()
      sqlite.close()
    }
    return out
  }

  test('the build is the same on 1 core (one zip at a time) and on 6 (several at once, DuckDB and the indexes on more threads)', async () => {
    const one = tmp('dadosbr-cores-')
    const six = tmp('dadosbr-cores-')
    const a = await buildCnpj({ sourceDir: FIXTURES, month: '2026-07', dataDir: one, allowPartial: true, cores: 1, ...quiet })
    const b = await buildCnpj({ sourceDir: FIXTURES, month: '2026-07', dataDir: six, allowPartial: true, cores: 6, ...quiet })
    expect(b.linhas).toEqual(a.linhas)
    expect(b.rejeitadas).toEqual(a.rejeitadas)
    expect(b.arquivos).toEqual(a.arquivos)
    const [x, y] = [await contents(one), await contents(six)]
    expect((x[`fichas.sqlite ${cardTable('estabelecimentos', partitionOfRoot('33683111'))}`] as unknown[]).length).toBeGreaterThan(0)
    expect(Object.keys(x)).toContain('busca.sqlite empresa_fts_data')
    expect((x['cnpj.duckdb estabelecimentos'] as unknown[]).length).toBe(11)
    expect(y).toEqual(x)
  })

  test('--nucleos must be a whole number of cores', async () => {
    const run = Bun.spawnSync([process.execPath, CLI, 'ingest', 'cnpj', '--from', FIXTURES, '--month', '2026-07', '--data', tmp('dadosbr-cores-'), '--parcial', '--quiet', '--nucleos', '0'], { env: { ...process.env, UV_THREADPOOL_SIZE: '8' } })
    expect(run.exitCode).toBe(2)
    expect(run.stderr.toString()).toContain('--nucleos precisa ser um inteiro >= 1')
  })
})

describe('one build at a time', () => {
  test('a build left behind by a killed ingest (dead pid in the lock, its .tmp directory) is cleaned up by the next one', async () => {
    const data = tmp('dadosbr-lock-')
    const stale = join(data, 'cnpj', '2026-06_20260701T000000.tmp')
    mkdirSync(stale, { recursive: true })
    writeFileSync(join(stale, 'cnpj.duckdb'), 'half a build')
    const dead = Bun.spawnSync(['true']).pid // exited already
    writeFileSync(join(data, 'cnpj', '.ingest.lock'), String(dead))
    await buildCnpj({ sourceDir: FIXTURES, month: '2026-07', dataDir: data, allowPartial: true, ...quiet })
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(join(data, 'cnpj', '.ingest.lock'))).toBe(false)
    expect(readlinkSync(join(data, 'cnpj', 'current'))).toStartWith('2026-07_')
  })

  test('a lock held by a running process refuses the build and touches nothing', async () => {
    const data = tmp('dadosbr-lock-')
    const other = Bun.spawn(['sleep', '30'])
    try {
      mkdirSync(join(data, 'cnpj', '2026-06_20260701T000000.tmp'), { recursive: true })
      writeFileSync(join(data, 'cnpj', '.ingest.lock'), String(other.pid))
      const build = buildCnpj({ sourceDir: FIXTURES, month: '2026-07', dataDir: data, allowPartial: true, ...quiet })
      await expect(build).rejects.toThrow(new RegExp(`outro ingest \\(pid ${other.pid}\\)`))
      expect(readdirSync(join(data, 'cnpj')).sort()).toEqual(['.ingest.lock', '2026-06_20260701T000000.tmp'])
    } finally {
      other.kill()
    }
  })
})

describe('failures keep the data in use', () => {
  const data = tmp('dadosbr-keep-')
  let before = ''
  test('first build', async () => {
    await buildCnpj({ sourceDir: FIXTURES, month: '2026-06', dataDir: data, allowPartial: true, ...quiet })
    before = readlinkSync(join(data, 'cnpj', 'current'))
  })

  test('corrupt zip (bytes flipped inside the deflate stream): CRC or inflate error, old data kept', async () => {
    const src = copyFixtures()
    const path = join(src, 'Estabelecimentos0.zip')
    const bytes = readFileSync(path)
    for (let i = 60; i < 90; i++) bytes[i] = bytes[i]! ^ 0x5a
    writeFileSync(path, bytes)
    const err = await buildCnpj({ sourceDir: src, month: '2026-09', dataDir: data, allowPartial: true, ...quiet }).catch((e) => e)
    expect(err).toBeInstanceOf(ZipError)
    expect(err.message).toContain('Estabelecimentos0')
    expect(readlinkSync(join(data, 'cnpj', 'current'))).toBe(before)
    expect(readdirSync(join(data, 'cnpj')).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  test('truncated zip: refused before building, old data kept', async () => {
    const src = copyFixtures()
    const path = join(src, 'Socios0.zip')
    writeFileSync(path, readFileSync(path).subarray(0, 200))
    expect(buildCnpj({ sourceDir: src, month: '2026-09', dataDir: data, allowPartial: true, ...quiet })).rejects.toThrow(/Socios0.zip: zip truncado/)
    expect(readlinkSync(join(data, 'cnpj', 'current'))).toBe(before)
  })

  test('more malformed rows than allowed: the build fails, old data kept', async () => {
    const err = await buildCnpj({ sourceDir: withRejects(), month: '2026-09', dataDir: data, allowPartial: true, maxRejects: 0, ...quiet }).catch((e) => e)
    expect(err).toBeInstanceOf(BuildError)
    expect(err.message).toBe('1 linhas malformadas passam do limite (0); a base em uso foi mantida')
    expect(readlinkSync(join(data, 'cnpj', 'current'))).toBe(before)
  })
})

describe('download from the share', () => {
  /** A Nextcloud-like share on 127.0.0.1: PROPFIND listings, GET with Range, one dropped connection. */
  function share(dir: string, month: string) {
    const seen: string[] = []
    let dropped = false
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const url = new URL(req.url)
        if (req.headers.get('authorization') !== `Basic ${btoa('TOKEN:')}`) return new Response('no', { status: 401 })
        if (req.method === 'PROPFIND') {
          const folder = url.pathname.endsWith(`/webdav/${month}/`)
          const items = folder
            ? readdirSync(dir).map((f) => `<d:response><d:href>/public.php/webdav/${month}/${f}</d:href><d:propstat><d:prop><d:getcontentlength>${statSync(join(dir, f)).size}</d:getcontentlength></d:prop></d:propstat></d:response>`)
            : ['2026-05', month].map((m) => `<d:response><d:href>/public.php/webdav/${m}/</d:href></d:response>`)
          return new Response(`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/public.php/webdav/</d:href></d:response>${items.join('')}</d:multistatus>`, { status: 207 })
        }
        const name = decodeURIComponent(url.pathname.split('/').pop()!)
        const file = readFileSync(join(dir, name))
        const range = req.headers.get('range')
        seen.push(`${name} ${range ?? 'inteiro'}`)
        if (range) {
          const start = Number(/bytes=(\d+)-/.exec(range)![1])
          return new Response(file.subarray(start), { status: 206, headers: { 'content-range': `bytes ${start}-${file.length - 1}/${file.length}` } })
        }
        if (name === 'Estabelecimentos1.zip' && !dropped) {
          // Send half the file, then cut the connection.
          dropped = true
          const half = file.subarray(0, Math.floor(file.length / 2))
          return new Response(new ReadableStream({
            start(c) { c.enqueue(half) },
            async pull(c) { await Bun.sleep(100); c.error(new Error('conexão derrubada')) },
          }), { headers: { 'content-length': String(file.length) } })
        }
        return new Response(file)
      },
    })
    return { server, seen, url: `http://127.0.0.1:${server.port}` }
  }

  test('latest month, all zips, a connection dropped mid-file resumes with Range, then builds', async () => {
    const s = share(FIXTURES, '2026-08')
    try {
      const downloads = tmp('dadosbr-dl-')
      const got = await downloadMonth({ url: s.url, token: 'TOKEN' }, undefined, () => downloads, { quiet: true, retryDelayMs: 10 })
      expect(got.month).toBe('2026-08')
      expect(got.missing).toEqual([])
      for (const f of readdirSync(FIXTURES).filter((f) => f.endsWith('.zip'))) expect(readFileSync(join(downloads, f)).equals(readFileSync(join(FIXTURES, f)))).toBe(true)
      expect(s.seen.filter((x) => x.startsWith('Estabelecimentos1.zip'))).toEqual(['Estabelecimentos1.zip inteiro', expect.stringMatching(/^Estabelecimentos1.zip bytes=\d+-$/)])
      const data = tmp('dadosbr-data-')
      // The share has the zips only; the TOM ↔ IBGE table comes from its own address (next test).
      const manifest = await buildCnpj({ sourceDir: downloads, month: got.month, dataDir: data, municipiosCsv: join(FIXTURES, 'municipios.csv'), ...quiet })
      expect(manifest.linhas.estabelecimentos).toBe(11)
      // A second run finds the files complete and downloads nothing.
      s.seen.length = 0
      await downloadMonth({ url: s.url, token: 'TOKEN' }, '2026-08', () => downloads, { quiet: true })
      expect(s.seen).toEqual([])
    } finally {
      s.server.stop(true)
    }
  }, 30_000) // downloads and builds the fixtures

  test('--se-preciso: data already holding the latest month in this layout downloads and builds nothing; another layout or a missing file is rebuilt', async () => {
    const s = share(FIXTURES, '2026-08')
    const data = tmp('dadosbr-se-preciso-')
    // Not spawnSync: the share answers from this process.
    const cli = async (args: string[]) => {
      const child = Bun.spawn([process.execPath, CLI, 'ingest', 'cnpj', '--data', data, '--se-preciso', '--quiet', ...args], { env: process.env, stderr: 'pipe' })
      const err = await new Response(child.stderr).text()
      return { code: await child.exited, err }
    }
    try {
      await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, allowPartial: true, ...quiet })
      const link = join(data, 'cnpj', 'current')
      const first = readlinkSync(link)
      const skipped = await cli(['--fonte', s.url, '--token', 'TOKEN'])
      expect(skipped).toEqual({ code: 0, err: `base CNPJ 2026-08 já está em ${link}, no formato desta versão: nada a fazer\n` })
      expect(s.seen).toEqual([])
      expect(readlinkSync(link)).toBe(first)
      // A build of another layout version (the server refuses it) is rebuilt from the same zips.
      const manifestPath = join(link, 'manifest.json')
      writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(readFileSync(manifestPath, 'utf8')), formato: FORMAT - 1 }))
      await Bun.sleep(1100) // build folders are named to the second
      const rebuilt = await cli(['--from', FIXTURES, '--month', '2026-08', '--parcial'])
      expect(rebuilt.code).toBe(0)
      expect(rebuilt.err).toContain('base CNPJ 2026-08 pronta')
      expect(readlinkSync(link)).not.toBe(first)
      expect(JSON.parse(readFileSync(manifestPath, 'utf8')).formato).toBe(FORMAT)
      // So is a build missing one of its files.
      const second = readlinkSync(link)
      rmSync(join(link, CARDS_FILE))
      await Bun.sleep(1100)
      expect((await cli(['--from', FIXTURES, '--month', '2026-08', '--parcial'])).code).toBe(0)
      expect(readlinkSync(link)).not.toBe(second)
      expect(existsSync(join(link, CARDS_FILE))).toBe(true)
    } finally {
      s.server.stop(true)
    }
  }, 30_000) // builds the fixtures twice

  test('--from a folder without municipios.csv: the table is downloaded from RFB_MUNICIPIOS_URL (once), or the build stops saying what to do', async () => {
    const table = readFileSync(join(FIXTURES, 'municipios.csv'))
    const asked: string[] = []
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        if (new URL(req.url).pathname === '/sumiu.csv') return new Response('não há', { status: 404 })
        asked.push(req.headers.get('if-modified-since') ? 'condicional' : 'inteiro')
        if (req.headers.get('if-modified-since')) return new Response(null, { status: 304 })
        return new Response(table, { headers: { 'last-modified': 'Tue, 03 Mar 2026 10:00:00 GMT' } })
      },
    })
    const zips = copyFixtures()
    rmSync(join(zips, 'municipios.csv'))
    const data = tmp('dadosbr-muni-')
    const cli = async (url: string) => {
      const child = Bun.spawn([process.execPath, CLI, 'ingest', 'cnpj', '--from', zips, '--mes', '2026-08', '--data', data, '--quiet'], { env: { ...process.env, UV_THREADPOOL_SIZE: '8', RFB_MUNICIPIOS_URL: url }, stderr: 'pipe' })
      const err = await new Response(child.stderr).text()
      return { code: await child.exited, err }
    }
    try {
      const url = `http://127.0.0.1:${server.port}/receitafederal/dados/municipios.csv`
      expect((await cli(url)).code).toBe(0)
      expect(readFileSync(join(data, 'downloads', 'municipios-rfb', 'municipios.csv')).equals(table)).toBe(true)
      const manifest = JSON.parse(readFileSync(join(data, 'cnpj', 'current', 'manifest.json'), 'utf8'))
      expect(manifest.municipios_ibge.sem_codigo_ibge).toEqual(['9707'])
      await Bun.sleep(1100) // build folders are named to the second
      expect((await cli(url)).code).toBe(0)
      expect(asked).toEqual(['inteiro', 'condicional'])
      rmSync(join(data, 'downloads'), { recursive: true })
      const gone = `http://127.0.0.1:${server.port}/sumiu.csv`
      const failed = await cli(gone)
      expect(failed.code).toBe(1)
      expect(failed.err).toContain(`a tabela de municípios da Receita (TOM ↔ IBGE) não veio de ${gone}`)
      expect(failed.err).toContain('ponha o municipios.csv na pasta --from')
    } finally {
      server.stop(true)
    }
  }, 120_000) // builds the fixtures twice

  test('a wrong token fails with a line that says what to check', async () => {
    const s = share(FIXTURES, '2026-08')
    try {
      expect(downloadMonth({ url: s.url, token: 'WRONG' }, undefined, () => tmp('x-'), { quiet: true })).rejects.toThrow('confira a URL e o token')
    } finally {
      s.server.stop(true)
    }
  })
})

describe('live swap', () => {
  test('a running server picks up a new month without restart and without failing a request', async () => {
    const data = await buildFixtureData('2026-07')
    const { app } = await testApp({ dataDir: data })
    try {
      expect((await get(app, '/v1/health')).body.base_referencia).toBe('2026-07')
      let stop = false
      const statuses: number[] = []
      const load = (async () => {
        // Lookups are synchronous SQLite reads: without a macrotask between requests, this
        // in-process loop would never let the build run (a real client's I/O interleaves).
        while (!stop) {
          statuses.push((await get(app, '/v1/cnpj/empresa/33683111000280/completo')).status)
          await Bun.sleep(0)
        }
      })()
      await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, allowPartial: true, ...quiet })
      const store = app.ctx.stores.get('cnpj') as unknown as CnpjStore
      expect(await store.reload()).toBe(true)
      for (let i = 0; i < 20; i++) statuses.push((await get(app, '/v1/cnpj/situacao/33683111000280')).status)
      stop = true
      await load
      expect(statuses.length).toBeGreaterThan(20)
      expect(statuses.every((s) => s === 200)).toBe(true)
      const health = (await get(app, '/v1/health')).body
      expect(health.base_referencia).toBe('2026-08')
      expect((await get(app, '/v1/cnpj/situacao/33683111000280')).body.fonte.referencia).toBe('2026-08')
      // The build before the previous one is cleaned up; the one just replaced stays for in-flight requests.
      expect(readdirSync(join(data, 'cnpj')).filter((f) => !f.startsWith('current')).length).toBe(2)
    } finally {
      await app.close()
    }
  }, 30_000) // 100 partitions of tables and cards are built while the loop keeps the event loop busy

  test('with several serving processes, every one picks up the new month, and no request fails meanwhile', async () => {
    const data = await buildFixtureData('2026-07')
    const server = startServe(['--data', data, '--port', '0', '--processos', '2', '--prewarm', '0'])
    try {
      const { port } = await server.announced
      await until(() => (childrenOf(server.proc.pid).length === 1 ? true : undefined), 'o segundo processo')
      // Fresh connections, spread by the kernel over both processes; each answer names its month.
      const month = async () => {
        const r = await fetch(`http://127.0.0.1:${port}/v1/cnpj/situacao/33683111000280`, { headers: { connection: 'close' } })
        return { status: r.status, month: ((await r.json()) as { fonte?: { referencia?: string } }).fonte?.referencia }
      }
      await until(async () => ((await month().catch(() => undefined))?.status === 200 ? true : undefined), 'as respostas dos dois processos')
      await Bun.sleep(1000) // the second process has opened the data and joined the port
      let stop = false
      const seen: { status: number; month?: string }[] = []
      const load = (async () => {
        while (!stop) seen.push(await month())
      })()
      await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, allowPartial: true, ...quiet })
      // Each process notices the swap on its own within 2 s: then 40 fresh connections all get the new month.
      await until(async () => {
        const after = await Promise.all(Array.from({ length: 40 }, month))
        return after.every((a) => a.status === 200 && a.month === '2026-08') ? true : undefined
      }, 'o mês novo em todos os processos', 10_000)
      stop = true
      await load
      expect(seen.length).toBeGreaterThan(20)
      expect(seen.filter((a) => a.status !== 200)).toEqual([])
      expect(new Set(seen.map((a) => a.month))).toEqual(new Set(['2026-07', '2026-08']))
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
    }
  }, 60_000) // builds the fixtures twice

  test('a build of another layout version is not opened: health says to run ingest again', async () => {
    const data = await buildFixtureData('2026-07')
    const manifest = join(data, 'cnpj', 'current', 'manifest.json')
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), formato: undefined }))
    const { app } = await testApp({ dataDir: data })
    const r = await get(app, '/v1/health')
    expect(r.body.status).toBe('degradado')
    expect(r.body.motivos[0]).toContain(`(formato 1, este servidor lê o ${FORMAT}); rode 'dadosbr ingest cnpj' de novo`)
    expect((await get(app, '/v1/cnpj/situacao/33683111000280')).status).toBe(503)
    await app.close()
  }, 30_000) // builds the fixtures

  test('health is degradado when the data directory has no registry', async () => {
    const { app } = await testApp({ dataDir: tmp('empty-') })
    const r = await get(app, '/v1/health')
    expect(r.body.status).toBe('degradado')
    expect(r.body.motivos[0]).toStartWith("cnpj: arquivo de dados ausente em")
    const paid = await get(app, '/v1/cnpj/situacao/33683111000280')
    expect(paid.status).toBe(503)
    expect(paid.body.erro.codigo).toBe('dados_indisponiveis')
    await app.close()
  })
})

