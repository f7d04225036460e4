// The filters of /v1/cnpj/busca added for users coming from other registry services (issue 31), and
// the partner document on /v1/cnpj/socio/busca: exact results on the real-format sample, alone, with
// each other and with the name, and the documented 400s.
import { afterAll, describe, expect, test } from 'bun:test'
import { get, testApp } from '../helpers'
import { buildFixtureData } from './helpers'

const dataDir = await buildFixtureData()
const { app } = await testApp({ dataDir })
afterAll(() => app.close())

const ids = async (query: string) => {
  const r = await get(app, `/v1/cnpj/busca?${query}`)
  expect({ query, status: r.status }).toEqual({ query, status: 200 })
  return r.body.resultados.map((x: { cnpj: string }) => x.cnpj)
}
const error = async (path: string) => {
  const r = await get(app, path)
  return [r.status, r.body.erro?.codigo, r.body.erro?.mensagem]
}

// The active establishments of the sample, in the search's order (shorter legal names first, headquarters first).
const ALFA = ['90111222000174', '90111222000255']
const REDE_ATIVAS = ['44555666000181', '44555666000262', '44555666000424']
const CAFE = '12ABC34501DE35'
const JOSE = '77888999000181'
const SERPRO = '33683111000280'
const SECRETARIA = '83445566000154'

describe('each new filter alone', () => {
  test('natureza_juridica, with or without the hyphen', async () => {
    expect(await ids('natureza_juridica=2062')).toEqual([...ALFA, CAFE])
    expect(await ids('natureza_juridica=206-2')).toEqual([...ALFA, CAFE])
    expect(await ids('natureza_juridica=2011')).toEqual([SERPRO])
    expect(await ids('natureza_juridica=9999')).toEqual([])
  })

  test('cnae_secundario is a secondary activity only; cnae_qualquer the main one or a secondary one', async () => {
    expect(await ids('cnae_secundario=4721103')).toEqual([CAFE])
    expect(await ids('cnae_secundario=4211101')).toEqual(['90111222000174'])
    // SERPRO's main activity is no secondary one.
    expect(await ids('cnae_secundario=6204000')).toEqual([])
    expect(await ids('cnae_qualquer=6204000')).toEqual([SERPRO])
    expect(await ids('cnae_qualquer=6201501')).toEqual([SERPRO])
    expect(await ids('cnae_qualquer=4120400')).toEqual(ALFA)
    expect(await ids('cnae_qualquer=4211101')).toEqual(['90111222000174'])
    // A code no establishment has.
    expect(await ids('cnae_qualquer=0111301')).toEqual([])
  })

  test('municipio_ibge, through the Receita table (the same establishments as its TOM code)', async () => {
    expect(await ids('municipio_ibge=3550308')).toEqual(['44555666000262', CAFE])
    expect(await ids('municipio_ibge=3550308')).toEqual(await ids('municipio=7107'))
    expect(await ids('municipio_ibge=5300108')).toEqual(['90111222000174', SERPRO])
    expect(await ids('municipio_ibge=5208707')).toEqual(['90111222000255'])
    // A valid code of a municipality with no establishment in the sample (Alta Floresta D'Oeste/RO).
    expect(await get(app, '/v1/cnpj/busca?municipio_ibge=1100015').then((r) => [r.status, r.body.total])).toEqual([200, 0])
    // One of the nine real codes whose last digit breaks the rule (Bom Princípio do Piauí).
    expect(await get(app, '/v1/cnpj/busca?municipio_ibge=2201919').then((r) => r.status)).toBe(200)
  })

  test('capital_min / capital_max, inclusive, on round bounds and inside buckets', async () => {
    expect(await ids('capital_min=1000000')).toEqual([...ALFA, ...REDE_ATIVAS, SERPRO])
    expect(await ids('capital_max=5000')).toEqual([JOSE, SECRETARIA])
    expect(await ids('capital_min=5000&capital_max=5000')).toEqual([JOSE])
    expect(await ids('capital_min=150000.5&capital_max=150000.50')).toEqual([CAFE])
    expect(await ids('capital_min=150000.51')).toEqual([...ALFA, ...REDE_ATIVAS, SERPRO])
    expect(await ids('capital_min=2000000&capital_max=2499999.99')).toEqual([])
    expect(await ids('capital_min=0&capital_max=0')).toEqual([SECRETARIA])
    expect(await ids('capital_min=1061004829.23')).toEqual([SERPRO])
  })

  test('simples and mei, true and false', async () => {
    expect(await ids('simples=true')).toEqual([JOSE])
    expect(await ids('mei=true')).toEqual([JOSE])
    expect(await ids('simples=true&mei=false')).toEqual([])
    const all = await ids('uf=SP&por_pagina=50')
    expect(all.length).toBe(2)
    expect((await ids('simples=false&por_pagina=50')).sort()).toEqual([...ALFA, ...REDE_ATIVAS, CAFE, SERPRO, SECRETARIA].sort())
    // Excluded from the Simples in 2019: not an optant.
    expect(await ids('simples=false&situacao=baixada')).toEqual(['11222333000181'])
  })

  test('abertura_de / abertura_ate, inclusive; a date the Receita left blank or impossible is in no window', async () => {
    expect((await ids('abertura_de=2010-01-01')).sort()).toEqual([...ALFA, CAFE, '44555666000262', JOSE].sort())
    expect(await ids('abertura_ate=1989-12-31')).toEqual([SECRETARIA, SERPRO])
    expect(await ids('abertura_de=1989-01-01&abertura_ate=1989-01-01')).toEqual([SECRETARIA])
    expect(await ids('abertura_de=1967-06-30&abertura_ate=1967-06-30')).toEqual([SERPRO])
    expect(await ids('abertura_de=1967-07-01&abertura_ate=1988-12-31')).toEqual([])
  })
})

describe('combined with each other, with uf and with the name', () => {
  test('two filters', async () => {
    expect(await ids('natureza_juridica=2062&municipio_ibge=5300108')).toEqual(['90111222000174'])
    expect(await ids('cnae_qualquer=4120400&abertura_de=2015-01-01')).toEqual(['90111222000255'])
    expect(await ids('capital_min=1000000&uf=SP')).toEqual(['44555666000262'])
    expect(await ids('simples=false&natureza_juridica=2046')).toEqual(REDE_ATIVAS)
    expect(await ids('capital_max=5000&abertura_de=2000-01-01')).toEqual([JOSE])
    expect(await ids('capital_min=1000000&abertura_ate=2011-12-31')).toEqual(['44555666000262', SERPRO])
    expect(await ids('cnae_secundario=5611201&municipio_ibge=3550308')).toEqual([CAFE])
    expect(await ids('mei=true&municipio_ibge=1200401')).toEqual([JOSE])
    expect(await ids('natureza_juridica=2062&capital_min=1000000')).toEqual(ALFA)
    expect(await ids('natureza_juridica=2062&cnae_secundario=4211101&uf=DF')).toEqual(['90111222000174'])
  })

  test('with the name', async () => {
    expect(await ids('nome=farma&capital_min=1000000&municipio_ibge=4106902')).toEqual(['44555666000181'])
    expect(await ids('nome=alfa&abertura_de=2015-01-01')).toEqual(['90111222000255'])
    expect(await ids('nome=cafe&cnae_secundario=5611201')).toEqual([CAFE])
    expect(await ids('nome=cafe&natureza_juridica=2135')).toEqual([])
    expect(await ids('nome=silva&simples=true&mei=true')).toEqual([JOSE])
  })

  test('municipio and municipio_ibge together must agree', async () => {
    expect(await ids('municipio=7107&municipio_ibge=3550308')).toEqual(['44555666000262', CAFE])
    expect(await ids('municipio=7107&municipio_ibge=5300108')).toEqual([])
  })

  test('totals count every match', async () => {
    expect((await get(app, '/v1/cnpj/busca?capital_min=1000000&por_pagina=2')).body.total).toBe(6)
    expect((await get(app, '/v1/cnpj/busca?natureza_juridica=2062&por_pagina=1&pagina=3')).body).toMatchObject({ total: 3, pagina: 3, resultados: [{ cnpj: CAFE, codigo_municipio_ibge: '3550308' }] })
  })
})

describe('bad input: the documented 400, naming the rule', () => {
  test('each filter', async () => {
    const q = (s: string) => error(`/v1/cnpj/busca?${s}`)
    // The rule's messages are those of every route that takes an IBGE code (src/core/validate.ts ibgeMunicipioParam).
    expect(await q('municipio_ibge=3550309')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'municipio_ibge': código IBGE com dígito verificador inválido (o 7º dígito não confere com os seis primeiros): confira o código (ex. 1500602, Altamira/PA)"])
    expect(await q('municipio_ibge=9950304')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'municipio_ibge': código IBGE que não começa pelo código de uma UF (99; as UFs vão de 11, RO, a 53, DF): confira o código (ex. 1500602, Altamira/PA)"])
    expect(await q('municipio_ibge=355030')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'municipio_ibge': use o código IBGE do município, 7 dígitos (ex. 1500602, Altamira/PA)"])
    expect(await q('capital_min=2000&capital_max=1000')).toEqual([400, 'parametro_invalido', 'capital_min é maior que capital_max; informe um intervalo com capital_min ≤ capital_max.'])
    const capital = "deve ser um número de 0 a 10000000000000, com até duas casas decimais depois de um ponto (ex. 1000000)"
    for (const bad of ['1,5', '-1', '1e6', '1.555', 'abc', '20000000000000']) expect(await q(`capital_min=${bad}`)).toEqual([400, 'parametro_invalido', `parâmetro de consulta 'capital_min': ${capital}`])
    expect(await q('simples=sim')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'simples': deve ser true ou false"])
    expect(await q('natureza_juridica=20620')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'natureza_juridica': código de 4 dígitos da tabela de naturezas jurídicas, com ou sem hífen (ex. 2062 ou 206-2)"])
    expect(await q('cnae_secundario=4721-1/03')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'cnae_secundario': sete dígitos, sem pontuação (ex. 4711302)"])
    expect((await q('cnae_qualquer=123'))[1]).toBe('parametro_invalido')
    expect((await q('situacao=ativa'))[1]).toBe('filtro_obrigatorio')
  })
})

describe('/v1/cnpj/socio/busca by the partner document', () => {
  const partners = async (query: string) => {
    const r = await get(app, `/v1/cnpj/socio/busca?${query}`)
    expect({ query, status: r.status }).toEqual({ query, status: 200 })
    return r.body
  }

  test("a company's participations in other companies: its full CNPJ, punctuated or not", async () => {
    const body = await partners('documento=33683111000107')
    expect(body).toEqual({
      total: 1, pagina: 1, fonte: { base: 'RFB/CNPJ', referencia: '2026-08' },
      resultados: [{ nome_socio: 'HOLDING PARTICIPAÇÕES S.A.', cnpj: '44555666', razao_social: 'REDE NACIONAL DE FARMÁCIAS S.A.', qualificacao: { codigo: '22', descricao: 'Sócio' }, data_entrada: '2005-01-01' }],
    })
    expect(await partners('documento=33.683.111%2F0001-07')).toEqual(body)
  })

  test('a masked CPF as the Receita publishes it, with or without the name', async () => {
    const wilson = await partners('documento=***414127**')
    expect(wilson.resultados.map((r: { nome_socio: string; cnpj: string }) => [r.nome_socio, r.cnpj])).toEqual([['WILSON BIANCARDI COURY', '33683111']])
    expect(await partners('documento=***414127**&nome=wilson')).toEqual(wilson)
    expect(await partners('documento=***414127**&nome=coury%20bian')).toEqual(wilson)
    expect((await partners('documento=***414127**&nome=andre')).total).toBe(0)
    expect((await partners('documento=***123456**&nome=jose')).resultados.map((r: { cnpj: string }) => r.cnpj)).toEqual(['77888999'])
    // A well-formed document nobody has.
    expect((await partners('documento=***000111**')).total).toBe(0)
    expect((await partners('documento=11222333000181')).total).toBe(0)
  })

  test('bad input', async () => {
    const q = (s: string) => error(`/v1/cnpj/socio/busca?${s}`)
    expect(await q('documento=***12345**')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'documento': CPF mascarado com formato inválido: use como a Receita publica, três asteriscos, os 6 dígitos do meio do CPF e dois asteriscos (ex. ***456789**)"])
    expect(await q('documento=12345678909')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'documento': use o CPF mascarado como a Receita publica (***456789**) ou um CNPJ completo de 14 caracteres, com ou sem pontuação"])
    expect(await q('documento=33683111000108')).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'documento': CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)"])
    expect(await q('pagina=2')).toEqual([400, 'filtro_obrigatorio', 'Informe nome (3 ou mais caracteres) ou documento (CPF mascarado ***456789** ou CNPJ do sócio), ou os dois.'])
    expect((await q('documento=***414127**&nome=de'))[1]).toBe('parametro_invalido')
  })
})
