// The OpenAPI 3.1 document, generated from the same route table and zod schemas that
// validate requests and responses, so it cannot drift from the code.
import { z } from 'zod'
import type { Dataset } from './dataset'
import { ERROR_CODES, type ErrorCode } from './errors'
import { VERSION } from './health'
import { NETWORKS, type Config, type Network } from './config'
import { EXAMPLES, exampleInputOf } from './examples'
import { PaymentRequiredBody } from './payment-model'
import { priceAtomic, type RouteDef } from './route'

type Json = Record<string, unknown>

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Parâmetro inválido', 402: 'Pagamento exigido (x402)', 404: 'Não encontrado', 405: 'Método não permitido',
  409: 'Conflito', 414: 'Endereço longo demais', 500: 'Falha interna', 503: 'Dados ou pagamentos indisponíveis',
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json
  return rest
}

function parameters(route: RouteDef): Json[] {
  const input = EXAMPLES[route.path]?.input ?? exampleInputOf(route)
  const out: Json[] = []
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!(schema instanceof z.ZodObject)) continue
    const whole = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] }
    for (const [name, prop] of Object.entries(whole.properties ?? {})) {
      const { description, ...propSchema } = prop
      const example = (where === 'path' ? input.params : input.query)[name]
      out.push({ name, in: where, required: where === 'path' || (whole.required ?? []).includes(name), schema: propSchema, ...(description ? { description } : {}), ...(example !== undefined ? { example } : {}) })
    }
  }
  return out
}

/** An error response: its codes, and for each the real body the route answers (recorded), so /docs shows matching codigo and text. */
function errorResponse(codes: ErrorCode[], status: number, route?: RouteDef): Json {
  const recorded = route ? (EXAMPLES[route.path]?.errors ?? {}) : {}
  const examples = Object.fromEntries(
    codes.map((c) => [c, { summary: c, value: recorded[c] ?? { erro: { codigo: c, mensagem: ERROR_CODES[c].descricao } } }]),
  )
  return {
    description: `${ERROR_DESCRIPTIONS[status]}: erro.codigo ${codes.map((c) => `\`${c}\``).join(', ')}`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Erro' }, examples } },
  }
}

const operationId = (route: RouteDef) => route.path.replace(/^\/v1\//, '').replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+/g, '_')

/** What this server's 402 answers to a call without payment: its real shape with this route's price (payTo: the configured one). */
function paymentExample(route: RouteDef, payment: PaymentSettings): Json {
  const net = NETWORKS[payment.network]
  const amount = priceAtomic(route.price!)
  const base = payment.publicUrl ?? 'http://localhost:8080'
  return {
    erro: { codigo: 'pagamento_exigido', mensagem: `Esta rota custa US$ ${route.price} por chamada, pagos em USDC com x402.` },
    preco_usd: route.price,
    como_pagar: {
      protocolo: 'x402',
      requisitos: `x402 v2, esquema exact: ${amount} unidades (6 casas) de USDC (${net.usdc}) na rede ${net.name} (${payment.network}) para ${payment.payTo}. Repita o GET com o cabeçalho PAYMENT-SIGNATURE (ou X-PAYMENT).`,
      instrucoes: `${base}/llms.txt`,
    },
    gratis_agora: [{ url: `${base}/v1/ferramentas`, descricao: 'Índice das ferramentas grátis' }],
    catalogo: `${base}/openapi.json`,
    x402Version: 2,
    resource: { url: `${base}${route.path}`, description: route.summary, mimeType: 'application/json' },
    accepts: [{ scheme: 'exact', network: payment.network, amount, asset: net.usdc, payTo: payment.payTo, maxTimeoutSeconds: 300, extra: { ...net.eip712 } }],
  }
}

export interface PaymentSettings {
  network: Network
  payTo: string
  publicUrl?: string
}

/** The 402 example's payTo when the server is not charging (--gratis): the zero address, never a real wallet. */
const NO_PAYEE = '0x0000000000000000000000000000000000000000'

/**
 * What discovery crawlers (x402scan, agentcash) read from an operation: the price in USD and the
 * protocol. A route priced per item (bulk) states its range.
 */
export function paymentInfo(route: RouteDef): Json {
  const usd = (n: number) => n.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')
  const price = route.units
    ? { mode: 'dynamic', currency: 'USD', min: usd(route.price!), max: usd(route.price! * (route.maxUnits ?? 1)) }
    : { mode: 'fixed', currency: 'USD', amount: usd(route.price!) }
  return { price, protocols: [{ x402: {} }] }
}

/** Lists of an example longer than this are cut: the shape and real values stay, the document stays small. */
const EXAMPLE_LIST_ITEMS = 3

/** An example with every list cut to its first EXAMPLE_LIST_ITEMS items. */
export function trimExample(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, EXAMPLE_LIST_ITEMS).map(trimExample)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trimExample(v)]))
  return value
}

function operation(route: RouteDef, payment: PaymentSettings, schemaRef: Json): Json {
  const codes = new Set<ErrorCode>([...route.errors, 'metodo_nao_permitido', 'erro_interno'])
  if (route.query) ['parametro_desconhecido', 'parametro_repetido'].forEach((c) => codes.add(c as ErrorCode))
  if (route.price !== null) codes.add('pagamento_indisponivel')
  const byStatus = new Map<number, ErrorCode[]>()
  for (const c of codes) byStatus.set(ERROR_CODES[c].status, [...(byStatus.get(ERROR_CODES[c].status) ?? []), c])
  const example = route.example ?? EXAMPLES[route.path]?.output
  const responses: Json = {
    200: {
      description: `OK. Exemplo: a resposta real da amostra embutida${JSON.stringify(example) !== JSON.stringify(trimExample(example)) ? `, com as listas cortadas em ${EXAMPLE_LIST_ITEMS} itens` : ''}.`,
      content: { 'application/json': { schema: schemaRef, ...(example !== undefined ? { example: trimExample(example) } : {}) } },
    },
  }
  if (route.price !== null)
    responses[402] = {
      description: `Pagamento exigido: US$ ${route.price}${route.units ? ' por item' : ''} em USDC (x402 v2, esquema exact). O cabeçalho PAYMENT-REQUIRED traz as opções de pagamento em base64.`,
      headers: { 'PAYMENT-REQUIRED': { description: 'PaymentRequired do x402 v2, JSON em base64', schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PagamentoExigido' }, example: paymentExample(route, payment) } },
    }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) responses[status] = errorResponse(list, status, route)
  return {
    operationId: operationId(route),
    summary: route.summary + (route.price !== null ? ` (US$ ${route.price})` : ' (grátis)'),
    ...(route.description ? { description: route.description } : {}),
    tags: [route.dataset],
    parameters: parameters(route),
    responses,
    ...(route.price !== null ? { 'x-preco-usd': route.price, 'x-payment-info': paymentInfo(route), security: [{ x402: [] }] } : { 'x-preco-usd': 0, security: [] }),
  }
}

/**
 * The answers' schemas as components: one per route, and each part two answers share (a source,
 * a card, a partner...) once, referenced where it is used. Inlined, the same parts were repeated
 * in every answer that carries them (400 KB of the document).
 */
function answerSchemas(routes: RouteDef[]): { schemas: Record<string, Json>; refOf: (route: RouteDef) => Json } {
  const registry = z.registry<{ id: string }>()
  for (const route of routes) if (!registry.has(route.response)) registry.add(route.response, { id: `Resposta_${operationId(route)}` })
  const uri = (id: string) => `#/components/schemas/${id}`
  const out = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', reused: 'ref', uri }) as { schemas: Record<string, Json> }
  const shared = ((out.schemas.__shared as { $defs?: Record<string, Json> } | undefined)?.$defs ?? {})
  // Parts small enough to read in place (a nullable text) go back inline; the others get a component of their own.
  const SMALL = 120
  const named = new Map<string, string>()
  let n = 0
  for (const [key, def] of Object.entries(shared)) if (JSON.stringify(def).length > SMALL) named.set(key, `Parte_${++n}`)
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite)
    if (!value || typeof value !== 'object') return value
    const ref = (value as Json).$ref
    if (typeof ref === 'string') {
      const m = /^#\/components\/schemas\/__shared#\/\$defs\/(.+)$/.exec(ref)
      if (m) return named.has(m[1]!) ? { $ref: uri(named.get(m[1]!)!) } : rewrite(shared[m[1]!])
    }
    const copy: Json = {}
    for (const [k, v] of Object.entries(value)) if (k !== '$schema' && k !== '$id') copy[k] = rewrite(v)
    return copy
  }
  const schemas: Record<string, Json> = {}
  for (const [id, schema] of Object.entries(out.schemas)) if (id !== '__shared') schemas[id] = rewrite(schema) as Json
  for (const [key, name] of named) schemas[name] = rewrite(shared[key]) as Json
  return { schemas, refOf: (route) => ({ $ref: uri(registry.get(route.response)!.id) }) }
}

export function buildOpenApi(routes: RouteDef[], datasets: Dataset[], config?: Pick<Config, 'network' | 'payTo' | 'publicUrl'>): Json {
  const payment: PaymentSettings = { network: config?.network ?? 'eip155:8453', payTo: config?.payTo ?? NO_PAYEE, publicUrl: config?.publicUrl }
  const answers = answerSchemas(routes)
  const paths: Json = {}
  for (const route of routes) paths[route.path] = { get: operation(route, payment, answers.refOf(route)) }
  const codes = Object.keys(ERROR_CODES) as ErrorCode[]
  return {
    openapi: '3.1.0',
    info: {
      title: 'dadosbr',
      version: VERSION,
      description:
        'Dados públicos brasileiros em JSON. Rotas grátis não pedem nada; rotas pagas cobram por chamada com x402 v2 ' +
        '(esquema exact, USDC na Base): sem pagamento respondem 402 com o cabeçalho PAYMENT-REQUIRED; repita o GET com ' +
        'PAYMENT-SIGNATURE (ou X-PAYMENT). Nada é cobrado por uma resposta 4xx nem por uma sem dados (503). ' +
        'Guia para agentes: /llms.txt. MCP (Streamable HTTP): /mcp. Termos: /termos.\n\n' +
        `Bases servidas por esta versão: ${datasets.map((d) => d.name).join(', ')}.`,
      'x-guidance':
        'Official Brazilian public data (company registry CNPJ, sanctions, central bank, procurement, funds, markets, commodities, tax reform, deforestation) as JSON with Portuguese keys. ' +
        'Every route is a GET. Paid routes answer 402 with an x402 v2 challenge (exact, USDC on Base) in the PAYMENT-REQUIRED header; pay and repeat the GET with PAYMENT-SIGNATURE. ' +
        'Validate a CNPJ for free at /v1/ferramentas/cnpj/{valor} before paying; each dataset has a free sample (/v1/<dataset>/amostra). Nothing is charged for a 4xx. MCP tools of the same routes: /mcp.',
    },
    ...(config?.publicUrl ? { servers: [{ url: config.publicUrl }] } : {}),
    tags: [
      { name: 'servico', description: 'Estado do serviço' },
      ...datasets.map((d) => ({ name: d.name, description: `${d.titulo}: ${d.descricao}` })),
    ],
    paths,
    components: {
      securitySchemes: {
        x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'Autorização EIP-3009 assinada (x402 v2, base64). X-PAYMENT é aceito como sinônimo.' },
      },
      schemas: {
        Erro: {
          type: 'object',
          required: ['erro'],
          properties: {
            erro: {
              type: 'object',
              required: ['codigo', 'mensagem'],
              properties: {
                codigo: { type: 'string', enum: codes, description: codes.map((c) => `- \`${c}\` (${ERROR_CODES[c].status}): ${ERROR_CODES[c].descricao}`).join('\n') },
                mensagem: { type: 'string' },
              },
            },
          },
        },
        PagamentoExigido: jsonSchema(PaymentRequiredBody, 'output'),
        ...answers.schemas,
      },
    },
  }
}
