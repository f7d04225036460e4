// `dadosbr ingest <base>` and `dadosbr synth <base>`: the command-line side of ingest/. Each
// dataset's command lives in its folder (ingest/<base>/command.ts), listed in ingest/registry.ts.
import { coresFlag } from '../../ingest/cnpj/command'
import { buildIndexFromParts } from '../../ingest/cnpj/search-index'
import { synthCnpj } from '../../ingest/cnpj/synth'
import type { IngestDataset } from '../../ingest/lib/dataset'
import { INGESTS, ingestNamed } from '../../ingest/registry'
import { lineWriter, logFormatFrom } from '../core/log'
import { dieWithParent } from '../core/self'
import { upstreamHelp } from '../core/upstream'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

/** Flags every `dadosbr ingest <base>` takes. */
const COMMON_SPECS: FlagSpec[] = [
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data) [DADOSBR_DATA]' },
  { name: '--amostra', value: false, help: 'constrói a amostra embutida no programa (arquivos reais no formato publicado), sem internet' },
  { name: '--quiet', value: false, help: 'sem barra de progresso' },
]

const LIST = INGESTS.map((i) => `  ${i.name.padEnd(14)}${i.description}`).join('\n')

export const INGEST_HELP = usage(
  'dadosbr ingest: reconstrói uma base a partir das fontes oficiais (ou da amostra embutida).',
  'dadosbr ingest <base> [opções]    (dadosbr ingest <base> --help para as opções de cada uma)\n      dadosbr ingest todas [--amostra] [--se-preciso]',
  COMMON_SPECS,
  `Bases:\n${LIST}\n  todas         cada base, das fontes oficiais (make data); com --amostra, a amostra de cada uma (o que make run serve)\n\n` +
    'Cada base é construída numa pasta nova e só troca a em uso (link data/<base>/current) quando tudo deu certo;\n' +
    'um servidor rodando passa a usar a nova sozinho, sem reiniciar.',
)

function datasetHelp(d: IngestDataset): string {
  const upstreams = d.upstreams?.length ? `\nFontes (variáveis de ambiente):\n${upstreamHelp(d.upstreams)}` : ''
  return usage(`dadosbr ingest ${d.name}: ${d.description}.`, d.synopsis, [...d.specs, ...COMMON_SPECS], (d.help ?? '') + upstreams)
}

export async function ingest(argv: string[]): Promise<number> {
  // The process `dadosbr ingest` re-runs itself as (src/cli.ts) dies with the command the user
  // started: killed outright, that one cannot pass the signal on, and this one would build and swap anyway.
  dieWithParent('SIGKILL')
  const name = argv.find((a) => !a.startsWith('-'))
  const dataset = name && name !== 'todas' ? ingestNamed(name) : undefined
  if (name && name !== 'todas' && !dataset) throw new UsageError(`base desconhecida: ${name} (disponíveis: ${INGESTS.map((i) => i.name).join(', ')}, todas)`)
  const specs = dataset ? [...dataset.specs, ...COMMON_SPECS] : [...COMMON_SPECS, SE_PRECISO]
  const { flags, positionals, help, warnings } = parseArgs(argv, specs, 1)
  if (help || positionals.length === 0) {
    process.stdout.write(dataset ? datasetHelp(dataset) : INGEST_HELP)
    return help ? 0 : 2
  }
  // DADOSBR_LOG_FORMATO=json: each line a JSON object, and no progress bars (they are not log lines).
  const format = logFormatFrom(undefined)
  const log = lineWriter('ingest', format)
  for (const w of warnings) log(`dadosbr ingest: ${w}`)
  const ctx = { flags, dataDir: String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data'), quiet: Boolean(flags['--quiet']) || format === 'json', log }
  if (!dataset) {
    if (flags['--amostra']) {
      for (const d of INGESTS) log(await d.sample(ctx, Boolean(flags['--se-preciso'])))
      return 0
    }
    // Every base from its official source, each with its defaults (and --se-preciso where it has one): make data, monthly jobs.
    let failed = 0
    for (const d of INGESTS) {
      const own: Record<string, string | boolean> = d.specs.some((s) => s.name === '--se-preciso') && flags['--se-preciso'] ? { '--se-preciso': true } : {}
      try {
        log(await d.run({ ...ctx, flags: own }))
      } catch (err) {
        failed++
        log(`dadosbr ingest ${d.name}: ${err instanceof Error ? err.message : String(err)} (a base em uso foi mantida)`)
      }
    }
    return failed ? 1 : 0
  }
  log(flags['--amostra'] ? await dataset.sample(ctx, Boolean(flags['--se-preciso'])) : await dataset.run(ctx))
  return 0
}

const SE_PRECISO: FlagSpec = { name: '--se-preciso', value: false, help: 'pula o que já está em dia (a amostra já construída no formato desta versão; o mês do cadastro já carregado)' }

const SYNTH_SPECS: FlagSpec[] = [
  { name: '--saida', value: true, help: 'pasta onde escrever os 37 zips', aliases: ['--out'] },
  { name: '--empresas', value: true, help: 'quantas empresas (cerca de 1,1 estabelecimento e 0,6 sócio por empresa)', aliases: ['--companies'] },
  { name: '--semente', value: true, help: 'semente (padrão 42): a mesma semente gera os mesmos arquivos', aliases: ['--seed'] },
  { name: '--zip64', value: false, help: 'força ZIP64 nos arquivos numerados' },
  { name: '--mes', value: true, help: 'qual mês escrever: 0 (padrão) o dump base, K o dump K meses depois, com as mudanças de cada mês (aberturas, baixas, mudanças de endereço, sócios...); K e K+1 são meses seguidos' },
  { name: '--quiet', value: false, help: 'sem barra de progresso' },
]

export const SYNTH_HELP = usage(
  'dadosbr synth cnpj: escreve um dump sintético no formato exato da Receita (testes e benchmarks).',
  'dadosbr synth cnpj --saida DIR --empresas N [--semente N] [--mes K]',
  SYNTH_SPECS,
  'Meses seguidos para o histórico: --mes 0 e --mes 1 na mesma semente (o mês K é o de referência 2026-07 + K:\n' +
    'dadosbr ingest cnpj --from DIR --mes 2026-08 para --mes 1).',
)

export async function synth(argv: string[]): Promise<number> {
  const { flags, positionals, help, warnings } = parseArgs(argv, SYNTH_SPECS, 1)
  if (help || positionals.length === 0) {
    process.stdout.write(SYNTH_HELP)
    return help ? 0 : 2
  }
  for (const w of warnings) process.stderr.write(`dadosbr synth: ${w}\n`)
  if (positionals[0] !== 'cnpj') throw new UsageError(`base desconhecida: ${positionals[0]} (disponível: cnpj)`)
  const out = flags['--saida']
  const companies = Number(flags['--empresas'])
  if (typeof out !== 'string') throw new UsageError('--saida é obrigatório')
  if (!Number.isInteger(companies) || companies < 1) throw new UsageError('--empresas precisa ser um inteiro >= 1')
  const month = flags['--mes'] === undefined ? 0 : Number(flags['--mes'])
  if (!Number.isInteger(month) || month < 0 || month > 120) throw new UsageError('--mes precisa ser um inteiro de 0 a 120')
  const summary = await synthCnpj({ outDir: out, companies, month, seed: flags['--semente'] ? Number(flags['--semente']) : undefined, zip64: Boolean(flags['--zip64']), quiet: Boolean(flags['--quiet']) })
  process.stderr.write(`${JSON.stringify(summary)}\n`)
  return 0
}

const INDEX_SPECS: FlagSpec[] = [
  { name: '--tipo', value: true, help: 'empresas (busca.sqlite) ou socios (busca_socios.sqlite)' },
  { name: '--partes', value: true, help: 'pasta das partições Parquet da construção' },
  { name: '--saida', value: true, help: 'arquivo SQLite a criar' },
  { name: '--memoria', value: true, help: 'limite de memória do DuckDB deste processo (padrão 3GB)' },
  { name: '--tmp', value: true, help: 'pasta para o DuckDB transbordar a ordenação' },
  { name: '--nucleos', value: true, help: 'threads do DuckDB deste processo (padrão 1)' },
  { name: '--quiet', value: false, help: 'sem barra de progresso' },
]

export const INDEX_HELP = usage(
  'dadosbr _indice-de-nomes: uso interno de `dadosbr ingest cnpj`, que o roda em processos à parte para\n' +
    'construir os índices de nomes (de empresas e de sócios) enquanto escreve as fichas.',
  'dadosbr _indice-de-nomes --tipo empresas|socios --partes DIR --saida ARQUIVO --tmp DIR [--memoria 3GB]',
  INDEX_SPECS,
)

export async function indiceDeNomes(argv: string[]): Promise<number> {
  const { flags, help } = parseArgs(argv, INDEX_SPECS, 0)
  if (help) {
    process.stdout.write(INDEX_HELP)
    return 0
  }
  const [kind, parts, out, tmp] = [flags['--tipo'], flags['--partes'], flags['--saida'], flags['--tmp']]
  if (typeof parts !== 'string' || typeof out !== 'string' || typeof tmp !== 'string') throw new UsageError('--partes, --saida e --tmp são obrigatórios')
  if (kind !== 'empresas' && kind !== 'socios') throw new UsageError('--tipo precisa ser empresas ou socios')
  // Killed with its build: stop instead of running on.
  dieWithParent('SIGKILL')
  await buildIndexFromParts(kind, parts, out, { quiet: Boolean(flags['--quiet']), memoryLimit: flags['--memoria'] as string | undefined, tempDir: tmp, threads: coresFlag(flags['--nucleos']) })
  return 0
}
