// `dadosbr exportar [BASE...] --saida DIR`: the builds in use as Parquet with a data dictionary,
// for researchers (DuckDB, Polars, Spark, Trino: docs/pesquisa.md).
import { exportDatasets } from '../../ingest/export/export'
import { lineWriter, logFormatFrom } from '../core/log'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

const SPECS: FlagSpec[] = [
  { name: '--saida', value: true, help: 'pasta onde escrever <base>/ com os Parquet, manifest.json e o dicionário (obrigatória)' },
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data) [DADOSBR_DATA]' },
  { name: '--memoria', value: true, help: 'limite de memória do DuckDB (padrão 2GB)' },
  { name: '--nucleos', value: true, help: 'threads do DuckDB (padrão: todos os núcleos)' },
  { name: '--quiet', value: false, help: 'sem barra de progresso' },
  { name: '--log-formato', value: true, help: 'texto (padrão) ou json [DADOSBR_LOG_FORMATO]' },
]

export const EXPORTAR_HELP = usage(
  'dadosbr exportar: escreve a base em uso de cada conjunto como Parquet (zstd), com o manifesto e um dicionário de dados.',
  'dadosbr exportar [BASE ...] --saida DIR [--data DIR]',
  SPECS,
  'Sem BASE, exporta todas as bases construídas em --data. Cada uma vai para DIR/<base>/: um .parquet por tabela\n' +
    '(o cadastro: estabelecimentos/uf=XX/parte_N.parquet e empresas, socios, simples em partes de até 256 MB),\n' +
    'manifest.json (de que arquivos oficiais a base veio) e dicionario.md / dicionario.json (coluna, tipo, significado,\n' +
    'coluna de origem). Uma exportação anterior da mesma base em DIR é substituída. Receitas: docs/pesquisa.md.',
)

export async function exportar(argv: string[]): Promise<number> {
  const { flags, positionals, help } = parseArgs(argv, SPECS, Number.MAX_SAFE_INTEGER)
  if (help) {
    process.stdout.write(EXPORTAR_HELP)
    return 0
  }
  const out = flags['--saida']
  if (typeof out !== 'string') throw new UsageError('--saida DIR é obrigatório (a pasta onde escrever os Parquet)')
  const threads = flags['--nucleos'] === undefined ? undefined : Number(flags['--nucleos'])
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) throw new UsageError('--nucleos precisa ser um inteiro >= 1')
  const memory = flags['--memoria'] as string | undefined
  if (memory !== undefined && !/^\d+(\.\d+)?\s*[KMGT]i?B$/i.test(memory)) throw new UsageError('--memoria precisa ser um tamanho como 2GB ou 512MB')
  const format = logFormatFrom(flags['--log-formato'])
  const log = lineWriter('exportar', format)
  const results = await exportDatasets({
    dataDir: String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data'),
    out,
    bases: positionals,
    memoryLimit: memory,
    threads,
    quiet: Boolean(flags['--quiet']) || format === 'json',
    log,
  })
  for (const r of results)
    log(`${r.base} ${r.referencia}: ${r.tabelas} tabelas, ${r.linhas.toLocaleString('pt-BR')} linhas, ${(r.bytes / 1e6).toFixed(1)} MB em ${r.segundos.toFixed(1)} s -> ${out}/${r.base}`)
  return 0
}
