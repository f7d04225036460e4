// The daily download against a local server that serves the real paths: the CGU landing page
// whose script lists the daily files, the dated URL that redirects (302) to the zip on the CDN, and
// the MTE's CSV with an ETag. Only what changed is downloaded; a run with nothing new builds nothing.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { integridadeIngest } from '../../ingest/integridade/command'
import { buildIntegridade } from '../../ingest/integridade/load'
import { datesOnPage, downloadLists } from '../../ingest/integridade/sources'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'
import { tempDir } from '../temp'
import { SAMPLE } from './helpers'

const LISTS = [
  { slug: 'ceis', file: 'CEIS' },
  { slug: 'cnep', file: 'CNEP' },
  { slug: 'cepim', file: 'CEPIM' },
  { slug: 'acordos-leniencia', file: 'Acordos' },
]

/** The landing page's script as the portal writes it, one push per daily file. */
const landing = (origem: string, dates: string[]) =>
  `<html><body><script>var arquivos = [];\n${dates.map((d) => `arquivos.push({"ano" : "${d.slice(0, 4)}", "mes" : "${d.slice(4, 6)}", "dia" : "${d.slice(6, 8)}", "origem" : "${origem}"});`).join('\n')}\n</script></body></html>`

interface Upstream {
  server: ReplayServer
  env: Record<string, string>
  /** Latest date each landing page offers. */
  dates: Record<string, string>
  /** Paths of the requests received. */
  paths: () => string[]
  mteEtag: string
}

function upstream(): Upstream {
  const server = startReplay()
  const u: Upstream = {
    server,
    env: {},
    dates: Object.fromEntries(LISTS.map((l) => [l.slug, '20261120'])),
    paths: () => server.requests.map((r) => r.path),
    mteEtag: '"mte-v1"',
  }
  for (const l of LISTS) {
    server.on(`/download-de-dados/${l.slug}`, () => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: landing(l.file.toUpperCase(), ['20261118', '20261119', u.dates[l.slug]!]) }))
    for (const d of ['20261120', '20261121']) {
      server.on(`/download-de-dados/${l.slug}/${d}`, () => ({ status: 302, headers: { location: `${server.url}/cdn/PortalDaTransparencia/saida/${l.slug}/${d}_${l.file}.zip` } }))
      // The sample's zips (dated 20261120) stand for any day's file.
      server.on(`/cdn/PortalDaTransparencia/saida/${l.slug}/${d}_${l.file}.zip`, { headers: { 'content-type': 'application/zip' }, file: join(SAMPLE, `20261120_${l.file}.zip`) })
    }
  }
  server.on('/trabalho/cadastro_de_empregadores.csv', (_url, req) =>
    req.headers.get('if-none-match') === u.mteEtag ? { status: 304 } : { headers: { etag: u.mteEtag, 'content-type': 'text/csv' }, file: join(SAMPLE, 'cadastro_de_empregadores.csv') },
  )
  u.env = { CGU_DOWNLOADS_URL: `${server.url}/download-de-dados`, MTE_CADASTRO_URL: `${server.url}/trabalho/cadastro_de_empregadores.csv` }
  return u
}

const fast = { retries: 3, retryDelayMs: 5, quiet: true }
const servers: ReplayServer[] = []
afterAll(() => servers.forEach((s) => s.close()))
const make = () => {
  const u = upstream()
  servers.push(u.server)
  return u
}

describe('landing page', () => {
  test('the dates its script lists', () => {
    expect(datesOnPage(landing('CEIS', ['20261118', '20261120', '20261119']))).toEqual(['2026-11-18', '2026-11-19', '2026-11-20'])
    expect(datesOnPage('<html>Verificação de segurança</html>')).toEqual([])
  })
})

describe('daily run against the real paths', () => {
  test('first run downloads every list through the redirect; the next one downloads nothing and builds nothing; a new day fetches only that list', async () => {
    const u = make()
    const dataDir = tempDir('dadosbr-integridade-')
    const saved = { ...process.env }
    Object.assign(process.env, u.env)
    try {
      const ctx = { flags: {}, dataDir, quiet: true, log: () => {} }
      expect(await integridadeIngest.run(ctx)).toMatch(/^base integridade 2026-11-20 pronta em [\d.]+ s \(baixados: 20261120_CEIS\.zip, 20261120_CNEP\.zip, 20261120_CEPIM\.zip, 20261120_Acordos\.zip, cadastro_de_empregadores\.csv\): ceis=3 cnep=2 cepim=2 trabalho_escravo=14 acordos_leniencia=3; 7 linhas/)
      const downloads = join(dataDir, 'downloads', 'integridade')
      expect(readdirSync(downloads).sort()).toEqual(['20261120_Acordos.zip', '20261120_CEIS.zip', '20261120_CEPIM.zip', '20261120_CNEP.zip', 'cadastro_de_empregadores.csv', 'cadastro_de_empregadores.csv.http.json'])
      expect(u.paths().filter((p) => p.startsWith('/cdn/')).length).toBe(4)
      // Every request carries a browser User-Agent (gov.br refuses some bots).
      expect(u.server.requests.every((r) => (r.headers.get('user-agent') ?? '').startsWith('Mozilla/5.0'))).toBe(true)

      u.server.requests.length = 0
      expect(await integridadeIngest.run(ctx)).toBe('base integridade já foi construída desses arquivos (ceis 2026-11-20, cnep 2026-11-20, cepim 2026-11-20, acordos_leniencia 2026-11-20, trabalho_escravo 2026-09-04): nada a fazer')
      expect(u.paths().sort()).toEqual(['/download-de-dados/acordos-leniencia', '/download-de-dados/ceis', '/download-de-dados/cepim', '/download-de-dados/cnep', '/trabalho/cadastro_de_empregadores.csv'])
      expect(u.server.requests.find((r) => r.path.startsWith('/trabalho'))!.headers.get('if-none-match')).toBe('"mte-v1"')

      u.server.requests.length = 0
      u.dates.ceis = '20261121'
      expect(await integridadeIngest.run(ctx)).toMatch(/^base integridade 2026-11-21 pronta em [\d.]+ s \(baixados: 20261121_CEIS\.zip\)/)
      expect(u.paths().filter((p) => !p.startsWith('/download-de-dados/') || p.split('/').length > 3).sort()).toEqual(['/cdn/PortalDaTransparencia/saida/ceis/20261121_CEIS.zip', '/download-de-dados/ceis/20261121', '/trabalho/cadastro_de_empregadores.csv'].sort())
      expect(existsSync(join(downloads, '20261120_CEIS.zip'))).toBe(false)

      // The MTE list changed upstream: a new ETag, downloaded again.
      u.mteEtag = '"mte-v2"'
      expect(await integridadeIngest.run({ ...ctx, flags: { '--forcar': true } })).toMatch(/baixados: cadastro_de_empregadores\.csv\)/)
    } finally {
      for (const k of Object.keys(u.env)) delete process.env[k]
      Object.assign(process.env, saved)
    }
  })

  test('a CDN 503 then success: retried with backoff', async () => {
    const u = make()
    let calls = 0
    u.server.on('/cdn/PortalDaTransparencia/saida/cnep/20261120_CNEP.zip', () => (++calls === 1 ? { status: 503, body: 'Service Unavailable' } : { file: join(SAMPLE, '20261120_CNEP.zip') }))
    const dir = tempDir('dadosbr-dl-')
    const got = await downloadLists(dir, fast, u.env)
    expect(calls).toBe(2)
    expect(readFileSync(join(dir, '20261120_CNEP.zip')).equals(readFileSync(join(SAMPLE, '20261120_CNEP.zip')))).toBe(true)
    expect((await buildIntegridade({ dir, dataDir: tempDir('dadosbr-integridade-'), knownDates: got.dates })).built).toBe(true)
  })

  test('a download cut mid-file is resumed with Range and completes', async () => {
    const u = make()
    const zip = '/cdn/PortalDaTransparencia/saida/ceis/20261120_CEIS.zip'
    let cut = false
    // The redirect arms the cut for the request that follows it (the zip); the zip disarms it.
    u.server.on('/download-de-dados/ceis/20261120', () => {
      if (!cut) u.server.fault = { kind: 'truncate', bytes: 500 }
      cut = true
      return { status: 302, headers: { location: `${u.server.url}${zip}` } }
    })
    u.server.on(zip, () => {
      u.server.fault = { kind: 'none' }
      return { file: join(SAMPLE, '20261120_CEIS.zip') }
    })
    const dir = tempDir('dadosbr-dl-')
    await downloadLists(dir, fast, u.env)
    const ranges = u.server.requests.filter((r) => r.path === zip).map((r) => r.headers.get('range'))
    expect(ranges).toEqual([null, 'bytes=500-'])
    expect(readFileSync(join(dir, '20261120_CEIS.zip')).equals(readFileSync(join(SAMPLE, '20261120_CEIS.zip')))).toBe(true)
  })

  test('failures are one line that says what to do; nothing half-downloaded is kept as a file', async () => {
    const u = make()
    u.server.on('/download-de-dados/cepim', { body: '<html><body>Acesso negado: verificação de robô</body></html>' })
    const err = await downloadLists(tempDir('dadosbr-dl-'), fast, u.env).then(() => null, (e: Error) => e.message)
    expect(err).toBe(`${u.server.url}/download-de-dados/cepim: a página não lista nenhum arquivo (arquivos.push); o portal pode estar pedindo verificação de robô: tente mais tarde ou use --from DIR`)

    const v = make()
    v.server.on('/cdn/PortalDaTransparencia/saida/cnep/20261120_CNEP.zip', { headers: { 'content-type': 'text/html' }, body: '<html>manutenção</html>' })
    const dir = tempDir('dadosbr-dl-')
    expect(await downloadLists(dir, fast, v.env).then(() => null, (e: Error) => e.message)).toBe(`${v.server.url}/download-de-dados/cnep/20261120: a resposta não é um zip (página de erro ou verificação de robô); tente mais tarde ou use --from DIR`)
    expect(existsSync(join(dir, '20261120_CNEP.zip'))).toBe(false)

    const w = make()
    w.server.on('/trabalho/cadastro_de_empregadores.csv', { status: 503 })
    expect(await downloadLists(tempDir('dadosbr-dl-'), fast, w.env).then(() => null, (e: Error) => e.message)).toMatch(/^cadastro de empregadores do MTE: .*HTTP 503; tente mais tarde ou use --from DIR$/)

    const x = make()
    x.server.stop()
    expect(await downloadLists(tempDir('dadosbr-dl-'), { ...fast, retries: 1 }, x.env).then(() => null, (e: Error) => e.message)).toMatch(/^página de download do ceis indisponível \(.*\); tente mais tarde ou use --from DIR com os arquivos baixados à mão$/)
  })
})
