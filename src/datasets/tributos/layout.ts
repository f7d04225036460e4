// The files of a tax-reform build (data/tributos/<build>/), shared by the ingest and the server:
// the NCM table (codes and descriptions) in SQLite. The annexes of LC 214/2025 are not here: they
// are part of the program (data/anexos.json), so a build never carries an older reading of the law.
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'

export const DATASET = 'tributos'
/** Layout version: a server opens only builds of its own version. */
export const FORMAT = 1
export const DB_FILE = 'ncm.sqlite'
/**
 * A whole table has some 10 400 subitems; one with fewer is an excerpt (the bundled sample) or was
 * cut. The ingest refuses a downloaded table below this; the server says an excerpt is one.
 */
export const SUBITENS_TABELA_INTEIRA = 5000

/**
 * ncm: every code of the table in force, all levels (chapter to subitem), by its digits.
 * descricao is the table's text without HTML tags and without the leading dashes that mark the
 * level ("-- Outros" -> "Outros"); descricao_original is the text as published.
 * meta: the table's own header (Data_Ultima_Atualizacao_NCM, Ato).
 */
export const SCHEMA = `
CREATE TABLE ncm (
  codigo TEXT PRIMARY KEY,
  descricao TEXT NOT NULL,
  descricao_original TEXT NOT NULL,
  inicio TEXT,
  fim TEXT,
  ato TEXT
) WITHOUT ROWID;
CREATE TABLE meta (
  chave TEXT PRIMARY KEY,
  valor TEXT
) WITHOUT ROWID;
`

export interface TributosManifest extends SnapshotManifest {
  tabela_ncm: {
    /** The header as published, e.g. "Vigente em 13/05/2025". */
    vigencia: string
    /** The act the header names, e.g. "Resolução Gecex nº 812/2025". */
    ato: string | null
    codigos: number
    subitens: number
  }
  anexos: {
    /** Version of the annex data the build was checked against (data/anexos.json `versao`). */
    versao: string
    referencias: number
    /** Codes the annexes cite that are not in this table (reclassified since Resolução Gecex 272/2021: art. 492, § 2º). */
    fora_da_tabela: { anexo: string; item: string; codigo: string }[]
  }
}
