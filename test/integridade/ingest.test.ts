// `dadosbr ingest integridade --from DIR`: files exactly as downloaded, any names, each list
// recognized by its header; every bad input is a one-line error and the data in use stays.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, readlinkSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodeCp1252 } from '../../ingest/lib/cp1252'
import { writeZipFiles } from '../../ingest/lib/zip-write'
import { ACORDOS_HEADER, CEIS_HEADER, cguCsv, mteCsv } from '../../ingest/integridade/format'
import { buildIntegridade } from '../../ingest/integridade/load'
import { csvRows, decodeText } from '../../src/core/text/csv'
import { currentManifest } from '../../ingest/lib/snapshot'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { DATASET, type IntegridadeManifest } from '../../src/datasets/integridade/layout'
import { triagem } from '../../src/datasets/integridade/service'
import { openIntegridadeFiles } from '../../src/datasets/integridade/store'
import { tempDir } from '../temp'
import { FICTICIAS, MTE_ROWS } from './fixtures/make-fixtures'
import { copySample, SAMPLE } from './helpers'

/** The rows of a CSV inside a zip of the sample (header first). */
async function rowsOf(zip: string, entrySuffix: string): Promise<string[][]> {
  const entry = (await listEntries(zip)).find((e) => e.name.endsWith(entrySuffix))!
  const parts: Uint8Array[] = []
  for await (const c of readEntry(zip, entry)) parts.push(c)
  const rows: string[][] = []
  for await (const r of csvRows(decodeText(parts, 'windows-1252'), ';')) rows.push(r)
  return rows
}

const build = (dir: string, dataDir: string, force = true) => buildIntegridade({ dir, dataDir, force })

function screen(dataDir: string, cnpj: string) {
  const m = currentManifest<IntegridadeManifest>(dataDir, DATASET)!
  const files = openIntegridadeFiles(join(dataDir, DATASET, 'current'), m)
  try {
    return triagem(files, cnpj, '2026-11-24')
  } finally {
    files.db.close()
  }
}

/** A data directory with the sample built, and the build it points at. */
async function withSample() {
  const dataDir = tempDir('dadosbr-integridade-')
  await build(SAMPLE, dataDir)
  return { dataDir, inUse: readlinkSync(join(dataDir, DATASET, 'current')) }
}

/** Runs a bad build: it must fail with `message`, leave `current` where it was and no temp directory. */
async function refused(dir: string, message: string | RegExp) {
  const { dataDir, inUse } = await withSample()
  const err = await build(dir, dataDir).then(() => null, (e: Error) => e)
  expect(err).not.toBeNull()
  expect(err!.message).toMatch(message)
  expect(err!.message).not.toContain('\n')
  expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBe(inUse)
  expect(readdirSync(join(dataDir, DATASET)).filter((e) => e.endsWith('.tmp'))).toEqual([])
  expect(screen(dataDir, FICTICIAS.alfaMatriz).total_apontamentos).toBe(4)
}

describe('--from DIR: recognized by header', () => {
  test('zips of any name; the leniency zip with its two CSVs; the same answers', async () => {
    const dir = copySample()
    renameSync(join(dir, '20261120_CEIS.zip'), join(dir, 'baixado (1).zip'))
    renameSync(join(dir, '20261120_Acordos.zip'), join(dir, 'acordos.ZIP'))
    renameSync(join(dir, 'cadastro_de_empregadores.csv'), join(dir, 'lista suja.csv'))
    const dataDir = tempDir('dadosbr-integridade-')
    const r = await build(dir, dataDir)
    expect(r.built).toBe(true)
    // The dates come from the CSVs' own names inside the zips (20261120_CEIS.csv).
    expect(r.manifest.listas.ceis).toBe('2026-11-20')
    expect(r.manifest.arquivos.filter((a) => a.nome === 'acordos.ZIP').map((a) => [a.tipo, a.entrada])).toEqual([['acordos', '20261120_Acordos.csv'], ['efeitos', '20261120_Efeitos.csv']])
    expect(screen(dataDir, FICTICIAS.alfaMatriz).total_apontamentos).toBe(4)
  })

  test('reordered and extra columns give the same records', async () => {
    const dir = copySample()
    const [header, ...rows] = await rowsOf(join(SAMPLE, '20261120_CEIS.zip'), '.csv')
    const order = header!.map((_, i) => i).reverse()
    const shuffled = [[...order.map((i) => header![i]!), 'COLUNA NOVA'], ...rows.map((r) => [...order.map((i) => r[i]!), 'x'])]
    await writeZipFiles(join(dir, '20261120_CEIS.zip'), [{ name: '20261120_CEIS.csv', content: encodeCp1252(cguCsv(shuffled[0]!, shuffled.slice(1))) }])
    const dataDir = tempDir('dadosbr-integridade-')
    await build(dir, dataDir)
    const expected = screen((await withSample()).dataDir, FICTICIAS.alfaFilial)
    expect(screen(dataDir, FICTICIAS.alfaFilial).apontamentos.ceis).toEqual(expected.apontamentos.ceis)
  })

  test('the MTE list with title lines above the header and notes below the table: date from the title, footnote text on its employer', async () => {
    const dir = copySample()
    const rows = MTE_ROWS.map((r) => [...r])
    rows.find((r) => r[0] === '552')![3] = 'VIABRAS ENGENHARIA EIRELI (*1)'
    const text = ['CADASTRO DE EMPREGADORES;;;;;;;;;', 'Atualização: 10/10/2026;;;;;;;;;', ';;;;;;;;;', mteCsv(rows), ';;;;;;;;;', '(*1) Empregador incluído por decisão judicial.;;;;;;;;;'].join('\r\n')
    writeFileSync(join(dir, 'cadastro_de_empregadores.csv'), encodeCp1252(text))
    const dataDir = tempDir('dadosbr-integridade-')
    const r = await build(dir, dataDir)
    expect(r.manifest.listas.trabalho_escravo).toBe('2026-10-10')
    const [v] = screen(dataDir, '00638595000105').apontamentos.trabalho_escravo
    expect([v!.empregador, v!.nota_rodape, v!.observacao]).toEqual(['VIABRAS ENGENHARIA EIRELI', '*1', 'Empregador incluído por decisão judicial.'])
    expect(r.manifest.arquivos.find((a) => a.tipo === 'mte')!.linhas_mantidas).toBe(14)
  })

  test('the same files as the build in use: nothing is built; --forcar rebuilds', async () => {
    const { dataDir, inUse } = await withSample()
    const again = await buildIntegridade({ dir: SAMPLE, dataDir })
    expect(again.built).toBe(false)
    expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBe(inUse)
    expect((await buildIntegridade({ dir: SAMPLE, dataDir, force: true })).built).toBe(true)
    expect(readlinkSync(join(dataDir, DATASET, 'current'))).not.toBe(inUse)
  })
})

describe('--from DIR: bad input is refused in one line, the data in use kept', () => {
  test('an unknown header', async () => {
    const dir = copySample()
    await writeZipFiles(join(dir, 'outro.zip'), [{ name: '20261120_CEAF.csv', content: encodeCp1252(cguCsv(['CÓDIGO DA SANÇÃO', 'CPF OU CNPJ DO SANCIONADO', 'CARGO EFETIVO'], [['1', '***111111**', 'ANALISTA']])) }])
    await refused(dir, /^outro\.zip:20261120_CEAF\.csv: cabeçalho não reconhecido .*CÓDIGO DA SANÇÃO; CPF OU CNPJ DO SANCIONADO; CARGO EFETIVO$/)
  })

  test('a list that lacks a required column names it', async () => {
    const dir = copySample()
    const [header, ...rows] = await rowsOf(join(SAMPLE, '20261120_CEIS.zip'), '.csv')
    const drop = header!.indexOf('DATA FINAL SANÇÃO')
    const cut = (r: string[]) => r.filter((_, i) => i !== drop)
    await writeZipFiles(join(dir, '20261120_CEIS.zip'), [{ name: '20261120_CEIS.csv', content: encodeCp1252(cguCsv(cut(header!), rows.map(cut))) }])
    await refused(dir, '20261120_CEIS.zip:20261120_CEIS.csv: CEIS: colunas ausentes: DATA FINAL SANÇÃO')
  })

  test('two CSVs of one list', async () => {
    const dir = copySample()
    writeFileSync(join(dir, 'ceis-de-novo.zip'), readFileSync(join(SAMPLE, '20261120_CEIS.zip')))
    await refused(dir, /^dois arquivos de CEIS: 20261120_CEIS\.zip:20261120_CEIS\.csv e ceis-de-novo\.zip:20261120_CEIS\.csv; deixe só um em /)
  })

  test('an empty list (header only)', async () => {
    const dir = copySample()
    await writeZipFiles(join(dir, '20261120_Acordos.zip'), [
      { name: '20261120_Acordos.csv', content: encodeCp1252(cguCsv(ACORDOS_HEADER, [])) },
      { name: '20261120_Efeitos.csv', content: encodeCp1252(cguCsv(['ID DO ACORDO', 'EFEITO DO ACORDO DE LENIENCIA', 'COMPLEMENTO'], [])) },
    ])
    await refused(dir, '20261120_Acordos.zip:20261120_Acordos.csv: acordos de leniência (_Acordos) sem nenhuma linha (arquivo vazio ou cortado?)')
  })

  test('a missing list', async () => {
    const dir = copySample()
    rmSync(join(dir, '20261120_CEPIM.zip'))
    await refused(dir, /^falta em .*: CEPIM$/)
  })

  test('a truncated zip (download cut mid-file)', async () => {
    const dir = copySample()
    truncateSync(join(dir, '20261120_CNEP.zip'), 300)
    await refused(dir, /20261120_CNEP\.zip: zip truncado ou corrompido/)
  })

  test('a corrupt zip (bytes changed in the compressed data: CRC)', async () => {
    const dir = copySample()
    const bytes = readFileSync(join(dir, '20261120_CEIS.zip'))
    bytes[120] = bytes[120]! ^ 0xff
    writeFileSync(join(dir, '20261120_CEIS.zip'), bytes)
    await refused(dir, /20261120_CEIS\.zip:20261120_CEIS\.csv: .*corrompid/)
  })

  test('a CSV cut inside a quoted field', async () => {
    const dir = copySample()
    const csv = new TextDecoder('windows-1252').decode(encodeCp1252(cguCsv(CEIS_HEADER, [['CEIS', '1', 'J', FICTICIAS.alfaMatriz, 'X']])))
    await writeZipFiles(join(dir, '20261120_CEIS.zip'), [{ name: '20261120_CEIS.csv', content: encodeCp1252(csv.slice(0, -8)) }])
    await refused(dir, /20261120_CEIS\.csv: aspas abertas na linha 2 não se fecham/)
  })

  test('a CGU file whose name gives no date', async () => {
    const dir = copySample()
    const content = readFileSync(join(SAMPLE, '20261120_CEPIM.zip'))
    rmSync(join(dir, '20261120_CEPIM.zip'))
    const [header, ...rows] = await rowsOf(join(SAMPLE, '20261120_CEPIM.zip'), '.csv')
    await writeZipFiles(join(dir, 'cepim.zip'), [{ name: 'CEPIM.csv', content: encodeCp1252(cguCsv(header!, rows)) }])
    expect(content.length).toBeGreaterThan(0)
    await refused(dir, /^cepim\.zip:CEPIM\.csv: data de referência desconhecida: o nome do arquivo não traz a data AAAAMMDD/)
  })

  test('a row of another list inside a file', async () => {
    const dir = copySample()
    const [header, ...rows] = await rowsOf(join(SAMPLE, '20261120_CEIS.zip'), '.csv')
    rows[1]![0] = 'CEAF'
    await writeZipFiles(join(dir, '20261120_CEIS.zip'), [{ name: '20261120_CEIS.csv', content: encodeCp1252(cguCsv(header!, rows)) }])
    await refused(dir, '20261120_CEIS.zip:20261120_CEIS.csv, linha 3: CADASTRO "CEAF" num arquivo do CEIS')
  })

  test('a folder that does not exist', async () => {
    await refused('/nonexistent-dadosbr-src', 'pasta não encontrada: /nonexistent-dadosbr-src')
  })
})
