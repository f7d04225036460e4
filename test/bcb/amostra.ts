// The copy of /v1/bcb/amostra bundled in the program (src/datasets/bcb/amostra.json): what the
// bundled sample builds today. `bun test/bcb/amostra.ts` rewrites it; a test fails when they differ.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bcbIngest } from '../../ingest/bcb/command'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type BcbManifest } from '../../src/datasets/bcb/layout'
import { AMOSTRA_RAIZ } from '../../src/datasets/bcb/route'
import { instituicao } from '../../src/datasets/bcb/service'
import { openBcbFiles } from '../../src/datasets/bcb/store'
import { tempDir } from '../temp'

export const AMOSTRA_FILE = join(import.meta.dir, '..', '..', 'src', 'datasets', 'bcb', 'amostra.json')

export async function amostraFromSample(): Promise<string> {
  const dataDir = tempDir('dadosbr-bcb-amostra-')
  try {
    await bcbIngest.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
    const files = openBcbFiles(join(dataDir, DATASET, 'current'), currentManifest<BcbManifest>(dataDir, DATASET)!)
    try {
      return JSON.stringify({ ...instituicao(files, AMOSTRA_RAIZ), amostra: true }, null, 2) + '\n'
    } finally {
      files.db.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export const committedAmostra = () => readFileSync(AMOSTRA_FILE, 'utf8')

if (import.meta.main) {
  writeFileSync(AMOSTRA_FILE, await amostraFromSample())
  console.log(`escrito ${AMOSTRA_FILE}`)
}
