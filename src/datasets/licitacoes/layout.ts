// The contracts index on disk: one SQLite file in WAL mode, data/licitacoes/contratos.sqlite,
// written in place by `dadosbr ingest licitacoes` (one day of PNCP publications per transaction)
// and read by the server at the same time. Why not a snapshot per sync: docs/licitacoes.md.
// Read by the server, written by the ingest.

export const DATASET_DIR = 'licitacoes'
export const DB_FILE = 'contratos.sqlite'
/** Layout version: a server reads only an index of its own version; the ingest rebuilds another one only with --refazer. */
export const FORMAT = 1
export const BASE = 'PNCP/contratos'

/** Contract values are summed in ten-thousandths of a real (PNCP sends up to 4 decimals): integers add exactly. */
export const VALUE_SCALE = 10_000

/** The newest contracts an answer lists (SPEC §8). */
export const MAX_CONTRATOS = 100

/**
 * orgaos, unidades and tipos hold each repeated description once (contracts point to them).
 * contratos: one row per numeroControlePNCP (a rectification replaces it), only companies (PJ);
 * the index on the supplier's 8-character root and signature date serves the 100 newest with no
 * sort. fornecedores: count and value per root, kept by the ingest as rows come and go, so a
 * supplier with 100 000 contracts answers as fast as one with one. fornecedor_orgaos: the distinct
 * contracting bodies of each root (counted at answer time: a short index range). dias: each
 * publication day fully read (the sync resumes from the others). meta: format, first day,
 * synced-up-to day, when updates were last read.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (chave TEXT PRIMARY KEY, valor TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dias (dia TEXT PRIMARY KEY, registros INTEGER NOT NULL, concluido_em TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS orgaos (id INTEGER PRIMARY KEY, cnpj TEXT NOT NULL UNIQUE, razao_social TEXT, esfera TEXT, poder TEXT);
CREATE TABLE IF NOT EXISTS unidades (id INTEGER PRIMARY KEY, chave TEXT NOT NULL UNIQUE, nome TEXT, municipio TEXT, uf TEXT);
CREATE TABLE IF NOT EXISTS tipos (id INTEGER PRIMARY KEY, nome TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS contratos (
  id INTEGER PRIMARY KEY,
  numero TEXT NOT NULL UNIQUE,
  cnpj_fornecedor TEXT NOT NULL,
  orgao INTEGER,
  unidade INTEGER,
  tipo INTEGER,
  objeto TEXT,
  valor_inicial REAL,
  valor_global REAL,
  data_assinatura TEXT,
  vigencia_inicio TEXT,
  vigencia_fim TEXT
);
CREATE INDEX IF NOT EXISTS contratos_por_raiz ON contratos (substr(cnpj_fornecedor, 1, 8), data_assinatura);
CREATE TABLE IF NOT EXISTS fornecedores (raiz TEXT PRIMARY KEY, total INTEGER NOT NULL, valor INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fornecedor_orgaos (raiz TEXT NOT NULL, orgao INTEGER NOT NULL, PRIMARY KEY (raiz, orgao)) WITHOUT ROWID;
`

/** meta keys. */
export const META = {
  formato: 'formato',
  desde: 'desde',
  sincronizadoAte: 'sincronizado_ate',
  atualizacoesDesde: 'atualizacoes_desde',
  atualizadoEm: 'atualizado_em',
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
ORDER BY substr(c.cnpj_fornecedor, 1, 8) DESC, c.data_assinatura DESC, c.id DESC
LIMIT ${MAX_CONTRATOS}`

export const SQL_RESUMO = 'SELECT total, valor FROM fornecedores WHERE raiz = ?1'
export const SQL_ORGAOS = 'SELECT count(*) AS n FROM fornecedor_orgaos WHERE raiz = ?1'
export const SQL_META = 'SELECT chave, valor FROM meta'
