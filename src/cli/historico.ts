// `dadosbr historico cnpj`: the months the registry's history holds (size, changes of each), and
// how to drop the oldest ones (docs/historico.md): a new build of hard links without them,
// swapped in like a month, so a running server follows it and a failure changes nothing.
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { dropMonths, heldMonths, monthMeta, monthRanges } from '../../ingest/cnpj/history'
import { CURRENT_LINK, DATASET_DIR } from '../datasets/cnpj/layout'
import { HISTORY_DIR, historyFile } from '../datasets/cnpj/historico-layout'
import { lineWriter, logFormatFrom } from '../core/log'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

const SPECS: FlagSpec[] = [
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data) [DADOSBR_DATA]' },
  { name: '--descartar-antes', value: true, help: 'descarta os meses anteriores a AAAA-MM (o mais recente fica sempre)' },
  { name: '--manter', value: true, help: 'mantém só os N meses mais recentes (N >= 1)' },
]

export const HISTORICO_HELP = usage(
  'dadosbr historico cnpj: os meses que o histórico do cadastro guarda, e o descarte dos mais antigos.',
  'dadosbr historico cnpj [--data DIR] [--descartar-antes AAAA-MM | --manter N]',
  SPECS,
  'Sem opção, lista cada mês guardado: mudanças, tamanho e o mês com que foi comparado. Cada ingestão mensal acrescenta\n' +
    'um mês (~200 MB por mês no cadastro nacional, docs/historico.md). O descarte constrói uma base nova, de links para\n' +
    'os mesmos arquivos, sem os meses descartados, e a troca como uma ingestão (um servidor rodando passa a usá-la sozinho);\n' +
    'o espaço volta quando a base anterior sai, na troca seguinte.',
)

const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`

export async function historico(argv: string[]): Promise<number> {
  const { flags, positionals, help } = parseArgs(argv, SPECS, 1)
  if (help || positionals[0] === undefined) {
    process.stdout.write(HISTORICO_HELP)
    return help ? 0 : 2
  }
  if (positionals[0] !== 'cnpj') throw new UsageError(`base desconhecida: ${positionals[0]} (o histórico é do cadastro: dadosbr historico cnpj)`)
  const before = flags['--descartar-antes'] as string | undefined
  const keep = flags['--manter'] === undefined ? undefined : Number(flags['--manter'])
  if (before !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(before)) throw new UsageError('--descartar-antes precisa de um mês AAAA-MM')
  if (keep !== undefined && !(Number.isInteger(keep) && keep >= 1)) throw new UsageError('--manter precisa ser um inteiro >= 1')
  if (before !== undefined && keep !== undefined) throw new UsageError('use --descartar-antes ou --manter, não os dois')
  const dataDir = String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data')
  const log = lineWriter('historico', logFormatFrom(undefined))
  const link = join(dataDir, DATASET_DIR, CURRENT_LINK)
  if (!existsSync(link)) throw new Error(`nenhuma base do cadastro em ${dataDir}; rode 'dadosbr ingest cnpj' antes`)
  if (before === undefined && keep === undefined) {
    const held = heldMonths(link)
    if (!held.length) {
      log('a base em uso não guarda histórico (foi construída antes dele); a próxima ingestão o começa')
      return 0
    }
    for (const m of held) {
      const path = join(link, HISTORY_DIR, historyFile(m))
      const meta = monthMeta(path)
      const desde = meta.referencia_anterior ? `${meta.itens} mudanças ${meta.lacuna ? `entre ${meta.referencia_anterior} e ${m}` : `desde ${meta.referencia_anterior}`}` : 'primeiro mês guardado (sem comparação)'
      process.stdout.write(`${m}  ${mb(statSync(path).size).padStart(9)}  ${desde}\n`)
    }
    return 0
  }
  const r = await dropMonths(dataDir, { before, keep })
  log(
    r.descartados.length
      ? `descartados ${monthRanges(r.descartados)} (${mb(r.bytes)}, liberados na próxima troca); o histórico guarda ${monthRanges(r.mantidos)}`
      : `nada a descartar; o histórico guarda ${monthRanges(r.mantidos)}`,
  )
  return 0
}
