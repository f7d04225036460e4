// `dadosbr ingest licitacoes`: the contracts index from PNCP (sync.ts), and its bundled sample:
// recorded PNCP answers (test/licitacoes/fixtures/) replayed by a local server through the same
// sync, plus the open-tenders feed's recorded copy.
import { join } from 'node:path'
import { UsageError, type FlagSpec } from '../../src/cli/args'
import { abertasFeed } from '../../src/datasets/licitacoes/feed'
import { DATASET_DIR, FORMAT } from '../../src/datasets/licitacoes/layout'
import { PNCP } from '../../src/datasets/licitacoes/pncp'
import { copyBundled } from '../lib/bundled'
import { installFeedSample } from '../lib/feed-sample'
import { loadRecordings, readRecordingIndex, startReplay } from '../lib/replay'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { currentManifest } from '../lib/snapshot'
import type { ContractsManifest } from './compact'
import { FIRST_DAY, syncContracts, type SyncSummary } from './sync'

const CONTRACTS_SAMPLE = 'test/licitacoes/fixtures/contratos'
const TENDERS_SAMPLE = 'test/licitacoes/fixtures/abertas'
/** The publication days the recorded contract answers cover. */
const SAMPLE_DAYS = { desde: '2023-01-02', ate: '2024-08-14' }

const SPECS: FlagSpec[] = [
  { name: '--desde', value: true, help: `primeiro dia de publicação, AAAA-MM-DD (padrão: o do índice, senão ${FIRST_DAY}: todo o PNCP)` },
  { name: '--ate', value: true, help: 'último dia de publicação, AAAA-MM-DD (padrão: hoje; o dia de hoje é lido, mas relido na próxima vez)' },
  { name: '--concorrencia', value: true, help: 'consultas ao PNCP em paralelo (padrão 4) [PNCP_CONCORRENCIA]' },
  { name: '--tamanho-pagina', value: true, help: 'registros por página pedidos ao PNCP (padrão 50)' },
  { name: '--refazer', value: false, help: 'apaga o índice e recomeça do zero (índice de outra versão)' },
]

function intFlag(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} precisa ser um inteiro de ${min} a ${max}`)
  return n
}

function describe(s: SyncSummary): string {
  const dropped = s.descartados.fornecedor_nao_pj + s.descartados.sem_numero
  const pending = s.dias_pendentes.length ? `; ${s.dias_pendentes.length} dia(s) a ler de novo na próxima vez (${s.dias_pendentes.slice(0, 3).join(', ')}${s.dias_pendentes.length > 3 ? '...' : ''})` : ''
  const built = s.compactacao && s.compactacao.modo !== 'nada' ? `índice ${s.compactacao.modo === 'completa' ? 'reconstruído' : 'atualizado'} em ${s.compactacao.segundos.toFixed(1)} s` : 'índice sem mudança'
  return (
    `contratos do PNCP sincronizados até ${s.sincronizado_ate ?? 'nenhum dia'} (desde ${s.desde}) em ${s.segundos.toFixed(1)} s: ` +
    `${s.dias_lidos} dias lidos, ${s.paginas} páginas, ${s.contratos_lidos} contratos lidos (${s.atualizacoes} por atualização), ` +
    `${dropped} descartados (pessoa física, estrangeiro ou sem número); ${built}, ${s.contratos_no_indice} contratos no índice${pending}`
  )
}

/** What the contracts index in use is: the bundled sample, a real index (kept by `make run`), or none. */
function indexInPlace(dataDir: string): 'amostra' | 'real' | null {
  const m = currentManifest<ContractsManifest>(dataDir, DATASET_DIR)
  if (m?.formato !== FORMAT) return null
  return m.desde === SAMPLE_DAYS.desde && m.sincronizado_ate === SAMPLE_DAYS.ate ? 'amostra' : 'real'
}

export const licitacoesIngest: IngestDataset = {
  name: 'licitacoes',
  description: 'contratos públicos por fornecedor, do PNCP (índice local, incremental)',
  synopsis: 'dadosbr ingest licitacoes [--desde AAAA-MM-DD] [--ate AAAA-MM-DD] [--concorrencia N] [--data DIR]',
  specs: SPECS,
  upstreams: [PNCP],
  help:
    'Lê /v1/contratos do PNCP por dia de publicação, todas as páginas, e grava cada dia inteiro de uma vez em\n' +
    'data/licitacoes/sync.sqlite; no fim (e a cada hora de uma leitura longa) constrói o índice servido numa pasta nova\n' +
    'e troca data/licitacoes/current (o servidor passa a usá-lo sozinho, sem reiniciar). A primeira vez lê\n' +
    'todo o PNCP (de 2021 até hoje: dias de consultas, pois o PNCP leva 15-22 s por consulta); as seguintes leem só\n' +
    'os dias que faltam e /v1/contratos/atualizacao desde a última vez (um contrato retificado substitui o anterior).\n' +
    'Interrompido, recomeça de onde parou. fonte.referencia das respostas diz até que dia tudo foi lido.',
  sampleAssets: [CONTRACTS_SAMPLE, TENDERS_SAMPLE],
  async run(ctx) {
    const summary = await syncContracts({
      dataDir: ctx.dataDir,
      desde: ctx.flags['--desde'] as string | undefined,
      ate: ctx.flags['--ate'] as string | undefined,
      concurrency: intFlag(ctx.flags['--concorrencia'] ?? process.env.PNCP_CONCORRENCIA, '--concorrencia / PNCP_CONCORRENCIA', 1, 64),
      pageSize: intFlag(ctx.flags['--tamanho-pagina'], '--tamanho-pagina', 1, 500),
      rebuild: Boolean(ctx.flags['--refazer']),
      quiet: ctx.quiet,
      log: ctx.log,
    })
    return describe(summary)
  },
  async sample(ctx, onlyIfNeeded) {
    const lines: string[] = []
    const inPlace = onlyIfNeeded ? indexInPlace(ctx.dataDir) : null
    // A real index may hold days of PNCP queries: `make run` never replaces it with the sample.
    const where = join(ctx.dataDir, DATASET_DIR)
    if (inPlace === 'amostra') lines.push(`contratos do PNCP: amostra já está em ${where}, nada a fazer`)
    else if (inPlace === 'real') lines.push(`contratos do PNCP: ${where} tem um índice real, mantido (a amostra não o substitui)`)
    else lines.push(await buildContractsSample(ctx))
    lines.push(await installFeedSample({ dataDir: ctx.dataDir, feeds: [abertasFeed], recordings: TENDERS_SAMPLE, onlyIfNeeded }))
    return lines.join('\n')
  },
}

/** Replays the recorded PNCP answers through the real sync, at the time they were recorded. */
async function buildContractsSample(ctx: IngestContext): Promise<string> {
  const copy = await copyBundled(CONTRACTS_SAMPLE)
  const index = join(copy.dir, 'recordings.json')
  const server = startReplay(loadRecordings(index, 'PNCP_URL'))
  const before = process.env.PNCP_URL
  process.env.PNCP_URL = server.url
  try {
    const summary = await syncContracts({
      dataDir: ctx.dataDir, ...SAMPLE_DAYS, rebuild: true, quiet: true, log: () => {}, retries: 0, backoffMs: 10,
      now: () => Date.parse(readRecordingIndex(index).gravado_em),
    })
    if (summary.sincronizado_ate !== SAMPLE_DAYS.ate) throw new Error(`a amostra gravada do PNCP não foi lida inteira (sincronizado até ${summary.sincronizado_ate})`)
    return describe(summary)
  } finally {
    if (before === undefined) delete process.env.PNCP_URL
    else process.env.PNCP_URL = before
    server.close()
    copy.done()
  }
}
