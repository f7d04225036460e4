// /v1/cnpj/lote and /v1/integridade/lote on the bundled samples: one item per distinct CNPJ in the
// order given, each the single route's answer or its error, item by item.
import { afterAll, describe, expect, test } from 'bun:test'
import { buildIntegridade } from '../../ingest/integridade/load'
import { unidadesDoLote } from '../../src/core/lote'
import { get, testApp } from '../helpers'
import { SAMPLE as INTEGRIDADE_SAMPLE } from '../integridade/helpers'
import { buildFixtureData } from './helpers'

const dataDir = await buildFixtureData()
await buildIntegridade({ dir: INTEGRIDADE_SAMPLE, dataDir, force: true })
const { app } = await testApp({ dataDir })
afterAll(() => app.close())

/** Each item against the single route: its answer when 200, its error otherwise. */
async function sameAsSingle(items: { cnpj: string; encontrado: boolean; resultado?: unknown; erro?: unknown }[], single: (cnpj: string) => string) {
  for (const item of items) {
    const one = await get(app, single(item.cnpj))
    if (one.status === 200) expect({ cnpj: item.cnpj, resultado: item.resultado, erro: item.erro }).toEqual({ cnpj: item.cnpj, resultado: one.body, erro: undefined })
    else expect({ cnpj: item.cnpj, resultado: item.resultado, erro: item.erro }).toEqual({ cnpj: item.cnpj, resultado: undefined, erro: one.body.erro })
  }
}

describe('/v1/cnpj/lote', () => {
  test('found, not found, invalid and repeated CNPJs, in the order given, each equal to /v1/cnpj/empresa/{cnpj}', async () => {
    const r = await get(app, '/v1/cnpj/lote?cnpjs=12.ABC.345/01DE-35,33683111000280,33683111000107,123,33.683.111/0002-80,44555666000424')
    expect(r.status).toBe(200)
    expect([r.body.total, r.body.validos, r.body.encontrados, r.body.fonte]).toEqual([5, 4, 3, { base: 'RFB/CNPJ', referencia: '2026-08' }])
    expect(r.body.itens.map((i: { cnpj: string; encontrado: boolean }) => [i.cnpj, i.encontrado])).toEqual([
      ['12ABC34501DE35', true], ['33683111000280', true], ['33683111000107', false], ['123', false], ['44555666000424', true],
    ])
    expect(r.body.itens[2].erro).toEqual({ codigo: 'nao_encontrado', mensagem: 'CNPJ 33683111000107 não consta na base de 2026-08.' })
    expect(r.body.itens[3].erro).toEqual({ codigo: 'cnpj_invalido', mensagem: 'CNPJ com formato inválido: use 14 caracteres (números ou letras A-Z, os dois últimos números), com ou sem pontuação' })
    await sameAsSingle(r.body.itens.filter((i: { cnpj: string }) => i.cnpj !== '123'), (cnpj) => `/v1/cnpj/empresa/${cnpj}`)
    // The invalid item: the single route's code and message, after its parameter's name.
    expect((await get(app, '/v1/cnpj/empresa/123')).body.erro.mensagem).toEndWith(r.body.itens[3].erro.mensagem)
  })

  test('every valid CNPJ missing from the month: 404, nothing charged', async () => {
    const r = await get(app, '/v1/cnpj/lote?cnpjs=33683111000107,123')
    expect([r.status, r.body]).toEqual([404, { erro: { codigo: 'nao_encontrado', mensagem: 'O CNPJ válido da lista não consta na base de 2026-08; nada foi cobrado.' } }])
    expect((await get(app, '/v1/cnpj/lote?cnpjs=33683111000107,11222333000262')).body.erro.mensagem).toBe('Nenhum dos 2 CNPJs válidos da lista consta na base de 2026-08; nada foi cobrado.')
  })

  test('bad lists: the documented 400', async () => {
    const codes = async (path: string) => { const r = await get(app, path); return [r.status, r.body.erro.codigo] }
    expect(await codes('/v1/cnpj/lote')).toEqual([400, 'parametro_invalido'])
    // Missing or empty: the same message (the price reads the list with the same rule).
    expect((await get(app, '/v1/cnpj/lote')).body.erro.mensagem).toBe((await get(app, '/v1/cnpj/lote?cnpjs=,')).body.erro.mensagem)
    expect(await codes('/v1/cnpj/lote?cnpjs=')).toEqual([400, 'parametro_invalido'])
    expect(await codes('/v1/cnpj/lote?cnpjs=33683111000280;12ABC34501DE35')).toEqual([400, 'parametro_invalido'])
    expect(await codes(`/v1/cnpj/lote?cnpjs=${Array(101).fill('33683111000280').join(',')}`)).toEqual([400, 'parametro_invalido'])
    expect(await codes('/v1/cnpj/lote?cnpjs=1,2')).toEqual([400, 'parametro_invalido'])
    expect(await codes('/v1/cnpj/lote?cnpjs=33683111000280&cnpjs=12ABC34501DE35')).toEqual([400, 'parametro_repetido'])
    expect(await codes('/v1/cnpj/lote?cnpjs=33683111000280&uf=SP')).toEqual([400, 'parametro_desconhecido'])
    // Too long a text: the same 400 from the price (no 402 for a URL the answer would refuse) and from the route.
    const long = `${','.repeat(4000)}33683111000280`
    const message = "parâmetro de consulta 'cnpjs': a lista tem 4014 caracteres; o máximo é 4000 (100 CNPJs com pontuação, vírgula e espaço cabem em ~2 000)"
    expect(() => unidadesDoLote({ query: new URLSearchParams({ cnpjs: long }) })).toThrow(message)
    expect(unidadesDoLote({ query: new URLSearchParams({ cnpjs: `${','.repeat(3000)}33683111000280` }) })).toBe(1)
    expect((await get(app, `/v1/cnpj/lote?cnpjs=${long}`)).body).toEqual({ erro: { codigo: 'parametro_invalido', mensagem: message } })
  })
})

describe('/v1/integridade/lote', () => {
  test('each item equal to /v1/integridade/consulta/{cnpj}; encontrado when the root has a record; repeated once, invalid with its error', async () => {
    const r = await get(app, '/v1/integridade/lote?cnpjs=00638595000105,33683111000280,00.638.595/0001-05,abc')
    expect(r.status).toBe(200)
    expect([r.body.total, r.body.validos, r.body.encontrados]).toEqual([3, 2, 1])
    expect(r.body.itens.map((i: { cnpj: string; encontrado: boolean }) => [i.cnpj, i.encontrado])).toEqual([['00638595000105', true], ['33683111000280', false], ['abc', false]])
    expect(r.body.itens[1].resultado.ficha_limpa).toBe(true)
    expect(r.body.itens[2].erro.codigo).toBe('cnpj_invalido')
    expect(r.body.fonte).toEqual((await get(app, '/v1/integridade/consulta/33683111000280')).body.fonte)
    await sameAsSingle(r.body.itens.slice(0, 2), (cnpj) => `/v1/integridade/consulta/${cnpj}`)
  })

  test('bad lists: the same 400s', async () => {
    expect((await get(app, '/v1/integridade/lote?cnpjs=1|2')).body.erro.codigo).toBe('parametro_invalido')
    expect((await get(app, '/v1/integridade/lote?cnpjs=abc')).body.erro.codigo).toBe('parametro_invalido')
  })
})
