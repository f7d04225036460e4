// Settings come from command-line flags and environment variables, validated once at
// start. A bad value stops the start with one line naming the setting.
import { z } from 'zod'

export const NETWORKS = {
  'eip155:8453': { name: 'Base', usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', eip712: { name: 'USD Coin', version: '2' } },
  'eip155:84532': { name: 'Base Sepolia', usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', eip712: { name: 'USDC', version: '2' } },
} as const
export type Network = keyof typeof NETWORKS

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'deve ser um endereço EVM 0x seguido de 40 dígitos hexadecimais')
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'deve ser uma chave privada 0x seguida de 64 dígitos hexadecimais')
const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no']).transform((v) => ['1', 'true', 'yes'].includes(v))

export type SettingName = 'port' | 'host' | 'dataDir' | 'free' | 'publicUrl' | 'payTo' | 'network' | 'facilitatorUrl' | 'facilitatorHeaders' | 'rpcUrl' | 'facilitatorPrivateKey' | 'prewarm' | 'processes' | 'logLevel' | 'logFormat' | 'metrics' | 'semFontes'
interface SettingSpec {
  env: string
  flag: string | null
  help: string
  aliases?: { flag?: string; env?: string }
}

/**
 * Each setting: its environment variable and the flag that overrides it. Flags follow one rule
 * (docs/decisoes.md): the ones every CLI spells the same stay in English (--port, --host, --data,
 * --from, --log, --quiet, --help), x402's own terms stay as the protocol names them (--pay-to,
 * --network, --facilitator-url, --rpc-url), everything else is Portuguese. `aliases` are the old
 * spellings (flags and variables), accepted for one more release.
 */
export const SETTINGS: Record<SettingName, SettingSpec> = {
  port: { env: 'PORT', flag: '--port', help: 'porta HTTP (padrão 8080)' },
  host: { env: 'DADOSBR_HOST', flag: '--host', help: 'endereço de escuta (padrão 0.0.0.0)' },
  dataDir: { env: 'DADOSBR_DATA', flag: '--data', help: 'pasta dos arquivos de dados (padrão ./data)' },
  free: { env: 'DADOSBR_GRATIS', flag: '--gratis', help: 'serve tudo sem cobrar (pesquisa, uso próprio)', aliases: { flag: '--free', env: 'DADOSBR_FREE' } },
  publicUrl: { env: 'DADOSBR_URL_PUBLICA', flag: '--url-publica', help: 'endereço público, para links absolutos (padrão: o Host do pedido)', aliases: { flag: '--public-url', env: 'DADOSBR_PUBLIC_URL' } },
  payTo: { env: 'X402_PAY_TO', flag: '--pay-to', help: 'endereço que recebe os pagamentos (obrigatório sem --gratis)' },
  network: { env: 'X402_NETWORK', flag: '--network', help: 'eip155:8453 (Base, padrão) ou eip155:84532 (Base Sepolia)' },
  facilitatorUrl: { env: 'X402_FACILITATOR_URL', flag: '--facilitator-url', help: 'facilitador x402 remoto' },
  facilitatorHeaders: { env: 'X402_FACILITATOR_HEADERS', flag: '--facilitator-headers', help: 'cabeçalhos de autenticação do facilitador, em JSON' },
  rpcUrl: { env: 'X402_RPC_URL', flag: '--rpc-url', help: 'RPC da rede, para liquidar os pagamentos por conta própria' },
  facilitatorPrivateKey: { env: 'X402_FACILITATOR_PRIVATE_KEY', flag: null, help: 'chave que paga o gás da liquidação própria (só por variável de ambiente)' },
  prewarm: { env: 'DADOSBR_PRE_LEITURA', flag: '--pre-leitura', help: 'ao abrir cada mês, lê em segundo plano os índices de nomes, as fichas, cnpj.duckdb e os bitmaps de filtros para o cache de páginas do sistema, até 80 % da memória disponível (padrão 1; 0 desliga)', aliases: { flag: '--prewarm', env: 'DADOSBR_PREWARM' } },
  processes: { env: 'DADOSBR_PROCESSOS', flag: '--processos', help: 'processos que atendem na mesma porta (padrão: um por núcleo, até 8; 1 com liquidação própria e fora do Linux)' },
  logLevel: { env: 'DADOSBR_LOG', flag: '--log', help: 'debug (um registro por pedido), info (padrão), warn, error ou silent' },
  logFormat: { env: 'DADOSBR_LOG_FORMATO', flag: '--log-formato', help: 'texto (padrão) ou json (um objeto JSON por linha, para coletores de log)' },
  metrics: { env: 'DADOSBR_METRICAS', flag: '--metricas', help: 'serve /metrics no formato do Prometheus, sem cobrar (padrão 1; 0 desliga)' },
  semFontes: {
    env: 'DADOSBR_SEM_FONTES',
    flag: '--sem-fontes',
    help: 'não consulta nenhuma fonte externa: serve as cópias que estão em --data como estão (a amostra embutida com status amostra); nenhum pedido sai da máquina (o make run usa)',
  },
}

const schema = z
  .object({
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    host: z.string().min(1).default('0.0.0.0'),
    dataDir: z.string().min(1).default('./data'),
    free: z.union([z.boolean(), bool]).default(false),
    publicUrl: z.url().transform((u) => u.replace(/\/+$/, '')).optional(),
    payTo: address.optional(),
    network: z.enum(Object.keys(NETWORKS) as [Network, ...Network[]]).default('eip155:8453'),
    facilitatorUrl: z.url().transform((u) => u.replace(/\/+$/, '')).optional(),
    facilitatorHeaders: z
      .string()
      .transform((s, ctx) => {
        try {
          return z.record(z.string(), z.string()).parse(JSON.parse(s))
        } catch {
          ctx.addIssue({ code: 'custom', message: 'deve ser um objeto JSON de strings, ex. {"Authorization":"Bearer ..."}' })
          return z.NEVER
        }
      })
      .optional(),
    rpcUrl: z.url().optional(),
    facilitatorPrivateKey: privateKey.optional(),
    prewarm: z.union([z.boolean(), bool]).default(true),
    processes: z.coerce.number().int().min(1).max(64).optional(),
    logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    logFormat: z.enum(['texto', 'json']).default('texto'),
    metrics: z.union([z.boolean(), bool]).default(true),
    semFontes: z.union([z.boolean(), bool]).default(false),
  })
  .superRefine((c, ctx) => {
    if (c.free) return
    if (!c.payTo) ctx.addIssue({ code: 'custom', path: ['payTo'], message: 'é obrigatório para cobrar; use --gratis para servir sem cobrar' })
    const selfFacilitated = Boolean(c.rpcUrl || c.facilitatorPrivateKey)
    if (c.facilitatorUrl && selfFacilitated)
      ctx.addIssue({ code: 'custom', path: ['facilitatorUrl'], message: 'escolha um: facilitador remoto ou liquidação própria (X402_RPC_URL + X402_FACILITATOR_PRIVATE_KEY)' })
    else if (!c.facilitatorUrl && !(c.rpcUrl && c.facilitatorPrivateKey))
      ctx.addIssue({ code: 'custom', path: [c.rpcUrl ? 'facilitatorPrivateKey' : 'facilitatorUrl'], message: 'falta o facilitador: X402_FACILITATOR_URL, ou X402_RPC_URL + X402_FACILITATOR_PRIVATE_KEY' })
    // One account sends every settlement: processes settling at once would race for its transaction nonces.
    else if (selfFacilitated && c.processes !== undefined && c.processes > 1)
      ctx.addIssue({ code: 'custom', path: ['processes'], message: 'a liquidação própria envia as transações de uma conta só e usa 1 processo; para mais, use um facilitador remoto' })
  })

export type Config = z.output<typeof schema>

export class ConfigError extends Error {}

/** Builds the config from flags (already parsed into setting names) over environment variables. */
export function loadConfig(flags: Partial<Record<SettingName, string | boolean>>, env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][]) {
    const value = flags[name] ?? env[s.env] ?? (s.aliases?.env ? env[s.aliases.env] : undefined)
    if (value !== undefined && value !== '') raw[name] = value
  }
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const name = (issue.path[0] ?? 'config') as SettingName
  const s = SETTINGS[name]
  const label = s ? [s.flag, s.env].filter(Boolean).join(' / ') : String(name)
  throw new ConfigError(`configuração inválida: ${label}: ${issue.message}`)
}

/** True when this server settles payments on chain itself, with its own key. */
export const selfSettles = (c: Config): boolean => !c.free && Boolean(c.rpcUrl && c.facilitatorPrivateKey)

/** Most processes serving by default, whatever the core count: each holds its own caches (~150-350 MB). */
export const MAX_DEFAULT_PROCESSES = 8

/**
 * How many processes serve the port: the setting, else one per core (at most 8); 1 when settling
 * on chain itself, and off Linux, where SO_REUSEPORT does not spread connections among processes.
 */
export function processCount(c: Config, cores: number, platform: string = process.platform): number {
  if (platform !== 'linux' && (c.processes ?? 1) > 1) throw new ConfigError(`configuração inválida: --processos / DADOSBR_PROCESSOS: vários processos na mesma porta só no Linux (aqui: ${platform})`)
  if (c.processes !== undefined) return c.processes
  return selfSettles(c) || platform !== 'linux' ? 1 : Math.min(cores, MAX_DEFAULT_PROCESSES)
}
