// The deforestation build in use: its SQLite file opened immutable, the municipality table and
// the per-day running sums held in memory (a few MB at full size), so a municipality answer is one
// point read and a ranking over any window a pass over the series. Follows
// data/desmatamento/current: a new build is picked up without restart.
import type { Database, Statement } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import { DATASET, DB_FILE, FORMAT, type Bioma, type DesmatamentoManifest } from './layout'

export type Grupo = Bioma | 'todos'

export interface Serie {
  ibge: string
  /** Day offsets from 2021-01-01 with alerts, ascending. */
  dias: Int32Array
  /** Running sums at each of those days: alertas, area_km2, alertas_desmatamento, area_desmatamento_km2. */
  somas: Float64Array
}

export interface MunicipioInfo {
  tom: string | null
  nome: string | null
  uf: string | null
  microrregiao: string | null
}

export interface DesmatamentoFiles {
  db: Database
  resposta: Statement<{ corpo: Uint8Array }, [string]>
  regiao: Statement<{ corpo: Uint8Array }, [string]>
  municipios: Map<string, MunicipioInfo>
  /** TOM code (4 digits) → IBGE code. */
  porTom: Map<string, string>
  series: Record<Grupo, Serie[]>
  /** Reference date as a day offset from 2021-01-01, and as a date. */
  refOffset: number
  referencia: string
  ranqueados: Record<Grupo, number>
  fonte: unknown
  fonteJson: Uint8Array
  totais: unknown
  /** Ranking answers already computed for this build (bounded). */
  cache: Map<string, Uint8Array>
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
    for (const r of db.query<{ ibge: string } & MunicipioInfo, []>('SELECT ibge, tom, nome, uf, microrregiao FROM municipios').all()) {
      municipios.set(r.ibge, { tom: r.tom, nome: r.nome, uf: r.uf, microrregiao: r.microrregiao })
      if (r.tom) porTom.set(r.tom, r.ibge)
    }
    const series: Record<Grupo, Serie[]> = { amazonia: [], cerrado: [], todos: [] }
    for (const r of db.query<{ grupo: Grupo; ibge: string; dias: Uint8Array; somas: Uint8Array }, []>('SELECT grupo, ibge, dias, somas FROM series ORDER BY grupo, ibge').all()) {
      // Copies: a typed array over a blob must be aligned and must not outlive SQLite's buffer.
      const dias = new Int32Array(r.dias.byteLength / 4)
      new Uint8Array(dias.buffer).set(r.dias)
      const somas = new Float64Array(r.somas.byteLength / 8)
      new Uint8Array(somas.buffer).set(r.somas)
      if (somas.length !== dias.length * 4) throw new Error(`série ${r.grupo}/${r.ibge} malformada`)
      series[r.grupo]?.push({ ibge: r.ibge, dias, somas })
    }
    const ref = resumo(db, 'referencia') as { referencia: string; dias: number }
    const fonte = resumo(db, 'fonte')
    return {
      db,
      resposta: db.query<{ corpo: Uint8Array }, [string]>('SELECT corpo FROM respostas WHERE ibge = ?'),
      regiao: db.query<{ corpo: Uint8Array }, [string]>('SELECT corpo FROM microrregioes WHERE codigo = ?'),
      municipios,
      porTom,
      series,
      refOffset: ref.dias,
      referencia: ref.referencia,
      ranqueados: resumo(db, 'ranqueados'),
      fonte,
      fonteJson: Buffer.from(JSON.stringify(fonte)),
      totais: resumo(db, 'totais'),
      cache: new Map(),
    }
  } catch (err) {
    db.close()
    throw err
  }
}

export function openDesmatamentoStore(config: Config, log: Logger): Promise<DesmatamentoStore> {
  return openSnapshot<DesmatamentoFiles, DesmatamentoManifest>(config, log, { dataset: DATASET, formato: FORMAT, open: (dir) => openDesmatamentoFiles(dir), close: (f) => f.db.close() })
}
