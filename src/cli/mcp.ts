// `dadosbr mcp`: the route table as Model Context Protocol tools over stdio, for AI agents
// (src/mcp). Calls a dadosbr server (default the local one) and pays with x402 when
// DADOSBR_PAYER_KEY is set, within the per-call and per-session limits.
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { privateKeyToAccount } from 'viem/accounts'
import { ROUTES } from '../app'
import { createLogger, logFormatFrom } from '../core/log'
import { Spending, usdToAtomic } from '../mcp/spending'
import { serveMcp } from '../mcp/server'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

const SPECS: FlagSpec[] = [
  { name: '--url', value: true, help: 'servidor dadosbr chamado (padrão http://localhost:8080) [DADOSBR_URL]' },
  { name: '--limite-chamada', value: true, help: 'máximo em US$ que uma chamada pode pagar (padrão 0.10) [DADOSBR_MCP_LIMITE_CHAMADA]' },
  { name: '--limite-sessao', value: true, help: 'máximo em US$ que esta sessão pode pagar no total (padrão 1.00) [DADOSBR_MCP_LIMITE_SESSAO]' },
  { name: '--log', value: true, help: 'debug, info, warn (padrão), error ou silent; o log vai para stderr [DADOSBR_LOG]' },
  { name: '--log-formato', value: true, help: 'texto (padrão) ou json [DADOSBR_LOG_FORMATO]' },
]

export const MCP_HELP = usage(
  'dadosbr mcp: servidor MCP (Model Context Protocol) por stdio; cada rota servida é uma ferramenta.',
  'dadosbr mcp [--url URL] [--limite-chamada USD] [--limite-sessao USD]',
  SPECS,
  'As rotas pagas são pagas em USDC com x402 pela carteira de DADOSBR_PAYER_KEY (chave privada 0x..., só por\n' +
    'variável de ambiente); sem ela, as pagas respondem com o preço e nada é cobrado. Um pagamento acima de um\n' +
    'limite é recusado antes de assinar. Exemplo de configuração de um cliente MCP:\n' +
    '  {"mcpServers":{"dadosbr":{"command":"dadosbr","args":["mcp","--url","https://api.exemplo"],\n' +
    '    "env":{"DADOSBR_PAYER_KEY":"0x...","DADOSBR_MCP_LIMITE_SESSAO":"2"}}}}',
)

export async function mcp(argv: string[]): Promise<number> {
  const { flags, help } = parseArgs(argv, SPECS)
  if (help) {
    process.stdout.write(MCP_HELP)
    return 0
  }
  const env = process.env
  const url = String(flags['--url'] ?? env.DADOSBR_URL ?? 'http://localhost:8080').replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`--url precisa ser um endereço http(s)://, não '${url}'`)
  const limit = (flag: string, variable: string, fallback: string) => {
    const text = String(flags[flag] ?? env[variable] ?? fallback)
    try {
      return usdToAtomic(text)
    } catch (err) {
      throw new UsageError(`${flag} / ${variable}: ${(err as Error).message}`)
    }
  }
  const spending = new Spending(limit('--limite-chamada', 'DADOSBR_MCP_LIMITE_CHAMADA', '0.10'), limit('--limite-sessao', 'DADOSBR_MCP_LIMITE_SESSAO', '1.00'))
  const key = env.DADOSBR_PAYER_KEY
  if (key !== undefined && key !== '' && !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new UsageError('DADOSBR_PAYER_KEY precisa ser uma chave privada 0x seguida de 64 dígitos hexadecimais')
  const account = key ? privateKeyToAccount(key as `0x${string}`) : null
  const level = String(flags['--log'] ?? env.DADOSBR_LOG ?? 'warn')
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(level)) throw new UsageError('--log precisa ser debug, info, warn, error ou silent')
  // stdout carries the protocol: every log line goes to stderr.
  const log = createLogger(level as 'warn', undefined, undefined, logFormatFrom(flags['--log-formato']))
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()))
  await serveMcp({ routes: ROUTES, baseUrl: url, account, spending, log }, transport)
  log.info('dadosbr mcp pronto', { url, pagador: account?.address ?? null })
  // Ends when the client closes stdin (or on a signal).
  await Promise.race([closed, new Promise<void>((resolve) => process.stdin.once('end', () => resolve())), new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()))])
  return 0
}
