import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { tempDir } from '../helpers'

/** The bundled sample (`make sample` builds it): a whole month in the real format, every row loadable. */
export const FIXTURES = join(import.meta.dir, 'fixtures', 'rfb')
/** The month before the sample (fixtures/make-earlier-month.ts): the sample's history. */
export const EARLIER_FIXTURES = join(import.meta.dir, 'fixtures', 'rfb-2026-07')
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

/** The sample's two months built in order into a fresh data directory, as `dadosbr ingest cnpj --amostra` does: a history of 2026-07 and 2026-08. */
export async function buildHistoryData(): Promise<string> {
  const dataDir = tempDir('dadosbr-historico-')
  await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir, quiet: true, log: () => {} })
  await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir, quiet: true, log: () => {} })
  return dataDir
}
