// The Banco Central build in use: its SQLite file opened immutable, and the lists' dates. Follows
// data/bcb/current (a new build is picked up without restart, no request fails during the swap).
import type { Database, Statement } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import { DATASET, DB_FILE, FORMAT, SEGMENTOS, type BcbManifest, type Segmento } from './layout'

export interface BcbFiles {
  db: Database
  porRaiz: Statement<{ corpo: Uint8Array }, [string]>
  fonte: { base: 'BCB'; referencia: string; listas: Record<Segmento, string> }
  fonteJson: Uint8Array
}

export type BcbStore = SnapshotStore<BcbFiles, BcbManifest>

export function openBcbFiles(dir: string, manifest: BcbManifest): BcbFiles {
  const db = openImmutable(join(dir, DB_FILE))
  try {
    const datas = new Map(db.query<{ lista: Segmento; referencia: string }, []>('SELECT lista, referencia FROM segmentos').all().map((r) => [r.lista, r.referencia]))
    const listas = {} as Record<Segmento, string>
    for (const s of SEGMENTOS) {
      const d = datas.get(s)
      if (!d) throw new Error(`${dir}: lista ${s} ausente`)
      listas[s] = d
    }
    const fonte = { base: 'BCB' as const, referencia: manifest.referencia, listas }
    return { db, porRaiz: db.query<{ corpo: Uint8Array }, [string]>('SELECT corpo FROM instituicoes WHERE raiz = ?'), fonte, fonteJson: Buffer.from(JSON.stringify(fonte)) }
  } catch (err) {
    db.close()
    throw err
  }
}

export function openBcbStore(config: Config, log: Logger): Promise<BcbStore> {
  return openSnapshot<BcbFiles, BcbManifest>(config, log, { dataset: DATASET, formato: FORMAT, open: openBcbFiles, close: (f) => f.db.close() })
}
