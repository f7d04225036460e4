import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { tempDir } from '../helpers'

export const FIXTURES = join(import.meta.dir, 'fixtures', 'rfb')

/** Builds the real-format fixtures (SERPRO excerpt + edge cases) into a fresh data directory. */
export async function buildFixtureData(month = '2026-08'): Promise<string> {
  const dataDir = tempDir('dadosbr-cnpj-')
  await buildCnpj({ sourceDir: FIXTURES, month, dataDir, allowPartial: true, quiet: true, log: () => {} })
  return dataDir
}
