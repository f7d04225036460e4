// The copy of /v1/integridade/amostra bundled in the program (src/datasets/integridade/amostra.json):
// what the bundled sample builds today. `bun test/integridade/amostra.ts` rewrites it; a test
// fails when the committed copy differs from a fresh build.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { integridadeIngest } from '../../ingest/integridade/command'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type IntegridadeManifest } from '../../src/datasets/integridade/layout'
import { AMOSTRA_CNPJ } from '../../src/datasets/integridade/route'
import { triagem } from '../../src/datasets/integridade/service'
import { openIntegridadeFiles } from '../../src/datasets/integridade/store'
import { tempDir } from '../temp'

export const AMOSTRA_FILE = join(import.meta.dir, '..', '..', 'src', 'datasets', 'integridade', 'amostra.json')

export async function amostraFromSample(): Promise<string> {
  const dataDir = tempDir('dadosbr-integridade-amostra-')
  try {
    await integridadeIngest.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
    const manifest = currentManifest<IntegridadeManifest>(dataDir, DATASET)!
    const files = openIntegridadeFiles(join(dataDir, DATASET, 'current'), manifest)
    try {
      // The sample's matches have no end date (the MTE list): the copy does not age.
      return JSON.stringify({ ...triagem(files, AMOSTRA_CNPJ), amostra: true }, null, 2) + '\n'
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
