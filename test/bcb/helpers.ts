import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildBcb } from '../../ingest/bcb/load'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type BcbManifest } from '../../src/datasets/bcb/layout'
import { openBcbFiles, type BcbFiles } from '../../src/datasets/bcb/store'
import { tempDir } from '../temp'

/** The bundled sample: the real banks and credit unions of May 2024, three constructed lists. */
export const SAMPLE = join(import.meta.dir, 'fixtures', 'bcb-amostra')
/** The real workbooks, as the Banco Central published them. */
export const REAL = join(import.meta.dir, 'fixtures', 'real')

export function copySample(): string {
  const dir = tempDir('dadosbr-bcb-src-')
  for (const f of readdirSync(SAMPLE)) copyFileSync(join(SAMPLE, f), join(dir, f))
  return dir
}

export async function buildAndOpen(dir = SAMPLE, dataDir = tempDir('dadosbr-bcb-data-')): Promise<{ dataDir: string; files: BcbFiles; manifest: BcbManifest }> {
  await buildBcb({ dir, dataDir, force: true })
  const manifest = currentManifest<BcbManifest>(dataDir, DATASET)!
  return { dataDir, manifest, files: openBcbFiles(join(dataDir, DATASET, 'current'), manifest) }
}
