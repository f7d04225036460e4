// The free sample never fails: from the loaded data when it has the company, else from the copy
// bundled in the program (src/datasets/cnpj/amostra.json), which must be what a build of the
// bundled sample gives today.
import { describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeZip } from '../../ingest/lib/zip-write'
import { get, tempDir, testApp } from '../helpers'
import { amostraFromSample, AMOSTRA_FILE, committedAmostra } from './amostra'
import { buildFixtureData, copyFixtures } from './helpers'

const COPY = JSON.parse(committedAmostra())

describe('the bundled copy of /v1/cnpj/amostra', () => {
  test('is exactly what the bundled sample builds today (rewrite it with `bun test/cnpj/amostra.ts`)', async () => {
    expect(committedAmostra()).toBe(await amostraFromSample())
  }, 30_000)

  test("is SERPRO's complete card, flagged, with the copy's month in fonte", () => {
    expect(AMOSTRA_FILE).toEndWith(join('src', 'datasets', 'cnpj', 'amostra.json'))
    expect([COPY.cnpj, COPY.razao_social, COPY.total_socios, COPY.amostra, COPY.fonte]).toEqual(['33683111000280', 'SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)', 6, true, { base: 'RFB/CNPJ', referencia: '2026-08' }])
  })
})

describe('/v1/cnpj/amostra', () => {
  test('no data loaded: 200 with the bundled copy (not 503)', async () => {
    const { app } = await testApp({ dataDir: tempDir('dadosbr-vazio-') })
    try {
      const r = await get(app, '/v1/cnpj/amostra')
      expect(r.status).toBe(200)
      expect(r.body).toEqual({ ...COPY, origem: 'copia_embutida' })
      // The paid routes still say the data is missing.
      expect((await get(app, '/v1/cnpj/empresa/33683111000280')).status).toBe(503)
    } finally {
      await app.close()
    }
  })

  test("data without the sample's company (a partial dump of another month): 200 with the bundled copy, its own month in fonte", async () => {
    const src = copyFixtures()
    // SERPRO's establishment file, empty: the company is in Empresas but has no card.
    rmSync(join(src, 'Estabelecimentos0.zip'))
    await writeZip(join(src, 'Estabelecimentos0.zip'), 'K3241.K03200Y0.D60908.ESTABELE', new Uint8Array())
    const data = await buildFixtureData('2026-09', src)
    const { app } = await testApp({ dataDir: data })
    try {
      expect((await get(app, '/v1/health')).body.base_referencia).toBe('2026-09')
      expect((await get(app, '/v1/cnpj/empresa/33683111000280')).status).toBe(404)
      const r = await get(app, '/v1/cnpj/amostra')
      expect(r.status).toBe(200)
      expect(r.body).toEqual({ ...COPY, origem: 'copia_embutida' })
      expect(r.body.fonte.referencia).toBe('2026-08')
    } finally {
      await app.close()
    }
  }, 30_000)

  test('data that has the company: answered from the data (its month in fonte), not from the copy', async () => {
    const data = await buildFixtureData('2026-07')
    const { app } = await testApp({ dataDir: data })
    try {
      const r = await get(app, '/v1/cnpj/amostra')
      expect(r.status).toBe(200)
      expect(r.body).toEqual({ ...COPY, fonte: { base: 'RFB/CNPJ', referencia: '2026-07' }, origem: 'base_carregada' })
    } finally {
      await app.close()
    }
  }, 30_000)
})
