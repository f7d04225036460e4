// The free sample: answered from the loaded base, or, with nothing loaded, from the copy bundled
// in the program (src/datasets/fundos/amostra.json), which must be what a build of the bundled
// sample gives today.
import { describe, expect, test } from 'bun:test'
import { get, tempDir, testApp } from '../helpers'
import { amostraFromSample, committedAmostra } from './amostra'
import { buildFixtureData } from './helpers'

describe('the bundled copy of /v1/fundos/amostra', () => {
  test('is what the bundled sample builds today (rewrite it with `bun test/fundos/amostra.ts`)', async () => {
    expect(committedAmostra()).toBe(await amostraFromSample())
  })

  test('is served, free, when no fund base is loaded; the paid routes say how to load one (503)', async () => {
    const { app } = await testApp({ dataDir: tempDir('dadosbr-vazio-') })
    try {
      const r = await get(app, '/v1/fundos/amostra')
      expect(r.status).toBe(200)
      expect(r.body).toEqual(JSON.parse(committedAmostra()))
      const paid = await get(app, '/v1/fundos/fluxos')
      expect(paid.status).toBe(503)
      expect(paid.body.erro.mensagem).toContain("dadosbr ingest fundos")
    } finally {
      await app.close()
    }
  })

  test('with a base loaded, comes from it (same content as the copy for the bundled sample)', async () => {
    const { app } = await testApp({ dataDir: await buildFixtureData() })
    try {
      const r = await get(app, '/v1/fundos/amostra')
      expect(JSON.stringify(r.body, null, 2) + '\n').toBe(committedAmostra())
    } finally {
      await app.close()
    }
  })
})
