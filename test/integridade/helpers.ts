import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildIntegridade } from '../../ingest/integridade/load'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type IntegridadeManifest } from '../../src/datasets/integridade/layout'
import { openIntegridadeFiles, type IntegridadeFiles } from '../../src/datasets/integridade/store'
import { tempDir } from '../temp'

/** The bundled sample: the MTE excerpt (real rows) and the CGU files (constructed rows), as published. */
export const SAMPLE = join(import.meta.dir, 'fixtures', 'integridade-amostra')

/** A copy of the sample in a fresh directory (to rename, replace or break files). */
export function copySample(): string {
  const dir = tempDir('dadosbr-integridade-src-')
  for (const f of readdirSync(SAMPLE)) copyFileSync(join(SAMPLE, f), join(dir, f))
  return dir
}

/** Builds `dir` into a fresh (or the given) data directory and opens the build. */
export async function buildAndOpen(dir = SAMPLE, dataDir = tempDir('dadosbr-integridade-data-')): Promise<{ dataDir: string; files: IntegridadeFiles; manifest: IntegridadeManifest }> {
  await buildIntegridade({ dir, dataDir, force: true })
  const manifest = currentManifest<IntegridadeManifest>(dataDir, DATASET)!
  return { dataDir, manifest, files: openIntegridadeFiles(join(dataDir, DATASET, 'current'), manifest) }
}
