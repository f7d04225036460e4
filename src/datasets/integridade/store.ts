// The integrity build in use: its SQLite file opened immutable, the one statement a screening
// runs, and the lists' dates (fonte). Follows data/integridade/current: a new daily build is picked
// up without restart, and a request in flight finishes on the build it started with.
import type { Database, Statement } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import { DATASET, DB_FILE, FORMAT, LISTAS, type IntegridadeManifest, type Lista } from './layout'

/** A record as stored: list, CNPJ filed under, end date, situation, fields as UTF-8 JSON (arrays: cheaper to read than objects). */
export type LinhaApontamento = [lista: Lista, cnpj: string, fim: string | null, situacao: string | null, corpo: Uint8Array, ordem: number]

export interface IntegridadeFiles {
  db: Database
  /** Every record of an 8-character root, grouped by list, newest first. */
  porRaiz: Statement<unknown, [string]>
  /**
   * The roots with any record (tens of thousands at national size, ~2 MB): most screenings are of
   * companies on no list, and answering them from this set skips the SQLite read that was the
   * largest single cost of a screening (16 % of it, profiled).
   */
  raizes: Set<string>
  fonte: { base: 'CGU/MTE'; referencia: string; listas: Record<Lista, string> }
  /** `fonte` as UTF-8 JSON (the route writes its answer as bytes). */
  fonteJson: Uint8Array
}

export type IntegridadeStore = SnapshotStore<IntegridadeFiles, IntegridadeManifest>

export function openIntegridadeFiles(dir: string, manifest: IntegridadeManifest): IntegridadeFiles {
  const db = openImmutable(join(dir, DB_FILE))
  try {
    const datas = new Map(db.query<{ lista: Lista; referencia: string }, []>('SELECT lista, referencia FROM listas').all().map((r) => [r.lista, r.referencia]))
    // In the answer's order.
    const listas = {} as Record<Lista, string>
    for (const l of LISTAS) {
      const d = datas.get(l)
      if (!d) throw new Error(`${dir}: lista ${l} ausente`)
      listas[l] = d
    }
    const fonte = { base: 'CGU/MTE' as const, referencia: manifest.referencia, listas }
    return {
      db,
      // No ORDER BY: SQLite sorted the few rows of a root at 3x the cost of reading them (10 against
      // 3.5 µs); the caller orders them by `ordem` (grouped by list, newest first, at build).
      porRaiz: db.query<unknown, [string]>('SELECT lista, cnpj, fim, situacao, corpo, ordem FROM apontamentos WHERE raiz = ?'),
      raizes: new Set((db.query('SELECT DISTINCT raiz FROM apontamentos').values() as [string][]).map(([r]) => r)),
      fonte,
      fonteJson: Buffer.from(JSON.stringify(fonte)),
    }
  } catch (err) {
    db.close()
    throw err
  }
}

export function openIntegridadeStore(config: Config, log: Logger): Promise<IntegridadeStore> {
  return openSnapshot<IntegridadeFiles, IntegridadeManifest>(config, log, {
    dataset: DATASET,
    formato: FORMAT,
    open: (dir, manifest) => openIntegridadeFiles(dir, manifest),
    close: (files) => files.db.close(),
  })
}
