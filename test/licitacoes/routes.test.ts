// The procurement routes over the bundled sample (recorded real-format PNCP answers replayed through
// the sync), and the open-tenders cache states against a local PNCP that is slow, down and back.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { startReplay } from '../../ingest/lib/replay'
import { SQL_CONTRATOS } from '../../src/datasets/licitacoes/layout'
import { get, testApp } from '../helpers'
import { freshAmostra } from './amostra'
import { sampleDir } from './helpers'

// A local PNCP for the feed's refreshes (the sample's copy dates from its recording: old, so stale).
const pncp = startReplay()
process.env.PNCP_URL = pncp.url
const PROPOSTA = readFileSync(join(import.meta.dir, 'fixtures', 'abertas', 'proposta-6-p1.json'), 'utf8')
pncp.on('/v1/contratacoes/proposta', () => ({ status: 200, body: PROPOSTA, headers: { 'content-type': 'application/json' } }))
pncp.stop()

const dataDir = await sampleDir()
const { app } = await testApp({ dataDir })
afterAll(async () => {
  await app.close()
  pncp.close()
})

describe('/v1/licitacoes/fornecedor/{cnpj}', () => {
  test('every establishment of the root, newest signature first; a rectified contract counted once with its new value', async () => {
    const r = await get(app, '/v1/licitacoes/fornecedor/11.222.333%2F0002-62')
    expect(r.status).toBe(200)
    expect(r.body.cnpj).toBe('11222333000262')
    expect(r.body.resumo).toEqual({ total_contratos: 2, valor_total: 60711.25, orgaos_distintos: 1 })
    expect(r.body.contratos.map((c: any) => [c.numero_controle_pncp, c.cnpj_fornecedor, c.data_assinatura, c.valor_global])).toEqual([
      ['99887766000105-2-000007/2024', '11222333000262', '2024-08-02', 48210.75],
      ['99887766000105-2-000001/2022', '11222333000181', '2022-12-20', 12500.5],
    ])
    expect(r.body.contratos[0]).toEqual({
      numero_controle_pncp: '99887766000105-2-000007/2024',
      cnpj_fornecedor: '11222333000262',
      orgao: { cnpj: '99887766000105', razao_social: 'MUNICIPIO FICTICIO DE TESTE', esfera: 'municipal', poder: 'executivo' },
      unidade: { nome: 'FUNDO MUNICIPAL FICTICIO DE ASSISTENCIA SOCIAL', municipio: 'Contagem', uf: 'MG' },
      objeto: 'AQUISIÇÃO DE GÊNEROS ALIMENTÍCIOS  PARA O  RESTAURANTE POPULAR',
      valor_inicial: 48210.75,
      valor_global: 48210.75,
      data_assinatura: '2024-08-02',
      vigencia_inicio: '2024-08-05',
      vigencia_fim: '2025-08-04',
      tipo: 'Contrato (termo inicial)',
      link: 'https://pncp.gov.br/app/contratos/99887766000105/2024/7',
    })
    expect(r.body.fonte).toEqual({ base: 'PNCP/contratos', referencia: '2024-08-14', desde: '2023-01-02', atualizado_em: '2024-08-15T15:00:00.000Z' })
  })

  test('the real CNEN contract of SCIAVICCO', async () => {
    const r = await get(app, '/v1/licitacoes/fornecedor/23747090000184')
    expect(r.body.resumo).toEqual({ total_contratos: 1, valor_total: 2370.41, orgaos_distintos: 1 })
    expect(r.body.contratos[0]).toMatchObject({ numero_controle_pncp: '00402552000126-2-000322/2022', tipo: 'Empenho', unidade: { nome: 'CENTRO REG. DE CIENCIAS NUCLEARES DO NORDESTE', municipio: 'Recife', uf: 'PE' } })
  })

  test('no contract: 200 with zeros; an individual supplier (CPF) left no trace', async () => {
    const r = await get(app, '/v1/licitacoes/fornecedor/33683111000280')
    expect(r.status).toBe(200)
    expect(r.body.resumo).toEqual({ total_contratos: 0, valor_total: 0, orgaos_distintos: 0 })
    expect(r.body.contratos).toEqual([])
    for (const file of ['current/contratos.sqlite', 'sync.sqlite']) {
      const bytes = readFileSync(join(dataDir, 'licitacoes', file))
      expect(bytes.includes(Buffer.from('12345678909'))).toBe(false)
      expect(bytes.includes(Buffer.from('FULANO'))).toBe(false)
    }
  })

  test('the newest 100 come from a reverse scan of the root index: no sort, whatever the supplier size', () => {
    const db = new Database(join(dataDir, 'licitacoes', 'current', 'contratos.sqlite'), { readonly: true })
    const plan = (db.query(`EXPLAIN QUERY PLAN ${SQL_CONTRATOS}`).all('11222333') as { detail: string }[]).map((r) => r.detail).join('; ')
    db.close()
    expect(plan).toContain('USING INDEX contratos_por_raiz')
    expect(plan).not.toContain('TEMP B-TREE')
  })

  test('an invalid CNPJ is a 400 before any lookup', async () => {
    const r = await get(app, '/v1/licitacoes/fornecedor/11222333000199')
    expect(r.status).toBe(400)
    expect(r.body.erro.codigo).toBe('cnpj_invalido')
  })

  test('no index: 503 saying how to build it', async () => {
    const { app: empty } = await testApp()
    const r = await get(empty, '/v1/licitacoes/fornecedor/48061037000156')
    expect(r.status).toBe(503)
    expect(r.body.erro.mensagem).toContain('dadosbr ingest licitacoes')
    await empty.close()
  })
})

describe('/v1/licitacoes/amostra', () => {
  test('the real supplier from the index, and the embedded copy equal to a fresh build', async () => {
    const r = await get(app, '/v1/licitacoes/amostra')
    expect(r.status).toBe(200)
    expect(r.body.amostra).toBe(true)
    expect(r.body.cnpj).toBe('48061037000156')
    const copy = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'src', 'datasets', 'licitacoes', 'amostra.json'), 'utf8'))
    expect(copy).toEqual(await freshAmostra()) // if this fails: bun test/licitacoes/amostra.ts
    expect(r.body).toEqual(copy)
  })

  test('without an index, the embedded copy', async () => {
    const { app: empty } = await testApp()
    const r = await get(empty, '/v1/licitacoes/amostra')
    expect(r.status).toBe(200)
    expect(r.body.cnpj).toBe('48061037000156')
    await empty.close()
  })
})

describe('/v1/licitacoes/abertas (the copy, the uf filter and the deadlines: abertas.test.ts)', () => {
  test('PNCP slow: the request is answered at once from the copy while the refresh runs', async () => {
    pncp.start()
    process.env.PNCP_URL = pncp.url
    pncp.fault = { kind: 'slow', delayMs: 30_000 }
    try {
      // Answered before the 30 s answer: a wait would have returned the replayed copy (ok), not the sample.
      const r = await get(app, '/v1/licitacoes/abertas')
      expect(r.status).toBe(200)
      expect(r.body.fonte).toMatchObject({ status: 'amostra', consultado_em: '2023-10-17T16:00:00.000Z' })
      expect(r.body.total).toBe(2)
    } finally {
      pncp.fault = { kind: 'none' }
      pncp.stop() // the pending slow answer is dropped
    }
  })

  test('PNCP back: the recorded answer replaces the sample; its tenders closed in 2023, so none is open now', async () => {
    pncp.start()
    process.env.PNCP_URL = pncp.url
    await app.ctx.feeds.refresh('licitacoes-abertas', '6')
    const r = await get(app, '/v1/licitacoes/abertas')
    expect(r.body).toMatchObject({ total: 0, oportunidades: [], encerradas_omitidas: 2, aviso: null, fonte: { status: 'ok', ultimo_erro: null } })
    const asked = pncp.requests.find((q) => q.path.startsWith('/v1/contratacoes/proposta'))!.path
    expect(asked).toMatch(/dataFinal=\d{8}&codigoModalidadeContratacao=6&pagina=1&tamanhoPagina=50/)
    pncp.stop()
  })

  test('bad parameters are 400s', async () => {
    for (const [q, msg] of [
      ['uf=XX', "parâmetro de consulta 'uf': deve ser a sigla de uma das 27 UFs (duas letras: AC, AL, AM, AP, BA, CE, DF, ES, GO, MA, MG, MS, MT, PA, PB, PE, PI, PR, RJ, RN, RO, RR, RS, SC, SE, SP, TO)"],
      ['modalidade=14', "parâmetro de consulta 'modalidade': deve ser um código de modalidade do PNCP de 1 a 13 (6 = pregão eletrônico)"],
      ['modalidade=abc', "parâmetro de consulta 'modalidade': deve ser um código de modalidade do PNCP de 1 a 13 (6 = pregão eletrônico)"],
      ['por_pagina=51', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
      ['pagina=0', "parâmetro de consulta 'pagina': deve ser um número inteiro de 1 a 1000000"],
    ] as const) {
      const r = await get(app, `/v1/licitacoes/abertas?${q}`)
      expect(r.status).toBe(400)
      expect(r.body.erro).toEqual({ codigo: 'parametro_invalido', mensagem: msg })
    }
  })
})
