// The routes over a loaded build: the screening, 400 before any lookup, 503 without data, the
// free sample (from the data or from the copy in the program), live pickup of a new build.
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { encodeCp1252 } from '../../ingest/lib/cp1252'
import { writeZipFiles } from '../../ingest/lib/zip-write'
import { ACORDOS_HEADER, cguCsv, EFEITOS_HEADER } from '../../ingest/integridade/format'
import { buildIntegridade } from '../../ingest/integridade/load'
import type { IntegridadeStore } from '../../src/datasets/integridade/store'
import { get, tempDir, testApp } from '../helpers'
import { amostraFromSample, AMOSTRA_FILE, committedAmostra } from './amostra'
import { FICTICIAS } from './fixtures/make-fixtures'
import { copySample, SAMPLE } from './helpers'

const dataDir = tempDir('dadosbr-integridade-app-')
await buildIntegridade({ dir: SAMPLE, dataDir })
const { app } = await testApp({ dataDir })
afterAll(() => app.close())

describe('/v1/integridade/consulta/{cnpj}', () => {
  test('a punctuated CNPJ, the root\'s records across lists, fonte with each list\'s date', async () => {
    const r = await get(app, '/v1/integridade/consulta/90.111.222/0001-74')
    expect(r.status).toBe(200)
    expect(r.body.cnpj).toBe(FICTICIAS.alfaMatriz)
    expect(Object.keys(r.body)).toEqual(['cnpj', 'total_apontamentos', 'ficha_limpa', 'apontamentos', 'fonte'])
    expect(Object.keys(r.body.apontamentos)).toEqual(['ceis', 'cnep', 'cepim', 'trabalho_escravo', 'acordos_leniencia'])
    expect([r.body.total_apontamentos, r.body.ficha_limpa, r.body.apontamentos.ceis.length, r.body.apontamentos.cnep.length]).toEqual([4, false, 2, 2])
    expect(r.body.fonte.listas).toEqual({ ceis: '2026-11-20', cnep: '2026-11-20', cepim: '2026-11-20', trabalho_escravo: '2026-09-04', acordos_leniencia: '2026-11-20' })
    // The slashes of a punctuated CNPJ may also come percent-encoded.
    expect((await get(app, '/v1/integridade/consulta/90.111.222%2F0001-74')).body.total_apontamentos).toBe(4)
  })

  test('a valid CNPJ on no list: 200, clean record', async () => {
    const r = await get(app, '/v1/integridade/consulta/33683111000280')
    expect([r.status, r.body.ficha_limpa, r.body.total_apontamentos]).toEqual([200, true, 0])
  })

  test('an invalid CNPJ: 400 cnpj_invalido in the envelope', async () => {
    for (const bad of ['90111222000175', '123', 'abc', '00000000000000']) {
      const r = await get(app, `/v1/integridade/consulta/${bad}`)
      expect(r.status).toBe(400)
      expect(Object.keys(r.body)).toEqual(['erro'])
      expect(r.body.erro.codigo).toBe('cnpj_invalido')
    }
  })

  test('the OpenAPI document says how matching, vigente and ficha_limpa work', async () => {
    const doc = (await get(app, '/openapi.json')).body
    const op = doc.paths['/v1/integridade/consulta/{cnpj}'].get
    for (const words of ['mesma raiz de 8 caracteres', 'correspondencia=raiz', 'ficha_limpa = nenhum apontamento vigente', 'total_apontamentos conta todos', 'fonte.listas'])
      expect(op.description).toContain(words)
  })
})

describe('/v1/integridade/amostra', () => {
  test('the bundled copy is exactly what the bundled sample builds today (rewrite it with `bun test/integridade/amostra.ts`)', async () => {
    expect(AMOSTRA_FILE).toEndWith(join('src', 'datasets', 'integridade', 'amostra.json'))
    expect(committedAmostra()).toBe(await amostraFromSample())
  })

  test('from the loaded data: a real sanctioned company, flagged amostra', async () => {
    const r = await get(app, '/v1/integridade/amostra')
    expect([r.status, r.body.amostra, r.body.cnpj, r.body.ficha_limpa, r.body.apontamentos.trabalho_escravo[0].empregador]).toEqual([200, true, '00638595000105', false, 'VIABRAS ENGENHARIA EIRELI'])
    expect(r.body).toEqual(JSON.parse(committedAmostra()))
  })

  test('no data loaded: the sample still answers (the copy); the paid route says how to build the data', async () => {
    const { app: empty } = await testApp({ dataDir: tempDir('dadosbr-vazio-') })
    try {
      expect((await get(empty, '/v1/integridade/amostra')).body).toEqual(JSON.parse(committedAmostra()))
      const r = await get(empty, '/v1/integridade/consulta/33683111000280')
      expect([r.status, r.body.erro.codigo]).toEqual([503, 'dados_indisponiveis'])
      expect(r.body.erro.mensagem).toContain("dadosbr ingest integridade")
      // Validation still comes first.
      expect((await get(empty, '/v1/integridade/consulta/123')).status).toBe(400)
    } finally {
      await empty.close()
    }
  })
})

describe('live pickup', () => {
  test('a new build is served after the swap without restart; a failed one changes nothing', async () => {
    const dir = tempDir('dadosbr-integridade-live-')
    await buildIntegridade({ dir: SAMPLE, dataDir: dir })
    const { app: served } = await testApp({ dataDir: dir })
    try {
      expect((await get(served, `/v1/integridade/consulta/${FICTICIAS.gama}`)).body.total_apontamentos).toBe(2)
      const next = copySample()
      await writeZipFiles(join(next, '20261120_Acordos.zip'), [
        { name: '20261121_Acordos.csv', content: encodeCp1252(cguCsv(ACORDOS_HEADER, [['9002', FICTICIAS.delta, 'DELTA CONSTRUCOES FICTICIA LTDA', '', '01/03/2019', '01/03/2022', 'Acordo cumprido', '05/03/2022', '1', '', 'CGU/AGU']])) },
        { name: '20261121_Efeitos.csv', content: encodeCp1252(cguCsv(EFEITOS_HEADER, [])) },
      ])
      await buildIntegridade({ dir: next, dataDir: dir })
      // The server polls `current` every 2 s; the test asks for the check now.
      const store = served.ctx.stores.get('integridade') as IntegridadeStore
      expect(await store.reload()).toBe(true)
      const after = (await get(served, `/v1/integridade/consulta/${FICTICIAS.gama}`)).body
      expect([after.total_apontamentos, after.fonte.listas.acordos_leniencia]).toEqual([0, '2026-11-21'])
      // A failed build: the answers stay.
      await expect(buildIntegridade({ dir: tempDir('dadosbr-vazio-'), dataDir: dir, force: true })).rejects.toThrow('falta')
      expect(await store.reload()).toBe(false)
      expect((await get(served, `/v1/integridade/consulta/${FICTICIAS.delta}`)).body.total_apontamentos).toBe(1)
    } finally {
      await served.close()
    }
  })
})
