// The fund tests' data: the bundled sample built by the real ingest into a temporary data
// directory (once per test file), and helpers to build variants of it.
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { buildFundos, sourcesInDir, type FundosManifest } from '../../ingest/fundos/load'
import { tempDir } from '../helpers'

export const FIXTURES = join(import.meta.dir, 'fixtures', 'fundos-amostra')

/** A copy of the sample's files in a new temporary folder (to add, remove or break some). */
export function copyFixtures(): string {
  const dir = tempDir('dadosbr-fundos-src-')
  cpSync(FIXTURES, dir, { recursive: true })
  return dir
}

/** Builds a folder of CVM files into a data directory (a new one unless given). */
export async function buildFrom(sourceDir: string, dataDir = tempDir('dadosbr-fundos-data-'), options: { allowPartial?: boolean; portfolioMonths?: number } = {}): Promise<{ dataDir: string; manifest: FundosManifest }> {
  const manifest = await buildFundos({ sources: sourcesInDir(sourceDir, 12, options.portfolioMonths), dataDir, quiet: true, allowPartial: options.allowPartial })
  return { dataDir, manifest }
}

let sample: Promise<string> | undefined
/** The bundled sample, built once per test file. */
export function buildFixtureData(): Promise<string> {
  sample ??= buildFrom(FIXTURES).then((r) => r.dataDir)
  return sample
}
