import { createApp } from '../app'
import { ConfigError, loadConfig, SETTINGS, type SettingName } from '../core/config'
import { healthOf, VERSION } from '../core/health'
import { createLogger } from '../core/log'
import { parseArgs, usage, type FlagSpec } from './args'

const SPECS: FlagSpec[] = (Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][])
  .filter(([, s]) => s.flag)
  .map(([name, s]) => ({ name: s.flag!, value: name !== 'free', help: `${s.help} [${s.env}]` }))

/** Longer than a facilitator round trip (verify + settle), so a slow payment never loses its connection. */
export const IDLE_TIMEOUT_SECONDS = 60

export const SERVE_HELP = usage(
  'dadosbr serve: sobe a API HTTP sobre os arquivos de dados.',
  'dadosbr serve [--port N] [--data DIR] [--free] [opções de pagamento]',
  SPECS,
  'Cada opção também vem da variável de ambiente entre colchetes; a opção vence.\n' +
    'Sem --free, é preciso X402_PAY_TO e um facilitador (X402_FACILITATOR_URL, ou X402_RPC_URL + X402_FACILITATOR_PRIVATE_KEY).',
)

export async function serve(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv, SPECS)
  if (parsed.help) {
    process.stdout.write(SERVE_HELP)
    return 0
  }
  const flags: Partial<Record<SettingName, string | boolean>> = {}
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][])
    if (s.flag && parsed.flags[s.flag] !== undefined) flags[name] = parsed.flags[s.flag]
  let config
  try {
    config = loadConfig(flags)
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`dadosbr: ${err.message}\n`)
      return 2
    }
    throw err
  }
  const log = createLogger(config.logLevel)
  if (config.free) log.info(`dadosbr ${VERSION}: pagamentos DESLIGADOS (--free), todas as rotas servem sem cobrar`)
  else log.info(`dadosbr ${VERSION}: pagamentos ativos`, { rede: config.network, recebedor: config.payTo })
  const app = await createApp(config, { log })
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch: app.handle, maxRequestBodySize: 64 * 1024, idleTimeout: IDLE_TIMEOUT_SECONDS })
  const shown = config.host === '0.0.0.0' ? 'localhost' : config.host
  log.info(`ouvindo em http://${shown}:${server.port}`, { dados: config.dataDir })
  const health = await healthOf(app.ctx)
  if (health.status !== 'ok') log.warn('serviço degradado', { motivos: health.motivos.join('; ') })

  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  log.info('encerrando')
  await server.stop()
  await app.close()
  return 0
}
