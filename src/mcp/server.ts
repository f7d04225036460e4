// `dadosbr mcp`: a Model Context Protocol server over stdio whose tools are the served routes
// (tools.ts), each call a GET to a dadosbr server, paid with x402 within the session's limits
// when a payer key is set (caller.ts, spending.ts).
import { Server } from '@modelcontextprotocol/server'
import type { Transport } from '@modelcontextprotocol/server'
import { VERSION } from '../core/health'
import type { Logger } from '../core/log'
import type { RouteDef } from '../core/route'
import { createCaller, type CallResult } from './caller'
import { atomicToUsd, type Spending } from './spending'
import { callUrl, listedTool, toolsFrom } from './tools'
import type { PrivateKeyAccount } from 'viem/accounts'

export interface McpOptions {
  routes: RouteDef[]
  /** The dadosbr server called, without a trailing slash. */
  baseUrl: string
  account: PrivateKeyAccount | null
  spending: Spending
  log: Logger
  fetch?: typeof fetch
}

const INSTRUCTIONS = (o: McpOptions) =>
  'dadosbr: dados públicos brasileiros oficiais (cadastro de empresas da Receita Federal, sanções, Banco Central, ' +
  'licitações, fundos, mercado, tributos, desmatamento...) em JSON com chaves em português. Cada ferramenta é uma ' +
  'rota GET do servidor; a descrição diz o preço. As grátis (ferramentas_cnpj valida um CNPJ, *_amostra mostram ' +
  'uma resposta real) não pedem nada; as pagas são pagas em USDC com x402 ' +
  (o.account
    ? `pela carteira ${o.account.address}, até US$ ${atomicToUsd(o.spending.perCall)} por chamada e US$ ${atomicToUsd(o.spending.perSession)} nesta sessão. `
    : 'quando DADOSBR_PAYER_KEY está definida (agora não está: as pagas respondem com o preço e nada é cobrado). ') +
  'Nada é cobrado por um erro 4xx. Official Brazilian public data; paid tools settle in USDC via x402.'

export function createMcpServer(options: McpOptions): Server {
  const tools = toolsFrom(options.routes)
  const byName = new Map(tools.map((t) => [t.name, t]))
  const call = createCaller({ account: options.account, spending: options.spending, fetch: options.fetch })
  const server = new Server({ name: 'dadosbr', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS(options) })

  const listed = tools.map(listedTool)
  server.setRequestHandler('tools/list', async () => ({ tools: listed }))

  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: args = {} } = request.params
    const tool = byName.get(name)
    if (!tool) return failure(`ferramenta desconhecida: ${name}; veja tools/list`)
    let url: string
    try {
      url = callUrl(options.baseUrl, tool, args as Record<string, unknown>)
    } catch (err) {
      return failure(`${name}: ${(err as Error).message}`)
    }
    let result: CallResult
    try {
      result = await call(url)
    } catch (err) {
      options.log.warn('chamada falhou', { ferramenta: name, erro: (err as Error).message })
      return failure(`não consegui falar com o dadosbr em ${options.baseUrl}: ${(err as Error).message}. Confira --url (ou DADOSBR_URL) e se o servidor está no ar.`)
    }
    options.log.info('chamada', { ferramenta: name, status: result.status, pago_usd: result.paid?.usd, transacao: result.paid?.transacao ?? undefined, recusado: result.refused })
    if (result.refused) return failure(`Pagamento recusado pelo limite desta sessão: ${result.refused}.`)
    const meta = {
      'dadosbr/status': result.status,
      'dadosbr/gasto_sessao_usd': atomicToUsd(options.spending.spentAtomic),
      ...(result.paid ? { 'dadosbr/pagamento': result.paid } : {}),
    }
    if (result.status === 402) {
      const hint = options.account
        ? 'O servidor recusou o pagamento; veja a mensagem.'
        : `Esta ferramenta é paga (US$ ${tool.price ?? '?'} por chamada). Defina DADOSBR_PAYER_KEY com a chave de uma carteira com USDC para pagar; nada foi cobrado.`
      return { content: [{ type: 'text' as const, text: `${hint}\n${result.body}` }], isError: true, _meta: meta }
    }
    const paidLine = result.paid ? `\n(pago US$ ${result.paid.usd}, transação ${result.paid.transacao})` : ''
    return { content: [{ type: 'text' as const, text: result.body + paidLine }], isError: result.status >= 400, _meta: meta }
  })
  return server
}

function failure(text: string) {
  return { content: [{ type: 'text' as const, text }], isError: true }
}

export async function serveMcp(options: McpOptions, transport: Transport): Promise<Server> {
  const server = createMcpServer(options)
  await server.connect(transport)
  return server
}
