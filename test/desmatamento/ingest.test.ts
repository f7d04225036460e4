// `dadosbr ingest desmatamento --from DIR`: the bundled sample (real DETER alerts plus the
// constructed ones the fixtures README lists) built into exact answers; the Receita's table and its
// gap; what is refused, and that a refused build leaves the data in use.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readlinkSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildDesmatamento } from '../../ingest/desmatamento/load'
import { currentManifest } from '../../ingest/lib/snapshot'
import { writeZipEntries } from '../../ingest/lib/zip-write'
import { encodeCp1252 } from '../../ingest/lib/cp1252'
import { pgColumn, writeDbf } from '../../ingest/desmatamento/shapefile-write'
import { DATASET, type DesmatamentoManifest } from '../../src/datasets/desmatamento/layout'
import { tempDir } from '../temp'
import { AMZ_ROWS, AMZ_ZIP, CERRADO_ROWS, CERRADO_ZIP, deterDbf, MUNICIPIOS_HEADER, MUNICIPIOS_ROWS, municipiosCsv, writeDeterZip, type AlertRow } from './fixtures/make-fixtures'
import { answer, buildSample, copySample, SAMPLE } from './helpers'

const manifestOf = (dataDir: string) => currentManifest<DesmatamentoManifest>(dataDir, DATASET)!

async function refused(dir: string, message: string | RegExp) {
  const dataDir = await buildSample()
  const inUse = readlinkSync(join(dataDir, DATASET, 'current'))
  const err = await buildDesmatamento({ dir, dataDir, force: true, quiet: true }).then(() => null, (e: Error) => e)
  expect(err?.message).toMatch(message)
  expect(err!.message).not.toContain('\n')
  expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBe(inUse)
  expect(readdirSync(join(dataDir, DATASET)).filter((e) => e.endsWith('.tmp'))).toEqual([])
  expect(answer(dataDir, '1200401').desde_corte.alertas).toBe(6)
}

describe('the bundled sample', () => {
  test('manifest: what each file gave, kept and dropped; the reference date; the Receita table\'s gap filled', async () => {
    const m = manifestOf(await buildSample())
    expect([m.base, m.formato, m.referencia, m.municipios_com_alertas]).toEqual(['INPE/DETER', 3, '2026-03-26', 15])
    expect(m.projetos).toEqual({
      amazonia: { arquivo: AMZ_ZIP, entrada: 'deter-amz-deter-public.dbf', alerta_mais_recente: '2026-03-10', alertas_desde_corte: 16, anteriores_ao_corte: 13 },
      cerrado: { arquivo: CERRADO_ZIP, entrada: 'deter-cerrado-nb-deter-public.dbf', alerta_mais_recente: '2026-03-26', alertas_desde_corte: 14, anteriores_ao_corte: 6 },
    })
    const [amz, cerrado, muni] = m.arquivos
    expect([amz!.linhas_mantidas, amz!.linhas_descartadas, amz!.descartes]).toEqual([16, 1, { data: 0, municipio: 1, area: 0, data_futura: 0 }])
    expect([cerrado!.linhas_mantidas, cerrado!.linhas_descartadas, cerrado!.tipo]).toEqual([14, 0, 'deter-cerrado'])
    expect([muni!.nome, muni!.tipo, muni!.linhas_mantidas, muni!.linhas_descartadas]).toEqual(['municipios.csv', 'municipios-rfb', 37, 1])
    expect(m.arquivos.every((a) => /^[0-9a-f]{64}$/.test(a.sha256) && a.bytes > 0)).toBe(true)
    expect(m.complementos).toEqual([{ tom: '1182', ibge: '5101837', nome: 'Boa Esperança do Norte', motivo: expect.stringContaining('ausente da tabela da Receita') }])
  })

  test('Rio Branco (constructed alerts): the cut-off edge, windows, classes (the misspelt one merged), biome, ranks, microregion', async () => {
    const dataDir = await buildSample()
    expect(answer(dataDir, '1200401')).toEqual({
      ibge: '1200401',
      municipio: 'Rio Branco',
      uf: 'AC',
      microrregiao: { codigo: '12004', nome: 'RIO BRANCO' },
      // 2020-12-31 (0.0712) is out, 2021-01-01 (0.0683) is in.
      desde_corte: { inicio: '2021-01-01', fim: '2026-03-26', alertas: 6, area_km2: 0.4833, alertas_desmatamento: 4, area_desmatamento_km2: 0.3058 },
      janelas: {
        ultimos_30_dias: { inicio: '2026-02-25', fim: '2026-03-26', alertas: 1, area_km2: 0.0652, alertas_desmatamento: 1, area_desmatamento_km2: 0.0652 },
        ultimos_90_dias: { inicio: '2025-12-27', fim: '2026-03-26', alertas: 1, area_km2: 0.0652, alertas_desmatamento: 1, area_desmatamento_km2: 0.0652 },
        ultimos_365_dias: { inicio: '2025-03-27', fim: '2026-03-26', alertas: 4, area_km2: 0.3233, alertas_desmatamento: 2, area_desmatamento_km2: 0.1458 },
      },
      por_classe: [
        { classe: 'DESMATAMENTO_CR', descricao: 'desmatamento com solo exposto (corte raso)', grupo: 'desmatamento', alertas: 3, area_km2: 0.2141 },
        { classe: 'DEGRADACAO', descricao: 'degradação', grupo: 'degradacao', alertas: 2, area_km2: 0.1775 },
        { classe: 'DESMATAMENTO_VEG', descricao: 'desmatamento com vegetação remanescente', grupo: 'desmatamento', alertas: 1, area_km2: 0.0917 },
      ],
      por_bioma: [{ bioma: 'amazonia', alertas: 6, area_km2: 0.4833, alertas_desmatamento: 4, area_desmatamento_km2: 0.3058 }],
      ranking: {
        criterio: 'área de desmatamento (corte raso, com vegetação e mineração) desde 2020-12-31',
        nacional: { posicao: 3, de: 12 },
        amazonia: { posicao: 1, de: 3 },
        cerrado: { posicao: null, de: 9 },
      },
      nota: null,
    })
  })

  test('real alerts: Itararé (Cerrado, name in UTF-8 in the .dbf), Vitória do Jari (fire scars only: not ranked), Paragominas (2023 only)', async () => {
    const dataDir = await buildSample()
    const itarare = answer(dataDir, '3523206')
    expect([itarare.municipio, itarare.desde_corte.alertas, itarare.desde_corte.area_desmatamento_km2, itarare.ranking.nacional, itarare.ranking.cerrado]).toEqual(['Itararé', 4, 0.3185, { posicao: 1, de: 12 }, { posicao: 1, de: 9 }])
    expect([itarare.janelas.ultimos_30_dias.alertas, itarare.janelas.ultimos_30_dias.area_km2, itarare.janelas.ultimos_90_dias.area_km2]).toEqual([2, 0.0857, 0.3185])
    const jari = answer(dataDir, '1600808')
    expect([jari.desde_corte.alertas, jari.desde_corte.area_km2, jari.desde_corte.area_desmatamento_km2, jari.ranking.nacional.posicao]).toEqual([4, 0.9925, 0, null])
    expect(jari.por_classe).toEqual([{ classe: 'CICATRIZ_DE_QUEIMADA', descricao: 'cicatriz de incêndio florestal', grupo: 'degradacao', alertas: 4, area_km2: 0.9925 }])
    const para = answer(dataDir, '1505502')
    expect([para.desde_corte.area_km2, para.janelas.ultimos_365_dias.alertas, para.microrregiao]).toEqual([3.0686, 0, { codigo: '15017', nome: 'PARAGOMINAS' }])
    // Before the cut-off only: Altamira's 2018-2019 alerts count for nothing.
    expect(answer(dataDir, '1500602').desde_corte.alertas).toBe(0)
  })

  test('Boa Esperança do Norte (absent from the Receita table): named from the filled row, in the microregion of the municipalities it came from', async () => {
    const a = answer(await buildSample(), '5101837')
    expect([a.municipio, a.uf, a.microrregiao, a.desde_corte.area_desmatamento_km2, a.ranking.amazonia]).toEqual(['Boa Esperança do Norte', 'MT', { codigo: '51006', nome: 'ALTO TELES PIRES' }, 0.0958, { posicao: 2, de: 3 }])
  })

  test('the same files as the build in use: nothing built; --forcar rebuilds; file names do not matter', async () => {
    const dataDir = tempDir('dadosbr-desm-')
    expect((await buildDesmatamento({ dir: SAMPLE, dataDir, quiet: true })).built).toBe(true)
    expect((await buildDesmatamento({ dir: SAMPLE, dataDir, quiet: true })).built).toBe(false)
    expect((await buildDesmatamento({ dir: SAMPLE, dataDir, force: true, quiet: true })).built).toBe(true)
    const dir = copySample()
    renameSync(join(dir, AMZ_ZIP), join(dir, 'download (1).zip'))
    renameSync(join(dir, 'municipios.csv'), join(dir, 'tabela.CSV'))
    const other = tempDir('dadosbr-desm-')
    await buildDesmatamento({ dir, dataDir: other, quiet: true })
    expect(answer(other, '1200401')).toEqual(answer(dataDir, '1200401'))
  })

  test('view dates after today are bad data: dropped, and the reference is the newest kept', async () => {
    const dataDir = tempDir('dadosbr-desm-')
    const r = await buildDesmatamento({ dir: SAMPLE, dataDir, quiet: true, now: new Date('2026-03-20T12:00:00Z') })
    expect(r.built && [r.manifest.referencia, r.manifest.arquivos[1]!.descartes]).toEqual(['2026-03-21', { data: 0, municipio: 0, area: 0, data_futura: 1 }])
  })
})

describe('the Receita\'s municipality table', () => {
  test('another column order, an ESTADO column, quoted fields and TOM codes without their zeros: the same answers', async () => {
    const dir = copySample()
    const rows = MUNICIPIOS_ROWS.map((r) => r.split(';')).map(([tom, ibge, nt, ni, uf]) => [`"${uf}"`, `"${ibge}"`, `"${String(Number(tom))}"`, `"${ni}"`, `"${nt}"`, '"ESTADO X"'].join(';'))
    writeFileSync(join(dir, 'municipios.csv'), encodeCp1252(['"UF";"CÓDIGO DO MUNICÍPIO - IBGE";"CÓDIGO DO MUNICÍPIO - TOM";"MUNICÍPIO - IBGE";"MUNICÍPIO - TOM";"ESTADO"', ...rows].join('\r\n')))
    const dataDir = await buildSample(dir)
    expect(answer(dataDir, '1200401')).toEqual(answer(await buildSample(), '1200401'))
    const { openBuild } = await import('./helpers')
    const files = openBuild(dataDir)
    try {
      expect([files.porTom.get('0139'), files.porTom.get('0070'), files.porTom.get('1182')]).toEqual(['1200401', '1600808', '5101837'])
    } finally {
      files.db.close()
    }
  })

  test('a table that has Boa Esperança do Norte is used as published (no row added)', async () => {
    const dir = copySample()
    writeFileSync(join(dir, 'municipios.csv'), municipiosCsv([...MUNICIPIOS_ROWS, '1182;5101837;BOA ESPERANCA DO NORTE;Boa Esperança do Norte (tabela);MT']))
    const dataDir = await buildSample(dir)
    expect(manifestOf(dataDir).complementos).toEqual([])
    expect(answer(dataDir, '5101837').municipio).toBe('Boa Esperança do Norte (tabela)')
  })

  test('not the table: refused, the data in use kept', async () => {
    const dir = copySample()
    writeFileSync(join(dir, 'municipios.csv'), '<html><body>Página em manutenção</body></html>')
    await refused(dir, 'municipios.csv: não é a tabela de municípios da Receita (vazio, ou sem o cabeçalho CÓDIGO DO MUNICÍPIO - TOM;CÓDIGO DO MUNICÍPIO - IBGE;...)')
    writeFileSync(join(dir, 'municipios.csv'), encodeCp1252(MUNICIPIOS_HEADER + '\r\n'))
    await refused(dir, 'municipios.csv: nenhum município (arquivo cortado?)')
  })
})

describe('what is refused (the data in use stays)', () => {
  test('a folder that is not there; a biome missing, two zips of one biome, a second CSV', async () => {
    await refused('/nao/existe', 'pasta não encontrada: /nao/existe')
    let dir = copySample()
    rmSync(join(dir, CERRADO_ZIP))
    await refused(dir, /^falta em .*: o zip do DETER Cerrado \(deter-cerrado-nb\)$/)
    rmSync(join(dir, 'municipios.csv'))
    await refused(dir, /^faltam em .*: o zip do DETER Cerrado \(deter-cerrado-nb\), a tabela de municípios da Receita \(municipios\.csv\)$/)
    dir = copySample()
    await writeDeterZip(join(dir, 'deter-amz-public-2026mar20.zip'), 'deter-amz', AMZ_ROWS)
    await refused(dir, /^dois arquivos do DETER amazonia: deter-amz-public-2026mar20\.zip e deter-amz-public-2026mar27\.zip; deixe só um em /)
    dir = copySample()
    writeFileSync(join(dir, 'outra.csv'), 'x')
    await refused(dir, /^dois arquivos \.csv em .* \(municipios\.csv e outra\.csv\); deixe só a tabela de municípios da Receita$/)
  })

  test('a zip that says no biome; a Pantanal zip beside the two is left alone', async () => {
    let dir = copySample()
    rmSync(join(dir, AMZ_ZIP))
    await writeZipEntries(join(dir, 'alertas.zip'), [{ name: 'deter_public.dbf', content: deterDbf(AMZ_ROWS) }])
    await refused(dir, /^alertas\.zip: não sei de qual bioma é \(nem deter_public\.dbf nem o nome do zip dizem deter-amz ou deter-cerrado\)/)
    dir = copySample()
    await writeZipEntries(join(dir, 'deter-pantanal-public-2026mar27.zip'), [{ name: 'deter-pantanal-deter-public.dbf', content: deterDbf(CERRADO_ROWS) }])
    expect(manifestOf(await buildSample(dir)).arquivos.map((a) => a.nome)).toEqual([AMZ_ZIP, CERRADO_ZIP, 'municipios.csv'])
  })

  test('a .dbf without GEOCODIBGE; a .dbf cut short; a corrupt zip; no alert since the cut-off', async () => {
    let dir = copySample()
    const cols = ['classname', 'view_date', 'areamunkm', 'municipality', 'uf'].map((n) => pgColumn(n, n === 'view_date' ? 'date' : n === 'areamunkm' ? 'float8' : 'text', ['x']))
    await writeZipEntries(join(dir, AMZ_ZIP), [{ name: 'deter-amz-deter-public.dbf', content: writeDbf(cols, [['DESMATAMENTO_CR', '2026-01-01', 0.5, 'Altamira', 'PA']]) }])
    await refused(dir, /^deter-amz-public-2026mar27\.zip:deter-amz-deter-public\.dbf: campos ausentes: GEOCODIBGE \(tem CLASSNAME, VIEW_DATE, AREAMUNKM, MUNICIPALI, UF\)$/)
    dir = copySample()
    const dbf = deterDbf(AMZ_ROWS)
    await writeDeterZip(join(dir, AMZ_ZIP), 'deter-amz', AMZ_ROWS, dbf.subarray(0, dbf.length - 100))
    await refused(dir, /deter-amz-deter-public\.dbf: cortado: 29 de 30 registros; baixe o arquivo de novo$/)
    dir = copySample()
    truncateSync(join(dir, CERRADO_ZIP), 1500)
    await refused(dir, /deter-cerrado-nb-public-2026mar27\.zip/)
    dir = copySample()
    const old: AlertRow[] = CERRADO_ROWS.filter((r) => r[3]! < '2021-01-01')
    await writeDeterZip(join(dir, CERRADO_ZIP), 'deter-cerrado-nb', old)
    await refused(dir, `${CERRADO_ZIP}: nenhum alerta desde 2021-01-01 em 6 registros (arquivo cortado ou de outro projeto?)`)
  })
})
