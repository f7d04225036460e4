// `dadosbr ingest bcb`: --from a folder of the zips as downloaded (any name; XLSX, or CSV in older
// months) and the monthly download against a local server with the real paths.
import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, readlinkSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bcbIngest } from '../../ingest/bcb/command'
import { buildBcb } from '../../ingest/bcb/load'
import { xlsxRows } from '../../ingest/bcb/parse'
import { downloadBcb, monthsBack, SEGMENT_FILES } from '../../ingest/bcb/sources'
import { writeXlsx } from '../../ingest/bcb/xlsx-write'
import { encodeCp1252 } from '../../ingest/lib/cp1252'
import { writeZipFiles } from '../../ingest/lib/zip-write'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, SEGMENTOS, type BcbManifest } from '../../src/datasets/bcb/layout'
import { instituicao } from '../../src/datasets/bcb/service'
import { openBcbFiles } from '../../src/datasets/bcb/store'
import { tempDir } from '../temp'
import { banner, FOOTER } from './fixtures/make-fixtures'
import { copySample, REAL, SAMPLE } from './helpers'

function answer(dataDir: string, raiz: string) {
  const files = openBcbFiles(join(dataDir, DATASET, 'current'), currentManifest<BcbManifest>(dataDir, DATASET)!)
  try {
    return instituicao(files, raiz)
  } finally {
    files.db.close()
  }
}

async function refused(dir: string, message: string | RegExp) {
  const dataDir = tempDir('dadosbr-bcb-')
  await buildBcb({ dir: SAMPLE, dataDir })
  const inUse = readlinkSync(join(dataDir, DATASET, 'current'))
  const err = await buildBcb({ dir, dataDir, force: true }).then(() => null, (e: Error) => e)
  expect(err?.message).toMatch(message)
  expect(err!.message).not.toContain('\n')
  expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBe(inUse)
  expect(readdirSync(join(dataDir, DATASET)).filter((e) => e.endsWith('.tmp'))).toEqual([])
  expect(answer(dataDir, '00000000').autorizada).toBe(true)
}

describe('--from DIR', () => {
  test('zips of any name, recognized by columns or title', async () => {
    const dir = copySample()
    for (const [i, f] of readdirSync(dir).sort().entries()) renameSync(join(dir, f), join(dir, `relacao (${i}).zip`))
    const dataDir = tempDir('dadosbr-bcb-')
    const r = await buildBcb({ dir, dataDir })
    expect(r.built && Object.values(r.manifest.registros as Record<string, number>)).toEqual([157, 793, 2, 2, 2])
    expect(answer(dataDir, '00000000').dominios_verificados).toEqual(['www.bb.com.br'])
  })

  test('an older month\'s CSV (cp1252, `;`, banner and footer) gives the same answer as the XLSX', async () => {
    const dir = copySample()
    const rows = await xlsxRows(readFileSync(join(REAL, '202405BANCOS.xlsx')))
    const csv = rows.map((r) => r.map((c) => (/[;"\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(';')).join('\r\n')
    await writeZipFiles(join(dir, '202405BANCOS.zip'), [{ name: '202405BANCOS.CSV', content: encodeCp1252(csv) }])
    const dataDir = tempDir('dadosbr-bcb-')
    await buildBcb({ dir, dataDir })
    const { dataDir: xlsxData } = { dataDir: tempDir('dadosbr-bcb-') }
    await buildBcb({ dir: SAMPLE, dataDir: xlsxData })
    for (const raiz of ['00000000', '91884981', '92894922']) expect(answer(dataDir, raiz)).toEqual(answer(xlsxData, raiz))
  })

  test('the same files as the build in use: nothing built; --forcar rebuilds', async () => {
    const dataDir = tempDir('dadosbr-bcb-')
    await buildBcb({ dir: SAMPLE, dataDir })
    expect((await buildBcb({ dir: SAMPLE, dataDir })).built).toBe(false)
    expect((await buildBcb({ dir: SAMPLE, dataDir, force: true })).built).toBe(true)
  })

  test('a missing list', async () => {
    const dir = copySample()
    rmSync(join(dir, '202405CONSORCIO.zip'))
    await refused(dir, /^falta em .*: administradoras de consórcio \(CONSORCIO\)$/)
  })

  test('two files of one list', async () => {
    const dir = copySample()
    writeFileSync(join(dir, 'bancos-de-novo.zip'), readFileSync(join(SAMPLE, '202405BANCOS.zip')))
    await refused(dir, /^dois arquivos de bancos comerciais, múltiplos e caixas \(BANCOS\): 202405BANCOS\.zip:202405BANCOS\.xlsx e bancos-de-novo\.zip:202405BANCOS\.xlsx; deixe só um/)
  })

  test('a truncated zip', async () => {
    const dir = copySample()
    truncateSync(join(dir, '202405COOPERATIVAS.zip'), 5000)
    await refused(dir, /202405COOPERATIVAS\.zip: zip truncado ou corrompido/)
  })

  test('an empty list (banner and header, no institution)', async () => {
    const dir = copySample()
    const xlsx = join(tempDir('dadosbr-x-'), 'x.xlsx')
    await writeXlsx(xlsx, [...banner('SEDES DE ADMINISTRADORAS DE CONSÓRCIO'), ['CNPJ', 'NOME INSTITUIÇÃO', 'UF'], [], FOOTER])
    await writeZipFiles(join(dir, '202405CONSORCIO.zip'), [{ name: '202405CONSORCIO.xlsx', content: readFileSync(xlsx) }])
    await refused(dir, '202405CONSORCIO.zip:202405CONSORCIO.xlsx: administradoras de consórcio (CONSORCIO) sem nenhuma instituição (arquivo vazio ou cortado?)')
  })

  test('a sheet without the header; a sheet of no known list', async () => {
    const dir = copySample()
    const xlsx = join(tempDir('dadosbr-x-'), 'x.xlsx')
    await writeXlsx(xlsx, [['RELATÓRIO'], ['A', 'B', 'C'], ['1', '2', '3']])
    await writeZipFiles(join(dir, 'planilha.zip'), [{ name: 'planilha.xlsx', content: readFileSync(xlsx) }])
    await refused(dir, 'planilha.zip:planilha.xlsx: cabeçalho não encontrado (nenhuma linha com a coluna CNPJ e outras colunas)')
    const other = copySample()
    await writeXlsx(xlsx, [['OUTRO RELATÓRIO'], ['CNPJ', 'NOME', 'UF'], ['00.000.000', 'X', 'DF']])
    await writeZipFiles(join(other, 'planilha.zip'), [{ name: 'planilha.xlsx', content: readFileSync(xlsx) }])
    await refused(other, /^planilha\.zip:planilha\.xlsx: não sei de qual lista é/)
  })

  test('a sheet that is no XLSX', async () => {
    const dir = copySample()
    await writeZipFiles(join(dir, '202405SOCIEDADES.zip'), [{ name: '202405SOCIEDADES.xlsx', content: 'isto não é uma planilha' }])
    await refused(dir, /^202405SOCIEDADES\.zip:202405SOCIEDADES\.xlsx: planilha ilegível/)
  })
})

describe('monthly download against the real paths', () => {
  const servers: ReplayServer[] = []
  afterAll(() => servers.forEach((s) => s.close()))

  /** The five lists of each published month, with ETags; other months 404 (as an unpublished month). */
  function bcbServer(published: string[]) {
    const server = startReplay()
    servers.push(server)
    const etags = new Map<string, string>()
    for (const month of published)
      for (const seg of SEGMENTOS) {
        const { key, folder } = SEGMENT_FILES[seg]
        const path = `/content/estabilidadefinanceira/relacao_instituicoes_funcionamento/${folder}/${month}${key}.zip`
        etags.set(path, `"${month}${key}-v1"`)
        server.on(path, (url, req) => (req.headers.get('if-none-match') === etags.get(url.pathname) ? { status: 304 } : { headers: { etag: etags.get(url.pathname)! }, file: join(SAMPLE, `202405${key}.zip`) }))
      }
    return { server, etags, env: { BCB_INSTITUICOES_URL: `${server.url}/content/estabilidadefinanceira/relacao_instituicoes_funcionamento` } }
  }
  const fast = { retries: 2, retryDelayMs: 5, quiet: true }

  test('months tried from the current one back; a daily run then downloads and builds nothing; a changed file is fetched again', async () => {
    const { server, etags, env } = bcbServer(['202405'])
    const dir = tempDir('dadosbr-bcb-dl-')
    const dataDir = tempDir('dadosbr-bcb-')
    const now = new Date('2024-06-20T12:00:00Z')
    const first = await downloadBcb(dir, { ...fast, now }, env)
    expect([first.month, first.fetched]).toEqual(['202405', ['202405BANCOS.zip', '202405COOPERATIVAS.zip', '202405CONSORCIO.zip', '202405SOCIEDADES.zip', '202405CONGLOMERADOS.zip']])
    expect(server.requests[0]!.path).toEndWith('/Bancos_comerciais-multiplos-caixa/202406BANCOS.zip')
    expect((await buildBcb({ dir, dataDir })).built).toBe(true)

    server.requests.length = 0
    const second = await downloadBcb(dir, { ...fast, now }, env)
    expect(second.fetched).toEqual([])
    expect(server.requests.filter((r) => r.headers.get('if-none-match')).length).toBe(5)
    expect((await buildBcb({ dir, dataDir })).built).toBe(false)

    // The Banco Central corrects a file within the month: new ETag, fetched again.
    etags.set('/content/estabilidadefinanceira/relacao_instituicoes_funcionamento/Conglomerados/202405CONGLOMERADOS.zip', '"v2"')
    expect((await downloadBcb(dir, { ...fast, now }, env)).fetched).toEqual(['202405CONGLOMERADOS.zip'])
  })

  test('a new month replaces the old files; the ingest command with --mes and the settings', async () => {
    const { env } = bcbServer(['202405', '202406'])
    const dir = tempDir('dadosbr-bcb-dl-')
    await downloadBcb(dir, { ...fast, month: '202405' }, env)
    const got = await downloadBcb(dir, { ...fast, now: new Date('2024-07-02T12:00:00Z') }, env)
    expect(got.month).toBe('202406')
    expect(readdirSync(dir).filter((f) => f.endsWith('.zip')).sort()).toEqual(['202406BANCOS.zip', '202406CONGLOMERADOS.zip', '202406CONSORCIO.zip', '202406COOPERATIVAS.zip', '202406SOCIEDADES.zip'])
    const saved = process.env.BCB_INSTITUICOES_URL
    process.env.BCB_INSTITUICOES_URL = env.BCB_INSTITUICOES_URL
    try {
      const dataDir = tempDir('dadosbr-bcb-')
      expect(await bcbIngest.run({ flags: { '--mes': '2024-05' }, dataDir, quiet: true, log: () => {} })).toMatch(/^base bcb 2024-05-31 pronta em [\d.]+ s \(baixados: 202405BANCOS\.zip, .*\): bancos=157 cooperativas=793 consorcios=2 demais_instituicoes=2 conglomerados=2; 954 raízes$/)
      await expect(bcbIngest.run({ flags: { '--mes': '2024-5' }, dataDir, quiet: true, log: () => {} })).rejects.toThrow('--mes precisa ser AAAA-MM, ex. 2026-10')
      await expect(bcbIngest.run({ flags: { '--mes': '2023-01' }, dataDir, quiet: true, log: () => {} })).rejects.toThrow(/^o Banco Central não tem a relação de 202301 /)
    } finally {
      if (saved === undefined) delete process.env.BCB_INSTITUICOES_URL
      else process.env.BCB_INSTITUICOES_URL = saved
    }
  })

  test('a 503 then success; a page served in place of a missing month; a list missing from the month', async () => {
    const { server, env } = bcbServer(['202405'])
    let calls = 0
    const coop = '/content/estabilidadefinanceira/relacao_instituicoes_funcionamento/Cooperativas-de-credito/202405COOPERATIVAS.zip'
    server.on(coop, () => (++calls === 1 ? { status: 503 } : { file: join(SAMPLE, '202405COOPERATIVAS.zip') }))
    // The current month answers 200 with an HTML page: not a zip, as good as missing.
    server.on('/content/estabilidadefinanceira/relacao_instituicoes_funcionamento/Bancos_comerciais-multiplos-caixa/202406BANCOS.zip', { headers: { 'content-type': 'text/html' }, body: '<html>Página não encontrada</html>' })
    const dir = tempDir('dadosbr-bcb-dl-')
    const got = await downloadBcb(dir, { ...fast, now: new Date('2024-06-20T12:00:00Z') }, env)
    expect([got.month, calls, readdirSync(dir).some((f) => f.startsWith('202406'))]).toEqual(['202405', 2, false])

    const broken = bcbServer(['202405'])
    broken.server.on('/content/estabilidadefinanceira/relacao_instituicoes_funcionamento/Consorcios-adm/202405CONSORCIO.zip', { status: 404 })
    expect(await downloadBcb(tempDir('dadosbr-bcb-dl-'), { ...fast, month: '202405' }, broken.env).then(() => null, (e: Error) => e.message)).toBe(
      `o Banco Central publicou BANCOS de 202405 mas não CONSORCIO (${broken.env.BCB_INSTITUICOES_URL}/Consorcios-adm/202405CONSORCIO.zip); tente mais tarde`,
    )
    const none = bcbServer([])
    expect(await downloadBcb(tempDir('dadosbr-bcb-dl-'), { ...fast, lookBack: 3, now: new Date('2024-06-20T12:00:00Z') }, none.env).then(() => null, (e: Error) => e.message)).toBe(
      `nenhuma relação publicada nos últimos 3 meses em ${none.env.BCB_INSTITUICOES_URL}; confira BCB_INSTITUICOES_URL ou use --from DIR`,
    )
  })

  test('a file cut mid-download is resumed with Range', async () => {
    const { server, env } = bcbServer(['202405'])
    const base = '/content/estabilidadefinanceira/relacao_instituicoes_funcionamento'
    const coop = `${base}/Cooperativas-de-credito/202405COOPERATIVAS.zip`
    // A fault applies from the request after the handler that sets it: the banks' file (asked
    // just before) arms the cut of the credit unions' file, which disarms it for the resume.
    server.on(`${base}/Bancos_comerciais-multiplos-caixa/202405BANCOS.zip`, () => {
      server.fault = { kind: 'truncate', bytes: 40_000 }
      return { file: join(SAMPLE, '202405BANCOS.zip') }
    })
    server.on(coop, () => {
      server.fault = { kind: 'none' }
      return { file: join(SAMPLE, '202405COOPERATIVAS.zip') }
    })
    const dir = tempDir('dadosbr-bcb-dl-')
    await downloadBcb(dir, { ...fast, month: '202405' }, env)
    expect(server.requests.filter((r) => r.path === coop).map((r) => r.headers.get('range'))).toEqual([null, 'bytes=40000-'])
    expect(readFileSync(join(dir, '202405COOPERATIVAS.zip')).equals(readFileSync(join(SAMPLE, '202405COOPERATIVAS.zip')))).toBe(true)
  })

  test('months back from the current one in Brasília', () => {
    expect(monthsBack(new Date('2024-01-01T02:00:00Z'), 3)).toEqual(['202312', '202311', '202310'])
    expect(monthsBack(new Date('2024-01-01T04:00:00Z'), 2)).toEqual(['202401', '202312'])
  })
})
