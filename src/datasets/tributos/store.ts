// The tax-reform build in use: the NCM table held in memory (about 15 000 codes, a few MB) with
// every subitem's annex evaluation worked out once at open, so a lookup reads no file. Follows
// data/tributos/current (a new build is picked up without restart, no request fails during the swap).
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import { ANEXOS } from './anexos'
import { IndiceBusca } from './busca'
import { IndiceAnexos, type Avaliacao } from './regimes'
import { DATASET, DB_FILE, FORMAT, SUBITENS_TABELA_INTEIRA, type TributosManifest } from './layout'
import { startingWith } from '../../core/sorted'

export interface CodigoNcm {
  codigo: string
  descricao: string
  inicio: string | null
  fim: string | null
  ato: string | null
}

export interface TributosFiles {
  porCodigo: Map<string, CodigoNcm>
  /** The 8-digit codes, sorted: the subitems under a shorter code are a range. */
  subitens: string[]
  /** Each subitem's evaluation against the annexes. */
  avaliacoes: Map<string, Avaliacao>
  indice: IndiceAnexos
  /** The annex search, with the table's descriptions of the codes the items cite. */
  busca: IndiceBusca
  /** completa: false for an excerpt (the bundled sample): a code absent from it may still exist. */
  tabela: { vigencia: string; referencia: string; ato: string | null; completa: boolean }
}

export type TributosStore = SnapshotStore<TributosFiles, TributosManifest>

/** One index of the annexes for the whole process: the data is part of the program. */
let indice: IndiceAnexos | null = null
export const indiceAnexos = () => (indice ??= new IndiceAnexos())

export function openTributosFiles(dir: string, manifest: TributosManifest): TributosFiles {
  const db = openImmutable(join(dir, DB_FILE))
  try {
    const porCodigo = new Map<string, CodigoNcm>()
    const subitens: string[] = []
    for (const r of db.query<CodigoNcm, []>('SELECT codigo, descricao, inicio, fim, ato FROM ncm ORDER BY codigo').all()) {
      porCodigo.set(r.codigo, r)
      if (r.codigo.length === 8) subitens.push(r.codigo)
    }
    const idx = indiceAnexos()
    const avaliacoes = new Map<string, Avaliacao>()
    for (const c of subitens) avaliacoes.set(c, idx.avaliar(c))
    // A position with a single code is published only as that code (22.03 is just 2203.00.00
    // "Cervejas de malte."): a cited code absent from the table is described by its subitems.
    const descricao = (c: string) =>
      porCodigo.get(c)?.descricao ??
      subitensDe({ subitens } as TributosFiles, c)
        .slice(0, 5)
        .map((x) => porCodigo.get(x)!.descricao)
        .join(' ')
    const busca = new IndiceBusca(ANEXOS.anexos, descricao)
    return { porCodigo, subitens, avaliacoes, indice: idx, busca, tabela: { vigencia: manifest.tabela_ncm.vigencia, referencia: manifest.referencia, ato: manifest.tabela_ncm.ato, completa: subitens.length >= SUBITENS_TABELA_INTEIRA } }
  } finally {
    db.close()
  }
}

/** The subitems under a code (a code of 8 digits: itself, when it exists). */
export function subitensDe(files: TributosFiles, codigo: string): string[] {
  return startingWith(files.subitens, codigo)
}

export function openTributosStore(config: Config, log: Logger): Promise<TributosStore> {
  return openSnapshot<TributosFiles, TributosManifest>(config, log, { dataset: DATASET, formato: FORMAT, open: openTributosFiles, close: () => {} })
}
