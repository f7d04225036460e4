// The server's side of the contracts index: the SQLite file the ingest writes in place (WAL), opened
// read-only. Each query sees the last committed day; a sync running meanwhile is never waited on.
import { constants, Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Config } from '../../core/config'
import type { DatasetHealth, DatasetStore } from '../../core/dataset'
import type { Logger } from '../../core/log'
import { fileUri } from '../../core/stores/sqlite'
import { DATASET_DIR, DB_FILE, FORMAT, META, SQL_CONTRATOS, SQL_META, SQL_ORGAOS, SQL_RESUMO } from './layout'

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

export interface ContractsStore extends DatasetStore {
  contratos(raiz: string): ContratoRow[]
  resumo(raiz: string): { total: number; valor: number; orgaos: number }
  /** How far the index goes (re-read at most once a second: the ingest moves it while the server runs). */
  state(): SyncState
}

/** How often the sync state (a few meta rows) is read again. */
const STATE_TTL_MS = 1000

export async function openContractsStore(config: Config, _log: Logger): Promise<ContractsStore> {
  const path = join(resolve(config.dataDir), DATASET_DIR, DB_FILE)
  if (!existsSync(path)) throw new Error(`arquivo de dados ausente em ${config.dataDir}; rode 'dadosbr ingest licitacoes' (ou --amostra, a amostra embutida)`)
  // Read-only but not immutable: the ingest commits days into this file while it is served.
  const db = new Database(`${fileUri(path)}`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI)
  db.exec('PRAGMA busy_timeout = 5000')
  const readMeta = () => new Map((db.query(SQL_META).all() as { chave: string; valor: string }[]).map((r) => [r.chave, r.valor]))
  let meta: Map<string, string>
  try {
    meta = readMeta()
  } catch (err) {
    db.close()
    throw new Error(`${path} não é um índice de contratos do dadosbr (${err instanceof Error ? err.message : String(err)}); rode 'dadosbr ingest licitacoes --refazer'`)
  }
  if (meta.get(META.formato) !== String(FORMAT)) {
    db.close()
    throw new Error(`${path} foi construído por outra versão do dadosbr (formato ${meta.get(META.formato) ?? '?'}, este servidor lê o ${FORMAT}); rode 'dadosbr ingest licitacoes --refazer'`)
  }
  const q = { contratos: db.query(SQL_CONTRATOS), resumo: db.query(SQL_RESUMO), orgaos: db.query(SQL_ORGAOS) }
  let state: SyncState = toState(meta)
  let stateAt = performance.now()
  const readState = () => {
    if (performance.now() - stateAt > STATE_TTL_MS) {
      try {
        state = toState(readMeta())
      } catch {} // a busy file: the last state read stays
      stateAt = performance.now()
    }
    return state
  }
  return {
    contratos: (raiz) => q.contratos.all(raiz) as ContratoRow[],
    resumo(raiz) {
      const r = q.resumo.get(raiz) as { total: number; valor: number } | null
      if (!r) return { total: 0, valor: 0, orgaos: 0 }
      return { total: r.total, valor: r.valor, orgaos: (q.orgaos.get(raiz) as { n: number }).n }
    },
    state: readState,
    async health(): Promise<DatasetHealth> {
      const s = readState()
      return s.sincronizado_ate ? { ok: true, referencia: s.sincronizado_ate } : { ok: false, motivo: 'nenhum dia de contratos sincronizado ainda; rode dadosbr ingest licitacoes', referencia: null }
    },
    async close() {
      db.close()
    },
  }
}

function toState(meta: Map<string, string>): SyncState {
  return { desde: meta.get(META.desde) ?? null, sincronizado_ate: meta.get(META.sincronizadoAte) ?? null, atualizado_em: meta.get(META.atualizadoEm) ?? null }
}
