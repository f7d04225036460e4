// /v1/licitacoes/abertas against a PNCP simulator (fake-pncp.ts: the real record format, filtered and
// paged as PNCP does) and the bundled real-format recording: a `uf` is filtered from the copy held,
// right after the full list was fetched and through an outage; tenders whose deadline passed are
// dropped; the answer says how old its copy is; a query with no copy at all is a 503, never charged.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { App } from '../../src/app'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { ABERTAS_FEED } from '../../src/datasets/licitacoes/feed'
import { get, tempDir, testApp } from '../helpers'
import { fakePncp, licitacao } from './fake-pncp'
import { sampleDir } from './helpers'

const T0 = Date.parse('2026-11-24T12:00:00Z') // 09:00 in Brasília
const MIN = 60_000
const fake = fakePncp()
process.env.PNCP_URL = fake.server.url
const clock = { t: T0 }
fake.now = () => clock.t
fake.propostas = [
  licitacao(1, 'MG', '2026-11-30T18:00:00'),
  // Closes ten minutes after T0 (09:10 in Brasília).
  licitacao(2, 'BA', '2026-11-24T09:10:00'),
  licitacao(3, 'SP', '2026-12-05T10:00:00', { objetoCompra: 'REGISTRO DE PREÇOS PARA:\r\nLOTE 1 - PAPEL;\r\nLOTE 2 - TONER\r\n' }),
  licitacao(4, 'MG', '2026-12-01T12:00:00', { modalidadeId: 8, modalidadeNome: 'Dispensa de Licitação' }),
]

/** The app's polled sources on the test clock (every age and "now" exact). */
function onClock(app: App): FeedRunner {
  const runner = new FeedRunner(app.ctx.feeds.feeds, { dataDir: app.ctx.config.dataDir, log: createLogger('silent'), now: () => clock.t })
  app.ctx.feeds = runner
  return runner
}

const numeros = (body: any) => body.oportunidades.map((o: any) => o.numero_controle_pncp)
const N = (seq: number) => `99887766000105-1-${String(seq).padStart(6, '0')}/2026`

/** Polls until a refresh started by a request has landed (a failing one retries twice, 2 s then 4 s apart); at most 20 s. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !cond(); i++) await Bun.sleep(50)
}

let app: App
let runner: FeedRunner
beforeAll(async () => {
  ;({ app } = await testApp({ dataDir: tempDir('abertas-') }))
  runner = onClock(app)
})
afterAll(async () => {
  await app.close()
  fake.server.close()
})

describe('the copy of the whole list, filtered by uf', () => {
  test('a uf asked right after the full list was fetched at start: answered from that copy, PNCP not asked again', async () => {
    await runner.refresh(ABERTAS_FEED, '6') // what the background does at start
    const asked = fake.propostasAsked.length
    const mg = await get(app, '/v1/licitacoes/abertas?uf=MG')
    expect(mg.status).toBe(200)
    expect(mg.body).toMatchObject({ total: 1, pagina: 1, abertas_em: '2026-11-24T12:00:00.000Z', encerradas_omitidas: 0, aviso: null })
    expect(numeros(mg.body)).toEqual([N(1)])
    expect(mg.body.oportunidades[0]).toMatchObject({ unidade: { uf: 'MG', municipio: 'Cidade Ficticia MG' }, data_encerramento_proposta: '2026-11-30T18:00:00-03:00', valor_estimado: 1000 })
    expect(mg.body.fonte).toEqual({
      base: 'PNCP/contratacoes/proposta',
      consultado_em: '2026-11-24T12:00:00.000Z',
      defasagem_segundos: 0,
      atualiza_a_cada_minutos: 30,
      cache: true,
      status: 'ok',
      tentado_em: '2026-11-24T12:00:00.000Z',
      ultimo_erro: null,
    })
    expect(numeros((await get(app, '/v1/licitacoes/abertas?uf=ba')).body)).toEqual([N(2)])
    // A UF with no open tender in the copy: a list known to be empty, ok.
    expect((await get(app, '/v1/licitacoes/abertas?uf=AC')).body).toMatchObject({ total: 0, oportunidades: [], fonte: { status: 'ok' } })
    expect(fake.propostasAsked.length).toBe(asked)
    // The full list was asked once, every UF at once, pregão eletrônico.
    expect(fake.propostasAsked.map((q) => [q.get('codigoModalidadeContratacao'), q.get('uf'), q.get('dataFinal')])).toEqual([['6', null, '20271124']])
  })

  test('closing soonest first; a tender whose deadline passed is dropped as the copy ages', async () => {
    expect(numeros((await get(app, '/v1/licitacoes/abertas')).body)).toEqual([N(2), N(1), N(3)])
    clock.t = T0 + 20 * MIN // 09:20 in Brasília: tender 2 closed at 09:10; the copy is 20 min old (within 30)
    const all = await get(app, '/v1/licitacoes/abertas')
    expect(all.body).toMatchObject({ total: 2, abertas_em: '2026-11-24T12:20:00.000Z', encerradas_omitidas: 1, aviso: null, fonte: { status: 'ok', defasagem_segundos: 1200 } })
    expect(numeros(all.body)).toEqual([N(1), N(3)])
    expect((await get(app, '/v1/licitacoes/abertas?uf=BA')).body).toMatchObject({ total: 0, oportunidades: [], encerradas_omitidas: 1 })
    const sp = (await get(app, '/v1/licitacoes/abertas?por_pagina=1&pagina=2')).body
    expect(numeros(sp)).toEqual([N(3)])
    // The source's line breaks kept, only the ends trimmed.
    expect(sp.oportunidades[0].objeto).toBe('REGISTRO DE PREÇOS PARA:\nLOTE 1 - PAPEL;\nLOTE 2 - TONER')
  })

  test('another modalidade asked with a uf, never fetched: 503 (nothing to charge for), then its own copy for that UF', async () => {
    const first = await get(app, '/v1/licitacoes/abertas?modalidade=8&uf=MG')
    expect(first.status).toBe(503)
    expect(first.body.erro.codigo).toBe('dados_indisponiveis')
    expect(first.body.erro.mensagem).toBe('Esta resposta não teria nenhum dado: nenhuma cópia de PNCP/contratacoes/proposta foi obtida ainda. Nada foi cobrado; tente de novo em alguns minutos.')
    await until(() => runner.copy(ABERTAS_FEED, '8-MG') !== null)
    const r = await get(app, '/v1/licitacoes/abertas?modalidade=8&uf=MG')
    expect(r.status).toBe(200)
    expect(numeros(r.body)).toEqual([N(4)])
    expect(r.body.oportunidades[0].modalidade).toEqual({ codigo: '8', nome: 'Dispensa de Licitação' })
    const q = fake.propostasAsked.at(-1)!
    expect([q.get('codigoModalidadeContratacao'), q.get('uf')]).toEqual(['8', 'MG'])
  })

  test('PNCP down: a uf is still filtered from the copy fetched before the outage, which says how old it is and why', async () => {
    fake.server.stop()
    clock.t = T0 + 80 * MIN
    await get(app, '/v1/licitacoes/abertas?uf=MG') // starts the refresh, which fails
    await until(() => runner.copy(ABERTAS_FEED, '6')?.ultimo_erro != null)
    const mg = await get(app, '/v1/licitacoes/abertas?uf=MG')
    expect(mg.status).toBe(200)
    expect(numeros(mg.body)).toEqual([N(1)])
    const erro = runner.copy(ABERTAS_FEED, '6')!.ultimo_erro!
    expect(erro).toStartWith(`${fake.server.url}/v1/contratacoes/proposta: `)
    expect(mg.body.fonte).toEqual({
      base: 'PNCP/contratacoes/proposta',
      consultado_em: '2026-11-24T12:00:00.000Z',
      defasagem_segundos: 80 * 60,
      atualiza_a_cada_minutos: 30,
      cache: true,
      status: 'cache_servido',
      tentado_em: '2026-11-24T13:20:00.000Z',
      ultimo_erro: erro,
    })
    expect(mg.body.aviso).toBe(`a lista do PNCP: dados de 2026-11-24T12:00:00.000Z (há 80 min), mais velhos que o prometido (30 min); a última consulta falhou (${erro}).`)
    // The UF fetched on its own before the outage: its copy, too.
    const dispensa = await get(app, '/v1/licitacoes/abertas?modalidade=8&uf=MG')
    expect(dispensa.status).toBe(200)
    expect(numeros(dispensa.body)).toEqual([N(4)])
    expect(dispensa.body.fonte.status).toBe('cache_servido')
    // /v1/health reports the same record of the source as the route (its default query).
    const health = (await get(app, '/v1/health')).body.fontes.find((f: any) => f.nome === ABERTAS_FEED)
    expect(health).toEqual({ ...mg.body.fonte, nome: ABERTAS_FEED, falhas: 1, problema: null })
    fake.server.start()
    process.env.PNCP_URL = fake.server.url
  })
})

describe('the bundled sample (recorded 2023-10-17, real format)', () => {
  test('served as the sample of its date: amostra, the tenders open that day, filtered by uf; PNCP down', async () => {
    const { app: sample } = await testApp({ dataDir: await sampleDir() })
    const saved = process.env.PNCP_URL
    process.env.PNCP_URL = 'http://127.0.0.1:9' // nothing listens: every attempt fails at once
    try {
      const clocked = onClock(sample)
      clock.t = Date.parse('2026-11-24T12:00:00Z')
      const all = await get(sample, '/v1/licitacoes/abertas')
      expect(all.status).toBe(200)
      expect(all.body).toMatchObject({ total: 2, abertas_em: '2023-10-17T16:00:00.000Z', encerradas_omitidas: 0 })
      expect(numeros(all.body)).toEqual(['99887766000105-1-000012/2023', '14232086000192-1-000060/2023'])
      expect(all.body.fonte).toMatchObject({ consultado_em: '2023-10-17T16:00:00.000Z', status: 'amostra', defasagem_segundos: 97_963_200 })
      expect(all.body.aviso).toStartWith('a lista do PNCP: amostra embutida no programa, gravada em 2023-10-17T16:00:00.000Z (há 1134 dias): não são dados atuais')
      const mg = await get(sample, '/v1/licitacoes/abertas?uf=MG')
      expect(numeros(mg.body)).toEqual(['99887766000105-1-000012/2023'])
      expect(mg.body.oportunidades[0]).toMatchObject({ objeto: 'REGISTRO DE PREÇOS PARA AQUISIÇÃO DE MATERIAL DE LIMPEZA', unidade: { uf: 'MG', municipio: 'Belo Horizonte' } })
      const ba = await get(sample, '/v1/licitacoes/abertas?uf=BA')
      expect(numeros(ba.body)).toEqual(['14232086000192-1-000060/2023'])
      expect(ba.body.oportunidades[0]).toMatchObject({ unidade: { uf: 'BA', municipio: 'Araci' }, data_encerramento_proposta: '2023-10-27T23:59:00-03:00', valor_estimado: null })
      // No copy of another modalidade in the sample: 503, nothing charged.
      expect((await get(sample, '/v1/licitacoes/abertas?modalidade=8')).status).toBe(503)
      await until(() => clocked.copy(ABERTAS_FEED, '6')?.ultimo_erro != null)
      // The failed attempt is recorded; the copy is still the sample.
      expect((await get(sample, '/v1/licitacoes/abertas?uf=MG')).body.fonte).toMatchObject({ status: 'amostra', tentado_em: '2026-11-24T12:00:00.000Z' })
    } finally {
      process.env.PNCP_URL = saved
      await sample.close()
    }
  })
})
