import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { tempDir } from '../helpers'

/** The bundled sample (`make sample` builds it): a whole month in the real format, every row loadable. */
export const FIXTURES = join(import.meta.dir, 'fixtures', 'rfb')
/** Test-only zips with rows the load must reject; added to a copy of the sample by withRejects. */
export const REJECTS = join(import.meta.dir, 'fixtures', 'rejeitadas')

/** A copy of the sample in a fresh directory, with `extra` directories' zips over it (same names replace). */
export function copyFixtures(...extra: string[]): string {
  const dir = tempDir('dadosbr-src-')
  for (const from of [FIXTURES, ...extra]) for (const f of readdirSync(from)) copyFileSync(join(from, f), join(dir, f))
  return dir
}

/** The sample plus the malformed rows of REJECTS (Estabelecimentos9 replaces the sample's empty one). */
export const withRejects = () => copyFixtures(REJECTS)

/** Builds the real-format fixtures (SERPRO excerpt + edge cases) into a fresh data directory. */
export async function buildFixtureData(month = '2026-08', sourceDir = FIXTURES): Promise<string> {
  const dataDir = tempDir('dadosbr-cnpj-')
  await buildCnpj({ sourceDir, month, dataDir, quiet: true, log: () => {} })
  return dataDir
}
