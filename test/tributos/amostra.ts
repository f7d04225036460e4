// The copy of /v1/tributos/amostra bundled in the program (src/datasets/tributos/amostra.json): what
// the bundled sample builds today. `bun test/tributos/amostra.ts` rewrites it; a test fails when they differ.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tributosIngest } from '../../ingest/tributos/command'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type TributosManifest } from '../../src/datasets/tributos/layout'
import { AMOSTRA_ANO, AMOSTRA_NCM } from '../../src/datasets/tributos/route'
import { consultarNcm } from '../../src/datasets/tributos/service'
import { openTributosFiles } from '../../src/datasets/tributos/store'
import { tempDir } from '../temp'

export const AMOSTRA_FILE = join(import.meta.dir, '..', '..', 'src', 'datasets', 'tributos', 'amostra.json')

export async function amostraFromSample(): Promise<string> {
  const dataDir = tempDir('dadosbr-tributos-amostra-')
  try {
    await tributosIngest.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
    const files = openTributosFiles(join(dataDir, DATASET, 'current'), currentManifest<TributosManifest>(dataDir, DATASET)!)
    return JSON.stringify({ ...consultarNcm(files, AMOSTRA_NCM, AMOSTRA_ANO), amostra: true }, null, 2) + '\n'
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export const committedAmostra = () => readFileSync(AMOSTRA_FILE, 'utf8')

if (import.meta.main) {
  writeFileSync(AMOSTRA_FILE, await amostraFromSample())
  console.log(`escrito ${AMOSTRA_FILE}`)
}
