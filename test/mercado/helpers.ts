// The markets tests' upstreams: one local replay server per upstream setting, answering the bundled
// sample's recordings (real formats), the settings pointed at them; and the sample installed.
import { join } from 'node:path'
import { installFeedSample } from '../../ingest/lib/feed-sample'
import { readRecordingIndex } from '../../ingest/lib/replay'
import { startRecordedUpstreams, type Upstreams } from '../helpers'
import { MERCADO_FEEDS } from '../../src/datasets/mercado'
import { tempDir } from '../temp'

export const RECORDINGS = join(import.meta.dir, 'fixtures', 'amostra', 'recordings.json')
export const GRAVADO_EM = Date.parse(readRecordingIndex(RECORDINGS).gravado_em)

export type { Upstreams }

/** Replay servers for this dataset's recorded upstreams (test/helpers.ts). */
export const startUpstreams = (): Upstreams => startRecordedUpstreams(RECORDINGS)

/** A data directory holding the bundled sample of the markets dataset, installed as `make run` does. */
export async function sampleDataDir(): Promise<string> {
  const dataDir = tempDir('mercado-amostra-')
  await installFeedSample({ dataDir, feeds: MERCADO_FEEDS, recordings: 'test/mercado/fixtures/amostra', onlyIfNeeded: false })
  return dataDir
}
