// The fund dataset's open files: fundos.sqlite (immutable) and what every call needs held in
// memory (the meta values and the daily flows per classification, a few thousand rows).
// Follows data/fundos/current, so a new build is picked up live.
import type { Database, Statement } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'
import { BASE, DATASET, DB_FILE, FORMAT, type FundosMeta } from './layout'

export interface FluxoLinha {
  classificacao: string
  captacao: number
  resgates: number
  patrimonio_liquido: number
  classes: number
}

export interface Fonte {
  base: typeof BASE
  referencia: string
  carteira: string | null
}

export interface FundosFiles {
  db: Database
  meta: FundosMeta & { inicio_cobertura: string }
  /** Daily flows per classification, by day (only days up to the consolidated one). */
  fluxos: Map<string, FluxoLinha[]>
  fonte: Fonte
  /** Answers that depend only on the build and few parameters (fluxos by dias, amostra). */
  memo: Map<string, unknown>
  sql: {
    consulta: Statement
    carteira: Statement
    ranking: Statement
    classe: Statement
    movimentacoes: Statement
  }
}

export type FundosStore = SnapshotStore<FundosFiles, SnapshotManifest>

function openFiles(dir: string, manifest: SnapshotManifest): FundosFiles {
  const db = openImmutable(join(dir, DB_FILE))
  try {
    const meta = Object.fromEntries(
      (db.query('SELECT chave, valor FROM meta').all() as { chave: string; valor: string }[]).map((r) => [r.chave, JSON.parse(r.valor)]),
    ) as FundosFiles['meta']
    const fluxos = new Map<string, FluxoLinha[]>()
    for (const r of db.query('SELECT data, classificacao, captacao, resgates, patrimonio_liquido, classes FROM fluxo_dia ORDER BY data').all() as (FluxoLinha & { data: string })[]) {
      const { data, ...linha } = r
      const list = fluxos.get(data) ?? []
      list.push(linha)
      fluxos.set(data, list)
    }
    return {
      db,
      meta,
      fluxos,
      fonte: { base: BASE, referencia: meta.dia_consolidado, carteira: meta.competencias.at(-1)?.competencia ?? null },
      memo: new Map(),
      sql: {
        consulta: db.query('SELECT corpo FROM consulta WHERE cnpj = ?'),
        carteira: db.query('SELECT competencia, corpo FROM carteira WHERE cnpj = ? ORDER BY competencia DESC LIMIT 1'),
        ranking: db.query('SELECT classe FROM ranking WHERE por = ? AND classificacao = ? AND inicio = ? ORDER BY posicao LIMIT ?'),
        classe: db.query('SELECT corpo, fluxos FROM classe WHERE id = ?'),
        movimentacoes: db.query('SELECT posicao, corpo FROM movimentacao WHERE competencia = ? ORDER BY posicao LIMIT ?'),
      },
    }
  } catch (err) {
    db.close()
    throw err
  }
}

export function openFundosStore(config: Config, log: Logger): Promise<FundosStore> {
  return openSnapshot<FundosFiles, SnapshotManifest>(config, log, {
    dataset: DATASET,
    formato: FORMAT,
    open: openFiles,
    close: (files) => files.db.close(),
  })
}
