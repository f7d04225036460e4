// The Banco Central's monthly zips: <base>/<segment folder>/<AAAAMM><KEY>.zip. No listing says
// which month is the latest, so months are tried from the current one back: the newest month whose
// BANCOS zip exists is the one used for all five lists. Files already on disk are asked again with
// their ETag/Last-Modified (a 304 keeps them), so a daily run downloads only what changed.
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Segmento } from '../../src/datasets/bcb/layout'
import { upstreamUrl } from '../../src/core/upstream'
import { BCB_INSTITUICOES } from '../../src/datasets/bcb/upstreams'
import { downloadIfChanged } from '../lib/conditional'
import { BuildError } from '../lib/snapshot'

/** Each list's file key and folder on bcb.gov.br (rtheodoro/bacenR get_institutions.R). */
export const SEGMENT_FILES: Record<Segmento, { key: string; folder: string }> = {
  bancos: { key: 'BANCOS', folder: 'Bancos_comerciais-multiplos-caixa' },
  cooperativas: { key: 'COOPERATIVAS', folder: 'Cooperativas-de-credito' },
  consorcios: { key: 'CONSORCIO', folder: 'Consorcios-adm' },
  demais_instituicoes: { key: 'SOCIEDADES', folder: 'Bancos-investimentos-desenvolvimento-sociedade-corretoras' },
  conglomerados: { key: 'CONGLOMERADOS', folder: 'Conglomerados' },
}

export interface BcbDownloadSettings {
  /** AAAAMM to use instead of the latest published. */
  month?: string
  /** How many months back to look for the latest (default 12). */
  lookBack?: number
  retries?: number
  retryDelayMs?: number
  timeoutMs?: number
  quiet?: boolean
  log?: (line: string) => void
  /** "Now", for the first month tried (tests). */
  now?: Date
}

/** AAAAMM months from the current one (in Brasília) back. */
export function monthsBack(now: Date, count: number): string[] {
  const d = new Date(now.getTime() - 3 * 3600_000)
  let y = d.getUTCFullYear(), m = d.getUTCMonth() + 1
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    out.push(`${y}${String(m).padStart(2, '0')}`)
    if (--m === 0) { m = 12; y-- }
  }
  return out
}

const fileName = (month: string, s: Segmento) => `${month}${SEGMENT_FILES[s].key}.zip`

async function isZip(path: string): Promise<boolean> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 2).arrayBuffer())
  return head[0] === 0x50 && head[1] === 0x4b
}

export interface BcbDownloaded {
  dir: string
  month: string
  fetched: string[]
}

export async function downloadBcb(dir: string, s: BcbDownloadSettings = {}, env: Record<string, string | undefined> = process.env): Promise<BcbDownloaded> {
  mkdirSync(dir, { recursive: true })
  const base = upstreamUrl(BCB_INSTITUICOES, env)
  const url = (month: string, seg: Segmento) => `${base}/${SEGMENT_FILES[seg].folder}/${fileName(month, seg)}`
  const opts = { retries: s.retries ?? 6, retryDelayMs: s.retryDelayMs ?? 1000, timeoutMs: s.timeoutMs, quiet: s.quiet, log: s.log }
  const fetched: string[] = []
  const get = async (month: string, seg: Segmento, missingOk: boolean) => {
    const dest = join(dir, fileName(month, seg))
    let r
    try {
      r = await downloadIfChanged(url(month, seg), dest, { ...opts, missingOk, label: fileName(month, seg) })
    } catch (err) {
      throw new BuildError(`${url(month, seg)}: ${err instanceof Error ? err.message : err}; tente mais tarde (o que já veio é aproveitado) ou use --from DIR`)
    }
    if (r.missing) return false
    // A page served in place of the file (200 with HTML) is no zip: as good as missing.
    if (!(await isZip(dest))) {
      rmSync(dest, { force: true })
      rmSync(`${dest}.http.json`, { force: true })
      return false
    }
    if (r.changed) fetched.push(fileName(month, seg))
    return true
  }
  let month: string | undefined
  for (const m of s.month ? [s.month] : monthsBack(s.now ?? new Date(), s.lookBack ?? 12)) {
    if (await get(m, 'bancos', true)) {
      month = m
      break
    }
  }
  if (!month) throw new BuildError(s.month ? `o Banco Central não tem a relação de ${s.month} (${url(s.month, 'bancos')})` : `nenhuma relação publicada nos últimos ${s.lookBack ?? 12} meses em ${base}; confira BCB_INSTITUICOES_URL ou use --from DIR`)
  for (const seg of ['cooperativas', 'consorcios', 'demais_instituicoes', 'conglomerados'] as Segmento[])
    if (!(await get(month, seg, true))) throw new BuildError(`o Banco Central publicou BANCOS de ${month} mas não ${SEGMENT_FILES[seg].key} (${url(month, seg)}); tente mais tarde`)
  // The directory holds exactly the month the next build reads.
  for (const f of readdirSync(dir)) if (/^\d{6}[A-Z]+\.zip(\.http\.json)?$/.test(f) && !f.startsWith(month)) rmSync(join(dir, f), { force: true })
  return { dir, month, fetched }
}
