// `dadosbr atualizar [FONTE...]`: refreshes the polled sources once, from the command line (cron,
// CI, tests), into the same copies the server serves. Each source is named by itself or by its
// dataset; without names, every one. Exit 1 when any refresh failed (its last good copy stays).
import { FeedRunner, type FeedDef } from '../core/feeds/feed'
import { createLogger, lineWriter, logFormatFrom } from '../core/log'
import { upstreamHelp } from '../core/upstream'
import { DATASETS } from '../datasets/registry'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

const SPECS: FlagSpec[] = [
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data) [DADOSBR_DATA]' },
  { name: '--quiet', value: false, help: 'só os erros' },
]

const FEEDS: FeedDef[] = DATASETS.flatMap((d) => d.feeds ?? [])

function help(): string {
  const list = FEEDS.length
    ? FEEDS.map((f) => `  ${f.name.padEnd(22)}${f.base} (base ${f.dataset}, a cada ${f.intervalMinutes} min)`).join('\n')
    : '  (nenhuma nesta versão)'
  const upstreams = [...new Map(FEEDS.flatMap((f) => f.upstreams).map((u) => [u.env, u])).values()]
  return usage(
    'dadosbr atualizar: consulta uma vez as fontes que o servidor acompanha e grava as cópias que ele serve.',
    'dadosbr atualizar [FONTE|BASE ...] [--data DIR]',
    SPECS,
    `Fontes:\n${list}${upstreams.length ? `\n\nEndereços das fontes (variáveis de ambiente):\n${upstreamHelp(upstreams)}` : ''}\n\nSai com 1 se alguma consulta falhou; a última cópia boa fica.`,
  )
}

export async function atualizar(argv: string[]): Promise<number> {
  const { flags, positionals, help: wantsHelp } = parseArgs(argv, SPECS, Number.MAX_SAFE_INTEGER)
  if (wantsHelp) {
    process.stdout.write(help())
    return 0
  }
  const chosen = positionals.length ? positionals.flatMap((name) => {
    const found = FEEDS.filter((f) => f.name === name || f.dataset === name)
    if (!found.length) throw new UsageError(`fonte desconhecida: ${name} (disponíveis: ${[...new Set(FEEDS.flatMap((f) => [f.name, f.dataset]))].join(', ') || 'nenhuma'})`)
    return found
  }) : FEEDS
  const dataDir = String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data')
  const runner = new FeedRunner(FEEDS, { dataDir, log: createLogger('silent') })
  const out = lineWriter('atualizar', logFormatFrom(undefined))
  let failed = 0
  for (const feed of [...new Set(chosen)]) {
    const keys = [...new Set([...(feed.defaultKeys ?? ['']), ...runner.keysOnDisk(feed.name)])]
    for (const key of keys) {
      const label = key ? `${feed.name} (${key})` : feed.name
      const started = performance.now()
      try {
        await runner.refresh(feed.name, key)
        if (!flags['--quiet']) out(`${label}: ok em ${((performance.now() - started) / 1000).toFixed(1)} s`)
      } catch (err) {
        failed++
        const kept = runner.copy(feed.name, key)?.consultado_em
        out(`${label}: falhou: ${err instanceof Error ? err.message : String(err)}${kept ? ` (fica a cópia de ${kept})` : ' (nenhuma cópia ainda)'}`)
      }
    }
  }
  return failed ? 1 : 0
}
