// The files of a Banco Central build (data/bcb/<build>/), shared by the ingest and the server.
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'

export const DATASET = 'bcb'
/** Layout version: a server opens only builds of its own version. 2: corpo as BLOB. */
export const FORMAT = 2
export const DB_FILE = 'bcb.sqlite'

/** The five lists of the "Relação de instituições em funcionamento no país", one zip each. */
export const SEGMENTOS = ['bancos', 'cooperativas', 'consorcios', 'demais_instituicoes', 'conglomerados'] as const
export type Segmento = (typeof SEGMENTOS)[number]

/**
 * SQLite schema. The answer of a root does not depend on the day it is asked, so the build writes
 * it whole: `corpo` is {autorizada, registros, dominios_verificados} as JSON (UTF-8 bytes in a BLOB,
 * copied into the answer as they are), one row per root.
 * `segmentos` holds each list's position date (fonte).
 */
export const SCHEMA = `
CREATE TABLE instituicoes (
  raiz TEXT PRIMARY KEY,
  corpo BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE segmentos (
  lista TEXT PRIMARY KEY,
  referencia TEXT NOT NULL,
  registros INTEGER NOT NULL
) WITHOUT ROWID;
`

export interface BcbManifest extends SnapshotManifest {
  /** Each list's position date (YYYY-MM-DD, from its "Posição:" banner). */
  listas: Record<Segmento, string>
}
