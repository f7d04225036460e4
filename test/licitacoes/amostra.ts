// `bun test/licitacoes/amostra.ts`: rewrites src/datasets/licitacoes/amostra.json, the copy of
// /v1/licitacoes/amostra embedded in the program, from a fresh build of the bundled sample.
import { join } from 'node:path'
import { testApp, get } from '../helpers'
import { sampleDir } from './helpers'

export async function freshAmostra(): Promise<unknown> {
  const { app } = await testApp({ dataDir: await sampleDir() })
  try {
    return (await get(app, '/v1/licitacoes/amostra')).body
  } finally {
    await app.close()
  }
}

if (import.meta.main) {
  await Bun.write(join(import.meta.dir, '..', '..', 'src', 'datasets', 'licitacoes', 'amostra.json'), JSON.stringify(await freshAmostra(), null, 2) + '\n')
  const { removeTempDirs } = await import('../temp')
  removeTempDirs()
}
