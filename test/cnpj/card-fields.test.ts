// The card fields added for users coming from minha-receita, BrasilAPI or OpenCNPJ (issue 31): exact
// values from the real-format sample, and the same value for the same field on every route.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { get, testApp } from '../helpers'
import { buildFixtureData, copyFixtures } from './helpers'

const dataDir = await buildFixtureData()
const { app } = await testApp({ dataDir })
afterAll(() => app.close())
const card = async (cnpj: string) => {
  const r = await get(app, `/v1/cnpj/empresa/${cnpj}`)
  expect(r.status).toBe(200)
  return r.body
}

describe('new card fields, from the sample', () => {
  test('second phone and fax (headquarters of REDE NACIONAL, CRLF row)', async () => {
    expect((await card('44555666000181')).contato).toEqual({ email: null, telefone: '(41) 33334444', telefone_2: '(41) 33336666', fax: '(41) 33335555' })
  })

  test('special situation with its date (the inapta branch in judicial recovery)', async () => {
    expect((await card('44555666000343')).situacao_especial).toEqual({ descricao: 'RECUPERACAO JUDICIAL', data: '2019-03-15' })
    expect((await card('44555666000181')).situacao_especial).toBeNull()
  })

  test('a state body: its federative entity and the qualification of its responsible person', async () => {
    const body = await card('83445566000154')
    expect(body.razao_social).toBe('SECRETARIA DE ESTADO FICTICIA DA TRIBUTACAO')
    expect(body.natureza_juridica).toEqual({ codigo: '1023', descricao: 'Órgão Público do Poder Executivo Estadual ou do Distrito Federal' })
    expect(body.ente_federativo_responsavel).toBe('SANTA CATARINA')
    expect(body.qualificacao_responsavel).toEqual({ codigo: '05', descricao: 'Administrador' })
    expect(body.endereco.codigo_municipio_ibge).toBe('4205407')
    // A company of another nature has no federative entity.
    expect((await card('12ABC34501DE35')).ente_federativo_responsavel).toBeNull()
    expect((await card('12ABC34501DE35')).qualificacao_responsavel).toEqual({ codigo: '49', descricao: 'Sócio-Administrador' })
  })

  test('Simples and MEI dates: an MEI, a company excluded from the Simples, a company with no Simples row', async () => {
    expect((await card('77888999000181')).simples).toEqual({ optante: true, mei: true, data_opcao: '2015-03-10', data_exclusao: null, mei_data_opcao: '2015-03-10', mei_data_exclusao: null })
    expect((await card('11222333000181')).simples).toEqual({ optante: false, mei: false, data_opcao: '2010-01-01', data_exclusao: '2019-12-31', mei_data_opcao: null, mei_data_exclusao: null })
    expect((await card('44555666000181')).simples).toEqual({ optante: false, mei: false, data_opcao: null, data_exclusao: null, mei_data_opcao: null, mei_data_exclusao: null })
  })

  test('the IBGE code of each municipality of the sample, through the Receita table', async () => {
    const codes: [string, string][] = [
      ['33683111000280', '5300108'], ['12ABC34501DE35', '3550308'], ['11222333000181', '3106200'], ['44555666000181', '4106902'],
      ['44555666000343', '4205407'], ['77888999000181', '1200401'], ['90111222000255', '5208707'],
    ]
    for (const [cnpj, ibge] of codes) expect([cnpj, (await card(cnpj)).endereco.codigo_municipio_ibge]).toEqual([cnpj, ibge])
  })

  test('abroad: the country, and no IBGE code', async () => {
    const { endereco } = await card('44555666000424')
    expect([endereco.uf, endereco.municipio, endereco.codigo_municipio_ibge, endereco.pais]).toEqual(['EX', 'MONTEVIDEO', null, { codigo: '845', descricao: 'URUGUAI' }])
  })
})

describe('the same value for the same field on every route', () => {
  test('card, completo, filiais, amostra, enriquecer, lote and search agree', async () => {
    const cnpj = '44555666000262'
    const one = await card(cnpj)
    const completo = (await get(app, `/v1/cnpj/empresa/${cnpj}/completo`)).body
    const { socios, total_socios, filiais, total_filiais, ...cardOfCompleto } = completo
    expect(cardOfCompleto).toEqual(one)
    const enriched = await get(app, `/v1/empresa/enriquecer/${cnpj}`)
    expect([enriched.status, enriched.body.cadastro]).toEqual([200, completo])
    const asFilial = (await get(app, '/v1/cnpj/empresa/44555666000181/completo')).body.filiais.find((f: { cnpj: string }) => f.cnpj === cnpj)
    expect(asFilial).toEqual({ cnpj, matriz_filial: one.matriz_filial, uf: one.endereco.uf, municipio: one.endereco.municipio, situacao: one.situacao_cadastral.descricao })
    const hit = (await get(app, `/v1/cnpj/busca?nome=farma&uf=sp`)).body.resultados[0]
    expect(hit).toEqual({
      cnpj, razao_social: one.razao_social, nome_fantasia: one.nome_fantasia, uf: one.endereco.uf, municipio: one.endereco.municipio,
      codigo_municipio_ibge: one.endereco.codigo_municipio_ibge, cnae_principal: one.cnae_principal.codigo, situacao: one.situacao_cadastral.descricao,
    })
    const bulk = (await get(app, `/v1/cnpj/lote?cnpjs=${cnpj}`)).body
    expect(bulk.itens[0].resultado).toEqual(one)
    const { socios: _s, total_socios: _t, filiais: _f, total_filiais: _tf, amostra, origem, ...sampleCard } = (await get(app, '/v1/cnpj/amostra')).body
    expect(sampleCard).toEqual(await card('33683111000280'))
  })
})

describe('where the Receita table has no IBGE code', () => {
  test('a municipality missing from municipios.csv: null on the card, named in the manifest', async () => {
    const src = copyFixtures()
    // The sample's table without Goiânia.
    const table = readFileSync(join(src, 'municipios.csv'), 'latin1').split('\r\n').filter((l) => !l.startsWith('9373;')).join('\r\n')
    writeFileSync(join(src, 'municipios.csv'), Buffer.from(table, 'latin1'))
    const dir = await buildFixtureData('2026-08', src)
    const other = await testApp({ dataDir: dir })
    try {
      const r = await get(other.app, '/v1/cnpj/empresa/90111222000255')
      expect([r.body.endereco.municipio, r.body.endereco.codigo_municipio_ibge]).toEqual(['GOIANIA', null])
      const manifest = JSON.parse(readFileSync(join(dir, 'cnpj', 'current', 'manifest.json'), 'utf8'))
      // EXTERIOR has no IBGE code in any table; Goiânia is missing from this one.
      expect(manifest.municipios_ibge.sem_codigo_ibge).toEqual(['9373', '9707'])
      expect(manifest.municipios_ibge.complementos.map((c: { tom: string }) => c.tom)).toEqual(['1182'])
    } finally {
      other.app.close()
    }
  })

  test('no municipios.csv beside the zips: the build fails before loading and says what to do', async () => {
    const src = copyFixtures()
    rmSync(join(src, 'municipios.csv'))
    await expect(buildFixtureData('2026-08', src)).rejects.toThrow(/falta a tabela de municípios da Receita \(municipios\.csv, TOM ↔ IBGE\)/)
  })
})
