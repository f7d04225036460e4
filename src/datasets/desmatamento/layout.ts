// The files of a deforestation build (data/desmatamento/<build>/), and the rules the ingest and
// the server share: the EUDR cut-off, the biomes (DETER projects), the alert classes and which of
// them count as cleared area.
import type { SnapshotManifest } from '../../core/stores/snapshot-layout'

export const DATASET = 'desmatamento'
/** Layout version: a server opens only builds of its own version. 2: rankings stored whole; 3: each municipality's totals in municipios. */
export const FORMAT = 3
export const DB_FILE = 'desmatamento.sqlite'

/** EUDR cut-off (Regulation (EU) 2023/1115, art. 2(13)): land not deforested *after* this day. */
export const CORTE = '2020-12-31'
/** The first day counted: alerts seen on images from this day on. */
export const PRIMEIRO_DIA = '2021-01-01'

/** The DETER projects served, each named by the biome it monitors. */
export const BIOMAS = ['amazonia', 'cerrado'] as const
export type Bioma = (typeof BIOMAS)[number]

/** Rolling windows of every municipality answer, in days up to the reference date. */
export const JANELAS = [30, 90, 365] as const

export type Grupo = 'desmatamento' | 'degradacao' | 'outros'

/**
 * DETER's classes. "Desmatamento" (cleared area, what the rankings order by) is the clear-cut
 * classes and mining, as INPE's DETER panel groups them; the rest is degradation. The Cerrado
 * public file has only DESMATAMENTO_CR.
 */
export const CLASSES: Record<string, { descricao: string; grupo: Grupo }> = {
  DESMATAMENTO_CR: { descricao: 'desmatamento com solo exposto (corte raso)', grupo: 'desmatamento' },
  DESMATAMENTO_VEG: { descricao: 'desmatamento com vegetação remanescente', grupo: 'desmatamento' },
  MINERACAO: { descricao: 'mineração', grupo: 'desmatamento' },
  DEGRADACAO: { descricao: 'degradação', grupo: 'degradacao' },
  CICATRIZ_DE_QUEIMADA: { descricao: 'cicatriz de incêndio florestal', grupo: 'degradacao' },
  CS_DESORDENADO: { descricao: 'corte seletivo desordenado', grupo: 'degradacao' },
  CS_GEOMETRICO: { descricao: 'corte seletivo geométrico', grupo: 'degradacao' },
  CORTE_SELETIVO: { descricao: 'corte seletivo (classe antiga)', grupo: 'degradacao' },
}

/** Spellings seen in DETER files, mapped to the class they mean. */
export const CLASS_ALIASES: Record<string, string> = { DEGRDACAO: 'DEGRADACAO' }

/**
 * SQLite schema.
 * - municipios: every municipality known to the build (the Receita's table, the codes in the
 *   alerts, the microregion table), with its TOM code, IBGE microregion and totals since the
 *   cut-off (rounded as answered: the supplier route orders a company's municipalities by them).
 * - respostas: the municipality answer (without fonte) of each municipality with alerts, whole.
 * - microrregioes: each microregion's totals (JSON), for the supplier route's regional exposure.
 * - rankings: every ranking the route can be asked, per grupo (amazonia, cerrado, todos), por
 *   (municipio, uf) and window (dias 1 to MAX_DIAS, 0 = since the cut-off): how many qualify and
 *   the best rows (Float64 little-endian: RANKING_MUNICIPIO and RANKING_UF values per row).
 * - resumo: build-wide JSON pieces (fonte, national totals, ranking sizes).
 */
export const SCHEMA = `
CREATE TABLE municipios (
  ibge TEXT PRIMARY KEY,
  tom TEXT,
  nome TEXT,
  uf TEXT,
  microrregiao TEXT,
  alertas INTEGER NOT NULL,
  area_km2 REAL NOT NULL,
  area_desmatamento_km2 REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE respostas (
  ibge TEXT PRIMARY KEY,
  corpo BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE microrregioes (
  codigo TEXT PRIMARY KEY,
  nome TEXT,
  uf TEXT,
  corpo BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE rankings (
  grupo TEXT NOT NULL,
  por TEXT NOT NULL,
  dias INTEGER NOT NULL,
  total INTEGER NOT NULL,
  itens BLOB NOT NULL,
  PRIMARY KEY (grupo, por, dias)
) WITHOUT ROWID;
CREATE TABLE resumo (
  chave TEXT PRIMARY KEY,
  corpo BLOB NOT NULL
) WITHOUT ROWID;
`

/** The longest window of the ranking route (SPEC §8), and the most rows it returns. */
export const MAX_DIAS = 2000
export const MAX_LIMITE = 50
/** Values per stored ranking row: IBGE code, alertas, area_km2, alertas_desmatamento, area_desmatamento_km2. */
export const RANKING_MUNICIPIO = 5
/** Values per stored state row: index in UFS, municipalities with alerts, then the same four sums. */
export const RANKING_UF = 6
/** States in a fixed order: a stored state row names its state by index. */
export const UFS = ['AC', 'AL', 'AM', 'AP', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MG', 'MS', 'MT', 'PA', 'PB', 'PE', 'PI', 'PR', 'RJ', 'RN', 'RO', 'RR', 'RS', 'SC', 'SE', 'SP', 'TO'] as const

export interface ProjetoManifest {
  arquivo: string
  /** The .dbf inside the zip. */
  entrada: string
  alerta_mais_recente: string | null
  alertas_desde_corte: number
  anteriores_ao_corte: number
}

export interface DesmatamentoManifest extends SnapshotManifest {
  /** Newest alert of both projects (YYYY-MM-DD): the end of every window. */
  referencia: string
  projetos: Record<Bioma, ProjetoManifest>
  municipios_com_alertas: number
  /** Rows added to the Receita's municipality table (its known gap), with why. */
  complementos: { tom: string; ibge: string; nome: string; motivo: string }[]
}
