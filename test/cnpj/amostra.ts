// The free sample's bundled copy (src/datasets/cnpj/amostra.json): /v1/cnpj/amostra answers with it
// when the loaded data lacks the sample's company (a partial or synthetic dump) or no data is
// loaded. It is produced here from a build of the bundled sample, by the same code that answers
// from loaded data. `bun test/cnpj/amostra.ts` rewrites it; test/cnpj/amostra.test.ts fails
// when the committed file differs from what this produces.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { AMOSTRA_CNPJ } from '../../src/datasets/cnpj/route'
import * as service from '../../src/datasets/cnpj/service'
import { openCnpjStore } from '../../src/datasets/cnpj/store'
import { buildFixtureData } from './helpers'

export const AMOSTRA_FILE = join(import.meta.dir, '..', '..', 'src', 'datasets', 'cnpj', 'amostra.json')

/** The copy's text, from a fresh build of the bundled sample. */
export async function amostraFromSample(): Promise<string> {
  const dataDir = await buildFixtureData()
  const store = await openCnpjStore(loadConfig({ free: true, dataDir, prewarm: '0' }, {}), createLogger('silent'))
  try {
    const completo = await store.use((files) => service.completo(files, AMOSTRA_CNPJ))
    return JSON.stringify({ ...completo, amostra: true }, null, 2) + '\n'
  } finally {
    await store.close()
  }
}

export const committedAmostra = () => readFileSync(AMOSTRA_FILE, 'utf8')

if (import.meta.main) {
  writeFileSync(AMOSTRA_FILE, await amostraFromSample())
  console.log(`escrito ${AMOSTRA_FILE}`)
}
