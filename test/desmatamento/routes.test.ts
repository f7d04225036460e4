// The four routes over the bundled sample, with the registry: its bundled sample plus one
// constructed company (AGROPECUÁRIA FICTÍCIA DO NORTE LTDA, root 99888777) whose establishments
// sit in Boa Esperança do Norte (TOM 1182, the Receita table's gap), Rio Branco (two, and one
// closed), Sorriso, an unknown TOM code and abroad.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { cnpjIngest } from '../../ingest/cnpj/command'
import { desmatamentoIngest } from '../../ingest/desmatamento/command'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { writeZipEntries } from '../../ingest/lib/zip-write'
import type { App } from '../../src/app'
import { rankingJson } from '../../src/datasets/desmatamento/service'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { amostraFromSample, committedAmostra } from './amostra'
import { openBuild } from './helpers'

const RFB = join(import.meta.dir, '..', 'cnpj', 'fixtures', 'rfb')
const q = (fields: string[]) => fields.map((f) => `"${f}"`).join(';')
const estab = (ordem: string, dv: string, mf: string, situacao: string, uf: string, tom: string, exterior = '') =>
  q(['99888777', ordem, dv, mf, 'FAZENDA MODELO', situacao, '20220101', '00', exterior, exterior ? '845' : '', '20200115', '0151201', '', 'RODOVIA', 'MT 140', 'KM 10', '', 'ZONA RURAL', '78890000', uf, tom, '', '', '', '', '', '', '', '', ''])

/** Appends rows to the single entry of one of the registry's zips (latin-1, as the Receita writes). */
async function append(dir: string, zip: string, rows: string[]) {
  const path = join(dir, zip)
  const [entry] = await listEntries(path)
  const parts: Uint8Array[] = []
  for await (const c of readEntry(path, entry!)) parts.push(c)
  const before = Buffer.concat(parts).toString('latin1')
  await writeZipEntries(path, [{ name: entry!.name, content: Buffer.from(before + rows.map((r) => r + '\n').join(''), 'latin1') }])
}

let app: App
let registryLess: App
let dataDir: string

beforeAll(async () => {
  const rfb = tempDir('dadosbr-desm-rfb-2026-08-')
  for (const f of readdirSync(RFB)) copyFileSync(join(RFB, f), join(rfb, f))
  await append(rfb, 'Empresas9.zip', [q(['99888777', 'AGROPECUÁRIA FICTÍCIA DO NORTE LTDA', '2062', '49', '150000,00', '05', ''])])
  await append(rfb, 'Estabelecimentos9.zip', [
    estab('0001', '00', '1', '02', 'MT', '1182'),
    estab('0002', '82', '2', '02', 'AC', '0139'),
    estab('0003', '63', '2', '02', 'MT', '9907'),
    estab('0004', '44', '2', '02', 'SP', '9999'),
    estab('0005', '25', '2', '08', 'AC', '0139'),
    estab('0006', '06', '2', '02', 'EX', '9707', 'ASUNCION'),
    estab('0007', '97', '2', '02', 'AC', '0139'),
  ])
  dataDir = tempDir('dadosbr-desm-app-')
  const ctx = { flags: {}, dataDir, quiet: true, log: () => {} }
  await cnpjIngest.run({ ...ctx, flags: { '--from': rfb, '--mes': '2026-08' } })
  await desmatamentoIngest.sample(ctx, false)
  ;({ app } = await testApp({ dataDir }))
  const only = tempDir('dadosbr-desm-only-')
  await desmatamentoIngest.sample({ ...ctx, dataDir: only }, false)
  ;({ app: registryLess } = await testApp({ dataDir: only }))
  // Building a registry takes seconds (DuckDB), more on a busy machine: not the default 5 s.
}, 120_000)
afterAll(async () => {
  await app?.close()
  await registryLess?.close()
})

describe('/v1/desmatamento/municipio/{ibge}', () => {
  test('a municipality with alerts: the stored answer and fonte', async () => {
    const r = await get(app, '/v1/desmatamento/municipio/3523206')
    expect(r.status).toBe(200)
    expect([r.body.municipio, r.body.desde_corte.area_desmatamento_km2, r.body.ranking.nacional.posicao, r.body.nota]).toEqual(['Itararé', 0.3185, 1, null])
    expect(r.body.fonte).toEqual({
      base: 'INPE/DETER',
      referencia: '2026-03-26',
      corte: '2020-12-31',
      projetos: {
        amazonia: { arquivo: 'deter-amz-public-2026mar27.zip', alerta_mais_recente: '2026-03-10' },
        cerrado: { arquivo: 'deter-cerrado-nb-public-2026mar27.zip', alerta_mais_recente: '2026-03-26' },
      },
    })
  })

  test('a municipality without alerts: 200 with zeros and a note', async () => {
    const sp = (await get(app, '/v1/desmatamento/municipio/3550308')).body
    expect([sp.municipio, sp.uf, sp.microrregiao, sp.desde_corte.alertas, sp.janelas.ultimos_365_dias, sp.ranking.nacional]).toEqual([
      'São Paulo', 'SP', { codigo: '35061', nome: 'SAO PAULO' }, 0,
      { inicio: '2025-03-27', fim: '2026-03-26', alertas: 0, area_km2: 0, alertas_desmatamento: 0, area_desmatamento_km2: 0 }, { posicao: null, de: 12 },
    ])
    expect(sp.nota).toBe('nenhum alerta do DETER neste município de 2021-01-01 a 2026-03-26; o DETER cobre só a Amazônia e o Cerrado')
    // Coronel Barros/RS: one of the nine real codes IBGE issued outside its check-digit rule.
    const cb = await get(app, '/v1/desmatamento/municipio/4305871')
    expect([cb.status, cb.body.uf, cb.body.microrregiao.codigo, cb.body.desde_corte.alertas]).toEqual([200, 'RS', '43008', 0])
  })

  test('a well-formed code of no municipality (state and check digit right): 404, not zeros', async () => {
    for (const code of ['3599990', '1200997', '5300116']) {
      const r = await get(app, `/v1/desmatamento/municipio/${code}`)
      expect([r.status, r.body.erro]).toEqual([404, { codigo: 'nao_encontrado', mensagem: `o código IBGE ${code} não é de nenhum município conhecido (lista de municípios do IBGE e tabela de municípios da Receita): confira o código` }])
    }
  })

  test('malformed, a wrong check digit, no state: 400 saying which', async () => {
    for (const bad of ['120040', '12004011', 'abcdefg', '1200401a', '1.200.401', '%20120040']) {
      const r = await get(app, `/v1/desmatamento/municipio/${bad}`)
      expect([r.status, r.body.erro.codigo]).toEqual([400, 'parametro_invalido'])
      expect(r.body.erro.mensagem).toBe("parâmetro de caminho 'ibge': use o código IBGE do município, 7 dígitos (ex. 1500602, Altamira/PA)")
    }
    // 9999999: the check digit of 999999 is 6; Rio Branco is 1200401, not 1200402.
    for (const bad of ['9999999', '1200402', '3550309']) {
      const r = await get(app, `/v1/desmatamento/municipio/${bad}`)
      expect([bad, r.status, r.body.erro]).toEqual([bad, 400, { codigo: 'parametro_invalido', mensagem: "parâmetro de caminho 'ibge': código IBGE com dígito verificador inválido (o 7º dígito não confere com os seis primeiros): confira o código (ex. 1500602, Altamira/PA)" }])
    }
    for (const bad of ['9999996', '0000000', '1000009']) {
      const r = await get(app, `/v1/desmatamento/municipio/${bad}`)
      expect([bad, r.status, r.body.erro.mensagem]).toEqual([bad, 400, `parâmetro de caminho 'ibge': código IBGE que não começa pelo código de uma UF (${bad.slice(0, 2)}; as UFs vão de 11, RO, a 53, DF): confira o código (ex. 1500602, Altamira/PA)`])
    }
  })
})

describe('/v1/desmatamento/fornecedor/{cnpj}', () => {
  test('each active establishment in its municipality (the gap filled), exposure there and in the microregions, the rest set apart', async () => {
    const r = await get(app, '/v1/desmatamento/fornecedor/99.888.777/0002-82')
    expect(r.status).toBe(200)
    const b = r.body
    expect([b.cnpj, b.empresa.cnpj, b.empresa.razao_social, b.estabelecimentos_ativos]).toEqual(['99888777000282', '99888777000282', 'AGROPECUÁRIA FICTÍCIA DO NORTE LTDA', 6])
    expect(b.estabelecimentos).toEqual([
      { cnpj: '99888777000100', matriz_filial: 'matriz', codigo_municipio_rfb: '1182', ibge: '5101837', municipio: 'Boa Esperança do Norte', uf: 'MT' },
      { cnpj: '99888777000282', matriz_filial: 'filial', codigo_municipio_rfb: '0139', ibge: '1200401', municipio: 'Rio Branco', uf: 'AC' },
      { cnpj: '99888777000363', matriz_filial: 'filial', codigo_municipio_rfb: '9907', ibge: '5107925', municipio: 'Sorriso', uf: 'MT' },
      { cnpj: '99888777000444', matriz_filial: 'filial', codigo_municipio_rfb: '9999', ibge: null, municipio: null, uf: 'SP' },
      { cnpj: '99888777000606', matriz_filial: 'filial', codigo_municipio_rfb: '9707', ibge: null, municipio: 'EXTERIOR', uf: 'EX' },
      { cnpj: '99888777000797', matriz_filial: 'filial', codigo_municipio_rfb: '0139', ibge: '1200401', municipio: 'Rio Branco', uf: 'AC' },
    ])
    expect(b.municipios.map((m: any) => [m.ibge, m.estabelecimentos_ativos, m.desde_corte.area_desmatamento_km2, m.ranking.nacional.posicao, m.microrregiao.codigo])).toEqual([
      ['1200401', 2, 0.3058, 3, '12004'],
      ['5101837', 1, 0.0958, 6, '51006'],
      ['5107925', 1, 0, null, '51006'],
    ])
    expect(b.municipios[0].janelas.ultimos_365_dias).toEqual({ inicio: '2025-03-27', fim: '2026-03-26', alertas: 4, area_km2: 0.3233, alertas_desmatamento: 2, area_desmatamento_km2: 0.1458 })
    expect(b.total_municipios).toBe(3)
    expect(b.regioes.map((g: any) => [g.codigo, g.nome, g.uf, g.municipios, g.municipios_com_alertas, g.desde_corte.area_desmatamento_km2, g.mais_afetados.map((m: any) => m.ibge)])).toEqual([
      ['12004', 'RIO BRANCO', 'AC', 7, 1, 0.3058, ['1200401']],
      ['51006', 'ALTO TELES PIRES', 'MT', 10, 1, 0.0958, ['5101837']],
    ])
    expect(b.sem_municipio).toEqual([
      { cnpj: '99888777000444', codigo_municipio_rfb: '9999', motivo: 'código de município 9999 fora da tabela de municípios da Receita' },
      { cnpj: '99888777000606', codigo_municipio_rfb: '9707', motivo: 'estabelecimento no exterior' },
    ])
    expect(b.resumo).toEqual({ municipios_com_alertas: 2, area_desmatamento_km2: 0.4016, pior_municipio: { ibge: '1200401', municipio: 'Rio Branco', uf: 'AC', area_desmatamento_km2: 0.3058 }, regioes_com_alertas: 2 })
    expect(b.limitacoes[0]).toMatch(/^Os alertas do DETER são contados por município: .* não em terras da empresa/)
    expect([b.fonte.cadastro, b.fonte.deter.referencia]).toEqual([{ base: 'RFB/CNPJ', referencia: '2026-08' }, '2026-03-26'])
  })

  test('the registry sample\'s own company in Rio Branco; a company with no active establishment', async () => {
    const r = await get(app, '/v1/desmatamento/fornecedor/77888999000181')
    expect([r.status, r.body.empresa.razao_social, r.body.municipios.map((m: any) => m.ibge), r.body.resumo.area_desmatamento_km2]).toEqual([200, 'JOSÉ DA SILVA ***456789**', ['1200401'], 0.3058])
    const closed = await get(app, '/v1/desmatamento/fornecedor/11222333000181')
    expect([closed.status, closed.body.estabelecimentos_ativos, closed.body.municipios, closed.body.resumo.pior_municipio]).toEqual([200, 0, [], null])
  })

  test('a CNPJ the registry does not hold: 404; an invalid one: 400; without the registry loaded: 503', async () => {
    const missing = await get(app, '/v1/desmatamento/fornecedor/11444777000161')
    expect([missing.status, missing.body.erro.codigo]).toEqual([404, 'nao_encontrado'])
    // Another establishment of a known root is still a CNPJ the registry does not hold.
    expect((await get(app, '/v1/desmatamento/fornecedor/99888777000878')).status).toBe(404)
    const bad = await get(app, '/v1/desmatamento/fornecedor/99888777000283')
    expect([bad.status, bad.body.erro.codigo]).toEqual([400, 'cnpj_invalido'])
    const r = await get(registryLess, '/v1/desmatamento/fornecedor/77888999000181')
    expect([r.status, r.body.erro.codigo]).toEqual([503, 'dados_indisponiveis'])
    expect(r.body.erro.mensagem).toContain("rode 'dadosbr ingest cnpj'")
    expect((await get(registryLess, '/v1/desmatamento/municipio/1200401')).status).toBe(200)
  })
})

describe('/v1/desmatamento/ranking', () => {
  test('default: municipalities since the cut-off, both biomes, 20 at most', async () => {
    const b = (await get(app, '/v1/desmatamento/ranking')).body
    expect([b.por, b.bioma, b.dias, b.periodo, b.total, b.ranking.length]).toEqual(['municipio', null, null, { inicio: '2021-01-01', fim: '2026-03-26' }, 12, 12])
    expect(b.ranking.slice(0, 3)).toEqual([
      { posicao: 1, ibge: '3523206', municipio: 'Itararé', uf: 'SP', alertas: 4, area_km2: 0.3185, alertas_desmatamento: 4, area_desmatamento_km2: 0.3185 },
      { posicao: 2, ibge: '3522406', municipio: 'Itapeva', uf: 'SP', alertas: 2, area_km2: 0.3078, alertas_desmatamento: 2, area_desmatamento_km2: 0.3078 },
      { posicao: 3, ibge: '1200401', municipio: 'Rio Branco', uf: 'AC', alertas: 6, area_km2: 0.4833, alertas_desmatamento: 4, area_desmatamento_km2: 0.3058 },
    ])
    // The same order as the municipality answers' national ranks.
    for (const item of b.ranking) expect((await get(app, `/v1/desmatamento/municipio/${item.ibge}`)).body.ranking.nacional.posicao).toBe(item.posicao)
  })

  test('a window in days, a biome, a limit; states', async () => {
    const c = (await get(app, '/v1/desmatamento/ranking?bioma=cerrado&dias=30&limite=3')).body
    expect([c.periodo, c.total, c.ranking.map((r: any) => [r.municipio, r.area_desmatamento_km2])]).toEqual([
      { inicio: '2026-02-25', fim: '2026-03-26' }, 6, [['Itapetininga', 0.1074], ['Itararé', 0.0857], ['Angatuba', 0.0709]],
    ])
    // Rio Branco's 2026-03-10 alert is in the 30-day window of both biomes, not of the Cerrado's.
    expect((await get(app, '/v1/desmatamento/ranking?dias=30&limite=50')).body.total).toBe(7)
    expect((await get(app, '/v1/desmatamento/ranking?dias=1')).body.ranking.map((r: any) => r.municipio)).toEqual(['Lençóis Paulista'])
    // Longer than the time since the cut-off: starts at the cut-off.
    const all = (await get(app, '/v1/desmatamento/ranking?dias=2000')).body
    expect([all.periodo.inicio, all.ranking]).toEqual(['2021-01-01', (await get(app, '/v1/desmatamento/ranking')).body.ranking])
    const ufs = (await get(app, '/v1/desmatamento/ranking?por=uf&bioma=amazonia')).body
    expect(ufs.ranking).toEqual([
      { posicao: 1, uf: 'AC', municipios_com_alertas: 1, alertas: 6, area_km2: 0.4833, alertas_desmatamento: 4, area_desmatamento_km2: 0.3058 },
      { posicao: 2, uf: 'MT', municipios_com_alertas: 1, alertas: 1, area_km2: 0.0958, alertas_desmatamento: 1, area_desmatamento_km2: 0.0958 },
      { posicao: 3, uf: 'AP', municipios_com_alertas: 2, alertas: 5, area_km2: 1.064, alertas_desmatamento: 1, area_desmatamento_km2: 0.0715 },
    ])
    expect(ufs.total).toBe(3)
  })

  test('the 30, 90 and 365-day rankings agree with the municipality answers\' windows', async () => {
    for (const d of [30, 90, 365]) {
      const b = (await get(app, `/v1/desmatamento/ranking?dias=${d}&limite=50`)).body
      const answers = await Promise.all(b.ranking.map(async (r: any) => (await get(app, `/v1/desmatamento/municipio/${r.ibge}`)).body.janelas[`ultimos_${d}_dias`]))
      b.ranking.forEach((r: any, i: number) => expect([r.alertas, r.area_km2, r.area_desmatamento_km2]).toEqual([answers[i].alertas, answers[i].area_km2, answers[i].area_desmatamento_km2]))
      const desm = b.ranking.map((r: any) => r.area_desmatamento_km2)
      expect(desm).toEqual([...desm].sort((x: number, y: number) => y - x))
    }
  })

  test('bad parameters: 400 with what is allowed', async () => {
    const cases: [string, string][] = [
      ['dias=0', "parâmetro de consulta 'dias': deve ser um número inteiro de 1 a 2000"],
      ['dias=2001', "parâmetro de consulta 'dias': deve ser um número inteiro de 1 a 2000"],
      ['limite=51', "parâmetro de consulta 'limite': deve ser um número inteiro de 1 a 50"],
      ['por=estado', "parâmetro de consulta 'por': deve ser um destes valores: municipio, uf"],
      ['bioma=pantanal', "parâmetro de consulta 'bioma': deve ser um destes valores: amazonia, cerrado"],
    ]
    for (const [query, message] of cases) {
      const r = await get(app, `/v1/desmatamento/ranking?${query}`)
      expect([r.status, r.body.erro]).toEqual([400, { codigo: 'parametro_invalido', mensagem: message }])
    }
    expect((await get(app, '/v1/desmatamento/ranking?uf=SP')).body.erro.codigo).toBe('parametro_desconhecido')
  })

  test('every question is answered from a ranking stored at build time: 3 scopes × 2 kinds × 2001 windows', () => {
    const files = openBuild(dataDir)
    try {
      expect(files.db.query('SELECT count(*) AS n FROM rankings').get()).toEqual({ n: 3 * 2 * 2001 })
      // The sample's reference is 1910 days after the cut-off: every longer window is the whole period.
      const since = files.ranking.get('todos', 'municipio', 0)!
      expect(files.ranking.get('todos', 'municipio', 2000)).toEqual(since)
      expect(files.ranking.get('todos', 'municipio', 1911)).toEqual(since)
      expect(files.ranking.get('todos', 'municipio', 1910)!.itens).not.toEqual(since.itens)
      expect(rankingJson(files, { por: 'municipio', limite: 2, dias: 1 }).length).toBeGreaterThan(0)
    } finally {
      files.db.close()
    }
  })
})

describe('/v1/desmatamento/amostra', () => {
  test('national totals by biome and the worst municipality, from the loaded build; the copy in the program when none is loaded', async () => {
    const r = await get(app, '/v1/desmatamento/amostra')
    expect(r.status).toBe(200)
    expect([r.body.amostra, r.body.totais.total, r.body.pior_municipio.municipio]).toEqual([true, { alertas: 30, area_km2: 7.9278, alertas_desmatamento: 20, area_desmatamento_km2: 1.5663, municipios_com_alertas: 15 }, 'Itararé'])
    const { app: empty } = await testApp({ dataDir: tempDir('dadosbr-vazio-') })
    try {
      const copy = await get(empty, '/v1/desmatamento/amostra')
      expect([copy.status, copy.body]).toEqual([200, r.body])
    } finally {
      await empty.close()
    }
  })

  test('the copy in the program is what the bundled sample builds (bun test/desmatamento/amostra.ts rewrites it)', async () => {
    expect(committedAmostra()).toBe(await amostraFromSample())
  })
})
