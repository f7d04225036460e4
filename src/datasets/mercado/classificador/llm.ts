// Optional: an OpenAI-compatible chat-completions endpoint grades the headlines when configured
// (LLM_URL, LLM_MODEL, LLM_API_KEY). It runs inside the news refresh, never in a request; whatever
// it fails to grade in time (down, slow, garbage, an answer out of the vocabulary) keeps the
// lexicon's grade, so the feed is never worse than the lexicon.
import { z } from 'zod'
import { SENTIMENTOS, TEMAS, type Classificacao } from './lexico'

export interface LlmConfig {
  /** Base URL of the API, e.g. https://api.openai.com/v1 (the request goes to {url}/chat/completions). */
  url: string
  model: string
  apiKey: string | null
  /** Per request. */
  timeoutMs: number
  /** For the whole refresh: after it, the remaining headlines keep the lexicon's grade. */
  budgetMs: number
}

export const LLM_LOTE = 20

/** The configuration from the environment; null (lexicon only) unless LLM_URL and LLM_MODEL are set. */
export function llmConfig(env: Record<string, string | undefined> = process.env): LlmConfig | null {
  const url = env.LLM_URL?.trim()
  const model = env.LLM_MODEL?.trim()
  if (!url || !model) return null
  try {
    if (!['http:', 'https:'].includes(new URL(url).protocol)) return null
  } catch {
    return null
  }
  const ms = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d)
  return { url: url.replace(/\/+$/, ''), model, apiKey: env.LLM_API_KEY?.trim() || null, timeoutMs: ms(env.LLM_TIMEOUT_MS, 10_000), budgetMs: ms(env.LLM_ORCAMENTO_MS, 30_000) }
}

const INSTRUCOES = `Você classifica manchetes do noticiário financeiro brasileiro. Para cada item, responda:
- tema: um de ${TEMAS.join(', ')} (regulacao = regra, lei, imposto ou decisão de regulador/tribunal; cripto = criptoativos; cambio = dólar, real e outras moedas; empresas = uma ou poucas empresas nomeadas; macro = o resto da economia e do mercado como um todo);
- sentimento: um de ${SENTIMENTOS.join(', ')}, do ponto de vista de um leitor do mercado brasileiro (dólar em queda e inflação em queda são positivos; agenda e decisões esperadas sem direção são neutras);
- relevancia: inteiro de 0 a 10 (9-10 decisões de banco central e choques; 7-8 dados-chave como IPCA e PIB; 5-6 resultados e notícias setoriais; 3-4 notícias menores; 0-2 conteúdo de serviço).
Responda só com JSON: {"itens":[{"id":"...","tema":"...","sentimento":"...","relevancia":0}]}`

const Resposta = z.object({
  itens: z.array(z.object({ id: z.string(), tema: z.enum(TEMAS), sentimento: z.enum(SENTIMENTOS), relevancia: z.number().int().min(0).max(10) })),
})

/** The JSON inside a chat answer (some models wrap it in ```json fences). */
function jsonOf(content: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content)
  const text = (fenced ? fenced[1]! : content).trim()
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  return JSON.parse(start >= 0 && end > start ? text.slice(start, end + 1) : text)
}

async function gradeBatch(config: LlmConfig, batch: { id: string; titulo: string; resumo: string | null }[], signal: AbortSignal): Promise<Map<string, Classificacao>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`
  const response = await fetch(`${config.url}/chat/completions`, {
    method: 'POST',
    headers,
    signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]),
    body: JSON.stringify({
      model: config.model,
      temperature: 0,
      messages: [
        { role: 'system', content: INSTRUCOES },
        { role: 'user', content: JSON.stringify({ itens: batch.map((b) => ({ id: b.id, titulo: b.titulo, resumo: b.resumo?.slice(0, 300) ?? null })) }) },
      ],
    }),
  })
  if (!response.ok) throw new Error(`LLM: HTTP ${response.status}`)
  const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] }
  const content = body.choices?.[0]?.message?.content
  if (typeof content !== 'string') throw new Error('LLM: resposta sem choices[0].message.content')
  let json: unknown
  try {
    json = jsonOf(content)
  } catch {
    throw new Error('LLM: resposta fora do formato pedido (não é JSON)')
  }
  const parsed = Resposta.safeParse(json)
  if (!parsed.success) throw new Error('LLM: resposta fora do formato pedido')
  const asked = new Set(batch.map((b) => b.id))
  return new Map(parsed.data.itens.filter((i) => asked.has(i.id)).map((i) => [i.id, { tema: i.tema, sentimento: i.sentimento, relevancia: i.relevancia }]))
}

/**
 * Grades what it can within the budget; returns the grades obtained and the errors met (for the
 * copy's status). Batches run two at a time.
 */
export async function classificarLlm(
  config: LlmConfig,
  items: { id: string; titulo: string; resumo: string | null }[],
): Promise<{ notas: Map<string, Classificacao>; erros: string[] }> {
  const notas = new Map<string, Classificacao>()
  const erros: string[] = []
  const budget = AbortSignal.timeout(config.budgetMs)
  const batches: (typeof items)[] = []
  for (let i = 0; i < items.length; i += LLM_LOTE) batches.push(items.slice(i, i + LLM_LOTE))
  let next = 0
  const worker = async () => {
    while (next < batches.length && !budget.aborted) {
      const batch = batches[next++]!
      try {
        for (const [id, c] of await gradeBatch(config, batch, budget)) notas.set(id, c)
      } catch (err) {
        const e = err as Error
        erros.push(e.name === 'TimeoutError' || e.name === 'AbortError' ? `LLM: sem resposta em ${config.timeoutMs} ms` : e.message.startsWith('LLM') ? e.message : `LLM: ${e.message}`)
      }
    }
  }
  await Promise.all([worker(), worker()])
  return { notas, erros: [...new Set(erros)] }
}
