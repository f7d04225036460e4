// The free sample's bundled copy (src/datasets/fundos/amostra.json): /v1/fundos/amostra answers
// with it when no fund base is loaded. It is produced here from a build of the bundled sample, by
// the same code that answers from loaded data. `bun test/fundos/amostra.ts` rewrites it;
// test/fundos/amostra.test.ts fails when the committed file differs from what this produces.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import * as service from '../../src/datasets/fundos/service'
import { openFundosStore } from '../../src/datasets/fundos/store'
import { buildFixtureData } from './helpers'

export const AMOSTRA_FILE = join(import.meta.dir, '..', '..', 'src', 'datasets', 'fundos', 'amostra.json')

/** The copy's text, from a fresh build of the bundled sample. */
export async function amostraFromSample(): Promise<string> {
  const dataDir = await buildFixtureData()
  const store = await openFundosStore(loadConfig({ free: true, dataDir }, {}), createLogger('silent'))
  try {
    const body = await store.use((s) => service.amostra(s.files))
    if (!body) throw new Error('a amostra construída não tem fundo com carteira')
    return JSON.stringify(body, null, 2) + '\n'
  } finally {
    await store.close()
  }
}

export const committedAmostra = () => readFileSync(AMOSTRA_FILE, 'utf8')

if (import.meta.main) {
  writeFileSync(AMOSTRA_FILE, await amostraFromSample())
  console.log(`escrito ${AMOSTRA_FILE}`)
}
