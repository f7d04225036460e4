// The daily run against a local server with TerraBrasilis' and gov.br's real paths: only what
// changed is downloaded (ETag/Last-Modified), nothing is built when nothing changed, a page
// served in place of a file is refused, a 503 is retried, a cut download is resumed.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { desmatamentoIngest } from '../../ingest/desmatamento/command'
import { buildDesmatamento } from '../../ingest/desmatamento/load'
import { downloadDesmatamento } from '../../ingest/desmatamento/sources'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'
import { DATASET } from '../../src/datasets/desmatamento/layout'
import { tempDir } from '../temp'
import { AMZ_ZIP, CERRADO_ZIP } from './fixtures/make-fixtures'
import { answer, SAMPLE } from './helpers'

const servers: ReplayServer[] = []
afterAll(() => servers.forEach((s) => s.close()))

const AMZ = '/file-delivery/download/deter-amz/shape'
const CERRADO = '/file-delivery/download/deter-cerrado-nb/shape'
const MUNI = '/receitafederal/dados/municipios.csv'

/** The three files with ETags (the municipality table with Last-Modified only); a conditional request with the current validator gets 304. */
function upstream() {
  const server = startReplay()
  servers.push(server)
  const files: Record<string, { file: string; etag?: string; lastModified?: string }> = {
    [AMZ]: { file: join(SAMPLE, AMZ_ZIP), etag: '"amz-1"' },
    [CERRADO]: { file: join(SAMPLE, CERRADO_ZIP), etag: '"cerrado-1"' },
    [MUNI]: { file: join(SAMPLE, 'municipios.csv'), lastModified: 'Tue, 03 Mar 2026 10:00:00 GMT' },
  }
  for (const path of Object.keys(files))
    server.on(path, (url, req) => {
      const f = files[url.pathname]!
      if ((f.etag && req.headers.get('if-none-match') === f.etag) || (f.lastModified && req.headers.get('if-modified-since') === f.lastModified)) return { status: 304 }
      const headers: Record<string, string> = { 'content-type': 'application/zip' }
      if (f.etag) headers.etag = f.etag
      if (f.lastModified) headers['last-modified'] = f.lastModified
      return { headers, file: f.file }
    })
  const env = { DETER_URL: `${server.url}/file-delivery/download`, RFB_MUNICIPIOS_URL: `${server.url}${MUNI}` }
  return { server, files, env }
}

const fast = { retries: 2, retryDelayMs: 5, quiet: true }

describe('daily download', () => {
  test('first run gets the three files; the next asks with their validators, gets 304s and builds nothing; a changed zip is fetched again', async () => {
    const { server, files, env } = upstream()
    const dir = tempDir('dadosbr-desm-dl-')
    const dataDir = tempDir('dadosbr-desm-')
    expect((await downloadDesmatamento(dir, fast, env)).fetched).toEqual(['deter-amz-public.zip', 'deter-cerrado-nb-public.zip', 'municipios.csv'])
    expect(readdirSync(dir).filter((f) => !f.endsWith('.http.json')).sort()).toEqual(['deter-amz-public.zip', 'deter-cerrado-nb-public.zip', 'municipios.csv'])
    expect((await buildDesmatamento({ dir, dataDir, quiet: true })).built).toBe(true)
    expect(answer(dataDir, '1200401').desde_corte.alertas).toBe(6)

    server.requests.length = 0
    expect((await downloadDesmatamento(dir, fast, env)).fetched).toEqual([])
    expect(server.requests.map((r) => [r.path, r.headers.get('if-none-match') ?? r.headers.get('if-modified-since')])).toEqual([
      [AMZ, '"amz-1"'],
      [CERRADO, '"cerrado-1"'],
      [MUNI, 'Tue, 03 Mar 2026 10:00:00 GMT'],
    ])
    expect((await buildDesmatamento({ dir, dataDir, quiet: true })).built).toBe(false)

    // TerraBrasilis regenerates the Amazon zip: a new ETag, fetched and built again.
    files[AMZ] = { file: join(SAMPLE, CERRADO_ZIP), etag: '"amz-2"' }
    expect((await downloadDesmatamento(dir, fast, env)).fetched).toEqual(['deter-amz-public.zip'])
    // (the Cerrado zip served as the Amazon one: two of a biome, refused, the build in use kept)
    const err = await buildDesmatamento({ dir, dataDir, quiet: true }).then(() => null, (e: Error) => e.message)
    expect(err).toMatch(/^dois arquivos do DETER cerrado: deter-amz-public\.zip e deter-cerrado-nb-public\.zip/)
    expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBeTruthy()
  })

  test('a page served in place of a file: refused and removed, so the next run asks again', async () => {
    const { server, env } = upstream()
    server.on(CERRADO, { headers: { 'content-type': 'text/html' }, body: '<html><body>Serviço indisponível</body></html>' })
    const dir = tempDir('dadosbr-desm-dl-')
    const err = await downloadDesmatamento(dir, fast, env).then(() => null, (e: Error) => e.message)
    expect(err).toBe(`${env.DETER_URL}/deter-cerrado-nb/shape não entregou o zip do DETER Cerrado (veio outra coisa, talvez uma página de erro); tente mais tarde ou use --from DIR`)
    expect(existsSync(join(dir, 'deter-cerrado-nb-public.zip'))).toBe(false)
    expect(existsSync(join(dir, 'deter-amz-public.zip'))).toBe(true)
  })

  test('a 503 then the file; a download cut midway resumed with Range', async () => {
    const { server, env } = upstream()
    let calls = 0
    server.on(MUNI, () => (++calls === 1 ? { status: 503 } : { file: join(SAMPLE, 'municipios.csv') }))
    // The Amazon zip's answer arms the cut of the next answer (the Cerrado zip), which disarms it for the resume.
    server.on(AMZ, () => {
      server.fault = { kind: 'truncate', bytes: 1000 }
      return { file: join(SAMPLE, AMZ_ZIP) }
    })
    server.on(CERRADO, () => {
      server.fault = { kind: 'none' }
      return { file: join(SAMPLE, CERRADO_ZIP) }
    })
    const dir = tempDir('dadosbr-desm-dl-')
    await downloadDesmatamento(dir, fast, env)
    expect(calls).toBe(2)
    expect(server.requests.filter((r) => r.path === CERRADO).map((r) => r.headers.get('range'))).toEqual([null, 'bytes=1000-'])
    expect(readFileSync(join(dir, 'deter-cerrado-nb-public.zip')).equals(readFileSync(join(SAMPLE, CERRADO_ZIP)))).toBe(true)
  })

  test('the ingest command, with the base URLs from the settings', async () => {
    const { env } = upstream()
    const saved = { DETER_URL: process.env.DETER_URL, RFB_MUNICIPIOS_URL: process.env.RFB_MUNICIPIOS_URL }
    Object.assign(process.env, env)
    try {
      const dataDir = tempDir('dadosbr-desm-')
      const ctx = { flags: {}, dataDir, quiet: true, log: () => {} }
      expect(await desmatamentoIngest.run(ctx)).toMatch(
        /^base desmatamento 2026-03-26 pronta em [\d.]+ s \(baixados: deter-amz-public\.zip, deter-cerrado-nb-public\.zip, municipios\.csv\): Amazônia 16 alertas desde o corte \(até 2026-03-10\), Cerrado 14 \(até 2026-03-26\); 15 municípios com alertas$/,
      )
      expect(await desmatamentoIngest.run(ctx)).toBe('base desmatamento já foi construída desses arquivos (alerta mais recente 2026-03-26): nada a fazer')
      expect(existsSync(join(dataDir, 'downloads', 'desmatamento', 'deter-amz-public.zip.http.json'))).toBe(true)
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]
        else process.env[k] = v
    }
  })
})
