// The server's side of the contracts index: the build data/licitacoes/current points to, opened
// immutable (the ingest never writes a build after its swap); a new build is picked up live.
import type { Database } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'
import { openImmutable } from '../../core/stores/sqlite'
import { DATASET_DIR, DB_FILE, FORMAT, META, SQL_CONTRATOS, SQL_META, SQL_RESUMO } from './layout'

export interface ContratoRow {
  numero: string
  cnpj_fornecedor: string
  objeto: string | null
  valor_inicial: number | null
  valor_global: number | null
  data_assinatura: string | null
  vigencia_inicio: string | null
  vigencia_fim: string | null
  orgao_cnpj: string | null
  orgao_razao: string | null
  esfera: string | null
  poder: string | null
  unidade_nome: string | null
  municipio: string | null
  uf: string | null
  tipo: string | null
}

export interface SyncState {
  desde: string | null
  sincronizado_ate: string | null
  atualizado_em: string | null
}

export interface ContractsFiles {
  db: Database
  contratos(raiz: string): ContratoRow[]
  resumo(raiz: string): { total: number; valor: number; orgaos: number }
  /** How far this build goes. */
  state: SyncState
}

export type ContractsStore = SnapshotStore<ContractsFiles, SnapshotManifest>

export function openContractsStore(config: Config, log: Logger): Promise<ContractsStore> {
  return openSnapshot<ContractsFiles>(config, log, {
    dataset: DATASET_DIR,
    formato: FORMAT,
    open(dir) {
      const db = openImmutable(join(dir, DB_FILE))
      try {
        const meta = new Map((db.query(SQL_META).all() as { chave: string; valor: string }[]).map((r) => [r.chave, r.valor]))
        const q = { contratos: db.query(SQL_CONTRATOS), resumo: db.query(SQL_RESUMO) }
        return {
          db,
          contratos: (raiz) => q.contratos.all(raiz) as ContratoRow[],
          resumo: (raiz) => (q.resumo.get(raiz) as { total: number; valor: number; orgaos: number } | null) ?? { total: 0, valor: 0, orgaos: 0 },
          state: { desde: meta.get(META.desde) ?? null, sincronizado_ate: meta.get(META.sincronizadoAte) ?? null, atualizado_em: meta.get(META.atualizadoEm) ?? null },
        }
      } catch (err) {
        db.close()
        throw err
      }
    },
    close: (files) => files.db.close(),
  })
}
