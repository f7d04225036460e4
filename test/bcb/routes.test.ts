// /v1/bcb/instituicao/{cnpj} over the bundled sample: a CNPJ or a root, punctuated or not; an
// unknown root; 400 before any lookup; the free sample.
import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { buildBcb } from '../../ingest/bcb/load'
import { get, tempDir, testApp } from '../helpers'
import { amostraFromSample, AMOSTRA_FILE, committedAmostra } from './amostra'
import { SAMPLE } from './helpers'

const dataDir = tempDir('dadosbr-bcb-app-')
await buildBcb({ dir: SAMPLE, dataDir })
const { app } = await testApp({ dataDir })
afterAll(() => app.close())

describe('/v1/bcb/instituicao/{cnpj}', () => {
  test('a full CNPJ, a root, punctuated or not: the same answer, by the root', async () => {
    const forms = ['00000000000191', '00.000.000/0001-91', '00.000.000%2F0001-91', '00000000', '00.000.000']
    const answers = await Promise.all(forms.map((f) => get(app, `/v1/bcb/instituicao/${f}`)))
    for (const r of answers) {
      expect(r.status).toBe(200)
      expect(r.body).toEqual(answers[0]!.body)
    }
    expect([answers[0]!.body.cnpj_basico, answers[0]!.body.autorizada, answers[0]!.body.dominios_verificados]).toEqual(['00000000', true, ['www.bb.com.br']])
    expect(Object.keys(answers[0]!.body)).toEqual(['cnpj_basico', 'autorizada', 'registros', 'dominios_verificados', 'fonte'])
  })

  test('a root on no list: 200, not authorized, empty lists', async () => {
    const r = await get(app, '/v1/bcb/instituicao/33683111000280')
    expect([r.status, r.body.cnpj_basico, r.body.autorizada, r.body.registros, r.body.dominios_verificados]).toEqual([200, '33683111', false, [], []])
  })

  test('invalid input: 400 cnpj_invalido in the envelope, with what to send', async () => {
    for (const bad of ['00000000000192', '1234567', '123456789', 'abc', '%20', 'AAAAAAAA']) {
      const r = await get(app, `/v1/bcb/instituicao/${bad}`)
      expect([bad, r.status, Object.keys(r.body), r.body.erro.codigo]).toEqual([bad, 400, ['erro'], 'cnpj_invalido'])
    }
    expect((await get(app, '/v1/bcb/instituicao/00000000000192')).body.erro.mensagem).toContain('dígitos verificadores inválidos')
    expect((await get(app, '/v1/bcb/instituicao/1234567')).body.erro.mensagem).toContain('use o CNPJ de 14 caracteres ou a raiz de 8')
  })
})

describe('/v1/bcb/amostra', () => {
  test('the bundled copy is what the bundled sample builds today (rewrite it with `bun test/bcb/amostra.ts`)', async () => {
    expect(AMOSTRA_FILE).toEndWith(join('src', 'datasets', 'bcb', 'amostra.json'))
    expect(committedAmostra()).toBe(await amostraFromSample())
  })

  test('a real authorized bank, flagged; from the copy when no data is loaded', async () => {
    const r = await get(app, '/v1/bcb/amostra')
    expect([r.status, r.body.amostra, r.body.cnpj_basico, r.body.registros[0].nome]).toEqual([200, true, '00000000', 'BANCO DO BRASIL S.A.'])
    const { app: empty } = await testApp({ dataDir: tempDir('dadosbr-vazio-') })
    try {
      expect((await get(empty, '/v1/bcb/amostra')).body).toEqual(r.body)
      expect((await get(empty, '/v1/bcb/instituicao/00000000')).status).toBe(503)
    } finally {
      await empty.close()
    }
  })
})
