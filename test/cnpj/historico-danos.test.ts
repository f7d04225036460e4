// A damaged history (historico-store.ts) answers 503 on the history's routes only: a month file cut
// short, a block that does not decode or is missing, a chain of months with a hole; the cards,
// searches and lots of the month in use go on, nothing answers 500, nothing is charged. The ingest
// refuses to carry a damaged history into a new build, a partial month into a comparison, and a
// month the history refuses before downloading it.
import { Database } from 'bun:sqlite'
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { cpSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { buildHistoryData, copyFixtures, EARLIER_FIXTURES } from './helpers'

setDefaultTimeout(120_000)

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const CHANGED = '44555666000262'
const current = (data: string) => join(data, 'cnpj', 'current')
const manifestOf = (data: string) => JSON.parse(readFileSync(join(current(data), 'manifest.json'), 'utf8'))
const monthFile = (data: string, month: string) => join(current(data), 'historico', `${month}.sqlite`)
const ingest = (data: string, args: string[]) => {
  const r = Bun.spawnSync([process.execPath, CLI, 'ingest', 'cnpj', '--data', data, '--quiet', ...args], { env: { ...process.env, UV_THREADPOOL_SIZE: '8' } })
  return { code: r.exitCode, err: r.stderr.toString() }
}

/** A copy of the two-month history, so each damage starts from whole files (the builds' month files are hard links). */
const pristine = await buildHistoryData()
function copyData(): string {
  const data = tempDir('dadosbr-historico-dano-')
  cpSync(join(pristine, 'cnpj'), join(data, 'cnpj'), { recursive: true, verbatimSymlinks: true })
  return data
}

/** Edits a month file in place with SQLite (what a damaged block looks like to the reader). */
function edit(path: string, sql: string) {
  const db = new Database(path)
  db.run(sql)
  db.close()
}

const HISTORY_ROUTES = [`/v1/cnpj/empresa/${CHANGED}/historico`, '/v1/cnpj/mudancas', `/v1/cnpj/empresa/${CHANGED}?referencia=2026-07`, `/v1/cnpj/empresa/${CHANGED}/completo?referencia=2026-07`]

/** Every history route answers the history's 503 naming the reason; the month in use still serves. */
async function expectHistoryDown(data: string, reason: RegExp) {
  const { app } = await testApp({ dataDir: data })
  try {
    for (const path of HISTORY_ROUTES) {
      const r = await get(app, path)
      expect({ path, status: r.status, codigo: r.body.erro?.codigo }).toEqual({ path, status: 503, codigo: 'dados_indisponiveis' })
      expect(r.body.erro.mensagem).toMatch(reason)
      expect(r.body.erro.mensagem).toContain('as fichas do mês em uso seguem disponíveis')
    }
    // The registry was not dropped by the history's fault: cards, search and lots answer, again and again.
    for (let i = 0; i < 2; i++) {
      expect((await get(app, `/v1/cnpj/empresa/${CHANGED}`)).status).toBe(200)
      expect((await get(app, `/v1/cnpj/empresa/${CHANGED}/completo`)).status).toBe(200)
      expect((await get(app, '/v1/cnpj/busca?uf=SP')).status).toBe(200)
      expect((await get(app, `/v1/cnpj/lote?cnpjs=${CHANGED}`)).status).toBe(200)
    }
    // The month in use asked by name is the plain answer, no history needed.
    expect((await get(app, `/v1/cnpj/empresa/${CHANGED}?referencia=2026-08`)).status).toBe(200)
    // The health says the service is degraded, and why, with the registry serving its month.
    const health = (await get(app, '/v1/health')).body
    expect(health.base_referencia).toBe('2026-08')
    expect(health.status).toBe('degradado')
    const cnpj = health.bases.find((b: { nome: string }) => b.nome === 'cnpj')
    expect(cnpj).toMatchObject({ ok: true, referencia: '2026-08', motivo: null })
    expect(cnpj.aviso).toMatch(/^histórico indisponível \(.+\); as fichas do mês em uso seguem disponíveis$/)
    expect(health.motivos).toContain(`cnpj: ${cnpj.aviso}`)
  } finally {
    await app.close()
  }
}

describe('a damaged history answers 503 on its routes only', () => {
  test('a month file cut short: restore it or start anew (the newest month cannot be dropped)', async () => {
    const data = copyData()
    const path = monthFile(data, '2026-08')
    truncateSync(path, Math.floor(statSync(path).size / 2))
    await expectHistoryDown(data, /^O histórico do cadastro está danificado neste servidor \(2026-08\.sqlite: arquivo SQLite truncado .*\); as fichas do mês em uso seguem disponíveis\. Restaure o arquivo de um backup ou comece um histórico novo numa pasta de dados nova\.$/)
  })

  test("pages overwritten with garbage (SQLite's own 'malformed' error): the history's 503, never the registry dropped", async () => {
    const data = copyData()
    const path = monthFile(data, '2026-08')
    const bytes = readFileSync(path)
    const page = bytes.readUInt16BE(16)
    // Every page after the first two: the file opens, its tables do not read.
    for (let at = 2 * page; at < bytes.length; at++) bytes[at] = (at * 131) & 0xff
    writeFileSync(path, bytes)
    await expectHistoryDown(data, /2026-08\.sqlite: .*(malformed|not a database|corrupt)/i)
  })

  test('an older month damaged: drop it and the ones before it, named', async () => {
    const data = copyData()
    edit(monthFile(data, '2026-07'), "UPDATE meta SET valor = '9' WHERE chave = 'formato'")
    await expectHistoryDown(data, /foi gravado por outra versão neste servidor \(2026-07\.sqlite: gravado no formato 9 do histórico, e esta versão do dadosbr lê o \d+\).*Use a versão do dadosbr que gravou o histórico, ou comece um histórico novo numa pasta de dados nova\.$/)
    const cut = copyData()
    edit(monthFile(cut, '2026-07'), 'DELETE FROM rotulos')
    const { app } = await testApp({ dataDir: cut })
    try {
      // July's code tables render its cards (?referencia=); its changes are August's, rendered with August's file.
      expect((await get(app, `/v1/cnpj/empresa/${CHANGED}/historico`)).status).toBe(200)
      const r = await get(app, `/v1/cnpj/empresa/${CHANGED}?referencia=2026-07`)
      expect(r.status).toBe(503)
      expect(r.body.erro.mensagem).toEndWith("(2026-07.sqlite: sem as tabelas de códigos do mês); as fichas do mês em uso seguem disponíveis. Restaure o arquivo de um backup, descarte 2026-07 e os meses antes dele ('dadosbr historico cnpj --descartar-antes 2026-08') ou comece um histórico novo numa pasta de dados nova.")
    } finally {
      await app.close()
    }
  })

  test("the newest month's file lost (the build's own month): the history's 503, not July's feed or a card that skips August", async () => {
    const data = copyData()
    rmSync(monthFile(data, '2026-08'))
    await expectHistoryDown(data, /\(o histórico termina em 2026-07, mas a base é de 2026-08 \(o arquivo 2026-08\.sqlite sumiu\)\)/)
  })

  test('blocks that do not decode, or are missing, fail the read that reaches them', async () => {
    const garbled = copyData()
    edit(monthFile(garbled, '2026-08'), "UPDATE fluxo SET dados = x'28b52ffd00ffffffff'")
    edit(monthFile(garbled, '2026-08'), "UPDATE raiz SET dados = x'00'")
    await expectHistoryDown(garbled, /\(2026-08\.sqlite: bloco/)
    const missing = copyData()
    edit(monthFile(missing, '2026-08'), 'DELETE FROM raiz')
    edit(monthFile(missing, '2026-08'), 'DELETE FROM fluxo')
    const { app } = await testApp({ dataDir: missing })
    try {
      // With no root block, the CNPJ has no change to show: its history is empty, not an error. The feed reads blocks that are gone.
      const feed = await get(app, '/v1/cnpj/mudancas')
      expect(feed.status).toBe(503)
      expect(feed.body.erro.mensagem).toMatch(/\(2026-08\.sqlite: bloco do fluxo: bloco 0 ausente\)/)
      expect((await get(app, `/v1/cnpj/empresa/${CHANGED}`)).status).toBe(200)
    } finally {
      await app.close()
    }
  })

  test('a hole in the chain of months (a month compared with one the history does not hold before it)', async () => {
    const data = copyData()
    edit(monthFile(data, '2026-08'), "UPDATE meta SET valor = '2026-06' WHERE chave = 'referencia_anterior'")
    await expectHistoryDown(data, /2026-08\.sqlite foi comparado com 2026-06, mas o mês guardado antes dele é 2026-07/)
  })

  test('the oldest months dropped on purpose are not a hole: the first month held may have been compared with one dropped', async () => {
    const data = copyData()
    rmSync(monthFile(data, '2026-07'))
    const { app } = await testApp({ dataDir: data })
    try {
      expect((await get(app, `/v1/cnpj/empresa/${CHANGED}/historico`)).status).toBe(200)
      expect((await get(app, `/v1/cnpj/empresa/${CHANGED}?referencia=2026-07`)).body.erro.mensagem).toBe("parâmetro de consulta 'referencia': o histórico não tem 2026-07; os meses guardados são 2026-08")
    } finally {
      await app.close()
    }
  })
})

describe('the ingest does not build on a damaged history', () => {
  test('a lost newest month file: neither that month again nor a newer one is built (its changes would be skipped)', () => {
    const data = copyData()
    rmSync(monthFile(data, '2026-08'))
    const before = readlinkSync(current(data))
    const message = `dadosbr ingest: o histórico em uso termina em 2026-07, mas a base em uso é de 2026-08 (o arquivo 2026-08.sqlite sumiu de ${join(current(data), 'historico')}); restaure-o de um backup ou comece um histórico novo numa pasta de dados nova (--data)\n`
    expect(ingest(data, ['--from', EARLIER_FIXTURES, '--mes', '2026-08'])).toEqual({ code: 1, err: message })
    expect(ingest(data, ['--from', EARLIER_FIXTURES, '--mes', '2026-09'])).toEqual({ code: 1, err: message })
    expect(readlinkSync(current(data))).toBe(before)
  })

  test('a damaged month file is not linked into a new build', () => {
    const data = copyData()
    const path = monthFile(data, '2026-07')
    truncateSync(path, Math.floor(statSync(path).size / 2))
    const r = ingest(data, ['--from', EARLIER_FIXTURES, '--mes', '2026-09'])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^dadosbr ingest: o histórico em uso está danificado \(2026-07\.sqlite: arquivo SQLite truncado .*\); restaure o arquivo de um backup, descarte 2026-07 e os meses antes dele \('dadosbr historico cnpj --descartar-antes 2026-08'\) ou comece um histórico novo numa pasta de dados nova \(--data\)\n$/)
  })

  test("the build in use's kept hashes cut short, overwritten, or with pages damaged under an intact footer: the next month hashes the month before again from its DuckDB file, with the same changes", async () => {
    for (const damage of ['cortado', 'sobrescrito', 'paginas']) {
      const data = tempDir('dadosbr-impressoes-danificadas-')
      await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir: data, quiet: true, log: () => {} })
      const dir = join(current(data), 'impressoes')
      const files = [...new Bun.Glob('*.parquet').scanSync(dir)].sort().map((f) => join(dir, f))
      // The partition with the most roots (the others of this small month are mostly empty files).
      const file = files.reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a))
      if (damage === 'cortado') truncateSync(file, Math.floor(statSync(file).size / 2))
      else if (damage === 'sobrescrito') writeFileSync(file, 'PAR1 não é mais um Parquet')
      else
        for (const f of files) {
          // Everything between the leading magic and the footer (its length is in the last 8 bytes) overwritten.
          const bytes = readFileSync(f)
          const end = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8)
          bytes.fill(0xa5, 4, end)
          writeFileSync(f, bytes)
        }
      const m = await buildCnpj({ sourceDir: copyFixtures(), month: '2026-08', dataDir: data, quiet: true, log: () => {} })
      expect([damage, Object.keys(m.historico.cpu_segundos)[0], m.historico.itens]).toEqual([damage, 'impressoes_anterior', 20])
      expect(m.historico.por_tipo).toEqual(manifestOf(pristine).historico.por_tipo)
    }
  })

  test('a partial month is not compared (every establishment of a missing zip would be recorded as gone); a first month may be partial', async () => {
    const data = copyData()
    const partial = copyFixtures()
    rmSync(join(partial, readdirSync(partial).find((f) => /^Estabelecimentos1\.zip$/i.test(f))!))
    expect(ingest(data, ['--from', partial, '--mes', '2026-09', '--parcial'])).toEqual({
      code: 1,
      err: 'dadosbr ingest: faltam 1 dos 37 zips de 2026-09: um mês parcial não entra no histórico (daria como saídos do cadastro os estabelecimentos dos zips que faltam); complete o mês, ou construa-o numa pasta de dados nova (--data), sem histórico\n',
    })
    const fresh = tempDir('dadosbr-parcial-')
    const m = await buildCnpj({ sourceDir: partial, month: '2026-09', dataDir: fresh, allowPartial: true, quiet: true, log: () => {} })
    expect(m.historico).toMatchObject({ meses: ['2026-09'], referencia_anterior: null })
    // A whole month is not compared with that partial one either (the missing zips' establishments would be "opened"); built whole again, it is.
    expect(ingest(fresh, ['--from', copyFixtures(), '--mes', '2026-10'])).toEqual({
      code: 1,
      err: 'dadosbr ingest: a base em uso (2026-09) foi construída com 36 dos 37 zips (--parcial): comparado com ela, 2026-10 daria como abertos os estabelecimentos dos zips que faltavam; construa 2026-09 de novo com os 37 zips antes (dadosbr ingest cnpj --mes 2026-09)\n',
    })
    expect(ingest(fresh, ['--from', copyFixtures(), '--mes', '2026-09']).code).toBe(0)
    expect(ingest(fresh, ['--from', copyFixtures(), '--mes', '2026-10']).code).toBe(0)
  })

  test("a month the history refuses is refused before anything is downloaded (the Receita's share is not even asked)", () => {
    const data = copyData()
    // A share that does not answer: a download would fail with a network error, not the history's line.
    expect(ingest(data, ['--mes', '2026-05', '--fonte', 'http://127.0.0.1:9', '--downloads', tempDir('dadosbr-dl-')])).toEqual({
      code: 1,
      err: 'dadosbr ingest: o mês 2026-05 é anterior ao mais recente guardado (2026-08): o histórico só cresce para a frente; carregue os meses do mais antigo ao mais novo, numa pasta de dados nova (--data) se precisar de meses anteriores a 2026-07\n',
    })
  })
})
