// `dadosbr ingest <base>` and `dadosbr synth <base>`: the command-line side of ingest/.
import { basename, join } from 'node:path'
import { buildCnpj, upToDateBuild } from '../../ingest/cnpj/load'
import { buildIndexFromParts } from '../../ingest/cnpj/search-index'
import { DEFAULT_SOURCE, downloadMonth, listMonths } from '../../ingest/cnpj/sources'
import { synthCnpj } from '../../ingest/cnpj/synth'
import { exitWhenOrphaned } from '../core/self'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

const INGEST_SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os 37 zips do mês (sem ela, baixa da Receita)' },
  { name: '--month', value: true, help: 'mês de referência AAAA-MM (padrão: o mais recente publicado, ou o nome da pasta --from)' },
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data)' },
  { name: '--downloads', value: true, help: 'onde guardar os zips baixados (padrão <data>/downloads/cnpj/<mês>)' },
  { name: '--fonte', value: true, help: `endereço do compartilhamento da Receita (padrão ${DEFAULT_SOURCE.url}) [RFB_CNPJ_URL]` },
  { name: '--token', value: true, help: 'token do compartilhamento Nextcloud [RFB_CNPJ_TOKEN]' },
  { name: '--se-preciso', value: false, help: 'nada faz se a base em uso já é desse mês e do formato desta versão (com download: nada baixa)' },
  { name: '--parcial', value: false, help: 'constrói mesmo faltando zips (amostras, testes)' },
  { name: '--max-rejeitadas', value: true, help: 'linhas malformadas toleradas antes de falhar (padrão 1000)' },
  { name: '--memoria', value: true, help: 'limite de memória do DuckDB (padrão 4GB; na fase final, dividido com os dois processos dos índices)' },
  { name: '--nucleos', value: true, help: 'núcleos que a construção pode usar (padrão: todos os da máquina; um zip por núcleo na carga)' },
  { name: '--quiet', value: false, help: 'sem barra de progresso' },
]

/** A --nucleos value: a whole number of cores, at least 1. */
function coresFlag(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new UsageError('--nucleos precisa ser um inteiro >= 1')
  return n
}

export const INGEST_HELP = usage(
  'dadosbr ingest cnpj: reconstrói o cadastro de empresas a partir do dump mensal da Receita Federal.',
  'dadosbr ingest cnpj [--from DIR] [--month AAAA-MM] [--data DIR]',
  INGEST_SPECS,
  'Constrói numa pasta nova e só troca a base em uso (link data/cnpj/current) quando tudo deu certo;\n' +
    'um servidor rodando passa a usar a base nova sozinho, sem reiniciar.',
)

export async function ingest(argv: string[]): Promise<number> {
  const { flags, positionals, help } = parseArgs(argv, INGEST_SPECS, 1)
  if (help || positionals.length === 0) {
    process.stdout.write(INGEST_HELP)
    return help ? 0 : 2
  }
  if (positionals[0] !== 'cnpj') throw new UsageError(`base desconhecida: ${positionals[0]} (disponível: cnpj)`)
  const dataDir = String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data')
  const quiet = Boolean(flags['--quiet'])
  const log = (l: string) => process.stderr.write(`${l}\n`)
  let month = flags['--month'] as string | undefined
  const fromDir = flags['--from'] as string | undefined
  const share = { url: String(flags['--fonte'] ?? DEFAULT_SOURCE.url).replace(/\/+$/, ''), token: String(flags['--token'] ?? DEFAULT_SOURCE.token) }
  if (fromDir) {
    month ??= /\d{4}-\d{2}/.exec(basename(fromDir))?.[0]
    if (!month) throw new UsageError('informe --month AAAA-MM (o nome da pasta --from não diz o mês)')
  }
  if (flags['--se-preciso']) {
    // One listing of the share says which month is the latest, before anything is downloaded.
    month ??= (await listMonths(share)).pop()
    const built = month && upToDateBuild(dataDir, month)
    if (built) {
      log(`base CNPJ ${month} já está em ${built}, no formato desta versão: nada a fazer`)
      return 0
    }
  }
  const downloads = flags['--downloads'] as string | undefined
  const source = fromDir && month
    ? { dir: fromDir, month }
    : await downloadMonth(share, month, (m) => downloads ?? join(dataDir, 'downloads', 'cnpj', m), { quiet, log })
  const maxRejects = flags['--max-rejeitadas'] === undefined ? undefined : Number(flags['--max-rejeitadas'])
  if (maxRejects !== undefined && !(Number.isInteger(maxRejects) && maxRejects >= 0)) throw new UsageError('--max-rejeitadas precisa ser um inteiro >= 0')
  const cores = coresFlag(flags['--nucleos'])
  const started = performance.now()
  const manifest = await buildCnpj({
    sourceDir: source.dir, month: source.month, dataDir, quiet, log, maxRejects,
    allowPartial: Boolean(flags['--parcial']),
    memoryLimit: flags['--memoria'] as string | undefined,
    cores,
  })
  const rows = Object.entries(manifest.linhas).map(([k, v]) => `${k}=${v}`).join(' ')
  log(`base CNPJ ${manifest.referencia} pronta em ${((performance.now() - started) / 1000).toFixed(1)} s: ${rows}; ${manifest.rejeitadas.total} linhas malformadas`)
  return 0
}

const SYNTH_SPECS: FlagSpec[] = [
  { name: '--out', value: true, help: 'pasta onde escrever os 37 zips' },
  { name: '--companies', value: true, help: 'quantas empresas (cerca de 1,1 estabelecimento e 0,6 sócio por empresa)' },
  { name: '--seed', value: true, help: 'semente (padrão 42): a mesma semente gera os mesmos arquivos' },
  { name: '--zip64', value: false, help: 'força ZIP64 nos arquivos numerados' },
  { name: '--quiet', value: false, help: 'sem barra de progresso' },
]

export const SYNTH_HELP = usage(
  'dadosbr synth cnpj: escreve um dump sintético no formato exato da Receita (testes e benchmarks).',
  'dadosbr synth cnpj --out DIR --companies N [--seed N]',
  SYNTH_SPECS,
)

export async function synth(argv: string[]): Promise<number> {
  const { flags, positionals, help } = parseArgs(argv, SYNTH_SPECS, 1)
  if (help || positionals.length === 0) {
    process.stdout.write(SYNTH_HELP)
    return help ? 0 : 2
  }
  if (positionals[0] !== 'cnpj') throw new UsageError(`base desconhecida: ${positionals[0]} (disponível: cnpj)`)
  const out = flags['--out']
  const companies = Number(flags['--companies'])
  if (typeof out !== 'string') throw new UsageError('--out é obrigatório')
  if (!Number.isInteger(companies) || companies < 1) throw new UsageError('--companies precisa ser um inteiro >= 1')
  const summary = await synthCnpj({ outDir: out, companies, seed: flags['--seed'] ? Number(flags['--seed']) : undefined, zip64: Boolean(flags['--zip64']), quiet: Boolean(flags['--quiet']) })
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
  exitWhenOrphaned()
  await buildIndexFromParts(kind, parts, out, { quiet: Boolean(flags['--quiet']), memoryLimit: flags['--memoria'] as string | undefined, tempDir: tmp, threads: coresFlag(flags['--nucleos']) })
  return 0
}
