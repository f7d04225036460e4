// ComexStat's yearly export files: <COMEXSTAT_URL>/EXP_AAAA.csv (~75-115 MB a year; the current
// year's file is rewritten every month with the new month and revisions). Downloaded with the
// shared conditional download: an unchanged file answers 304 and is not downloaded again; a cut
// download resumes with Range. The current year's file does not exist in the first days of January.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { upstreamUrl } from '../../src/core/upstream'
import { COMEXSTAT } from '../../src/datasets/commodities/upstreams'
import { isoDateBrasilia } from '../../src/datasets/commodities/tempo'
import { downloadIfChanged } from '../lib/conditional'
import { BuildError } from '../lib/snapshot'

export interface ExpDownloaded {
  anos: number[]
  baixados: string[]
}

export async function downloadExp(dir: string, options: { anos?: number; quiet?: boolean; log?: (l: string) => void; now?: number; retryDelayMs?: number } = {}): Promise<ExpDownloaded> {
  mkdirSync(dir, { recursive: true })
  const base = upstreamUrl(COMEXSTAT)
  const atual = Number(isoDateBrasilia(options.now ?? Date.now()).slice(0, 4))
  const wanted = options.anos ?? 3
  const anos: number[] = []
  const baixados: string[] = []
  // This year and last (the 13 months) and the year before (their year-earlier months); when this
  // year's file is not published yet, the three years before.
  for (let ano = atual; anos.length < wanted && ano >= atual - wanted; ano--) {
    const nome = `EXP_${ano}.csv`
    let r
    try {
      r = await downloadIfChanged(`${base}/${nome}`, join(dir, nome), { missingOk: ano === atual, quiet: options.quiet, log: options.log, label: nome, retryDelayMs: options.retryDelayMs })
    } catch (err) {
      throw new BuildError(`${base}/${nome}: ${err instanceof Error ? err.message : err}; tente mais tarde (o que já veio é aproveitado) ou use --from DIR`)
    }
    if (r.missing) continue
    anos.push(ano)
    if (r.changed) baixados.push(nome)
  }
  return { anos, baixados }
}
