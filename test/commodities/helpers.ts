// The commodities tests' upstreams: one local replay server per upstream setting, answering the
// bundled sample's recordings (real formats), the settings pointed at them; and the samples installed
// as `make run` does (markets first: the briefing reads its PTAX; then the exports and the feeds).
import { join } from 'node:path'
import { commoditiesIngest, exportacoesIngest } from '../../ingest/commodities/command'
import { mercadoIngest } from '../../ingest/mercado/command'
import { readRecordingIndex } from '../../ingest/lib/replay'
import { startRecordedUpstreams, type Upstreams } from '../helpers'
import { tempDir } from '../temp'

export const RECORDINGS = join(import.meta.dir, 'fixtures', 'commodities-amostra', 'recordings.json')
export const GRAVADO_EM = Date.parse(readRecordingIndex(RECORDINGS).gravado_em)
export const SAMPLE_TIME = '2026-01-29T15:30:00.000Z'

export type { Upstreams }

/** Replay servers for this dataset's recorded upstreams (test/helpers.ts). */
export const startUpstreams = (): Upstreams => startRecordedUpstreams(RECORDINGS)

const ctx = (dataDir: string) => ({ flags: {}, dataDir, quiet: true, log: () => {} })

/** A data directory holding the bundled samples (markets, exports, commodities feeds). */
export async function sampleDataDir(options: { exportacoes?: boolean } = {}): Promise<string> {
  const dataDir = tempDir('commodities-amostra-')
  await mercadoIngest.sample(ctx(dataDir), false)
  if (options.exportacoes !== false) await exportacoesIngest.sample(ctx(dataDir), false)
  await commoditiesIngest.sample(ctx(dataDir), false)
  return dataDir
}
