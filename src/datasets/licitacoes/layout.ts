// The contracts index on disk. Two files under data/licitacoes/:
// - sync.sqlite, the ingest's own working file: the publication days read whole, the descriptions of
//   bodies, units and contract types, and the contracts read since the last compaction, appended
//   as they come (no index to keep in order, so a national first sync writes sequentially);
// - <build>/contratos.sqlite, the index the server reads (immutable, `current` swapped atomically):
//   every contract once (a rectification replaces its earlier version), the indexes built by
//   sorting, and per-supplier totals. The ingest compacts the first into a new build at the end of a
//   run (and every hour of a long one). Why: docs/licitacoes.md.

export const DATASET_DIR = 'licitacoes'
export const DB_FILE = 'contratos.sqlite'
export const SYNC_FILE = 'sync.sqlite'
/**
 * Layout version of both files: a server opens only builds of its own version; the ingest starts over (--refazer) on another.
 * 4: `objeto` as PNCP wrote it (line breaks kept), where 3 collapsed runs of spaces and line breaks: an index of 3
 * extended by this version would serve both forms, so it is re-synced instead (docs/licitacoes.md, "Atualizando").
 */
export const FORMAT = 4
export const BASE = 'PNCP/contratos'

/** Contract values are summed in ten-thousandths of a real (PNCP sends up to 4 decimals): integers add exactly. */
export const VALUE_SCALE = 10_000

/** The newest contracts an answer lists (SPEC §8). */
export const MAX_CONTRATOS = 100

/** Descriptions shared by both files: a contract points to them by id (ids are the sync file's, stable forever). */
export const DICTIONARIES = `
CREATE TABLE IF NOT EXISTS orgaos (id INTEGER PRIMARY KEY, cnpj TEXT NOT NULL UNIQUE, razao_social TEXT, esfera TEXT, poder TEXT);
CREATE TABLE IF NOT EXISTS unidades (id INTEGER PRIMARY KEY, chave TEXT NOT NULL UNIQUE, nome TEXT, municipio TEXT, uf TEXT);
CREATE TABLE IF NOT EXISTS tipos (id INTEGER PRIMARY KEY, nome TEXT NOT NULL UNIQUE);
`

/** The columns of a contract, in both files. */
export const CONTRACT_COLUMNS = 'numero, cnpj_fornecedor, orgao, unidade, tipo, objeto, valor_inicial, valor_global, data_assinatura, vigencia_inicio, vigencia_fim'
const CONTRACT_TABLE = (name: string, extra = '') => `CREATE TABLE IF NOT EXISTS ${name} (
  id INTEGER PRIMARY KEY,
  numero TEXT NOT NULL,
  cnpj_fornecedor TEXT NOT NULL,
  orgao INTEGER,
  unidade INTEGER,
  tipo INTEGER,
  objeto TEXT,
  valor_inicial REAL,
  valor_global REAL,
  data_assinatura TEXT,
  vigencia_inicio TEXT,
  vigencia_fim TEXT${extra}
);`

/**
 * sync.sqlite: meta (format, first day, updates read since, last compaction), days read whole, staged
 * contracts. `substitui` marks a contract that may replace a version read before (an update, or one of
 * a day not finished when read: today, a day whose pages changed); the others are new for sure (a
 * finished day is read once), so a complete build looks for older versions of the marked ones only.
 */
export const SYNC_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (chave TEXT PRIMARY KEY, valor TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dias (dia TEXT PRIMARY KEY, registros INTEGER NOT NULL, concluido_em TEXT NOT NULL) WITHOUT ROWID;
${DICTIONARIES}
${CONTRACT_TABLE('novos', ',\n  substitui INTEGER NOT NULL DEFAULT 0')}
CREATE INDEX IF NOT EXISTS novos_substitui ON novos (numero) WHERE substitui = 1;
-- Days staged before they were finished: their contracts, read again, may replace those versions.
CREATE TABLE IF NOT EXISTS parciais (dia TEXT PRIMARY KEY) WITHOUT ROWID;
`

/**
 * contratos.sqlite: contratos holds each numeroControlePNCP once; the index on the supplier's
 * 8-character root and signature date serves the 100 newest with no sort (a reverse scan);
 * fornecedores has each root's count, value and distinct bodies, so a supplier with 100 000
 * contracts answers as fast as one with one.
 */
export const SERVED_TABLES = `
CREATE TABLE meta (chave TEXT PRIMARY KEY, valor TEXT) WITHOUT ROWID;
${DICTIONARIES}
${CONTRACT_TABLE('contratos')}
CREATE TABLE fornecedores (raiz TEXT PRIMARY KEY, total INTEGER NOT NULL, valor INTEGER NOT NULL, orgaos INTEGER NOT NULL) WITHOUT ROWID;
`
export const SERVED_INDEXES = [
  'CREATE INDEX contratos_numero ON contratos (numero)',
  'CREATE INDEX contratos_por_raiz ON contratos (substr(cnpj_fornecedor, 1, 8), data_assinatura)',
]

/** meta keys. */
export const META = {
  formato: 'formato',
  desde: 'desde',
  sincronizadoAte: 'sincronizado_ate',
  atualizacoesDesde: 'atualizacoes_desde',
  atualizadoEm: 'atualizado_em',
  ultimaCompactacao: 'ultima_compactacao',
} as const

/** The newest contracts of a root, newest signature first (a reverse scan of contratos_por_raiz). */
export const SQL_CONTRATOS = `
SELECT c.numero, c.cnpj_fornecedor, c.objeto, c.valor_inicial, c.valor_global, c.data_assinatura, c.vigencia_inicio, c.vigencia_fim,
       o.cnpj AS orgao_cnpj, o.razao_social AS orgao_razao, o.esfera, o.poder, u.nome AS unidade_nome, u.municipio, u.uf, t.nome AS tipo
FROM contratos c
LEFT JOIN orgaos o ON o.id = c.orgao
LEFT JOIN unidades u ON u.id = c.unidade
LEFT JOIN tipos t ON t.id = c.tipo
WHERE substr(c.cnpj_fornecedor, 1, 8) = ?1
ORDER BY c.data_assinatura DESC, c.id DESC
LIMIT ${MAX_CONTRATOS}`

export const SQL_RESUMO = 'SELECT total, valor, orgaos FROM fornecedores WHERE raiz = ?1'
export const SQL_META = 'SELECT chave, valor FROM meta'

/** A root's totals from its contracts (the value of each: global, else initial). */
export const SQL_AGGREGATE_ROOT = `SELECT count(*) AS total, coalesce(sum(CAST(round(coalesce(valor_global, valor_inicial, 0) * ${VALUE_SCALE}) AS INTEGER)), 0) AS valor, count(DISTINCT orgao) AS orgaos
FROM contratos WHERE substr(cnpj_fornecedor, 1, 8) = ?1`
