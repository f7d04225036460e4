// MCP over Streamable HTTP at /mcp, served by dadosbr itself: the same tools as `dadosbr mcp`
// (generated from the route table), each call run in process, paid routes charged in-band with
// the x402 MCP transport (specs/transports-v2/mcp.md of the x402 repository): a call without
// payment returns the PaymentRequired as the tool error's structured content; the paid retry
// carries the PaymentPayload in `_meta["x402/payment"]`; the settlement comes back in
// `_meta["x402/payment-response"]`. The same payment processing as HTTP (src/core/payments/gate.ts):
// nothing is charged for a 4xx or an answer without data. Stateless (no session), so every serving
// process answers any request.
import { createMcpHandler, Server } from '@modelcontextprotocol/server'
import type { PaymentPayload, SettleResponse } from '@x402/core/types'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import { ApiError } from '../core/errors'
import { VERSION } from '../core/health'
import type { Logger } from '../core/log'
import type { PaymentLayer } from '../core/payments/gate'
import { exampleRequestOf } from '../core/payments/bazaar'
import type { RouteDef } from '../core/route'
import type { MountedHandler } from '../core/server'
import { callUrl, listedTool, toolsFrom, type ToolDef } from './tools'

export const MCP_PATH = '/mcp'
const PAYMENT_META = 'x402/payment'
const PAYMENT_RESPONSE_META = 'x402/payment-response'

export interface McpHttpOptions {
  routes: RouteDef[]
  /** The payment layer; null in --gratis mode (every tool is free). */
  payments: PaymentLayer | null
  /** Runs a route for a request without any payment step (the server's own route runner). */
  run: (route: RouteDef, request: Request, rawParams: Record<string, string>, baseUrl: string) => Promise<Response>
  /** The base URL of the server as a request's client sees it (absolute links, resource URLs). */
  baseUrlOf: (request: Request) => string
  log: Logger
}

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> }

const text = (value: string, isError = false, extra: Partial<ToolResult> = {}): ToolResult => ({ content: [{ type: 'text', text: value }], ...(isError ? { isError } : {}), ...extra })

/** A refusal in the API's own envelope, readable as text and as structured content. */
function errorResult(err: ApiError, meta?: Record<string, unknown>): ToolResult {
  const body = { erro: { codigo: err.codigo, mensagem: err.message } }
  return text(JSON.stringify(body), true, { structuredContent: body, ...(meta ? { _meta: meta } : {}) })
}

const INSTRUCTIONS =
  'dadosbr: dados públicos brasileiros oficiais (cadastro de empresas da Receita Federal, sanções, Banco Central, licitações, ' +
  'fundos, mercado, tributos, desmatamento...) em JSON com chaves em português. Cada ferramenta é uma rota GET; a descrição diz o ' +
  'preço. As pagas seguem o x402 para MCP: sem pagamento voltam com isError e o PaymentRequired em structuredContent; repita a ' +
  'chamada com o PaymentPayload em _meta["x402/payment"]. Nada é cobrado por um erro 4xx. Official Brazilian public data; paid ' +
  'tools follow the x402 MCP transport (USDC on Base).'

export function mcpHttpHandler(options: McpHttpOptions): MountedHandler & { close(): Promise<void> } {
  const tools = toolsFrom(options.routes)
  const byName = new Map(tools.map((t) => [t.name, t]))
  const listed = tools.map(listedTool)
  const paymentIdentifier = declarePaymentIdentifierExtension(false)
  const bazaarOf = new Map<string, unknown>()
  const bazaar = (tool: ToolDef) => {
    let declared = bazaarOf.get(tool.name)
    if (!declared) {
      const example = exampleRequestOf(tool.route)
      declared = declareDiscoveryExtension({ toolName: tool.name, description: tool.title, transport: 'streamable-http', inputSchema: tool.inputSchema, example: { ...example.query, ...example.params } }).bazaar
      bazaarOf.set(tool.name, declared)
    }
    return declared
  }

  const call = async (tool: ToolDef, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, baseUrl: string): Promise<ToolResult> => {
    let url: string
    try {
      url = callUrl(baseUrl, tool, args)
    } catch (err) {
      return errorResult(new ApiError('parametro_invalido', `${tool.name}: ${(err as Error).message}`))
    }
    const rawParams = Object.fromEntries(tool.pathParams.map((p) => [p, String(args[p])]))
    // An internal request: no Accept-Encoding, so the answer comes back as plain JSON text.
    const serve = () => options.run(tool.route, new Request(url), rawParams, baseUrl)
    const answer = async (response: Response, settlement?: SettleResponse): Promise<ToolResult> => {
      const body = await response.text()
      const paid = settlement ? { [PAYMENT_RESPONSE_META]: settlement } : undefined
      if (response.status >= 200 && response.status < 300) return text(body, false, paid ? { _meta: paid } : {})
      try {
        const parsed = JSON.parse(body)
        return text(body, true, { structuredContent: parsed, ...(paid ? { _meta: paid } : {}) })
      } catch {
        return text(body, true)
      }
    }
    if (tool.price === null || !options.payments) return answer(await serve())
    const payments = options.payments
    let terms
    try {
      terms = await payments.terms(tool.route, url, { params: rawParams, query: new URL(url).searchParams })
    } catch (err) {
      if (err instanceof ApiError) return errorResult(err)
      throw err
    }
    const presented = meta?.[PAYMENT_META]
    const payload: PaymentPayload | null | 'ilegivel' = presented === undefined ? null : presented && typeof presented === 'object' ? (presented as PaymentPayload) : 'ilegivel'
    const outcome = await payments.process(terms, payload, serve)
    if (outcome.kind === 'refused') return errorResult(outcome.error)
    if (outcome.kind === 'served') {
      const settlement = outcome.settlement ?? (outcome.repeated ? repeatedSettlement(outcome.response) : undefined)
      return answer(outcome.response, settlement)
    }
    const paymentRequired = await payments.resourceServer().createPaymentRequiredResponse(
      terms.accepts,
      { ...terms.resource, url: `${baseUrl}${MCP_PATH}` },
      outcome.error ?? 'payment_required',
      { bazaar: bazaar(tool), [PAYMENT_IDENTIFIER]: paymentIdentifier },
    )
    const structured = { ...paymentRequired, erro: { codigo: 'pagamento_exigido', mensagem: outcome.mensagem } }
    return text(JSON.stringify(structured), true, { structuredContent: structured, ...(outcome.settlement ? { _meta: { [PAYMENT_RESPONSE_META]: outcome.settlement } } : {}) })
  }

  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const baseUrl = requestInfo ? options.baseUrlOf(requestInfo) : ''
      const server = new Server({ name: 'dadosbr', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })
      server.setRequestHandler('tools/list', async () => ({ tools: listed }))
      server.setRequestHandler('tools/call', async (request) => {
        const { name, arguments: args = {}, _meta } = request.params
        const tool = byName.get(name)
        if (!tool) return errorResult(new ApiError('parametro_invalido', `ferramenta desconhecida: ${name}; veja tools/list`))
        try {
          return await call(tool, args as Record<string, unknown>, _meta as Record<string, unknown> | undefined, baseUrl)
        } catch (err) {
          options.log.error('falha interna', { rota: `${MCP_PATH} ${name}`, erro: err instanceof Error ? err.message : String(err) })
          return errorResult(new ApiError('erro_interno', 'Falha inesperada do servidor; tente de novo. O erro foi registrado.'))
        }
      })
      return server
    },
    { onerror: (err) => options.log.debug('mcp', { erro: err.message }) },
  )

  return {
    path: MCP_PATH,
    handle: (request) => handler.fetch(request),
    close: () => handler.close(),
  }
}

/** The settlement of a repeated answer (payment identifier), read back from the stored PAYMENT-RESPONSE header. */
function repeatedSettlement(response: Response): SettleResponse | undefined {
  const header = response.headers.get('payment-response')
  return header ? decodePaymentResponseHeader(header) : undefined
}
