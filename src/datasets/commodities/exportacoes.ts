// The exports answer: built monthly by `dadosbr ingest exportacoes` from ComexStat's EXP_AAAA.csv
// into data/exportacoes/<build>/exportacoes.json (a few KB: 13 groups × 13 months), read whole at
// open and served from memory. The server follows data/exportacoes/current (a new build is picked
// up without restart).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'

export const EXPORTACOES_DATASET = 'exportacoes'
export const EXPORTACOES_FORMATO = 1
export const EXPORTACOES_ARQUIVO = 'exportacoes.json'
export const MESES_SERIE = 13

export interface MesExportado {
  mes: string
  fob_usd: number
  kg_liquido: number
  fob_usd_ano_anterior: number | null
  kg_liquido_ano_anterior: number | null
  variacao_fob_pct: number | null
  variacao_kg_pct: number | null
}

export interface GrupoExportado {
  id: string
  nome: string
  en: string
  ncm_prefixos: string[]
  serie: MesExportado[]
  ultimo_mes: MesExportado
}

export interface ExportacoesDados {
  /** The latest month in the files (YYYY-MM). */
  referencia: string
  meses: string[]
  grupos: GrupoExportado[]
}

export interface ExportacoesManifest extends SnapshotManifest {
  linhas_lidas: number
  linhas_nos_grupos: number
}

export interface ExportacoesFiles {
  dados: ExportacoesDados
  /** No build time: the same files give the same answer (the manifest keeps when it was built). */
  fonte: { base: string; referencia: string; arquivos: { nome: string; linhas: number; sha256: string }[] }
}

export type ExportacoesStore = SnapshotStore<ExportacoesFiles, ExportacoesManifest>

export function openExportacoesFiles(dir: string, manifest: ExportacoesManifest): ExportacoesFiles {
  const dados = JSON.parse(readFileSync(join(dir, EXPORTACOES_ARQUIVO), 'utf8')) as ExportacoesDados
  if (!Array.isArray(dados.grupos) || !dados.referencia) throw new Error(`${dir}: ${EXPORTACOES_ARQUIVO} fora do formato`)
  return {
    dados,
    fonte: {
      base: manifest.base,
      referencia: manifest.referencia,
      arquivos: manifest.arquivos.map((a) => ({ nome: a.nome, linhas: a.linhas_mantidas ?? 0, sha256: a.sha256 })),
    },
  }
}

export function openExportacoesStore(config: Config, log: Logger): Promise<ExportacoesStore> {
  return openSnapshot<ExportacoesFiles, ExportacoesManifest>(config, log, { dataset: EXPORTACOES_DATASET, formato: EXPORTACOES_FORMATO, open: openExportacoesFiles, close: () => {} })
}
