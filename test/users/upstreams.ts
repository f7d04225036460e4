// One local stand-in (ingest/lib/replay.ts) for the official sources of the datasets rebuilt from
// files, on their real paths and with their real behaviour, serving the bundled samples' real-format
// files: the Receita's Nextcloud share of the CNPJ dump (WebDAV PROPFIND listing with Basic auth,
// downloads under /public.php/dav/files/<token>/), TerraBrasilis' DETER shapefile zips (ETag) and the
// Receita's municipios.csv (Last-Modified); also the Portal Único Siscomex NCM table (ETag), though the
// bundled NCM table is an excerpt, which the real ingest refuses (so tributos is not in STAND_IN_BASES).
// `env` points each dataset's upstream setting at it, as a user would with the variables.
import { readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'

const ROOT = join(import.meta.dir, '..', '..')
const RFB = join(ROOT, 'test', 'cnpj', 'fixtures', 'rfb')
const NCM = join(ROOT, 'test', 'tributos', 'fixtures', 'tributos-amostra')
const DETER = join(ROOT, 'test', 'desmatamento', 'fixtures', 'desmatamento-amostra')
export const TOKEN = 'TesteToken123'
export const MONTH = '2026-08'

/** The bases this stand-in can rebuild. */
export const STAND_IN_BASES = ['cnpj', 'desmatamento']

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** A Nextcloud WebDAV multistatus (the real server's shape: d:, oc:, nc:, s: namespaces). */
function multistatus(entries: { href: string; size?: number; folder: boolean }[]): string {
  const responses = entries.map((e) => ` <d:response>
  <d:href>${xmlEscape(e.href)}</d:href>
  <d:propstat>
   <d:prop>
    <d:getlastmodified>Sat, 08 Aug 2026 09:12:41 GMT</d:getlastmodified>
${e.folder ? '    <d:resourcetype><d:collection/></d:resourcetype>' : `    <d:getcontentlength>${e.size}</d:getcontentlength>\n    <d:resourcetype/>\n    <d:getcontenttype>application/zip</d:getcontenttype>`}
    <d:getetag>&quot;66b48c79${e.href.length.toString(16)}&quot;</d:getetag>
   </d:prop>
   <d:status>HTTP/1.1 200 OK</d:status>
  </d:propstat>
 </d:response>`)
  return `<?xml version="1.0"?>\n<d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">\n${responses.join('\n')}\n</d:multistatus>\n`
}

export interface Upstreams {
  server: ReplayServer
  env: Record<string, string>
  /** Paths of the files downloaded (GETs answered 200 or 206), in order. */
  downloads(): string[]
  close(): void
}

export function startUpstreams(): Upstreams {
  const server = startReplay()
  const auth = `Basic ${btoa(`${TOKEN}:`)}`
  const zips = readdirSync(RFB).filter((f) => f.endsWith('.zip')).sort()
  const served: string[] = []
  const unauthorized = { status: 401, headers: { 'www-authenticate': 'Basic realm="Nextcloud", charset="UTF-8"' }, body: '' }

  server.on('/public.php/webdav/', (_url, req) => {
    if (req.method !== 'PROPFIND') return { status: 405 }
    if (req.headers.get('authorization') !== auth) return unauthorized
    return { status: 207, headers: { 'content-type': 'application/xml; charset=utf-8' }, body: multistatus([{ href: '/public.php/webdav/', folder: true }, { href: '/public.php/webdav/2026-07/', folder: true }, { href: `/public.php/webdav/${MONTH}/`, folder: true }]) }
  })
  server.on(`/public.php/webdav/${MONTH}/`, (_url, req) => {
    if (req.headers.get('authorization') !== auth) return unauthorized
    return {
      status: 207,
      headers: { 'content-type': 'application/xml; charset=utf-8' },
      body: multistatus([{ href: `/public.php/webdav/${MONTH}/`, folder: true }, ...zips.map((z) => ({ href: `/public.php/webdav/${MONTH}/${z}`, size: statSync(join(RFB, z)).size, folder: false }))]),
    }
  })
  for (const z of zips)
    server.on(`/public.php/dav/files/${TOKEN}/${MONTH}/${z}`, (url, req) => {
      if (req.headers.get('authorization') !== auth) return unauthorized
      served.push(url.pathname)
      return { headers: { 'content-type': 'application/zip' }, file: join(RFB, z) }
    })

  const ncmPath = '/classif/api/publico/nomenclatura/download/json'
  const ncmFile = readdirSync(NCM).find((f) => /^Tabela_NCM_Vigente_\d{8}\.json$/.test(f))!
  server.on(ncmPath, (url, req) => {
    if (req.headers.get('if-none-match') === '"ncm-20250513"') return { status: 304 }
    served.push(url.pathname)
    return { headers: { etag: '"ncm-20250513"', 'content-type': 'application/json' }, file: join(NCM, ncmFile) }
  }, { perfil: 'PUBLICO' })

  const deter: Record<string, { file: string; etag?: string; lastModified?: string }> = {
    '/file-delivery/download/deter-amz/shape': { file: join(DETER, readdirSync(DETER).find((f) => f.startsWith('deter-amz'))!), etag: '"amz-1"' },
    '/file-delivery/download/deter-cerrado-nb/shape': { file: join(DETER, readdirSync(DETER).find((f) => f.startsWith('deter-cerrado'))!), etag: '"cerrado-1"' },
    '/receitafederal/dados/municipios.csv': { file: join(DETER, 'municipios.csv'), lastModified: 'Tue, 03 Mar 2026 10:00:00 GMT' },
  }
  for (const path of Object.keys(deter))
    server.on(path, (url, req) => {
      const f = deter[url.pathname]!
      if ((f.etag && req.headers.get('if-none-match') === f.etag) || (f.lastModified && req.headers.get('if-modified-since') === f.lastModified)) return { status: 304 }
      served.push(url.pathname)
      return { headers: { 'content-type': f.etag ? 'application/zip' : 'text/csv', ...(f.etag ? { etag: f.etag } : { 'last-modified': f.lastModified! }) }, file: f.file }
    })

  return {
    server,
    env: {
      RFB_CNPJ_URL: server.url,
      RFB_CNPJ_TOKEN: TOKEN,
      SISCOMEX_CLASSIF_URL: `${server.url}/classif/api/publico`,
      DETER_URL: `${server.url}/file-delivery/download`,
      RFB_MUNICIPIOS_URL: `${server.url}/receitafederal/dados/municipios.csv`,
    },
    downloads: () => [...served],
    close: () => server.close(),
  }
}

/** A `dadosbr` on the PATH, as an installed one would be: this checkout's CLI under this Bun. */
export function dadosbrShim(dir: string): string {
  const bin = join(dir, 'dadosbr')
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" --max-http-header-size=1048576 "${join(ROOT, 'src', 'cli.ts')}" "$@"\n`, { mode: 0o755 })
  return bin
}
