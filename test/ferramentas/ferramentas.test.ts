import { afterAll, describe, expect, test } from 'bun:test'
import vectors from './fixtures/documentos.json'
import { get, testApp } from '../helpers'

const { app, logs } = await testApp()
afterAll(() => app.close())

describe('/v1/ferramentas/cnpj/{valor}', () => {
  for (const v of vectors.cnpj) {
    test(`${v.entrada} -> ${v.motivo ?? 'válido'}`, async () => {
      const { entrada, ...expected } = v
      const r = await get(app, `/v1/ferramentas/cnpj/${encodeURIComponent(entrada)}`)
      expect(r.status).toBe(200)
      expect(r.body).toEqual(expected)
    })
  }

  test('a punctuated CNPJ pasted with its raw slash still resolves', async () => {
    const r = await get(app, '/v1/ferramentas/cnpj/33.683.111/0002-80')
    expect(r.body).toEqual({ valido: true, motivo: null, cnpj: '33683111000280', formatado: '33.683.111/0002-80', raiz: '33683111', matriz: false })
  })

  test('an input that is not a CNPJ is never echoed (it may be a CPF)', async () => {
    const r = await get(app, '/v1/ferramentas/cnpj/52998224725')
    expect(r.text).not.toContain('52998224725')
  })
})

describe('/v1/ferramentas/cpf/{valor}', () => {
  for (const v of vectors.cpf) {
    test(`${v.entrada} -> ${v.motivo ?? 'válido'}`, async () => {
      const { entrada, ...expected } = v
      const r = await get(app, `/v1/ferramentas/cpf/${encodeURIComponent(entrada)}`)
      expect(r.status).toBe(200)
      expect(r.body).toEqual(expected)
      // The full number never appears in the response.
      const digits = entrada.replace(/\D/g, '')
      if (digits.length >= 11) expect(r.text).not.toContain(digits)
    })
  }

  test('the CPF never reaches the logs', async () => {
    logs.length = 0
    await get(app, '/v1/ferramentas/cpf/529.982.247-25')
    await get(app, '/v1/ferramentas/cpf/52998224725?x=1')
    expect(logs.length).toBeGreaterThan(0)
    for (const line of logs) {
      expect(line).not.toContain('52998224725')
      expect(line).not.toContain('529.982.247-25')
    }
  })
})

test('/v1/ferramentas lists both tools with absolute URLs', async () => {
  const r = await get(app, '/v1/ferramentas')
  expect(r.status).toBe(200)
  expect(r.body.gratis).toBe(true)
  expect(r.body.ferramentas.map((t: { url: string }) => t.url)).toEqual([
    'http://localhost/v1/ferramentas/cnpj/{valor}',
    'http://localhost/v1/ferramentas/cpf/{valor}',
  ])
})
