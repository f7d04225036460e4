// SQL only: the card store (SQLite) for cards and partners, DuckDB for the lookup tables, SQLite
// FTS5 for text search. Card store tables are split by root partition (layout.ts): every query
// names the one table its root lives in.
import { cardTable, DOC_KEY_UNIT, PARTNER_RANK_SQL, partitionOfRoot } from './layout'

const estabelecimentos = (root: string) => cardTable('estabelecimentos', partitionOfRoot(root))

/** Card store queries (SQLite, `?` parameters; keys from cardKey and rootKey in layout.ts). */
export const CARD = {
  /** The card of one establishment (? = cardKey). */
  one: (root: string) => `SELECT dados FROM ${estabelecimentos(root)} WHERE chave = ?`,
  /** The cards of every establishment of a root, in CNPJ order (?, ? = rootCardKeys); keys as text (past 2^53). */
  ofRoot: (root: string) => `SELECT CAST(chave AS TEXT) AS chave, dados FROM ${estabelecimentos(root)} WHERE chave BETWEEN ? AND ? ORDER BY chave`,
  /** Any one card of a root, for its company's fields (?, ? = rootCardKeys). */
  anyOfRoot: (root: string) => `SELECT CAST(chave AS TEXT) AS chave, dados FROM ${estabelecimentos(root)} WHERE chave BETWEEN ? AND ? LIMIT 1`,
  /** Every partner of a root, in one row (? = rootKey). */
  socios: (root: string) => `SELECT dados FROM ${cardTable('socios', partitionOfRoot(root))} WHERE chave = ?`,
  /** The legal name of a company with no establishment (? = rootKey). */
  empresaSemEstab: (root: string) => `SELECT dados AS razao_social FROM ${cardTable('empresas_sem_estab', partitionOfRoot(root))} WHERE chave = ?`,
}

/** DuckDB queries, run once when a month opens. */
export const SQL = {
  lookups: (name: string) => `SELECT codigo, descricao FROM ${name}`,
  /** The IBGE code of each TOM code that has one (the build adds the column: ingest/cnpj/municipios.ts). */
  municipiosIbge: 'SELECT codigo, codigo_ibge FROM municipios WHERE codigo_ibge IS NOT NULL ORDER BY codigo',
}

/**
 * Company search over the SQLite index, one rowid range (situação/UF partition) at a time, in rank
 * order, reading the FTS doclist of its words (names and filter tokens; a search by UF or dates
 * alone reads the word every row holds). A row's CNPJ and opening date are in empresa_doc, keyed
 * by the low bits of the rowid (layout.ts).
 */
export function companySearchSql(extra: string[]) {
  const filters = extra.map((w) => ` AND ${w}`).join('')
  // Order by the FTS rowid (its natural order; ordering by the joined id makes SQLite sort every
  // match), and count without the join unless a column filter needs it (8 ms -> 0.8 ms at 1 M rows).
  const match = `FROM empresa_fts f JOIN empresa_doc d ON d.id = f.rowid % ${DOC_KEY_UNIT} WHERE empresa_fts MATCH $match AND f.rowid BETWEEN $lo AND $hi${filters}`
  return {
    page: `SELECT f.rowid AS id, d.cnpj ${match} ORDER BY f.rowid LIMIT $limit`,
    /** The page's ids only (their CNPJs are read once, for the merged page: cnpjsByDocKey). */
    pageIds: extra.length
      ? `SELECT f.rowid AS id ${match} ORDER BY f.rowid LIMIT $limit`
      : `SELECT rowid AS id FROM empresa_fts WHERE empresa_fts MATCH $match AND rowid BETWEEN $lo AND $hi ORDER BY rowid LIMIT $limit`,
    ids: extra.length
      ? `SELECT f.rowid AS id ${match} LIMIT 10001`
      : `SELECT rowid AS id FROM empresa_fts WHERE empresa_fts MATCH $match AND rowid BETWEEN $lo AND $hi LIMIT 10001`,
    count: extra.length
      ? `SELECT count(*) AS n FROM (SELECT 1 ${match} LIMIT 10001)`
      : `SELECT count(*) AS n FROM (SELECT 1 FROM empresa_fts WHERE empresa_fts MATCH $match AND rowid BETWEEN $lo AND $hi LIMIT 10001)`,
  }
}

/** The CNPJs of a list of doc keys (at most one page); the rest of a result is its card. */
export const cnpjsByDocKey = (n: number) => `SELECT d.id AS chave, d.cnpj FROM empresa_doc d WHERE d.id IN (${Array(n).fill('?').join(', ')})`

/** Capital and opening date of some doc keys (the exact checks of a range's edge rows, filter-bitmaps.ts). */
export const docValuesByKey = (n: number) => `SELECT id, capital, abertura FROM empresa_doc WHERE id IN (${Array(n).fill('?').join(', ')})`

/** The indexed words that begin with a typed word (?, ? = the word and its exclusive upper bound; ? = a limit), in either name index. */
export const VOCABULARY = 'SELECT t FROM termo WHERE t >= ? AND t < ? LIMIT ?'

export const SOCIO_SEARCH = {
  page: `SELECT d.cnpj_basico, d.nome, d.qualificacao, d.data_entrada FROM socio_fts f JOIN socio_doc d ON d.id = f.rowid % ${DOC_KEY_UNIT}
         WHERE socio_fts MATCH $match ORDER BY f.rowid LIMIT $limit OFFSET $offset`,
  count: `SELECT count(*) AS n FROM (SELECT 1 FROM socio_fts WHERE socio_fts MATCH $match LIMIT 10001)`,
  /**
   * A partner's rows by document ($doc = documentKey), through the index on (documento, rank): in
   * the name search's order (rank, then doc key, as the FTS rowids), no sort.
   */
  byDocument: `SELECT d.id, d.cnpj_basico, d.nome, d.qualificacao, d.data_entrada FROM socio_doc d INDEXED BY socio_doc_documento
         WHERE d.documento = $doc ORDER BY ${PARTNER_RANK_SQL}, d.id LIMIT $limit OFFSET $offset`,
  byDocumentCount: `SELECT count(*) AS n FROM (SELECT 1 FROM socio_doc INDEXED BY socio_doc_documento WHERE documento = $doc LIMIT $limit)`,
  /** The name drives, each of its rows checked for the document (a document with many rows). */
  pageWithDocument: `SELECT d.cnpj_basico, d.nome, d.qualificacao, d.data_entrada FROM socio_fts f JOIN socio_doc d ON d.id = f.rowid % ${DOC_KEY_UNIT}
         WHERE socio_fts MATCH $match AND d.documento = $doc ORDER BY f.rowid LIMIT $limit OFFSET $offset`,
  countWithDocument: `SELECT count(*) AS n FROM (SELECT 1 FROM socio_fts f JOIN socio_doc d ON d.id = f.rowid % ${DOC_KEY_UNIT}
         WHERE socio_fts MATCH $match AND d.documento = $doc LIMIT 10001)`,
}
