// The optional LLM classifier against a local fake of the OpenAI chat-completions API (a Bun server
// on 127.0.0.1): it grades when it answers in the format asked; whenever it fails, is slow, answers
// garbage or skips an item, the lexicon's grade stays. Inside the news refresh, graded items are not
// asked again.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { MERCADO_FEEDS } from '../../src/datasets/mercado'
import { classificarLlm, llmConfig, type LlmConfig } from '../../src/datasets/mercado/classificador/llm'
import type { NoticiasDados } from '../../src/datasets/mercado/noticias/feed'
import { tempDir } from '../temp'
import { GRAVADO_EM, startUpstreams } from './helpers'

type Mode = 'ok' | 'fenced' | 'partial' | 'status' | 'slow' | 'garbage' | 'out-of-vocabulary'
let mode: Mode = 'ok'
const received: { authorization: string | null; body: any }[] = []

const fake = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const url = new URL(req.url)
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') return new Response('not found', { status: 404 })
    const body = (await req.json()) as any
    received.push({ authorization: req.headers.get('authorization'), body })
    if (mode === 'status') return Response.json({ error: { message: 'The server had an error' } }, { status: 500 })
    if (mode === 'slow') await Bun.sleep(2000)
    const itens = JSON.parse(body.messages[1].content).itens as { id: string }[]
    const graded = (mode === 'partial' ? itens.slice(0, 1) : itens).map((i) => ({ id: i.id, tema: mode === 'out-of-vocabulary' ? 'bolsa' : 'empresas', sentimento: 'negativo', relevancia: 9 }))
    const json = JSON.stringify({ itens: graded })
    const content = mode === 'garbage' ? 'Desculpe, não consigo ajudar com isso.' : mode === 'fenced' ? `Claro!\n\`\`\`json\n${json}\n\`\`\`` : json
    return Response.json({ id: 'chatcmpl-teste', object: 'chat.completion', created: 1769700600, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] })
  },
})
const LLM_URL = `http://127.0.0.1:${fake.port}/v1`
const config: LlmConfig = { url: LLM_URL, model: 'modelo-teste', apiKey: 'chave-teste', timeoutMs: 500, budgetMs: 3000 }
const items = [
  { id: 'a', titulo: 'Dólar cai 1,4% e fecha a R$ 5,20', resumo: null },
  { id: 'b', titulo: 'Bitcoin sobe 5% e volta a US$ 95 mil', resumo: 'resumo' },
]

const up = startUpstreams()
afterAll(() => {
  fake.stop(true)
  up.close()
})
beforeEach(() => {
  mode = 'ok'
  received.length = 0
})

describe('classificarLlm', () => {
  test('grades every item in the chat-completions format, with the key as a bearer token and temperature 0', async () => {
    const { notas, erros } = await classificarLlm(config, items)
    expect(erros).toEqual([])
    expect(Object.fromEntries(notas)).toEqual({ a: { tema: 'empresas', sentimento: 'negativo', relevancia: 9 }, b: { tema: 'empresas', sentimento: 'negativo', relevancia: 9 } })
    expect(received[0]!.authorization).toBe('Bearer chave-teste')
    expect(received[0]!.body).toMatchObject({ model: 'modelo-teste', temperature: 0 })
    expect(received[0]!.body.messages[0].role).toBe('system')
  })

  test('an answer inside ```json fences is read', async () => {
    mode = 'fenced'
    expect((await classificarLlm(config, items)).notas.size).toBe(2)
  })

  test('failures grade nothing and say why: 5xx, slow past the timeout, prose, a topic out of the vocabulary; a skipped item stays ungraded', async () => {
    const cases: [Mode, string[], number][] = [
      ['status', ['LLM: HTTP 500'], 0],
      ['slow', ['LLM: sem resposta em 500 ms'], 0],
      ['garbage', ['LLM: resposta fora do formato pedido (não é JSON)'], 0],
      ['out-of-vocabulary', ['LLM: resposta fora do formato pedido'], 0],
      ['partial', [], 1],
    ]
    for (const [m, erros, graded] of cases) {
      mode = m
      const r = await classificarLlm(config, items)
      expect([m, r.erros, r.notas.size]).toEqual([m, erros, graded])
    }
  })

  test('configured only with LLM_URL and LLM_MODEL (http/https)', () => {
    expect(llmConfig({})).toBeNull()
    expect(llmConfig({ LLM_URL: LLM_URL })).toBeNull()
    expect(llmConfig({ LLM_URL: 'ftp://x', LLM_MODEL: 'm' })).toBeNull()
    expect(llmConfig({ LLM_URL: `${LLM_URL}/`, LLM_MODEL: 'm' })).toEqual({ url: LLM_URL, model: 'm', apiKey: null, timeoutMs: 10_000, budgetMs: 30_000 })
  })
})

describe('inside the news refresh', () => {
  const withLlm = async (fn: () => Promise<void>) => {
    Object.assign(process.env, { LLM_URL, LLM_MODEL: 'modelo-teste', LLM_API_KEY: 'chave-teste', LLM_TIMEOUT_MS: '500' })
    try {
      await fn()
    } finally {
      for (const k of ['LLM_URL', 'LLM_MODEL', 'LLM_API_KEY', 'LLM_TIMEOUT_MS']) delete process.env[k]
    }
  }

  test('the LLM grades the headlines and says so per item; the next refresh does not ask again about the same items', () =>
    withLlm(async () => {
      const clock = { t: GRAVADO_EM }
      const r = new FeedRunner(MERCADO_FEEDS, { dataDir: tempDir('mercado-llm-'), log: createLogger('silent'), now: () => clock.t })
      const d = (await r.refresh('mercado-noticias')).dados as NoticiasDados
      expect(d.itens.map((n) => [n.veiculo, n.tema, n.sentimento, n.relevancia, n.classificador])).toEqual([
        ['g1', 'empresas', 'negativo', 9, 'llm'],
        ['Poder360', 'empresas', 'negativo', 9, 'llm'],
        ['Exame', 'empresas', 'negativo', 9, 'llm'],
      ])
      expect(d.classificacao).toEqual({ lexico: 'lexico-1', llm_modelo: 'modelo-teste', llm_erros: [] })
      expect(received).toHaveLength(1)
      clock.t += 60_000
      await r.refresh('mercado-noticias')
      expect(received).toHaveLength(1)
    }))

  test('the LLM down: the lexicon grades, the error is in the copy, the refresh succeeds', () =>
    withLlm(async () => {
      mode = 'status'
      const r = new FeedRunner(MERCADO_FEEDS, { dataDir: tempDir('mercado-llm-'), log: createLogger('silent'), now: () => GRAVADO_EM })
      const d = (await r.refresh('mercado-noticias')).dados as NoticiasDados
      expect(d.itens.map((n) => [n.tema, n.sentimento, n.relevancia, n.classificador])).toEqual([
        ['macro', 'neutro', 8, 'lexico'],
        ['macro', 'positivo', 7, 'lexico'],
        ['macro', 'neutro', 3, 'lexico'],
      ])
      expect(d.classificacao.llm_erros).toEqual(['LLM: HTTP 500'])
    }))
})
