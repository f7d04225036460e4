// Never paid for nothing, in the route declaration itself: defineRoute makes a paid route whose
// answer has no data a 503 dados_indisponiveis (the payment layer settles only a 2xx), whatever form
// the handler returns its answer in, and declares that 503 with the route's errors.
import { describe, expect, test } from 'bun:test'
import { z } from 'zod'
import type { AppContext } from '../../src/core/context'
import { ApiError, JsonText } from '../../src/core/errors'
import { FonteFeed } from '../../src/core/feeds/model'
import { perSecond } from '../../src/core/per-second'
import { defineRoute, type RouteDef, type RouteInput } from '../../src/core/route'

const Resposta = z.object({ valor: z.number().nullable(), fonte: FonteFeed })
/** A `fonte` of a source with no copy yet, as the feed runner writes it. */
type Fonte = z.infer<typeof FonteFeed>
const semCopia: Fonte = { base: 'Fonte/teste', consultado_em: null, defasagem_segundos: null, atualiza_a_cada_minutos: 30, cache: false, status: 'fonte_indisponivel', tentado_em: '2026-11-24T12:00:00.000Z', ultimo_erro: '$TESTE_URL/valor: HTTP 503' }
const comCopia: Fonte = { ...semCopia, consultado_em: '2026-11-24T11:50:00.000Z', defasagem_segundos: 600, cache: true, status: 'ok', ultimo_erro: null }

const rota = (handler: RouteDef['handler'], price: number | null = 0.002) =>
  defineRoute({ path: '/v1/teste/valor', dataset: 'teste', summary: 's', price, response: Resposta, errors: ['parametro_invalido'], handler })
const input = { ctx: {} as AppContext } as RouteInput<unknown, unknown>

/** What the handler answers: the body, or the error code and message it throws. */
async function outcome(route: RouteDef): Promise<unknown> {
  try {
    const out = await route.handler(input)
    return out instanceof JsonText ? out.parse() : out
  } catch (e) {
    return e instanceof ApiError ? [e.codigo, e.message] : e
  }
}

const RECUSA = ['dados_indisponiveis', 'Esta resposta não teria nenhum dado: nenhuma cópia de Fonte/teste foi obtida ainda. Nada foi cobrado; tente de novo em alguns minutos.']

describe('a paid answer with no data is a 503, not a charge', () => {
  test('in every form a handler answers: a value, a promise, JSON written with its value, JSON written alone', async () => {
    const corpo = { valor: null, fonte: semCopia }
    expect(await outcome(rota(() => corpo))).toEqual(RECUSA)
    expect(await outcome(rota(async () => corpo))).toEqual(RECUSA)
    expect(await outcome(rota(() => new JsonText(JSON.stringify(corpo), corpo)))).toEqual(RECUSA)
    // Serialized early without the value (as the SQLite-backed routes do): parsed back, never let through.
    expect(await outcome(rota(() => new JsonText(JSON.stringify(corpo))))).toEqual(RECUSA)
    expect(await outcome(rota(async () => new JsonText(new TextEncoder().encode(JSON.stringify(corpo)))))).toEqual(RECUSA)
  })

  test('an answer with data passes as it is, in the same form; a free route is never checked', async () => {
    const corpo = { valor: 5.25, fonte: comCopia }
    const escrito = new JsonText(JSON.stringify(corpo))
    expect(rota(() => escrito).handler(input)).toBe(escrito)
    expect(rota(() => corpo).handler(input)).toBe(corpo)
    expect(await outcome(rota(() => ({ valor: null, fonte: semCopia }), null))).toEqual({ valor: null, fonte: semCopia })
  })

  test('the 503 is declared with the route errors (OpenAPI, MCP and the error examples read them), once', () => {
    expect(rota(() => ({ valor: 1, fonte: comCopia })).errors).toEqual(['parametro_invalido', 'dados_indisponiveis'])
    const declarada = defineRoute({ path: '/v1/teste/x', dataset: 'teste', summary: 's', price: 0.002, response: Resposta, errors: ['dados_indisponiveis'], handler: () => ({ valor: 1, fonte: comCopia }) })
    expect(declarada.errors).toEqual(['dados_indisponiveis'])
    // No check (free, or semDados: false): the declaration stays as written.
    expect(rota(() => ({ valor: 1, fonte: comCopia }), null).errors).toEqual(['parametro_invalido'])
    expect(defineRoute({ path: '/v1/teste/y', dataset: 'teste', summary: 's', price: 0.002, response: Resposta, errors: [], semDados: false, handler: () => ({ valor: null, fonte: semCopia }) }).errors).toEqual([])
  })
})

describe('perSecond: one build a second per process, checked like any answer', () => {
  test('the same bytes within a second, its value kept for the check; a failed build is not kept', async () => {
    let builds = 0
    let falhar = true
    const handler = perSecond(async () => {
      builds++
      if (falhar) throw new Error('cópia ilegível')
      return { valor: builds, fonte: comCopia }
    })
    const ctx = {} as AppContext
    // Not at the edge of a second: the two calls below must fall in the same one.
    if (Date.now() % 1000 > 800) await Bun.sleep(1000 - (Date.now() % 1000) + 10)
    await expect(handler({ ctx })).rejects.toThrow('cópia ilegível')
    falhar = false
    const [a, b] = await Promise.all([handler({ ctx }), handler({ ctx })])
    expect(a).toBe(b)
    expect(builds).toBe(2)
    expect(a.source).toEqual({ valor: 2, fonte: comCopia })
    expect(a.parse()).toEqual({ valor: 2, fonte: comCopia })
    // Another app (context) builds its own.
    expect((await handler({ ctx: {} as AppContext })).source).toEqual({ valor: 3, fonte: comCopia })
  })

  test('a perSecond answer with no data is refused by the route', async () => {
    expect(await outcome(rota(perSecond(async () => ({ valor: null, fonte: semCopia }))))).toEqual(RECUSA)
  })
})
