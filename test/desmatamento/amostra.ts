// The copy of /v1/desmatamento/amostra bundled in the program (src/datasets/desmatamento/amostra.json):
// what the bundled sample builds today. `bun test/desmatamento/amostra.ts` rewrites it; a test fails when they differ.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { desmatamentoIngest } from '../../ingest/desmatamento/command'
import { DATASET } from '../../src/datasets/desmatamento/layout'
import { amostra } from '../../src/datasets/desmatamento/service'
import { openDesmatamentoFiles } from '../../src/datasets/desmatamento/store'
import { tempDir } from '../temp'

export const AMOSTRA_FILE = join(import.meta.dir, '..', '..', 'src', 'datasets', 'desmatamento', 'amostra.json')

export async function amostraFromSample(): Promise<string> {
  const dataDir = tempDir('dadosbr-desmatamento-amostra-')
  try {
    await desmatamentoIngest.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
    const files = openDesmatamentoFiles(join(dataDir, DATASET, 'current'))
    try {
      return JSON.stringify(amostra(files), null, 2) + '\n'
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
