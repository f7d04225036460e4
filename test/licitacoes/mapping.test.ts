// Exact values of the two mappings, from the recorded real-format PNCP pages of the bundled sample.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { contractRow } from '../../ingest/licitacoes/db'
import { brasilia, contratoLink, day, oportunidade, readPage, textoLivre, type PncpContratacao, type PncpContrato } from '../../src/datasets/licitacoes/pncp'

const FIXTURES = join(import.meta.dir, 'fixtures')
const page = <T>(file: string) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')).data as T[]

describe('contract records', () => {
  test("the real Jandira record: every field the answer shows (the objeto's trailing blank trimmed, esfera and poder spelled out)", () => {
    const [migra] = page<PncpContrato>('contratos/contratos-20240814-p1.json')
    expect(contractRow(migra!)).toEqual({
      numero: '46522991000173-2-000035/2024',
      cnpj: '48061037000156',
      orgao: { cnpj: '46522991000173', razao_social: 'MUNICIPIO DE JANDIRA', esfera: 'municipal', poder: 'nao_se_aplica' },
      unidade: { chave: '46522991000173|1', nome: 'Prefeitura Municipal de Jandira', municipio: 'Jandira', uf: 'SP' },
      tipo: 'Empenho',
      objeto: 'AQUIS.DE BEBEDOURO',
      valor_inicial: 7056,
      valor_global: 7056,
      data_assinatura: '2024-08-01',
      vigencia_inicio: '2024-08-01',
      vigencia_fim: '2024-09-01',
    })
    expect(contratoLink('46522991000173-2-000035/2024')).toBe('https://pncp.gov.br/app/contratos/46522991000173/2024/35')
  })

  test('the real CNEN record, a federal executive body', () => {
    const [sciavicco] = page<PncpContrato>('contratos/contratos-20230102-p1.json')
    const row = contractRow(sciavicco!)
    expect(row).toMatchObject({
      numero: '00402552000126-2-000322/2022',
      cnpj: '23747090000184',
      orgao: { cnpj: '00402552000126', razao_social: 'COMISSAO NACIONAL DE ENERGIA NUCLEAR', esfera: 'federal', poder: 'executivo' },
      unidade: { nome: 'CENTRO REG. DE CIENCIAS NUCLEARES DO NORDESTE', municipio: 'Recife', uf: 'PE' },
      objeto: 'AQUISIÇÃO DE REAGENTES',
      valor_global: 2370.41,
      data_assinatura: '2022-12-31',
      vigencia_fim: '2023-02-10',
    })
  })

  test('a punctuated supplier CNPJ is normalized; the objeto is kept as written inside (its double blanks too), trimmed at the ends', () => {
    const [, ficticio] = page<PncpContrato>('contratos/contratos-20230102-p1.json')
    expect(contractRow(ficticio!)).toMatchObject({ cnpj: '11222333000181' })
    const [, outro] = page<PncpContrato>('contratos/contratos-20240814-p1.json')
    expect(contractRow(outro!)).toMatchObject({ objeto: 'AQUISIÇÃO DE GÊNEROS ALIMENTÍCIOS  PARA O  RESTAURANTE POPULAR', cnpj: '11222333000262' })
  })

  test("an objeto written on several lines keeps its line breaks (CRLF and CR as \\n); only the ends are trimmed; names still collapse", () => {
    const [migra] = page<PncpContrato>('contratos/contratos-20240814-p1.json')
    const linhas = { ...migra!, objetoContrato: ' \r\nAQUISIÇÃO DE MATERIAL DE EXPEDIENTE:\r\nLOTE 1 - PAPEL A4;\rLOTE 2 - CANETAS\n\n(ATA 12/2024)\r\n ', orgaoEntidade: { ...migra!.orgaoEntidade, razaoSocial: 'MUNICIPIO DE\r\nJANDIRA ' } }
    expect(contractRow(linhas)).toMatchObject({ objeto: 'AQUISIÇÃO DE MATERIAL DE EXPEDIENTE:\nLOTE 1 - PAPEL A4;\nLOTE 2 - CANETAS\n\n(ATA 12/2024)', orgao: { razao_social: 'MUNICIPIO DE JANDIRA' } })
    expect(textoLivre('\u0000 \n ')).toBeNull()
    expect(textoLivre(null)).toBeNull()
  })

  test('an individual (PF: a CPF) and a foreign supplier (PE) are dropped, never stored', () => {
    const [, , pf] = page<PncpContrato>('contratos/contratos-20240814-p1.json')
    const [estrangeiro] = page<PncpContrato>('contratos/contratos-20240814-p2.json')
    expect(contractRow(pf!)).toBe('fornecedor_nao_pj')
    expect(contractRow(estrangeiro!)).toBe('fornecedor_nao_pj')
    expect(contractRow({ niFornecedor: '48061037000156' })).toBe('sem_numero')
  })

  test('dates: date-only kept, a time dropped, impossible ones null; timestamps get Brasília offset', () => {
    expect(day('2024-08-01')).toBe('2024-08-01')
    expect(day('2026-03-01T10:00:00Z')).toBe('2026-03-01')
    expect(day('2023-02-30')).toBeNull()
    expect(day('')).toBeNull()
    expect(brasilia('2023-10-27T23:59:00')).toBe('2023-10-27T23:59:00-03:00')
    expect(brasilia('2023-10-27T23:59')).toBe('2023-10-27T23:59:00-03:00')
    expect(brasilia('2023-10-27T23:59:00Z')).toBe('2023-10-27T23:59:00Z')
    expect(brasilia('27/10/2023')).toBeNull()
  })
})

describe('open tenders', () => {
  test('the real Araci auction: secret budget (0) is null, the bidding system link, Brasília times', () => {
    const [araci] = page<PncpContratacao>('abertas/proposta-6-p1.json')
    expect(oportunidade(araci!)).toEqual({
      numero_controle_pncp: '14232086000192-1-000060/2023',
      objeto: 'CONTRATAÇÃO DE EMPRESA ESPECIALIZADA EM INSTALAÇÕES DE ESTRUTURAS PROVISÓRIAS INCLUSIVE DECORAÇÃO E ILUMINAÇÃO PARA AS FESTIVIDADES DE NATAL E FIM DE ANO.',
      valor_estimado: null,
      orgao: { cnpj: '14232086000192', razao_social: 'MUNICIPIO DE ARACI', esfera: 'municipal', poder: 'nao_se_aplica' },
      unidade: { nome: 'PREFEITURA MUNICIPAL DE ARACI - BA', municipio: 'Araci', uf: 'BA' },
      modalidade: { codigo: '6', nome: 'Pregão - Eletrônico' },
      data_abertura_proposta: '2023-10-17T15:00:00-03:00',
      data_encerramento_proposta: '2023-10-27T23:59:00-03:00',
      link: 'https://bllcompras.com/Process/ProcessView?param1=[gkz]GEE3E6rLUzMHJajUnMn1h0zg1xTnn3ZLGt3TEq2TMHXrBrMedA6qPuEqelIj2OcV/eQafNghx34FXH0_KKp2_y8wAPinOweWm/rCNSWwViI=',
    })
  })

  test("a procurement's objeto on several lines keeps them", () => {
    const [araci] = page<PncpContratacao>('abertas/proposta-6-p1.json')
    expect(oportunidade({ ...araci!, objetoCompra: 'CONTRATAÇÃO DE EMPRESA ESPECIALIZADA:\r\n- ESTRUTURAS PROVISÓRIAS;\r\n- DECORAÇÃO E ILUMINAÇÃO. ' })!.objeto).toBe('CONTRATAÇÃO DE EMPRESA ESPECIALIZADA:\n- ESTRUTURAS PROVISÓRIAS;\n- DECORAÇÃO E ILUMINAÇÃO.')
  })

  test('no link of its own: the PNCP page; a known budget kept', () => {
    const [, ficticia] = page<PncpContratacao>('abertas/proposta-6-p1.json')
    expect(oportunidade(ficticia!)).toMatchObject({ valor_estimado: 84500.5, link: 'https://pncp.gov.br/app/editais/99887766000105/2023/12' })
  })
})

describe('pages', () => {
  test('204 and an empty body are an empty page; garbage and a body without data throw', async () => {
    expect(await readPage(new Response(null, { status: 204 }), 'x')).toEqual({ data: [], totalRegistros: 0, totalPaginas: 0 })
    expect(await readPage(new Response(''), 'x')).toEqual({ data: [], totalRegistros: 0, totalPaginas: 0 })
    await expect(readPage(new Response('<html>502'), 'x')).rejects.toThrow('x: resposta não é JSON')
    await expect(readPage(new Response('{"erro":1}'), 'x')).rejects.toThrow('sem a lista "data"')
    await expect(readPage(new Response('{"data":[],"totalRegistros":-1}'), 'x')).rejects.toThrow('totalRegistros/totalPaginas inválidos')
  })
})
