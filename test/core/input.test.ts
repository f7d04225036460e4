// Input a Brazilian user understands and the same rules everywhere: one Portuguese message per
// rule naming the parameter and what it allows; integers are digits; bad escapes are 400; a
// trailing slash is the same path; a request line of any size up to 1 MiB gets the JSON envelope.
import { afterAll, describe, expect, test } from 'bun:test'
import { get, testApp } from '../helpers'
import { startServe } from '../serve-process'

const { app } = await testApp()
afterAll(() => app.close())

const JS_WORDS = /undefined|NaN|Infinity|9007199254740991|recebeu|Demasiado|esperava|Invalid|expected/i

describe('validation messages', () => {
  const cases: [string, string][] = [
    ['/v1/cnpj/busca?uf=SP&por_pagina=0x10', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=1e1', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=%2010', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=%2B5', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=10.0', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=0', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=51', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&por_pagina=99999999999999999999999', "parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 50"],
    ['/v1/cnpj/busca?uf=SP&pagina=NaN', "parâmetro de consulta 'pagina': deve ser um número inteiro de 1 a 1000000"],
    ['/v1/cnpj/socio/busca?documento=***1**', "parâmetro de consulta 'documento': CPF mascarado com formato inválido: use como a Receita publica, três asteriscos, os 6 dígitos do meio do CPF e dois asteriscos (ex. ***456789**)"],
    ['/v1/cnpj/socio/busca?nome=ab', "parâmetro de consulta 'nome': deve ter ao menos 3 caracteres"],
    ['/v1/cnpj/busca?situacao=fechada', "parâmetro de consulta 'situacao': deve ser um destes valores: ativa, baixada, suspensa, inapta, nula"],
  ]
  for (const [path, mensagem] of cases)
    test(`${path} -> 400 "${mensagem}"`, async () => {
      const r = await get(app, path)
      expect(r.status).toBe(400)
      expect(r.body.erro).toEqual({ codigo: 'parametro_invalido', mensagem })
    })

  test('no message carries JavaScript words or limits', async () => {
    for (const path of ['/v1/cnpj/busca?pagina=', '/v1/cnpj/busca?uf=S', '/v1/cnpj/busca?abertura_de=2026-02-30', '/v1/cnpj/socio/busca?nome=' + 'a'.repeat(300), '/v1/cnpj/busca?por_pagina=-1']) {
      const r = await get(app, path)
      expect(r.status).toBe(400)
      expect(r.body.erro.mensagem).not.toMatch(JS_WORDS)
    }
  })
})

describe('strict and consistent input', () => {
  test('a malformed percent-escape in the query is a 400, as in the path', async () => {
    for (const path of ['/v1/cnpj/socio/busca?nome=%ZZ', '/v1/cnpj/busca?nome=farm%', '/v1/health?x=%G1']) {
      const r = await get(app, path)
      expect(r.status).toBe(400)
      expect(r.body.erro.codigo).toBe('parametro_invalido')
      expect(r.body.erro.mensagem).toContain('codificação por cento inválida')
    }
  })

  test('a trailing slash answers as the path without it', async () => {
    for (const path of ['/v1/health', '/v1/ferramentas/cnpj/33683111000280', '/v1/ferramentas']) {
      const plain = await get(app, path)
      for (const slashed of [`${path}/`, `${path}//`]) {
        const r = await get(app, slashed)
        expect(r.status).toBe(200)
        if (!path.endsWith('health')) expect(r.body).toEqual(plain.body)
      }
    }
    expect((await get(app, '/v1/ferramentas/cpf/52998224725/?x')).status).toBe(400) // unknown parameter, still routed
  })
})

describe('a long request line on a real socket', () => {
  test('gets the JSON envelope (414) at 9 KB, 20 KB and 500 KB, and the server keeps serving', async () => {
    const server = startServe(['--data', '/nonexistent', '--port', '0', '--processos', '1'])
    try {
      const { port } = await server.announced
      for (const size of [9_000, 20_000, 500_000]) {
        const r = await fetch(`http://127.0.0.1:${port}/v1/health?x=${'a'.repeat(size)}`)
        expect(r.status).toBe(414)
        expect(((await r.json()) as any).erro.codigo).toBe('uri_muito_longa')
      }
      expect((await fetch(`http://127.0.0.1:${port}/v1/health`)).status).toBe(200)
    } finally {
      server.proc.kill()
      await server.proc.exited
    }
  })
})
