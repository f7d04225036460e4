// The deforestation build in use: its SQLite file opened immutable and the municipality table held
// in memory, so a municipality answer and a ranking (every window was ranked at build time) are
// one point read each. Follows data/desmatamento/current: a new build is picked up without restart.
import type { Database, Statement } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import { DATASET, DB_FILE, FORMAT, type Bioma, type DesmatamentoManifest } from './layout'

export type Grupo = Bioma | 'todos'

export interface MunicipioInfo {
  tom: string | null
  nome: string | null
  uf: string | null
  microrregiao: string | null
  /** Since the cut-off, as answered. */
  alertas: number
  area_km2: number
  area_desmatamento_km2: number
}

export interface DesmatamentoFiles {
  db: Database
  resposta: Statement<{ corpo: Uint8Array }, [string]>
  regiao: Statement<{ corpo: Uint8Array }, [string]>
  municipios: Map<string, MunicipioInfo>
  /** TOM code (4 digits) → IBGE code. */
  porTom: Map<string, string>
  ranking: Statement<{ total: number; itens: Uint8Array }, [Grupo, 'municipio' | 'uf', number]>
  /** Reference date as a day offset from 2021-01-01, and as a date. */
  refOffset: number
  referencia: string
  ranqueados: Record<Grupo, number>
  fonte: unknown
  fonteJson: Uint8Array
  totais: unknown
}

export type DesmatamentoStore = SnapshotStore<DesmatamentoFiles, DesmatamentoManifest>

const text = new TextDecoder()
const resumo = (db: Database, chave: string) => {
  const row = db.query<{ corpo: Uint8Array }, [string]>('SELECT corpo FROM resumo WHERE chave = ?').get(chave)
  if (!row) throw new Error(`resumo '${chave}' ausente`)
  return JSON.parse(text.decode(row.corpo))
}

export function openDesmatamentoFiles(dir: string): DesmatamentoFiles {
  const db = openImmutable(join(dir, DB_FILE))
  try {
    const municipios = new Map<string, MunicipioInfo>()
    const porTom = new Map<string, string>()
    for (const r of db.query<{ ibge: string } & MunicipioInfo, []>('SELECT ibge, tom, nome, uf, microrregiao, alertas, area_km2, area_desmatamento_km2 FROM municipios').all()) {
      const { ibge, ...info } = r
      municipios.set(ibge, info)
      if (r.tom) porTom.set(r.tom, ibge)
    }
    const ref = resumo(db, 'referencia') as { referencia: string; dias: number }
    const fonte = resumo(db, 'fonte')
    return {
      db,
      resposta: db.query<{ corpo: Uint8Array }, [string]>('SELECT corpo FROM respostas WHERE ibge = ?'),
      regiao: db.query<{ corpo: Uint8Array }, [string]>('SELECT corpo FROM microrregioes WHERE codigo = ?'),
      ranking: db.query<{ total: number; itens: Uint8Array }, [Grupo, 'municipio' | 'uf', number]>('SELECT total, itens FROM rankings WHERE grupo = ? AND por = ? AND dias = ?'),
      municipios,
      porTom,
      refOffset: ref.dias,
      referencia: ref.referencia,
      ranqueados: resumo(db, 'ranqueados'),
      fonte,
      fonteJson: Buffer.from(JSON.stringify(fonte)),
      totais: resumo(db, 'totais'),
    }
  } catch (err) {
    db.close()
    throw err
  }
}

export function openDesmatamentoStore(config: Config, log: Logger): Promise<DesmatamentoStore> {
  return openSnapshot<DesmatamentoFiles, DesmatamentoManifest>(config, log, { dataset: DATASET, formato: FORMAT, open: (dir) => openDesmatamentoFiles(dir), close: (f) => f.db.close() })
}
