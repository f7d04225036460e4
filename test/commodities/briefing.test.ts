// The briefing's optional LLM against a local fake of the chat-completions API: the rewrite is used
// only when it keeps every number of the template; a changed number, an error, garbage or silence
// leave the template, and the answer says who wrote it and why. An unchanged edition calls no one.
import { afterAll, describe, expect, test } from 'bun:test'
import { startReplay } from '../../ingest/lib/replay'
import type { FeedFetchContext } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { fetchUpstream } from '../../src/core/upstream'
import { fetchBriefing, type BriefingDados } from '../../src/datasets/commodities/briefing'
import { numerosDe } from '../../src/datasets/commodities/briefing-regras'
import { GRAVADO_EM, sampleDataDir } from './helpers'

const dataDir = await sampleDataDir()
const llm = startReplay()
afterAll(() => llm.close())

type Mode = 'reword' | 'renumber' | 'fenced' | 'missing' | 'garbage'
let mode: Mode = 'reword'
const bodies: any[] = []
llm.on('/v1/chat/completions', async (_url, request) => {
  const body = (await request.json()) as any
  bodies.push({ body, auth: request.headers.get('authorization') })
  const asked = JSON.parse(body.messages[1].content) as { resumo: string; destaques: { id: string; texto: string }[] }
  const reword = (t: string) => t.replace('signals point up for none', 'no commodity shows upward pressure').replace('dry days in a row', 'consecutive dry days')
  let out = { resumo: reword(asked.resumo), destaques: asked.destaques.map((d) => ({ id: d.id, texto: reword(d.texto) })) }
  if (mode === 'renumber') out.destaques[0]!.texto = out.destaques[0]!.texto.replace('16 consecutive', '17 consecutive')
  if (mode === 'missing') out.destaques = out.destaques.slice(1)
  const content = mode === 'garbage' ? 'Sure! Here is the rewritten briefing.' : mode === 'fenced' ? '```json\n' + JSON.stringify(out) + '\n```' : JSON.stringify(out)
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }) }
})

const ENV = { LLM_URL: `${llm.url}/v1`, LLM_MODEL: 'modelo-teste', LLM_API_KEY: 'chave-de-teste' }

function ctx(previous: BriefingDados | null = null): FeedFetchContext {
  return { url: () => '', fetch: (u, o) => fetchUpstream(u, o), log: createLogger('silent'), previous, now: () => GRAVADO_EM, dataDir }
}

describe('briefing with an OpenAI-compatible LLM', () => {
  test('without LLM settings: the template, written by the template', async () => {
    const b = await fetchBriefing(ctx(), {})
    expect([b.escrito_por, b.modelo, b.llm_erro]).toEqual(['template', null, null])
    expect(b.destaques[0]!.texto).toContain('16 dry days in a row')
  })

  test('a rewrite that keeps every number is used, and says so; the request carries the model and the key', async () => {
    mode = 'reword'
    const template = await fetchBriefing(ctx(), {})
    const b = await fetchBriefing(ctx(), ENV)
    expect([b.escrito_por, b.modelo, b.llm_erro]).toEqual(['llm', 'modelo-teste', null])
    expect(b.resumo).toContain('no commodity shows upward pressure')
    expect(b.destaques[0]!.texto).toContain('16 consecutive dry days')
    // Directions, scores and evidence are the template's: the LLM writes prose only.
    expect(b.destaques.map((d) => [d.id, d.direcao, d.pontuacao, d.evidencias])).toEqual(template.destaques.map((d) => [d.id, d.direcao, d.pontuacao, d.evidencias]))
    for (let i = 0; i < b.destaques.length; i++) expect(numerosDe(b.destaques[i]!.texto)).toEqual(numerosDe(template.destaques[i]!.texto))
    const last = bodies[bodies.length - 1]!
    expect(last.body.model).toBe('modelo-teste')
    expect(last.body.temperature).toBe(0)
    expect(last.auth).toBe('Bearer chave-de-teste')
  })

  test('an answer in a ```json fence is read', async () => {
    mode = 'fenced'
    expect((await fetchBriefing(ctx(), ENV)).escrito_por).toBe('llm')
  })

  test('a rewrite that changes a number is refused: the template stands, with the reason', async () => {
    mode = 'renumber'
    const b = await fetchBriefing(ctx(), ENV)
    expect(b.escrito_por).toBe('template')
    expect(b.llm_erro).toBe('LLM: o destaque soybeans reescrito mudou os números; ficou o texto do modelo determinístico')
    expect(b.destaques[0]!.texto).toContain('16 dry days in a row')
  })

  test('a highlight left out, prose instead of JSON, HTTP 500, a server that is down: the template', async () => {
    mode = 'missing'
    expect((await fetchBriefing(ctx(), ENV)).llm_erro).toBe('LLM: faltou o destaque soybeans')
    mode = 'garbage'
    expect((await fetchBriefing(ctx(), ENV)).llm_erro).toBe('LLM: texto fora do formato pedido (não é JSON)')
    llm.fault = { kind: 'status', status: 500 }
    expect((await fetchBriefing(ctx(), ENV)).llm_erro).toBe('LLM: HTTP 500')
    llm.fault = { kind: 'none' }
    llm.stop()
    const b = await fetchBriefing(ctx(), ENV)
    expect(b.escrito_por).toBe('template')
    expect(b.llm_erro).toStartWith('LLM: ')
    llm.start()
  })

  test('a slow LLM is abandoned at the budget (LLM_ORCAMENTO_MS)', async () => {
    mode = 'reword'
    llm.fault = { kind: 'slow', delayMs: 5_000 }
    const b = await fetchBriefing(ctx(), { ...ENV, LLM_ORCAMENTO_MS: '300' })
    llm.fault = { kind: 'none' }
    expect([b.escrito_por, b.llm_erro]).toEqual(['template', 'LLM: sem resposta em 300 ms'])
  })

  test('the same inputs give the same edition: no new LLM call', async () => {
    mode = 'reword'
    const first = await fetchBriefing(ctx(), ENV)
    const calls = bodies.length
    const again = await fetchBriefing(ctx(first), ENV)
    expect(again).toEqual(first)
    expect(bodies.length).toBe(calls)
  })

  test('no input copy at all: the refresh fails (the feed retries later), nothing is invented', async () => {
    const empty = { ...ctx(), dataDir: '/nonexistent-dadosbr-commodities' }
    await expect(fetchBriefing(empty, {})).rejects.toThrow('nenhum sinal com cópia ainda')
  })
})
