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
import { BASE, DATASET, DB_FILE, FORMAT, type ClasseCorpo, type FundosMeta, type MovimentacaoCorpo } from './layout'

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

/** A ranked class: its stored corpo and its flow prefix sums (captacao[0..T], then resgates[0..T]). */
export interface ClasseRanqueada {
  corpo: ClasseCorpo
  fluxos: Float64Array
}

export interface FundosFiles {
  db: Database
  meta: FundosMeta & { inicio_cobertura: string }
  /** Daily flows per classification, by day (only days up to the consolidated one). */
  fluxos: Map<string, FluxoLinha[]>
  fonte: Fonte
  /** Answers that depend only on the build and few parameters (fluxos by dias, amostra). */
  memo: Map<string, unknown>
  /**
   * The ranking lists and their classes, and the movements, held in memory (tens of thousands of
   * small rows): a ranking or a movements answer reads no file and parses no JSON.
   */
  rankings: Map<string, Int32Array>
  classes: ClasseRanqueada[]
  movimentacoes: Map<string, MovimentacaoCorpo[]>
  sql: {
    consulta: Statement
    carteira: Statement
  }
}

/** The key of a ranking list in FundosFiles.rankings. */
export const rankingKey = (por: string, classificacao: string, inicio: number) => `${por}\u0001${classificacao}\u0001${inicio}`

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
    const lists = new Map<string, number[]>()
    for (const r of db.query('SELECT por, classificacao, inicio, classe FROM ranking ORDER BY por, classificacao, inicio, posicao').values() as [string, string, number, number][]) {
      const key = rankingKey(r[0], r[1], r[2])
      const list = lists.get(key) ?? []
      list.push(r[3])
      lists.set(key, list)
    }
    const classes: ClasseRanqueada[] = []
    for (const [id, corpo, blob] of db.query('SELECT id, corpo, fluxos FROM classe ORDER BY id').values() as [number, string, Uint8Array][])
      classes[id] = { corpo: JSON.parse(corpo) as ClasseCorpo, fluxos: new Float64Array(blob.slice().buffer) }
    const movimentacoes = new Map<string, MovimentacaoCorpo[]>()
    for (const [competencia, corpo] of db.query('SELECT competencia, corpo FROM movimentacao ORDER BY competencia, posicao').values() as [string, string][]) {
      const list = movimentacoes.get(competencia) ?? []
      list.push(JSON.parse(corpo) as MovimentacaoCorpo)
      movimentacoes.set(competencia, list)
    }
    return {
      db,
      meta,
      fluxos,
      rankings: new Map([...lists].map(([k, v]) => [k, Int32Array.from(v)])),
      classes,
      movimentacoes,
      fonte: { base: BASE, referencia: meta.dia_consolidado, carteira: meta.competencias.at(-1)?.competencia ?? null },
      memo: new Map(),
      sql: {
        consulta: db.query('SELECT corpo FROM consulta WHERE cnpj = ?'),
        carteira: db.query('SELECT competencia, corpo FROM carteira WHERE cnpj = ? ORDER BY competencia DESC LIMIT 1'),
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
