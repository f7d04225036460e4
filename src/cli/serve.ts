import { createApp } from '../app'
import { ConfigError, loadConfig, processCount, SETTINGS, type Config, type SettingName } from '../core/config'
import { machineCores } from '../core/cores'
import { healthOf, VERSION } from '../core/health'
import { createLogger } from '../core/log'
import { upstreamHelp } from '../core/upstream'
import { DATASETS } from '../datasets/registry'
import { exitWhenOrphaned, hasRuntimeFlags, RUNTIME_FLAGS } from '../core/self'
import { parseArgs, usage, type FlagSpec } from './args'
import { processNumber, startServingProcesses } from './serving-processes'

const SPECS: FlagSpec[] = (Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][])
  .filter(([, s]) => s.flag)
  .map(([name, s]) => ({ name: s.flag!, value: name !== 'free' && name !== 'semFontes', help: `${s.help} [${s.env}]`, aliases: s.aliases?.flag ? [s.aliases.flag] : undefined }))

/** Longer than a facilitator round trip (verify + settle), so a slow payment never loses its connection. */
export const IDLE_TIMEOUT_SECONDS = 60

const UPSTREAMS = [...new Map(DATASETS.flatMap((d) => [...(d.upstreams ?? []), ...(d.feeds ?? []).flatMap((f) => f.upstreams)]).map((u) => [u.env, u])).values()]

export const SERVE_HELP = usage(
  'dadosbr serve: sobe a API HTTP sobre os arquivos de dados.',
  'dadosbr serve [--port N] [--data DIR] [--gratis] [opções de pagamento]',
  SPECS,
  'Cada opção também vem da variável de ambiente entre colchetes; a opção vence.\n' +
    'Sem --gratis, é preciso X402_PAY_TO e um facilitador (X402_FACILITATOR_URL, ou X402_RPC_URL + X402_FACILITATOR_PRIVATE_KEY).' +
    (UPSTREAMS.length ? `\n\nEndereços das fontes oficiais (variáveis de ambiente; o padrão é o endereço real):\n${upstreamHelp(UPSTREAMS)}` : ''),
)

export async function serve(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv, SPECS)
  if (parsed.help) {
    process.stdout.write(SERVE_HELP)
    return 0
  }
  if (!processNumber()) for (const w of parsed.warnings) process.stderr.write(`dadosbr serve: ${w}\n`)
  const flags: Partial<Record<SettingName, string | boolean>> = {}
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, (typeof SETTINGS)[SettingName]][])
    if (s.flag && parsed.flags[s.flag] !== undefined) flags[name] = parsed.flags[s.flag]
  // An extra serving process (serving-processes.ts) logs with its number and leaves the start's messages to the first.
  const number = processNumber()
  let config, processes
  try {
    config = loadConfig(flags)
    processes = number ? 1 : processCount(config, machineCores())
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`dadosbr: ${err.message}\n`)
      return 2
    }
    throw err
  }
  const log = createLogger(config.logLevel, undefined, number ? { processo: number } : undefined, config.logFormat)
  if (number) exitWhenOrphaned()
  if (!number) {
    // A taken port fails the start before the data is opened (the bind itself comes after).
    if (config.port !== 0) listen(config, () => Promise.resolve(new Response()), false).stop(true)
    if (!hasRuntimeFlags()) log.warn(`bun sem ${RUNTIME_FLAGS.join(' ')}: endereços acima de 16 KiB recebem um 431 vazio em vez do 414 em JSON; use make run, npm start ou o executável`)
    if (config.free) log.info(`dadosbr ${VERSION}: pagamentos DESLIGADOS (--gratis), todas as rotas servem sem cobrar`)
    else log.info(`dadosbr ${VERSION}: pagamentos ativos`, { rede: config.network, recebedor: config.payTo })
    if (config.semFontes) log.info('fontes DESLIGADAS (--sem-fontes): nenhuma fonte externa é consultada; as cópias em --data são servidas como estão (a amostra embutida com status amostra)')
  }
  // The first process refreshes the polled sources; the others read the copies it writes (and refresh on need, under the same lock).
  const app = await createApp(config, { log, backgroundFeeds: !number })
  const server = listen(config, app.handle, processes > 1 || number > 0)
  // The others join the port the first one got (--port 0 picks one); the first alone prewarms.
  const others = processes > 1 ? startServingProcesses(processes - 1, [...argv, '--port', String(server.port), '--pre-leitura', '0'], log) : undefined
  if (!number) {
    const shown = config.host === '0.0.0.0' ? 'localhost' : config.host
    log.info(`ouvindo em http://${shown}:${server.port}`, { dados: config.dataDir, processos: processes })
    const health = await healthOf(app.ctx)
    if (health.status !== 'ok') log.warn('serviço degradado', { motivos: health.motivos.join('; ') })
  } else {
    // Each extra process says when it has joined the port (with its number): an operator sees a
    // restarted one come back, and a script knows when all of them answer.
    log.info(`ouvindo na porta ${server.port}`)
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGTERM', stop)
    // A terminal's Ctrl-C reaches the whole process group: the extra processes wait for the first one's SIGTERM, so it never sees them die and restarts them.
    if (number) process.on('SIGINT', () => {})
    else process.once('SIGINT', stop)
  })
  if (!number) log.info('encerrando')
  await Promise.all([server.stop(), others?.stop()])
  await app.close()
  return 0
}

/**
 * Binds the port. Alone: a plain socket, so a second server on the same port fails. Shared by
 * several processes: SO_REUSEPORT, which would let another server of this user join the port
 * silently; the first process has checked with a plain socket that nothing held it (serve, above).
 */
function listen(config: Config, fetch: (request: Request) => Promise<Response>, shared: boolean) {
  const options = { hostname: config.host, fetch, maxRequestBodySize: 64 * 1024, idleTimeout: IDLE_TIMEOUT_SECONDS }
  try {
    return Bun.serve({ ...options, port: config.port, reusePort: shared })
  } catch (err) {
    if ((err as { code?: string }).code === 'EADDRINUSE') throw new Error(`a porta ${config.port} de ${config.host} já está em uso: pare o outro serviço ou escolha outra porta com --port`)
    throw err
  }
}
