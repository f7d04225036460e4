// The enriched profile over every bundled sample: each part is exactly its own route's answer, read
// locally; an unknown CNPJ is a 404; a base not loaded leaves its part null and fontes says why.
import { afterAll, describe, expect, test } from 'bun:test'
import { ingestNamed } from '../../ingest/registry'
import { buildSampleData, get, testApp, tempDir } from '../helpers'

const { app } = await testApp({ dataDir: await buildSampleData() })

// Only the registry and the contracts: integrity and central bank not built.
const partial = tempDir('empresa-parcial-')
for (const name of ['cnpj', 'licitacoes']) await ingestNamed(name)!.sample({ flags: {}, dataDir: partial, quiet: true, log: () => {} }, false)
const { app: partialApp } = await testApp({ dataDir: partial })

afterAll(async () => {
  await app.close()
  await partialApp.close()
})

describe('/v1/empresa/enriquecer/{cnpj}', () => {
  test("every part is its own route's answer; fontes gives each base's reference date", async () => {
    const cnpj = '11222333000181'
    const r = await get(app, `/v1/empresa/enriquecer/11.222.333%2F0001-81`)
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['cnpj', 'cadastro', 'integridade', 'banco_central', 'contratos_publicos', 'fontes'])
    expect(r.body.cnpj).toBe(cnpj)
    expect(r.body.cadastro).toEqual((await get(app, `/v1/cnpj/empresa/${cnpj}/completo`)).body)
    expect(r.body.integridade).toEqual((await get(app, `/v1/integridade/consulta/${cnpj}`)).body)
    expect(r.body.banco_central).toEqual((await get(app, `/v1/bcb/instituicao/${cnpj}`)).body)
    expect(r.body.contratos_publicos).toEqual((await get(app, `/v1/licitacoes/fornecedor/${cnpj}`)).body)
    expect(r.body.contratos_publicos.resumo).toEqual({ total_contratos: 2, valor_total: 60711.25, orgaos_distintos: 1 })
    expect(r.body.fontes.cadastro).toEqual({ base: 'RFB/CNPJ', disponivel: true, referencia: '2026-08', motivo: null })
    expect(r.body.fontes.contratos_publicos).toEqual({ base: 'PNCP/contratos', disponivel: true, referencia: '2024-08-14', motivo: null })
    expect(r.body.fontes.integridade).toEqual({ base: 'CGU/MTE', disponivel: true, referencia: r.body.integridade.fonte.referencia, motivo: null })
    expect(r.body.fontes.banco_central).toEqual({ base: 'BCB', disponivel: true, referencia: r.body.banco_central.fonte.referencia, motivo: null })
  })

  test('a real company of the registry sample (SERPRO): clean record, not a bank, no contract', async () => {
    const r = await get(app, '/v1/empresa/enriquecer/33683111000280')
    expect(r.status).toBe(200)
    expect(r.body.cadastro.razao_social).toBe('SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)')
    expect(r.body.integridade).toMatchObject({ total_apontamentos: 0, ficha_limpa: true })
    expect(r.body.banco_central).toMatchObject({ cnpj_basico: '33683111', autorizada: false })
    expect(r.body.contratos_publicos.resumo).toEqual({ total_contratos: 0, valor_total: 0, orgaos_distintos: 0 })
  })

  test('a CNPJ the registry does not hold is a 404 (not charged); an invalid one a 400', async () => {
    const r = await get(app, '/v1/empresa/enriquecer/48061037000156')
    expect(r.status).toBe(404)
    expect(r.body.erro.codigo).toBe('nao_encontrado')
    const bad = await get(app, '/v1/empresa/enriquecer/11222333000199')
    expect(bad.status).toBe(400)
    expect(bad.body.erro.codigo).toBe('cnpj_invalido')
  })

  test('a base not built: its part null, fontes says why and how to build it; the call does not fail', async () => {
    const r = await get(partialApp, '/v1/empresa/enriquecer/11222333000181')
    expect(r.status).toBe(200)
    expect(r.body.integridade).toBeNull()
    expect(r.body.banco_central).toBeNull()
    expect(r.body.contratos_publicos.resumo.total_contratos).toBe(2)
    expect(r.body.fontes.integridade).toMatchObject({ base: 'CGU/MTE', disponivel: false, referencia: null })
    expect(r.body.fontes.integridade.motivo).toContain("rode 'dadosbr ingest integridade'")
    expect(r.body.fontes.banco_central.motivo).toContain("rode 'dadosbr ingest bcb'")
  })

  test('without the registry: 503 saying how to build it', async () => {
    const { app: empty } = await testApp()
    const r = await get(empty, '/v1/empresa/enriquecer/33683111000280')
    expect(r.status).toBe(503)
    expect(r.body.erro.mensagem).toContain('dadosbr ingest cnpj')
    await empty.close()
  })
})

describe('/v1/empresa/amostra', () => {
  test('a sanctioned company with public contracts, from the loaded samples', async () => {
    const r = await get(app, '/v1/empresa/amostra')
    expect(r.status).toBe(200)
    expect(r.body.amostra).toBe(true)
    expect(r.body.cnpj).toBe('90111222000174')
    expect(r.body.integridade.ficha_limpa).toBe(false)
    expect(r.body.integridade.apontamentos.ceis.length).toBeGreaterThan(0)
    expect(r.body.contratos_publicos.resumo).toEqual({ total_contratos: 2, valor_total: 1637400.9, orgaos_distintos: 2 })
    expect(r.body.contratos_publicos.contratos.map((c: any) => c.cnpj_fornecedor)).toEqual(['90111222000174', '90111222000255'])
    // Its registry card is in the registry's bundled sample too (fictitious, like its sanctions and contracts).
    expect(r.body.cadastro.razao_social).toBe('CONSTRUTORA FICTICIA ALFA LTDA')
    expect(r.body.cadastro.filiais.map((f: any) => [f.cnpj, f.uf, f.municipio])).toEqual([['90111222000255', 'GO', 'GOIANIA']])
    expect(r.body.fontes.cadastro).toMatchObject({ base: 'RFB/CNPJ', disponivel: true, referencia: '2026-08' })
  })

  test('with nothing loaded: 200, every part null with why', async () => {
    const { app: empty } = await testApp()
    const r = await get(empty, '/v1/empresa/amostra')
    expect(r.status).toBe(200)
    expect([r.body.cadastro, r.body.integridade, r.body.banco_central, r.body.contratos_publicos]).toEqual([null, null, null, null])
    expect(r.body.fontes.contratos_publicos.motivo).toContain("rode 'dadosbr ingest licitacoes'")
    await empty.close()
  })
})
