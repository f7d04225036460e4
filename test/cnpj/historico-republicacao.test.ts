// A month the Receita publishes again with other content (ingest/cnpj/history.ts, rebuildRepublished):
// built again, its changes are made again against the month before, so the history says what a
// build of the month before and the new content alone would say. Checked on the sample's two months
// and on mixes of their zips: the feed, every changed CNPJ's /historico and its July card, /completo
// and partners equal those of a fresh data directory that loaded July and then the new content.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, cpSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { writeZip } from '../../ingest/lib/zip-write'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { copyFixtures, EARLIER_FIXTURES, FIXTURES } from './helpers'

setDefaultTimeout(300_000)

const quiet = { quiet: true, log: () => {} }
const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')

/**
 * The Receita's share (Nextcloud WebDAV, as ingest/cnpj/sources.ts reads it) serving `dir.current`
 * as `month`, and the TOM ↔ IBGE table at /municipios.csv; `seen` the zips downloaded.
 */
function share(month: string) {
  const state = { dir: FIXTURES, seen: [] as string[] }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const url = new URL(req.url)
      if (url.pathname === '/municipios.csv') return new Response(readFileSync(join(FIXTURES, 'municipios.csv')))
      if (req.headers.get('authorization') !== `Basic ${btoa('TOKEN:')}`) return new Response('no', { status: 401 })
      if (req.method === 'PROPFIND') {
        const items = url.pathname.endsWith(`/webdav/${month}/`)
          ? readdirSync(state.dir).map((f) => `<d:response><d:href>/public.php/webdav/${month}/${f}</d:href><d:propstat><d:prop><d:getcontentlength>${statSync(join(state.dir, f)).size}</d:getcontentlength></d:prop></d:propstat></d:response>`)
          : [`<d:response><d:href>/public.php/webdav/${month}/</d:href></d:response>`]
        return new Response(`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:">${items.join('')}</d:multistatus>`, { status: 207 })
      }
      const name = decodeURIComponent(url.pathname.split('/').pop()!)
      state.seen.push(name)
      return new Response(readFileSync(join(state.dir, name)))
    },
  })
  return { server, state, url: `http://127.0.0.1:${server.port}` }
}
const manifestOf = (data: string) => JSON.parse(readFileSync(join(data, 'cnpj', 'current', 'manifest.json'), 'utf8'))

/** July's zips named by `pattern`, over a copy of August's: a publication of August that differs from the first in part. */
function mix(pattern: RegExp): string {
  const july = tempDir('dadosbr-julho-')
  for (const f of readdirSync(EARLIER_FIXTURES)) if (pattern.test(f)) copyFileSync(join(EARLIER_FIXTURES, f), join(july, f))
  return copyFixtures(july)
}

/** A data directory holding July alone, built once (each history starts from a copy). */
let july: Promise<string> | undefined
const julyData = () =>
  (july ??= (async () => {
    const dataDir = tempDir('dadosbr-historico-julho-')
    await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir, ...quiet })
    return dataDir
  })())

/** August with one company's row edited (fields as published: latin-1, ';', every field quoted). */
async function withCompanyEdit(root: string, edit: (fields: string[]) => string[]): Promise<string> {
  const edited = tempDir('dadosbr-editado-')
  for (let i = 0; i < 10; i++) {
    const path = join(FIXTURES, `Empresas${i}.zip`)
    const [entry] = await listEntries(path)
    const parts: Uint8Array[] = []
    for await (const chunk of readEntry(path, entry!)) parts.push(chunk)
    const lines = Buffer.concat(parts).toString('latin1').replace(/\n$/, '').split('\n')
    const at = lines.findIndex((l) => l.startsWith(`"${root}"`))
    if (at < 0) continue
    lines[at] = edit([...lines[at]!.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!)).map((f) => `"${f}"`).join(';')
    await writeZip(join(edited, `Empresas${i}.zip`), entry!.name, Buffer.from(lines.join('\n') + '\n', 'latin1'))
    return copyFixtures(edited)
  }
  throw new Error(`raiz ${root} não está nas empresas da amostra`)
}

/** A fresh data directory with July and then `sources` as August, loaded in order. */
async function history(...sources: string[]): Promise<string> {
  const dataDir = tempDir('dadosbr-historico-')
  cpSync(await julyData(), dataDir, { recursive: true, verbatimSymlinks: true })
  for (const [i, sourceDir] of sources.entries()) {
    if (i > 0) await Bun.sleep(1100) // build folders are named to the second
    await buildCnpj({ sourceDir, month: '2026-08', dataDir, ...quiet })
  }
  return dataDir
}

/** What the history answers: the August feed; for each CNPJ it names (and a few others), its history and its July card, /completo and partners. */
async function answers(dataDir: string, extra: string[]) {
  const { app } = await testApp({ dataDir })
  try {
    const feed = await get(app, '/v1/cnpj/mudancas?por_pagina=100')
    const cnpjs = [...new Set([...feed.body.mudancas.map((m: { cnpj: string }) => m.cnpj), ...extra])].sort()
    const out: Record<string, unknown> = { feed: feed.body }
    for (const c of cnpjs)
      for (const path of [`/v1/cnpj/empresa/${c}/historico`, `/v1/cnpj/empresa/${c}?referencia=2026-07`, `/v1/cnpj/empresa/${c}/completo?referencia=2026-07`, `/v1/cnpj/empresa/${c}/socios?referencia=2026-07`]) {
        const r = await get(app, path)
        out[path] = { status: r.status, body: r.body }
      }
    return out
  } finally {
    await app.close()
  }
}

describe('a month published again with other content', () => {
  test('its changes are made again against the month before: the same answers as a history that loaded the new content directly', async () => {
    // The CNPJs August changed, asked of every history below (the feed of each names its own).
    const extra = Object.keys(await answers(await history(FIXTURES), [])).filter((k) => k.endsWith('/historico')).map((k) => k.split('/')[4]!)
    expect(extra.length).toBe(8)
    const cases: [string, string, string][] = [
      // First published as July's rows again (no change), then as the real August: every change appears.
      ['sem mudanças, depois agosto', EARLIER_FIXTURES, FIXTURES],
      // First the real August, then July's rows again: every change of August undone.
      ['agosto, depois as linhas de julho', FIXTURES, EARLIER_FIXTURES],
      // The partners and the Simples back to July's; the establishments and companies August's.
      ['agosto, depois sócios e Simples de julho', FIXTURES, mix(/^(Socios\d|Simples)\.zip$/)],
      // The establishments back to July's (the café's establishment gone, its company kept).
      ['agosto, depois estabelecimentos de julho', FIXTURES, mix(/^Estabelecimentos\d\.zip$/)],
      // The companies back to July's (legal names, capital, size), the rest August's.
      ['agosto, depois empresas de julho', FIXTURES, mix(/^Empresas\d\.zip$/)],
      // A new legal name for the company whose third branch left in August: the departure keeps
      // the name of the month before, the other changes show the new one.
      ['agosto, depois a razão social da ALFA', FIXTURES, await withCompanyEdit('90111222', (f) => [f[0]!, 'CONSTRUTORA FICTICIA ALFA RENOMEADA LTDA', ...f.slice(2)])],
    ]
    for (const [name, first, second] of cases) {
      const direct = await history(second)
      const again = await history(first, second)
      const m = manifestOf(again)
      expect([name, m.historico.republicado?.raizes_mudadas > 0]).toEqual([name, true])
      expect([name, m.historico.meses, m.historico.referencia_anterior]).toEqual([name, ['2026-07', '2026-08'], '2026-07'])
      expect([name, m.historico.itens, m.historico.por_tipo]).toEqual([name, manifestOf(direct).historico.itens, manifestOf(direct).historico.por_tipo])
      expect([name, await answers(again, extra)]).toEqual([name, await answers(direct, extra)])
    }
  })

  test('July\'s rows published again as August: no change left, and every July card is the card in use', async () => {
    const data = await history(FIXTURES, EARLIER_FIXTURES)
    const { app } = await testApp({ dataDir: data })
    try {
      const feed = (await get(app, '/v1/cnpj/mudancas?por_pagina=100')).body
      expect(feed).toMatchObject({ referencia: '2026-08', referencia_anterior: '2026-07', total: 0, mudancas: [] })
      const h = (await get(app, '/v1/cnpj/empresa/90111222000174/historico')).body
      expect(h).toMatchObject({ cnpj: '90111222000174', meses: ['2026-07', '2026-08'], mudancas: [] })
      const now = (await get(app, '/v1/cnpj/empresa/90111222000174')).body
      const july = (await get(app, '/v1/cnpj/empresa/90111222000174?referencia=2026-07')).body
      expect({ ...july, fonte: null }).toEqual({ ...now, fonte: null })
    } finally {
      await app.close()
    }
  })

  test('--se-preciso: a zip of another size on the share is the month published again, downloaded and built again; the same zips, nothing', async () => {
    const data = await history(FIXTURES)
    const s = share('2026-08')
    const cli = async () => {
      const child = Bun.spawn([process.execPath, CLI, 'ingest', 'cnpj', '--data', data, '--se-preciso', '--fonte', s.url, '--token', 'TOKEN'], {
        env: { ...process.env, UV_THREADPOOL_SIZE: '8', RFB_MUNICIPIOS_URL: `${s.url}/municipios.csv` }, stderr: 'pipe', stdout: 'pipe',
      })
      const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
      return { code: await child.exited, out: out + err }
    }
    try {
      const link = join(data, 'cnpj', 'current')
      const first = readlinkSync(link)
      const same = await cli()
      expect(same.code).toBe(0)
      expect(same.out).toContain(`base CNPJ 2026-08 já está em ${link}, no formato desta versão: nada a fazer`)
      expect(s.state.seen).toEqual([])
      // The partners and the Simples published again (July's files).
      s.state.dir = mix(/^(Socios\d|Simples)\.zip$/)
      const changed = readdirSync(s.state.dir).filter((f) => f.endsWith('.zip') && statSync(join(s.state.dir, f)).size !== statSync(join(FIXTURES, f)).size).sort()
      expect(changed.length).toBeGreaterThan(0)
      await Bun.sleep(1100) // build folders are named to the second
      const again = await cli()
      expect(again.code).toBe(0)
      expect(again.out).toContain(`os zips de 2026-08 diferem dos que a base em uso carregou (${changed[0]} `)
      expect(again.out).toContain('): construindo de novo')
      expect(again.out).toMatch(/mudanças desde 2026-07 \(refeitas: a publicação nova mudou \d+ raízes\)/)
      // The zips published again are downloaded (here every zip: the build in use was made from a
      // folder, so this data dir's downloads folder was empty).
      expect(s.state.seen.filter((f) => changed.includes(f)).sort()).toEqual(changed)
      expect(readlinkSync(link)).not.toBe(first)
      expect(manifestOf(data).historico.republicado.raizes_mudadas).toBeGreaterThan(0)
      expect(await answers(data, [])).toEqual(await answers(await history(s.state.dir), []))
      // Asked again: the share and the build agree.
      s.state.seen.length = 0
      expect((await cli()).out).toContain('nada a fazer')
      expect(s.state.seen).toEqual([])
    } finally {
      s.server.stop(true)
    }
  })

  test('built again from the same content: the month file held is kept as it is (a link to the same file)', async () => {
    const data = await history(FIXTURES)
    const file = (d: string) => join(d, 'cnpj', 'current', 'historico', '2026-08.sqlite')
    const inode = (await Bun.file(file(data)).stat()).ino
    const before = readlinkSync(join(data, 'cnpj', 'current'))
    await Bun.sleep(1100)
    await buildCnpj({ sourceDir: FIXTURES, month: '2026-08', dataDir: data, ...quiet })
    expect(readlinkSync(join(data, 'cnpj', 'current'))).not.toBe(before)
    expect((await Bun.file(file(data)).stat()).ino).toBe(inode)
    expect(manifestOf(data).historico.republicado).toBeUndefined()
    expect(manifestOf(data).historico).toMatchObject({ meses: ['2026-07', '2026-08'], itens: 20 })
  })
})
