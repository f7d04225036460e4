// The three files of a deforestation build, each under one URL that the source rewrites in
// place: the two DETER zips (TerraBrasilis file delivery, regenerated as new alerts are
// published) and the Receita's municipios.csv. Each is asked again with the ETag/Last-Modified of
// the copy on disk (a 304 keeps it), so a daily run downloads only what changed.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { upstreamUrl } from '../../src/core/upstream'
import { BIOMAS } from '../../src/datasets/desmatamento/layout'
import { DETER_DOWNLOAD, DETER_PROJETOS, RFB_MUNICIPIOS } from '../../src/datasets/desmatamento/upstreams'
import { downloadIfChanged } from '../lib/conditional'
import { downloadMunicipiosTable, looksLikeMunicipiosCsv } from '../lib/municipios-rfb'
import { MUNICIPIOS_ARQUIVO } from '../../src/core/municipios-rfb'
import { BuildError } from '../lib/snapshot'

export interface DesmatamentoDownloadSettings {
  retries?: number
  retryDelayMs?: number
  timeoutMs?: number
  quiet?: boolean
  log?: (line: string) => void
  /** Where the Receita's table is kept for every build that reads it (municipiosDownloadDir); without it, downloaded here alone. */
  municipiosDir?: string
}

export { MUNICIPIOS_ARQUIVO }

async function head(path: string, n: number): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path).slice(0, n).arrayBuffer())
}

/** Refuses a page served in place of the file (200 with HTML): the copy is removed so the next run asks again. */
async function check(dest: string, ok: (b: Uint8Array) => boolean, what: string, url: string) {
  if (ok(await head(dest, 512))) return
  rmSync(dest, { force: true })
  rmSync(`${dest}.http.json`, { force: true })
  throw new BuildError(`${url} não entregou ${what} (veio outra coisa, talvez uma página de erro); tente mais tarde ou use --from DIR`)
}

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b

export async function downloadDesmatamento(dir: string, s: DesmatamentoDownloadSettings = {}, env: Record<string, string | undefined> = process.env): Promise<{ dir: string; fetched: string[] }> {
  mkdirSync(dir, { recursive: true })
  const opts = { retries: s.retries ?? 6, retryDelayMs: s.retryDelayMs ?? 2000, timeoutMs: s.timeoutMs, quiet: s.quiet, log: s.log }
  const fetched: string[] = []
  const get = async (url: string, name: string, ok: (b: Uint8Array) => boolean, what: string) => {
    const dest = join(dir, name)
    let r
    try {
      r = await downloadIfChanged(url, dest, { ...opts, label: name })
    } catch (err) {
      throw new BuildError(`${url}: ${err instanceof Error ? err.message : err}; tente mais tarde (o que já veio é aproveitado) ou use --from DIR`)
    }
    if (r.changed) {
      await check(dest, ok, what, url)
      fetched.push(name)
    }
  }
  const base = upstreamUrl(DETER_DOWNLOAD, env)
  for (const b of BIOMAS) {
    const p = DETER_PROJETOS[b]
    await get(`${base}/${p.caminho}`, p.arquivo, isZip, `o zip do DETER ${b === 'amazonia' ? 'Amazônia' : 'Cerrado'}`)
  }
  if (!s.municipiosDir) await get(upstreamUrl(RFB_MUNICIPIOS, env), MUNICIPIOS_ARQUIVO, looksLikeMunicipiosCsv, 'a tabela de municípios (CSV)')
  else {
    // The registry's build keeps the same table there: one download a run for both, brought here when it differs.
    let shared: string
    try {
      shared = (await downloadMunicipiosTable(s.municipiosDir, { ...opts, env })).path
    } catch (err) {
      throw new BuildError(err instanceof Error ? err.message : String(err))
    }
    const dest = join(dir, MUNICIPIOS_ARQUIVO)
    const bytes = new Uint8Array(await Bun.file(shared).arrayBuffer())
    if (!existsSync(dest) || !Buffer.from(bytes).equals(readFileSync(dest))) {
      await Bun.write(dest, bytes)
      fetched.push(MUNICIPIOS_ARQUIVO)
    }
  }
  return { dir, fetched }
}
