// The files of an integrity build (data/integridade/<build>/), shared by the ingest that writes
// them and the server that reads them.
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'

export const DATASET = 'integridade'
/** Layout version: a server opens only builds of its own version (bump on any change below). 2: corpo as BLOB. */
export const FORMAT = 2
export const DB_FILE = 'integridade.sqlite'

/** The five lists, in the order of the answer's `apontamentos`. */
export const LISTAS = ['ceis', 'cnep', 'cepim', 'trabalho_escravo', 'acordos_leniencia'] as const
export type Lista = (typeof LISTAS)[number]

/**
 * SQLite schema. One row per record kept, clustered by the 8-character root (a sanction binds the
 * legal entity, so a screening reads every record of the root in one index range):
 * - `cnpj`: the CNPJ the record was filed under (answers say whether it is the one asked or only
 *   the same root);
 * - `fim` and `situacao`: what `vigente` is computed from (the build cannot know the day it will
 *   be asked; the server reduces them to one date per record when it opens the build);
 * - `corpo`: the record's fields as JSON (UTF-8 bytes in a BLOB: the route copies them into its
 *   answer without decoding them to a string), under the answer's keys.
 * `listas` holds each list's reference date and source file (the answer's `fonte`).
 */
export const SCHEMA = `
CREATE TABLE apontamentos (
  raiz TEXT NOT NULL,
  lista TEXT NOT NULL,
  ordem INTEGER NOT NULL,
  cnpj TEXT NOT NULL,
  fim TEXT,
  situacao TEXT,
  corpo BLOB NOT NULL,
  PRIMARY KEY (raiz, lista, ordem)
) WITHOUT ROWID;
CREATE TABLE listas (
  lista TEXT PRIMARY KEY,
  referencia TEXT NOT NULL,
  registros INTEGER NOT NULL
) WITHOUT ROWID;
`

export interface IntegridadeManifest extends SnapshotManifest {
  /** Each list's reference date (YYYY-MM-DD). */
  listas: Record<Lista, string>
}
