// Each registry endpoint's exact output for the real-format fixtures.
import { afterAll, describe, expect, test } from 'bun:test'
import { get, testApp } from '../helpers'
import { loadConfig } from '../../src/core/config'
import { buildFixtureData } from './helpers'

const dataDir = await buildFixtureData()
const { app } = await testApp({ dataDir })
afterAll(() => app.close())
const FONTE = { base: 'RFB/CNPJ', referencia: '2026-08' }

const SERPRO_CARD = {
  cnpj: '33683111000280',
  razao_social: 'SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)',
  nome_fantasia: 'REGIONAL BRASILIA-DF',
  matriz_filial: 'filial',
  situacao_cadastral: { codigo: '02', descricao: 'Ativa', data: '2004-05-22', motivo: null },
  situacao_especial: null,
  data_inicio_atividade: '1967-06-30',
  natureza_juridica: { codigo: '2011', descricao: 'Empresa Pública' },
  qualificacao_responsavel: { codigo: '16', descricao: 'Presidente' },
  ente_federativo_responsavel: null,
  porte: 'demais',
  capital_social: 1061004829.23,
  cnae_principal: { codigo: '6204000', descricao: 'Consultoria em tecnologia da informação' },
  cnae_secundarios: [
    { codigo: '6201501', descricao: 'Desenvolvimento de programas de computador sob encomenda' },
    { codigo: '6202300', descricao: 'Desenvolvimento e licenciamento de programas de computador customizáveis' },
    { codigo: '6203100', descricao: 'Desenvolvimento e licenciamento de programas de computador não-customizáveis' },
    { codigo: '6209100', descricao: 'Suporte técnico, manutenção e outros serviços em tecnologia da informação' },
    { codigo: '6311900', descricao: 'Tratamento de dados, provedores de serviços de aplicação e serviços de hospedagem na internet' },
  ],
  endereco: { logradouro: 'AVENIDA L2 SGAN', numero: '601', complemento: 'MODULO G', bairro: 'ASA NORTE', municipio: 'BRASILIA', uf: 'DF', cep: '70836900', codigo_municipio_ibge: '5300108', pais: null },
  contato: { email: null, telefone: null, telefone_2: null, fax: null },
  // A public company cannot opt for the Simples Nacional; the real Simples row says "N" (dates 00000000).
  simples: { optante: false, mei: false, data_opcao: null, data_exclusao: null, mei_data_opcao: null, mei_data_exclusao: null },
  fonte: FONTE,
}

const SERPRO_SOCIOS = [
  ['ANDRE DE CESERO', '***220050**', '10', 'Diretor', '2016-06-16', '51-60'],
  ['ANTONIO DE PADUA FERREIRA PASSOS', '***595901**', '10', 'Diretor', '2016-12-08', '61-70'],
  ['ANTONINO DOS SANTOS GUERRA NETO', '***073447**', '05', 'Administrador', '2019-02-11', '61-70'],
  ['WILSON BIANCARDI COURY', '***414127**', '10', 'Diretor', '2019-06-18', '71-80'],
  ['GILENO GURJAO BARRETO', '***099595**', '16', 'Presidente', '2020-02-03', '41-50'],
  ['RICARDO CEZAR DE MOURA JUCA', '***989951**', '10', 'Diretor', '2020-05-12', '41-50'],
].map(([nome, doc, codigo, descricao, data, faixa]) => ({
  nome, tipo: 'pessoa_fisica', documento_mascarado: doc, qualificacao: { codigo, descricao }, data_entrada: data, faixa_etaria: faixa, representante_legal: null,
}))

describe('/v1/cnpj/empresa/{cnpj}', () => {
  test('SERPRO, from the real excerpt, field by field', async () => {
    const r = await get(app, '/v1/cnpj/empresa/33683111000280')
    expect(r.status).toBe(200)
    expect(r.body).toEqual(SERPRO_CARD)
  })

  test('punctuated, with the raw slash, gives the same card', async () => {
    expect((await get(app, '/v1/cnpj/empresa/33.683.111/0002-80')).body).toEqual(SERPRO_CARD)
  })

  test('alphanumeric CNPJ, latin-1 accents, quoted ";" and doubled quotes, decimal comma', async () => {
    const r = await get(app, '/v1/cnpj/empresa/12.abc.345/01de-35')
    expect(r.status).toBe(200)
    expect(r.body.cnpj).toBe('12ABC34501DE35')
    expect(r.body.razao_social).toBe('CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA')
    expect(r.body.capital_social).toBe(150000.5)
    expect(r.body.porte).toBe('micro_empresa')
    expect(r.body.contato).toEqual({ email: 'contato@cafe.com.br', telefone: '(11) 30000000', telefone_2: null, fax: null })
    expect(r.body.cnae_secundarios).toEqual([
      { codigo: '4721103', descricao: 'Comércio varejista de laticínios e frios' },
      { codigo: '5611201', descricao: 'Restaurantes e similares' },
    ])
  })

  test('NUL byte dropped, baixada with its motivo, date "0" is null, empresa_pequeno_porte', async () => {
    const r = await get(app, '/v1/cnpj/empresa/11222333000181')
    // Separator bytes in the dump's text become spaces; every later field stays in place.
    expect(r.body.endereco).toEqual({ logradouro: 'AVENIDA BRASIL', numero: 'S/N', complemento: 'LOJA 2', bairro: 'CENTRO', municipio: 'BELO HORIZONTE', uf: 'MG', cep: '30110000', codigo_municipio_ibge: '3106200', pais: null })
    expect(r.body.contato).toEqual({ email: null, telefone: '(31) 32221111', telefone_2: '(31) 32222222', fax: null })
    expect(r.body.razao_social).toBe('AÇOUGUE E MERCEARIA IRMÃOS ARAÚJO LTDA')
    expect(r.body.situacao_cadastral).toEqual({ codigo: '08', descricao: 'Baixada', data: '2021-12-31', motivo: 'EXTINCAO POR ENCERRAMENTO LIQUIDACAO VOLUNTARIA' })
    expect(r.body.data_inicio_atividade).toBeNull()
    expect(r.body.porte).toBe('empresa_pequeno_porte')
    expect(r.body.capital_social).toBe(0)
    // Opted in 2010, excluded at the end of 2019 (the Simples row's dates); never MEI.
    expect(r.body.simples).toEqual({ optante: false, mei: false, data_opcao: '2010-01-01', data_exclusao: '2019-12-31', mei_data_opcao: null, mei_data_exclusao: null })
  })

  test('impossible dates are null: Feb 30, year 202, year 4100', async () => {
    expect((await get(app, '/v1/cnpj/empresa/44555666000181')).body.data_inicio_atividade).toBeNull()
    expect((await get(app, '/v1/cnpj/empresa/44555666000343')).body.data_inicio_atividade).toBeNull()
    expect((await get(app, '/v1/cnpj/empresa/44555666000424')).body.data_inicio_atividade).toBeNull()
  })

  test('an establishment abroad (UF EX, municipality 9707 EXTERIOR): its city is its cidade_exterior on the card, in search results and in filiais', async () => {
    const abroad = (await get(app, '/v1/cnpj/empresa/44555666000424')).body
    // Abroad: the country of the address, and no IBGE code.
    expect(abroad.endereco).toEqual({ logradouro: null, numero: null, complemento: null, bairro: null, municipio: 'MONTEVIDEO', uf: 'EX', cep: null, codigo_municipio_ibge: null, pais: { codigo: '845', descricao: 'URUGUAI' } })
    const found = (await get(app, '/v1/cnpj/busca?nome=rede%20nacional&uf=ex')).body.resultados
    expect(found).toEqual([{ cnpj: '44555666000424', razao_social: 'REDE NACIONAL DE FARMÁCIAS S.A.', nome_fantasia: null, uf: 'EX', municipio: 'MONTEVIDEO', codigo_municipio_ibge: null, cnae_principal: '4771701', situacao: 'Ativa' }])
    const filial = (await get(app, '/v1/cnpj/empresa/44555666000181/completo')).body.filiais.find((f: { cnpj: string }) => f.cnpj === '44555666000424')
    expect(filial).toEqual({ cnpj: '44555666000424', matriz_filial: 'filial', uf: 'EX', municipio: 'MONTEVIDEO', situacao: 'Ativa' })
  })

  test('a city in Brazil is its municipality name on the same three routes', async () => {
    expect((await get(app, '/v1/cnpj/empresa/44555666000262')).body.endereco.municipio).toBe('SAO PAULO')
    expect((await get(app, '/v1/cnpj/busca?nome=rede%20nacional&uf=sp')).body.resultados.map((r: { municipio: string }) => r.municipio)).toEqual(['SAO PAULO'])
    expect((await get(app, '/v1/cnpj/empresa/44555666000181/completo')).body.filiais[0]).toEqual({ cnpj: '44555666000262', matriz_filial: 'filial', uf: 'SP', municipio: 'SAO PAULO', situacao: 'Ativa' })
  })

  test('blank porte is null, blank situação date is null, MEI', async () => {
    const r = await get(app, '/v1/cnpj/empresa/77888999000181')
    expect(r.body.porte).toBeNull()
    expect(r.body.situacao_cadastral.data).toBeNull()
    expect(r.body.simples).toEqual({ optante: true, mei: true, data_opcao: '2015-03-10', data_exclusao: null, mei_data_opcao: '2015-03-10', mei_data_exclusao: null })
  })

  test('an individual entrepreneur\'s name that ends in the owner\'s CPF: masked everywhere, and not searchable by the CPF', async () => {
    const masked = 'JOSÉ DA SILVA ***456789**'
    expect((await get(app, '/v1/cnpj/empresa/77888999000181')).body.razao_social).toBe(masked)
    expect((await get(app, '/v1/cnpj/empresa/77888999000181/completo')).body.razao_social).toBe(masked)
    expect((await get(app, '/v1/cnpj/busca?nome=jose%20silva')).body.resultados.map((x: { razao_social: string }) => x.razao_social)).toEqual([masked])
    expect((await get(app, '/v1/cnpj/busca?nome=12345678909')).body.total).toBe(0)
    for (const path of ['/v1/cnpj/empresa/77888999000181', '/v1/cnpj/empresa/77888999000181/completo', '/v1/cnpj/busca?nome=jose%20silva', '/v1/cnpj/socio/busca?nome=jose%20silva'])
      expect(JSON.stringify((await get(app, path)).body)).not.toContain('12345678909')
  })

  test('a valid CNPJ not in the data: 404 nao_encontrado', async () => {
    const r = await get(app, '/v1/cnpj/empresa/33683111000107')
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ erro: { codigo: 'nao_encontrado', mensagem: 'CNPJ 33683111000107 não consta na base de 2026-08.' } })
  })
})

describe('/v1/cnpj/situacao/{cnpj}', () => {
  test('existing', async () => {
    const r = await get(app, '/v1/cnpj/situacao/33683111000280')
    expect(r.body).toEqual({ cnpj: '33683111000280', existe: true, situacao_cadastral: { codigo: '02', descricao: 'Ativa', data: '2004-05-22' }, matriz_filial: 'filial', uf: 'DF', fonte: FONTE })
  })

  test('well-formed but unknown: 200 existe=false', async () => {
    const r = await get(app, '/v1/cnpj/situacao/33683111000107')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ cnpj: '33683111000107', existe: false, situacao_cadastral: null, matriz_filial: null, uf: null, fonte: FONTE })
  })

  test('inapta', async () => {
    expect((await get(app, '/v1/cnpj/situacao/44555666000343')).body.situacao_cadastral).toEqual({ codigo: '04', descricao: 'Inapta', data: '2018-01-01' })
  })
})

describe('/v1/cnpj/empresa/{cnpj}/socios', () => {
  test('SERPRO partners as published (pre-masked CPFs, age brackets)', async () => {
    const r = await get(app, '/v1/cnpj/empresa/33683111000280/socios')
    expect(r.body).toEqual({ cnpj: '33683111000280', total: 6, socios: SERPRO_SOCIOS, fonte: FONTE })
  })

  test('legal-entity partner, foreigner over 80, legal representative, 0-12 bracket', async () => {
    const farm = (await get(app, '/v1/cnpj/empresa/44555666000181/socios')).body.socios
    expect(farm).toEqual([
      { nome: 'HOLDING PARTICIPAÇÕES S.A.', tipo: 'pessoa_juridica', documento_mascarado: '33683111000107', qualificacao: { codigo: '22', descricao: 'Sócio' }, data_entrada: '2005-01-01', faixa_etaria: null, representante_legal: null },
      { nome: "JOHN O'CONNOR", tipo: 'estrangeiro', documento_mascarado: '***999999**', qualificacao: { codigo: '49', descricao: 'Sócio-Administrador' }, data_entrada: '2012-06-30', faixa_etaria: '81+', representante_legal: null },
    ])
    const mei = (await get(app, '/v1/cnpj/empresa/77888999000181/socios')).body.socios
    expect(mei).toEqual([{ nome: 'JOSÉ DA SILVA', tipo: 'pessoa_fisica', documento_mascarado: '***123456**', qualificacao: { codigo: '49', descricao: 'Sócio-Administrador' }, data_entrada: '2015-03-10', faixa_etaria: '00-12', representante_legal: 'MARIA DA SILVA' }])
  })

  test('impossible entry date (2026-99-99) is null', async () => {
    expect((await get(app, '/v1/cnpj/empresa/12ABC34501DE35/socios')).body.socios[0].data_entrada).toBeNull()
  })

  test('unknown CNPJ: 404', async () => {
    expect((await get(app, '/v1/cnpj/empresa/33683111000107/socios')).status).toBe(404)
  })
})

describe('/v1/cnpj/empresa/{cnpj}/completo and /v1/cnpj/amostra', () => {
  test('completo = card + partners + the other establishments of the root', async () => {
    const r = await get(app, '/v1/cnpj/empresa/44555666000181/completo')
    expect(r.body.total_socios).toBe(2)
    expect(r.body.filiais).toEqual([
      { cnpj: '44555666000262', matriz_filial: 'filial', uf: 'SP', municipio: 'SAO PAULO', situacao: 'Ativa' },
      { cnpj: '44555666000343', matriz_filial: 'filial', uf: 'SC', municipio: 'FLORIANOPOLIS', situacao: 'Inapta' },
      { cnpj: '44555666000424', matriz_filial: 'filial', uf: 'EX', municipio: 'MONTEVIDEO', situacao: 'Ativa' },
    ])
    expect(r.body.total_filiais).toBe(3)
  })

  test('completo of a branch: its filiais name the headquarters as matriz', async () => {
    const r = await get(app, '/v1/cnpj/empresa/44555666000262/completo')
    expect(r.body.filiais.map((f: { cnpj: string; matriz_filial: string }) => [f.cnpj, f.matriz_filial])).toEqual([
      ['44555666000181', 'matriz'], ['44555666000343', 'filial'], ['44555666000424', 'filial'],
    ])
  })

  test('amostra: SERPRO complete, flagged', async () => {
    const r = await get(app, '/v1/cnpj/amostra')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ ...SERPRO_CARD, socios: SERPRO_SOCIOS, total_socios: 6, filiais: [], total_filiais: 0, amostra: true, origem: 'base_carregada' })
  })
})

describe('/v1/cnpj/busca', () => {
  const search = async (q: string) => (await get(app, `/v1/cnpj/busca?${q}`)).body

  test('name, accent- and case-insensitive, legal forms ignored', async () => {
    for (const q of ['nome=cafe%20sao%20joao', 'nome=CAF%C3%89%20S%C3%83O', 'nome=gr%C3%A3os%20ltda']) {
      const body = await search(q)
      expect(body.resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['12ABC34501DE35'])
    }
    expect(await search('nome=cafe')).toEqual({
      total: 1, pagina: 1, fonte: FONTE,
      resultados: [{ cnpj: '12ABC34501DE35', razao_social: 'CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA', nome_fantasia: 'CAFÉ SÃO JOÃO', uf: 'SP', municipio: 'SAO PAULO', codigo_municipio_ibge: '3550308', cnae_principal: '4721102', situacao: 'Ativa' }],
    })
  })

  test('default situação is ativa; headquarters first, then by CNPJ', async () => {
    const body = await search('nome=nacional')
    expect(body.resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['44555666000181', '44555666000262', '44555666000424'])
    expect((await search('nome=farmacias&situacao=inapta')).resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['44555666000343'])
  })

  test('name + uf, + municipio, + cnae, + porte, + opening window', async () => {
    const ids = async (q: string) => (await search(q)).resultados.map((x: { cnpj: string }) => x.cnpj)
    expect(await ids('nome=farma&uf=sp')).toEqual(['44555666000262'])
    expect(await ids('nome=farma&municipio=7535')).toEqual(['44555666000181'])
    expect(await ids('nome=cafe&cnae=4721102')).toEqual(['12ABC34501DE35'])
    expect(await ids('nome=cafe&cnae=4771701')).toEqual([])
    expect(await ids('nome=cafe&porte=micro_empresa')).toEqual(['12ABC34501DE35'])
    expect(await ids('nome=farma&porte=demais&abertura_de=2010-01-01')).toEqual(['44555666000262'])
  })

  test('filters only, same rank order (shorter legal name first), no DuckDB scan', async () => {
    expect((await search('uf=SP')).resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['44555666000262', '12ABC34501DE35'])
    expect((await search('municipio=7107')).resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['44555666000262', '12ABC34501DE35'])
    expect((await search('municipio=7107&cnae=4721102')).resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['12ABC34501DE35'])
    expect((await search('cnae=4771701&situacao=ativa')).total).toBe(3)
    expect((await search('porte=pequeno_porte&situacao=baixada')).resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['11222333000181'])
    expect((await search('abertura_de=2015-01-01&abertura_ate=2015-12-31')).resultados.map((x: { razao_social: string }) => x.razao_social)).toEqual(['JOSÉ DA SILVA ***456789**'])
  })

  test('paging', async () => {
    const p1 = await search('uf=sp&por_pagina=1')
    const p2 = await search('uf=sp&por_pagina=1&pagina=2')
    expect([p1.total, p1.resultados[0].cnpj, p2.pagina, p2.resultados[0].cnpj]).toEqual([2, '44555666000262', 2, '12ABC34501DE35'])
    expect((await search('uf=sp&pagina=200&por_pagina=50')).resultados).toEqual([])
  })

  test('bad input: documented 400s', async () => {
    const err = async (q: string) => (await get(app, `/v1/cnpj/busca${q}`)).body.erro.codigo
    expect(await err('')).toBe('filtro_obrigatorio')
    expect(await err('?situacao=baixada')).toBe('filtro_obrigatorio')
    expect(await err('?uf=SPX')).toBe('parametro_invalido')
    expect(await err('?municipio=71')).toBe('parametro_invalido')
    expect(await err('?cnae=12345')).toBe('parametro_invalido')
    expect(await err('?porte=grande')).toBe('parametro_invalido')
    expect(await err('?uf=SP&situacao=morta')).toBe('parametro_invalido')
    expect(await err('?uf=SP&por_pagina=51')).toBe('parametro_invalido')
    expect(await err('?uf=SP&por_pagina=0')).toBe('parametro_invalido')
    expect(await err('?uf=SP&pagina=0')).toBe('parametro_invalido')
    expect(await err('?uf=SP&pagina=99999999999999999999')).toBe('parametro_invalido')
    expect(await err('?uf=SP&pagina=201&por_pagina=50')).toBe('parametro_invalido')
    expect(await err('?abertura_de=2020-13-01')).toBe('parametro_invalido')
    expect(await err('?abertura_de=2021-01-01&abertura_ate=2020-01-01')).toBe('parametro_invalido')
    expect(await err('?nome=%22%2A%20%2D')).toBe('parametro_invalido')
    expect(await err('?uf=SP&uf=RJ')).toBe('parametro_repetido')
    expect(await err('?uf=SP&ordem=nome')).toBe('parametro_desconhecido')
  })

  test('a word shaped like an internal filter token is ignored, not matched', async () => {
    const r = await get(app, '/v1/cnpj/busca?nome=cnae4721102')
    expect(r.status).toBe(400)
    expect((await search('nome=cafe%20mun7107')).total).toBe(1)
    // The word every row holds (searches by UF or dates alone read it) is no wildcard either.
    expect((await get(app, '/v1/cnpj/busca?nome=qualquer0')).status).toBe(400)
    expect((await search('nome=cafe%20qualquer0')).total).toBe(1)
  })

  test('FTS syntax in the name is searched as plain words, never as an expression', async () => {
    const r = await get(app, '/v1/cnpj/busca?nome=cafe%20OR%20farma%20NEAR%20%22x%22%20*')
    expect(r.status).toBe(200)
    expect(r.body.total).toBe(0)
  })
})

describe('search finds what people type (docs/busca.md)', () => {
  const ids = async (path: string) => {
    const r = await get(app, path)
    expect(r.status).toBe(200)
    return r.body.resultados.map((x: { cnpj: string }) => x.cnpj)
  }
  const REDE = ['44555666000181', '44555666000262', '44555666000424']

  test('every word matches the words it begins: farmacia finds FARMÁCIAS, as farmacias does', async () => {
    for (const nome of ['farmacias', 'farmacia', 'farmac', 'farm', 'fa', 'farm%20nac', 'rede%20nac', 'nacional%20rede'])
      expect(await ids(`/v1/cnpj/busca?nome=${nome}`)).toEqual(REDE)
    expect(await ids('/v1/cnpj/busca?nome=caf%20s%C3%A3o%20jo')).toEqual(['12ABC34501DE35'])
    // A one-letter word is a whole word, not a prefix.
    expect(await ids('/v1/cnpj/busca?nome=cafe%20j')).toEqual([])
    // A word longer than any indexed word it could begin finds nothing.
    expect(await ids('/v1/cnpj/busca?nome=farmaciasx')).toEqual([])
  })

  test('full-width letters (NFKC), accents and case', async () => {
    expect(await ids('/v1/cnpj/busca?nome=%EF%BD%86%EF%BD%81%EF%BD%92%EF%BD%8D%EF%BD%81%EF%BD%83%EF%BD%89%EF%BD%81')).toEqual(REDE)
    expect(await ids('/v1/cnpj/busca?nome=FARM%C3%81CIA')).toEqual(REDE)
  })

  test('S.A. = S/A = SA: a legal form, ignored beside other words', async () => {
    for (const suffix of ['s.a.', 'sa', 's%2Fa', 'S.A', 'ltda'])
      expect(await ids(`/v1/cnpj/busca?nome=farmacias%20${suffix}`)).toEqual(REDE)
  })

  test('a name of ignored words only (legal forms, connectors) is a 400 that says so, on both searches', async () => {
    const message = "parâmetro de consulta 'nome': só tem palavras que a busca ignora (formas jurídicas como LTDA, ME, EPP, EIRELI, S.A. e conectivos como DE, DA, DO, E); informe ao menos uma palavra do nome"
    for (const nome of ['de', 'sa', 's.a.', 's%2Fa', 'ltda', 'ltda%20me', 'de%20da%20do']) {
      const r = await get(app, `/v1/cnpj/busca?nome=${nome}`)
      expect([r.status, r.body]).toEqual([400, { erro: { codigo: 'parametro_invalido', mensagem: message } }])
    }
    const r = await get(app, '/v1/cnpj/socio/busca?nome=dos%20da')
    expect([r.status, r.body]).toEqual([400, { erro: { codigo: 'parametro_invalido', mensagem: message } }])
  })

  test('partner search: the same rules (joa finds JOÃO)', async () => {
    const r = await get(app, '/v1/cnpj/socio/busca?nome=joa')
    expect(r.body.resultados.map((x: { nome_socio: string }) => x.nome_socio)).toEqual(['JOÃO CAFÉ'])
    expect((await get(app, '/v1/cnpj/socio/busca?nome=holan%20teix')).body.resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['55666777'])
    expect((await get(app, '/v1/cnpj/socio/busca?nome=%EF%BD%8A%EF%BD%8F%EF%BD%93%EF%BD%85')).body.resultados.map((x: { cnpj: string }) => x.cnpj)).toEqual(['77888999'])
  })
})

describe('/v1/cnpj/socio/busca', () => {
  test('accent-insensitive, root of 8 characters with the company name', async () => {
    const r = await get(app, '/v1/cnpj/socio/busca?nome=jose%20silva')
    expect(r.body).toEqual({
      total: 1, pagina: 1, fonte: FONTE,
      resultados: [{ nome_socio: 'JOSÉ DA SILVA', cnpj: '77888999', razao_social: 'JOSÉ DA SILVA ***456789**', qualificacao: { codigo: '49', descricao: 'Sócio-Administrador' }, data_entrada: '2015-03-10' }],
    })
  })

  test('an orphan partner (company in no file) still shows, with a null name', async () => {
    const r = await get(app, '/v1/cnpj/socio/busca?nome=fernanda%20campagnucci')
    expect(r.body.resultados).toEqual([{ nome_socio: 'FERNANDA CAMPAGNUCCI PEREIRA', cnpj: '19131243', razao_social: null, qualificacao: { codigo: '16', descricao: 'Presidente' }, data_entrada: '2019-10-25' }])
  })

  test('a partner of a company with no establishment shows the company name from its Empresas row', async () => {
    const r = await get(app, '/v1/cnpj/socio/busca?nome=holanda%20teixeira')
    expect(r.body.resultados).toEqual([{ nome_socio: 'ANA HOLANDA TEIXEIRA', cnpj: '55666777', razao_social: 'HOLDING SEM ESTABELECIMENTO PARTICIPAÇÕES LTDA', qualificacao: { codigo: '49', descricao: 'Sócio-Administrador' }, data_entrada: '2020-01-01' }])
    // It has no establishment, so no card: its CNPJ is not found.
    expect((await get(app, '/v1/cnpj/empresa/55666777000181')).status).toBe(404)
  })

  test('nome shorter than 3: 400; neither nome nor documento: 400 filtro_obrigatorio', async () => {
    expect((await get(app, '/v1/cnpj/socio/busca?nome=jo')).body.erro.codigo).toBe('parametro_invalido')
    expect((await get(app, '/v1/cnpj/socio/busca')).body.erro.codigo).toBe('filtro_obrigatorio')
  })
})

describe('CNPJ path validation happens before any lookup', () => {
  for (const path of ['situacao/33683111000281', 'empresa/123', 'empresa/33683111000281/socios', 'empresa/AAAAAAAAAAAAAA/completo', 'empresa/11111111111111']) {
    test(path, async () => {
      const r = await get(app, `/v1/cnpj/${path}`)
      expect(r.status).toBe(400)
      expect(r.body.erro.codigo).toBe('cnpj_invalido')
    })
  }
})

describe('prewarm of the served files', () => {
  test('opening a month reads the company name index, the history\'s months, the cards, the partner name index, cnpj.duckdb and then the filter bitmaps into the page cache, in that order, and logs each', async () => {
    const { logs } = await testApp({ dataDir })
    const read = () => logs.filter((l) => l.includes('cache de páginas'))
    for (let i = 0; i < 200 && read().length < 6; i++) await Bun.sleep(20)
    expect(read().map((l) => l.replace(/^\S+ INFO /, '').replace(/ gb=.*/, ''))).toEqual(
      ['busca.sqlite', 'historico/2026-08.sqlite', 'fichas.sqlite', 'busca_socios.sqlite', 'cnpj.duckdb', 'busca.sqlite (bitmaps de filtros)'].map((f) => `${f} lido para o cache de páginas do sistema referencia=2026-08`),
    )
  })

  test('--prewarm 0: no read', async () => {
    const { logs } = await testApp({ dataDir, prewarm: '0' })
    await Bun.sleep(200)
    expect(logs.filter((l) => l.includes('cache de páginas'))).toEqual([])
  })
})
