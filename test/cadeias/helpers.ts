// The chains' tests: replay servers for their own upstreams (ANEEL, ONS balance) answering the
// bundled recordings, and data directories holding every sample a chain reads (markets, exports,
// commodities, funds, and the chains' own), installed as `make run` does.
import { join } from 'node:path'
import { cadeiasIngest } from '../../ingest/cadeias/command'
import { commoditiesIngest, exportacoesIngest } from '../../ingest/commodities/command'
import { fundosIngest } from '../../ingest/fundos/command'
import { readRecordingIndex } from '../../ingest/lib/replay'
import { startRecordedUpstreams, type Upstreams } from '../helpers'
import { mercadoIngest } from '../../ingest/mercado/command'
import { tempDir } from '../temp'

export const FIXTURES = join(import.meta.dir, 'fixtures')
export const RECORDINGS = join(FIXTURES, 'cadeias-amostra', 'recordings.json')
export const GRAVADO_EM = Date.parse(readRecordingIndex(RECORDINGS).gravado_em)
export const SAMPLE_TIME = '2026-01-29T15:30:00.000Z'

export type { Upstreams }

/** Replay servers for this dataset's recorded upstreams (test/helpers.ts). */
export const startUpstreams = (): Upstreams => startRecordedUpstreams(RECORDINGS)

const ctx = (dataDir: string) => ({ flags: {}, dataDir, quiet: true, log: () => {} })

/** A data directory with the samples the chains read; leave one out to see a chain degrade. */
export async function sampleDataDir(options: { sem?: ('mercado' | 'exportacoes' | 'commodities' | 'fundos' | 'cadeias')[] } = {}): Promise<string> {
  const sem = new Set(options.sem ?? [])
  const dataDir = tempDir('cadeias-amostra-')
  if (!sem.has('mercado')) await mercadoIngest.sample(ctx(dataDir), false)
  if (!sem.has('exportacoes')) await exportacoesIngest.sample(ctx(dataDir), false)
  if (!sem.has('commodities')) await commoditiesIngest.sample(ctx(dataDir), false)
  if (!sem.has('fundos')) await fundosIngest.sample(ctx(dataDir), false)
  if (!sem.has('cadeias')) await cadeiasIngest.sample(ctx(dataDir), false)
  return dataDir
}
