// How the monthly ingest keeps the history (ingest/cnpj/history.ts): months only forward (an older
// month or one already held refused in one line, before anything is loaded), a gap recorded as
// such, a return to the dump, month files hard-linked from build to build, a failed build and a
// swap under load that change nothing of it, a build made before the history.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { DuckDBInstance } from '@duckdb/node-api'
import { FINGERPRINT_DIR, writeFingerprints } from '../../ingest/cnpj/history'
import { PARTITIONS } from '../../src/datasets/cnpj/layout'
import type { CnpjStore } from '../../src/datasets/cnpj/store'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { buildHistoryData, copyFixtures, EARLIER_FIXTURES, FIXTURES } from './helpers'

setDefaultTimeout(90_000)

const quiet = { quiet: true, log: () => {} }
const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const current = (data: string) => join(data, 'cnpj', 'current')
const historyFiles = (data: string) => readdirSync(join(current(data), 'historico')).sort()
const manifestOf = (data: string) => JSON.parse(readFileSync(join(current(data), 'manifest.json'), 'utf8'))
const ingest = (data: string, args: string[]) => {
  const r = Bun.spawnSync([process.execPath, CLI, 'ingest', 'cnpj', '--data', data, '--quiet', ...args], { env: { ...process.env, UV_THREADPOOL_SIZE: '8' } })
  return { code: r.exitCode, err: r.stderr.toString() }
}

describe('months only forward', () => {
  test('a month already held, or older than the newest held, is refused in one line before anything is loaded; the newest may be built again, its history kept', async () => {
    const data = await buildHistoryData()
    const before = readlinkSync(current(data))
    expect(ingest(data, ['--from', EARLIER_FIXTURES, '--mes', '2026-07'])).toEqual({
      code: 1,
      err: 'dadosbr ingest: o mês 2026-07 já está no histórico do cadastro (meses guardados: 2026-07 a 2026-08); só o mais recente, 2026-08, pode ser construído de novo\n',
    })
    expect(ingest(data, ['--from', EARLIER_FIXTURES, '--mes', '2026-05'])).toEqual({
      code: 1,
      err: 'dadosbr ingest: o mês 2026-05 é anterior ao mais recente guardado (2026-08): o histórico só cresce para a frente; carregue os meses do mais antigo ao mais novo, numa pasta de dados nova (--data) se precisar de meses anteriores a 2026-07\n',
    })
    expect(readlinkSync(current(data))).toBe(before)
    expect(readdirSync(join(data, 'cnpj')).filter((f) => f.endsWith('.tmp'))).toEqual([])
    // August again (a new version's layout, a lost file): the same history.
    const { app } = await testApp({ dataDir: data })
    const feed = (await get(app, '/v1/cnpj/mudancas?por_pagina=100')).body
    await app.close()
    await Bun.sleep(1100) // build folders are named to the second
    const again = await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, ...quiet })
    expect(readlinkSync(current(data))).not.toBe(before)
    expect(again.historico).toMatchObject({ meses: ['2026-07', '2026-08'], referencia_anterior: '2026-07', itens: 20 })
    const { app: after } = await testApp({ dataDir: data })
    expect((await get(after, '/v1/cnpj/mudancas?por_pagina=100')).body).toEqual(feed)
    await after.close()
  })

  test('the manifest says what the history holds and what this month changed; month files are hard links shared by the builds', async () => {
    const data = await buildHistoryData()
    const m = manifestOf(data)
    expect(m.historico).toMatchObject({
      meses: ['2026-07', '2026-08'], referencia_anterior: '2026-07', lacuna: false, itens: 20,
      por_tipo: { abertura: 1, situacao_cadastral: 1, nome_fantasia: 1, endereco: 10, cnae_secundarios: 1, capital_social: 1, contato: 1, socio_entrada: 1, socio_saida: 2, saiu_do_cadastro: 1 },
    })
    expect(m.historico.bytes).toBe(historyFiles(data).reduce((n: number, f: string) => n + statSync(join(current(data), 'historico', f)).size, 0))
    // Both months' fingerprints were made by their ingests (after the partition split): the comparison hashes nothing.
    expect(Object.keys(m.historico.cpu_segundos)).toEqual(['raizes_mudadas', 'linhas_mudadas', 'comparacao', 'itens', 'arquivo'])
    expect(historyFiles(data)).toEqual(['2026-07.sqlite', '2026-08.sqlite'])
    // July's file, written by July's build, is the same file in August's (the build just replaced is kept).
    const builds = readdirSync(join(data, 'cnpj')).filter((d) => /^2026-0[78]_/.test(d)).sort()
    expect(builds).toHaveLength(2)
    const [a, b] = builds.map((d) => statSync(join(data, 'cnpj', d, 'historico', '2026-07.sqlite')))
    expect(b!.ino).toBe(a!.ino)
    expect(a!.nlink).toBe(2)
  })

  test('a gap: months not loaded between the newest held and the new one; its changes are dated "between" the two', async () => {
    const data = tempDir('dadosbr-lacuna-')
    await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir: data, ...quiet })
    const m = await buildCnpj({ sourceDir: FIXTURES, month: '2026-10', dataDir: data, ...quiet })
    expect(m.historico).toMatchObject({ meses: ['2026-07', '2026-10'], referencia_anterior: '2026-07', lacuna: true, itens: 20 })
    const { app } = await testApp({ dataDir: data })
    try {
      const feed = (await get(app, '/v1/cnpj/mudancas')).body
      expect(feed).toMatchObject({ referencia: '2026-10', referencia_anterior: '2026-07', lacuna: true, total: 20 })
      const h = (await get(app, '/v1/cnpj/empresa/11222333000181/historico')).body
      expect(h.meses).toEqual(['2026-07', '2026-10'])
      expect(h.mudancas.map((x: { referencia: string; referencia_anterior: string; tipo: string }) => [x.referencia_anterior, x.referencia, x.tipo])).toEqual([['2026-07', '2026-10', 'situacao_cadastral']])
      expect((await get(app, '/v1/cnpj/empresa/11222333000181?referencia=2026-08')).body.erro.mensagem).toBe(
        "parâmetro de consulta 'referencia': o histórico não tem 2026-08; os meses guardados são 2026-07, 2026-10",
      )
    } finally {
      await app.close()
    }
    const run = Bun.spawnSync([process.execPath, CLI, 'ingest', 'cnpj', '--data', tempDir('x-'), '--from', FIXTURES, '--mes', '2026-08', '--quiet'], { env: { ...process.env, UV_THREADPOOL_SIZE: '8' } })
    expect(run.exitCode).toBe(0)
  })

  test('an establishment back in the dump is voltou_ao_cadastro, not abertura; a company gone is saiu_do_cadastro with its partners out', async () => {
    const data = await buildHistoryData()
    // September: July's rows again (ALFA's third branch back; the café gone with its partner).
    await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-09', dataDir: data, ...quiet })
    const { app } = await testApp({ dataDir: data })
    try {
      const sept = (await get(app, '/v1/cnpj/mudancas?por_pagina=100')).body
      const kinds = sept.mudancas.map((x: { cnpj: string; tipo: string }) => `${x.cnpj} ${x.tipo}`)
      expect(kinds).toContain('90111222000336 voltou_ao_cadastro')
      expect(kinds).toContain('12ABC34501DE35 saiu_do_cadastro')
      expect(kinds).toContain('12ABC34501DE35 socio_saida')
      expect(kinds).not.toContain('90111222000336 abertura')
      expect(sept.total).toBe(20)
      const h = (await get(app, '/v1/cnpj/empresa/90111222000336/historico')).body
      expect(h.meses).toEqual(['2026-07', '2026-09'])
      expect(h.mudancas.map((x: { referencia: string; tipo: string }) => `${x.referencia} ${x.tipo}`)).toEqual(['2026-09 socio_entrada', '2026-09 voltou_ao_cadastro', '2026-08 saiu_do_cadastro'])
      // The café, gone in September: its card as it was in August, rebuilt from its departure.
      const cafe = await get(app, '/v1/cnpj/empresa/12ABC34501DE35/completo?referencia=2026-08')
      expect(cafe.status).toBe(200)
      expect(cafe.body).toMatchObject({ razao_social: 'CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA', total_socios: 1, socios: [{ nome: 'JOÃO CAFÉ' }], fonte: { referencia: '2026-08' } })
      expect((await get(app, '/v1/cnpj/empresa/12ABC34501DE35')).status).toBe(404)
    } finally {
      await app.close()
    }
  })

  test('a build made before the history: the next month starts it, with the build in use as its first month', async () => {
    const data = tempDir('dadosbr-antigo-')
    await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir: data, ...quiet })
    // As a build of the previous version: no history folder, no history in its manifest.
    rmSync(join(current(data), 'historico'), { recursive: true })
    const { app: old } = await testApp({ dataDir: data })
    // No month asked: no feed to give (503, nothing charged); a month asked: the 400 that says none is held.
    expect(await get(old, '/v1/cnpj/mudancas')).toMatchObject({
      status: 503,
      body: { erro: { codigo: 'dados_indisponiveis', mensagem: "A base do cadastro em uso (2026-07) não guarda histórico (foi construída antes dele); a próxima 'dadosbr ingest cnpj' o começa." } },
    })
    expect((await get(old, '/v1/cnpj/mudancas?referencia=2026-06')).body.erro.mensagem).toBe("parâmetro de consulta 'referencia': esta base não guarda histórico (foi construída antes dele); a próxima 'dadosbr ingest cnpj' o começa")
    expect((await get(old, '/v1/cnpj/empresa/11222333000181/historico')).body).toMatchObject({ meses: [], mudancas: [] })
    await old.close()
    const m = await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, ...quiet })
    expect(m.historico).toMatchObject({ meses: ['2026-07', '2026-08'], itens: 20 })
  })
})

describe("the month's fingerprints", () => {
  test('made by the ingest from its Parquet split, they are the ones a build without them gets from its DuckDB tables, root for root', async () => {
    const data = tempDir('dadosbr-impressoes-')
    await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, ...quiet })
    const again = tempDir('dadosbr-impressoes-de-novo-')
    const instance = await DuckDBInstance.create(':memory:')
    const conn = await instance.connect()
    try {
      await conn.run(`ATTACH '${join(current(data), 'cnpj.duckdb')}' AS m (READ_ONLY)`)
      await writeFingerprints(conn, { db: 'm' }, again)
      const files = (dir: string) => `read_parquet('${join(dir, FINGERPRINT_DIR, '*.parquet')}')`
      const [a, b] = [files(current(data)), files(again)]
      const [rows, onlyKept, onlyAgain, roots] = (await conn.runAndReadAll(
        `SELECT (SELECT count(*) FROM ${a}), (SELECT count(*) FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b})), (SELECT count(*) FROM (SELECT * FROM ${b} EXCEPT ALL SELECT * FROM ${a})),
          (SELECT count(DISTINCT cnpj_basico) FROM (SELECT cnpj_basico FROM m.estabelecimentos UNION ALL SELECT cnpj_basico FROM m.empresas UNION ALL SELECT cnpj_basico FROM m.simples UNION ALL SELECT cnpj_basico FROM m.socios))`,
      )).getRows()[0] as bigint[]
      // One hash per root of the month, in one file per root partition.
      expect([rows, onlyKept, onlyAgain]).toEqual([roots, 0n, 0n])
      expect(readdirSync(join(current(data), FINGERPRINT_DIR)).length).toBe(PARTITIONS + 1)
      expect(readFileSync(join(again, FINGERPRINT_DIR, 'versao'), 'utf8')).toBe(readFileSync(join(current(data), FINGERPRINT_DIR, 'versao'), 'utf8'))
      // The row hashes a build without fingerprints is hashed through are gone.
      expect(readdirSync(again)).toEqual([FINGERPRINT_DIR])
    } finally {
      conn.closeSync()
      instance.closeSync()
    }
  })

  test("every build keeps its month's fingerprints, the first month's too; the next month compared with them finds what hashing the old month again finds", async () => {
    const first = tempDir('dadosbr-impressoes-')
    await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir: first, ...quiet })
    expect(readdirSync(join(current(first), FINGERPRINT_DIR)).length).toBe(PARTITIONS + 1)
    const data = await buildHistoryData()
    expect(existsSync(join(current(data), FINGERPRINT_DIR, 'versao'))).toBe(true)
    expect(readdirSync(join(current(data), FINGERPRINT_DIR)).length).toBe(PARTITIONS + 1)
    // The same September twice: once through August's fingerprints, once with them gone (August hashed again from its DuckDB file).
    const other = await buildHistoryData()
    rmSync(join(current(other), FINGERPRINT_DIR), { recursive: true })
    const kept = await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-09', dataDir: data, ...quiet })
    const rehashed = await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-09', dataDir: other, ...quiet })
    expect(Object.keys(kept.historico.cpu_segundos)[0]).toBe('raizes_mudadas')
    expect(Object.keys(rehashed.historico.cpu_segundos)[0]).toBe('impressoes_anterior')
    const feeds = []
    for (const d of [data, other]) {
      const { app } = await testApp({ dataDir: d })
      feeds.push((await get(app, '/v1/cnpj/mudancas?por_pagina=100')).body)
      await app.close()
    }
    expect(feeds[0].total).toBe(20)
    expect(feeds[1]).toEqual(feeds[0])
  })
})

describe('the history survives', () => {
  test('a failed build: the data in use and its history unchanged', async () => {
    const data = await buildHistoryData()
    const before = readlinkSync(current(data))
    const files = historyFiles(data).map((f) => readFileSync(join(current(data), 'historico', f)))
    const src = copyFixtures()
    const path = join(src, 'Estabelecimentos1.zip')
    const bytes = readFileSync(path)
    for (let i = 80; i < 120; i++) bytes[i] = bytes[i]! ^ 0x5a
    writeFileSync(path, bytes)
    await expect(buildCnpj({ sourceDir: src, month: '2026-09', dataDir: data, ...quiet })).rejects.toThrow()
    expect(readlinkSync(current(data))).toBe(before)
    expect(historyFiles(data).map((f) => readFileSync(join(current(data), 'historico', f)))).toEqual(files)
    expect(readdirSync(join(data, 'cnpj')).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  test('a swap under load: no request fails while a new month is built and swapped in, and the new month is served after', async () => {
    const data = await buildHistoryData()
    const { app } = await testApp({ dataDir: data })
    try {
      let stop = false
      const statuses: number[] = []
      const paths = ['/v1/cnpj/empresa/90111222000255/historico', '/v1/cnpj/mudancas?uf=SP', '/v1/cnpj/empresa/44555666000262/completo?referencia=2026-07', '/v1/cnpj/mudancas?cnae=4120400&tipo=endereco']
      const load = (async () => {
        for (let i = 0; !stop; i++) {
          statuses.push((await get(app, paths[i % paths.length]!)).status)
          await Bun.sleep(0)
        }
      })()
      await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-09', dataDir: data, ...quiet })
      const store = app.ctx.stores.get('cnpj') as unknown as CnpjStore
      expect(await store.reload()).toBe(true)
      for (let i = 0; i < 20; i++) statuses.push((await get(app, paths[i % paths.length]!)).status)
      stop = true
      await load
      expect(statuses.length).toBeGreaterThan(20)
      expect(statuses.filter((s) => s !== 200)).toEqual([])
      expect((await get(app, '/v1/cnpj/mudancas')).body).toMatchObject({ referencia: '2026-09', referencia_anterior: '2026-08' })
      expect((await get(app, '/v1/cnpj/empresa/44555666000262/historico')).body.meses).toEqual(['2026-07', '2026-08', '2026-09'])
    } finally {
      await app.close()
    }
  })
})

describe('dadosbr historico cnpj', () => {
  const historico = (args: string[]) => {
    const r = Bun.spawnSync([process.execPath, CLI, 'historico', 'cnpj', ...args], { env: process.env })
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
  }

  test('lists the months held; drops the oldest with a new build of links, swapped in while a server reads it', async () => {
    const data = await buildHistoryData()
    const list = historico(['--data', data])
    expect(list.code).toBe(0)
    expect(list.out.split('\n').filter(Boolean).map((l) => l.replace(/\s+[\d.]+ MB\s+/, ' | '))).toEqual(['2026-07 | primeiro mês guardado (sem comparação)', '2026-08 | 20 mudanças desde 2026-07'])
    expect(historico(['--data', data, '--manter', '2'])).toEqual({ code: 0, out: '', err: 'nada a descartar; o histórico guarda 2026-07 a 2026-08\n' })
    const { app } = await testApp({ dataDir: data })
    try {
      const before = readlinkSync(current(data))
      const dropped = historico(['--data', data, '--manter', '1'])
      expect(dropped.code).toBe(0)
      expect(dropped.err).toMatch(/^descartados 2026-07 \([\d.]+ MB, liberados na próxima troca\); o histórico guarda 2026-08\n$/)
      expect(readlinkSync(current(data))).not.toBe(before)
      expect(historyFiles(data)).toEqual(['2026-08.sqlite'])
      expect(manifestOf(data).historico.meses).toEqual(['2026-08'])
      // The cards and the search are the same files (links), and the server follows the swap.
      expect(statSync(join(current(data), 'fichas.sqlite')).ino).toBe(statSync(join(data, 'cnpj', before, 'fichas.sqlite')).ino)
      const store = app.ctx.stores.get('cnpj') as unknown as CnpjStore
      expect(await store.reload()).toBe(true)
      expect((await get(app, '/v1/cnpj/empresa/44555666000262?referencia=2026-07')).body.erro.mensagem).toBe("parâmetro de consulta 'referencia': o histórico não tem 2026-07; os meses guardados são 2026-08")
      expect((await get(app, '/v1/cnpj/mudancas')).body).toMatchObject({ referencia: '2026-08', referencia_anterior: '2026-07', total: 20 })
      expect((await get(app, '/v1/cnpj/empresa/44555666000262/historico')).body.meses).toEqual(['2026-08'])
    } finally {
      await app.close()
    }
  })

  test('bad input: one line, and nothing changed', () => {
    expect(historico(['--data', tempDir('vazio-')])).toMatchObject({ code: 1, err: expect.stringMatching(/^dadosbr historico: nenhuma base do cadastro em .*; rode 'dadosbr ingest cnpj' antes\n$/) })
    expect(historico(['--manter', '0'])).toMatchObject({ code: 2, err: 'dadosbr historico: --manter precisa ser um inteiro >= 1\n' })
    expect(historico(['--descartar-antes', '2026-7'])).toMatchObject({ code: 2, err: 'dadosbr historico: --descartar-antes precisa de um mês AAAA-MM\n' })
    expect(historico(['--manter', '1', '--descartar-antes', '2026-07'])).toMatchObject({ code: 2, err: 'dadosbr historico: use --descartar-antes ou --manter, não os dois\n' })
    const other = Bun.spawnSync([process.execPath, CLI, 'historico', 'bcb'], { env: process.env })
    expect(other.stderr.toString()).toBe('dadosbr historico: base desconhecida: bcb (o histórico é do cadastro: dadosbr historico cnpj)\n')
  })
})

describe('the bundled sample', () => {
  test('`ingest cnpj --amostra` builds July then August; with --se-preciso again, nothing', () => {
    const data = tempDir('dadosbr-amostra-')
    const first = ingest(data, ['--amostra', '--se-preciso'])
    expect(first.code).toBe(0)
    expect(first.err).toMatch(/^base CNPJ 2026-08 pronta em [\d.]+ s: .*; histórico 2026-07 a 2026-08: 20 mudanças desde 2026-07\n$/)
    expect(historyFiles(data)).toEqual(['2026-07.sqlite', '2026-08.sqlite'])
    const link = readlinkSync(current(data))
    expect(ingest(data, ['--amostra', '--se-preciso'])).toEqual({ code: 0, err: `base CNPJ 2026-08 já está em ${current(data)}: nada a fazer\n` })
    expect(readlinkSync(current(data))).toBe(link)
    expect(existsSync(join(current(data), 'historico', '2026-07.sqlite'))).toBe(true)
  })
})
