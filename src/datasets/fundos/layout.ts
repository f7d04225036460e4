// The fund dataset's files: one SQLite file per build (fundos.sqlite) beside its manifest, under
// data/fundos/<build>/. Shared by the ingest (writes) and the server (reads), so both agree on
// the tables, the stored JSON shapes and the layout version.

export const DATASET = 'fundos'
export const DB_FILE = 'fundos.sqlite'

/**
 * Layout version, written in the manifest: a server opens only builds of its own version.
 * 1: first layout (consulta and carteira bodies as JSON, ranking lists and flow prefix sums).
 */
export const FORMAT = 1

/** The answers' `fonte.base`. */
export const BASE = 'CVM/FI'

/**
 * Flows of fund-of-funds classes (Classe_Cotas / FUNDO_COTAS = S) are left out of the aggregate
 * flows: the money they take in is taken in again by the funds they buy, which report it too.
 */
export const AGGREGATES_EXCLUDE_FIC = true

/** A class enters the rankings when its latest daily report is at most this many days before the latest consolidated day. */
export const RANKING_STALE_DAYS = 10

/** Rankings keep this many entries per list (SPEC §8: limite max 50). */
export const RANKING_SIZE = 50

/** The label of classes whose CVM classification is unknown (no registry row, or a blank one). */
export const SEM_CLASSIFICACAO = 'Sem classificação'

/** The tables of fundos.sqlite (created by ingest/fundos/write.ts). */
export const SCHEMA = `
CREATE TABLE meta (chave TEXT PRIMARY KEY, valor TEXT NOT NULL) WITHOUT ROWID;
-- One row per trading day and CVM classification: the classes' reported flows and net assets.
CREATE TABLE fluxo_dia (data TEXT NOT NULL, classificacao TEXT NOT NULL, captacao REAL NOT NULL, resgates REAL NOT NULL,
  patrimonio_liquido REAL NOT NULL, classes INTEGER NOT NULL, PRIMARY KEY (data, classificacao)) WITHOUT ROWID;
-- The /consulta answer of every CNPJ the CVM files name (funds, classes, legacy funds, classes seen only in the daily reports).
CREATE TABLE consulta (cnpj TEXT PRIMARY KEY, corpo TEXT NOT NULL) WITHOUT ROWID;
-- Classes that appear in some ranking list, with their latest report and their flow prefix sums.
CREATE TABLE classe (id INTEGER PRIMARY KEY, cnpj TEXT NOT NULL, corpo TEXT NOT NULL, fluxos BLOB NOT NULL);
-- Ranking lists: por = patrimonio | cotistas (inicio = -1) or captacao (inicio = first trading-day index of the window).
CREATE TABLE ranking (por TEXT NOT NULL, classificacao TEXT NOT NULL, inicio INTEGER NOT NULL, posicao INTEGER NOT NULL,
  classe INTEGER NOT NULL, PRIMARY KEY (por, classificacao, inicio, posicao)) WITHOUT ROWID;
-- The stocks and BDRs a fund disclosed for a month (CDA block 4), as the /carteira body part.
CREATE TABLE carteira (cnpj TEXT NOT NULL, competencia TEXT NOT NULL, corpo TEXT NOT NULL, PRIMARY KEY (cnpj, competencia)) WITHOUT ROWID;
-- Per ticker and month, across all funds, in the /movimentacoes order (largest net flow in absolute value first).
CREATE TABLE movimentacao (competencia TEXT NOT NULL, posicao INTEGER NOT NULL, corpo TEXT NOT NULL, PRIMARY KEY (competencia, posicao)) WITHOUT ROWID;
`

/** Keys of the meta table, each a JSON value. */
export interface FundosMeta {
  /** Trading days up to the latest consolidated day, oldest first (index = position in the flow prefix sums). */
  dias: string[]
  /** The latest consolidated day of the daily reports. */
  dia_consolidado: string
  /** The latest day any class reported (may be after dia_consolidado, while reports are still arriving). */
  ultimo_dia: string
  /** Classes reporting on the latest consolidated day. */
  classes_no_dia: number
  /** CVM classifications with at least one class in the rankings, in display order. */
  classificacoes: string[]
  /** Months of portfolio disclosures loaded, oldest first, with what each holds. */
  competencias: CompetenciaInfo[]
}

export interface CompetenciaInfo {
  competencia: string
  /** Position date (DT_COMPTC, usually the month's last day). */
  data: string | null
  /** Classes that filed the month's net-assets file (PL). */
  fundos_informantes: number
  /** Classes with at least one stock or BDR. */
  fundos_com_acoes: number
  /** Tickers (or ISINs) with a position or a trade. */
  ativos: number
  /** True when at least 90 % of the largest loaded month's filers have filed (see docs/fundos.md). */
  consolidada: boolean
}

/** What the ranking reads of a class (the `classe.corpo` JSON). */
export interface ClasseCorpo {
  cnpj: string
  nome: string | null
  fundo: { cnpj: string; nome: string | null } | null
  gestor: { nome: string | null; cnpj: string | null } | null
  classificacao: string
  cotas_de_fundos: boolean
  data: string
  cota: number | null
  patrimonio_liquido: number | null
  cotistas: number | null
}

/** One stock or BDR of a fund in a month (the `carteira.corpo` JSON holds a list of these plus the fund's name, date and net assets). */
export interface AtivoCarteira {
  ticker: string | null
  isin: string | null
  descricao: string | null
  tipo: 'acao' | 'unit' | 'bdr'
  tipo_ativo: string | null
  quantidade: number
  valor_mercado: number
  quantidade_emprestada: number
  percentual_pl: number | null
  compras: { quantidade: number; valor: number }
  vendas: { quantidade: number; valor: number }
}

export interface CarteiraCorpo {
  nome: string | null
  data: string | null
  patrimonio_liquido: number | null
  ativos: AtivoCarteira[]
}

/**
 * A position as stored: an array in this order instead of an object (a third of the bytes; a large
 * equity fund holds hundreds of positions). pack/unpack convert.
 */
type AtivoGuardado = [string | null, string | null, string | null, AtivoCarteira['tipo'], string | null, number, number, number, number | null, number, number, number, number]

export function packCarteira(c: CarteiraCorpo): string {
  const ativos: AtivoGuardado[] = c.ativos.map((a) => [a.ticker, a.isin, a.descricao, a.tipo, a.tipo_ativo, a.quantidade, a.valor_mercado, a.quantidade_emprestada, a.percentual_pl, a.compras.quantidade, a.compras.valor, a.vendas.quantidade, a.vendas.valor])
  return JSON.stringify({ ...c, ativos })
}

export function unpackCarteira(text: string): CarteiraCorpo {
  const c = JSON.parse(text) as Omit<CarteiraCorpo, 'ativos'> & { ativos: AtivoGuardado[] }
  return {
    ...c,
    ativos: c.ativos.map(([ticker, isin, descricao, tipo, tipo_ativo, quantidade, valor_mercado, quantidade_emprestada, percentual_pl, qc, vc, qv, vv]) => ({
      ticker, isin, descricao, tipo, tipo_ativo, quantidade, valor_mercado, quantidade_emprestada, percentual_pl, compras: { quantidade: qc, valor: vc }, vendas: { quantidade: qv, valor: vv },
    })),
  }
}

/** One ticker across all funds in a month (the `movimentacao.corpo` JSON). */
export interface MovimentacaoCorpo {
  ticker: string | null
  isin: string | null
  descricao: string | null
  tipo: 'acao' | 'unit' | 'bdr'
  compras: { quantidade: number; valor: number; fundos: number }
  vendas: { quantidade: number; valor: number; fundos: number }
  liquido: number
  posicao_final: { quantidade: number; valor: number; fundos: number }
}

// The /consulta answer without `fonte` (built at ingest, stored as JSON, served as is).
export interface ConsultaCorpo {
  cnpj: string
  encontrado: boolean
  mensagem: string | null
  tipo: 'classe' | 'fundo' | 'fundo_legado' | 'sem_cadastro' | null
  nome: string | null
  tipo_fundo: string | null
  codigo_cvm: string | null
  situacao: { descricao: string | null; data: string | null } | null
  datas: { registro: string | null; constituicao: string | null; inicio: string | null; cancelamento: string | null }
  gestor: { nome: string | null; cnpj: string | null } | null
  administrador: { nome: string | null; cnpj: string | null } | null
  classificacao: { cvm: string | null; anbima: string | null }
  caracteristicas: {
    forma_condominio: string | null
    exclusivo: boolean | null
    publico_alvo: string | null
    cotas_de_fundos: boolean | null
    indicador_desempenho: string | null
    tributacao_longo_prazo: boolean | null
  } | null
  fundo: { cnpj: string; nome: string | null; tipo_fundo: string | null; situacao: string | null } | null
  classes: { cnpj: string; nome: string | null; situacao: string | null; classificacao_cvm: string | null }[]
  subclasses: {
    id: string
    nome: string | null
    situacao: string | null
    cota: { valor: number; data: string } | null
    patrimonio_liquido: { valor: number; data: string } | null
    cotistas: { quantidade: number; data: string } | null
  }[]
  cota: { valor: number; data: string } | null
  patrimonio_liquido: { valor: number; data: string; origem: 'informe_diario' | 'cadastro' } | null
  cotistas: { quantidade: number; data: string } | null
}

/** The /consulta body of a valid CNPJ that no loaded file names. */
export function consultaNaoEncontrada(cnpj: string, mensagem: string): ConsultaCorpo {
  return {
    cnpj, encontrado: false, mensagem, tipo: null, nome: null, tipo_fundo: null, codigo_cvm: null, situacao: null,
    datas: { registro: null, constituicao: null, inicio: null, cancelamento: null }, gestor: null, administrador: null,
    classificacao: { cvm: null, anbima: null }, caracteristicas: null, fundo: null, classes: [], subclasses: [], cota: null,
    patrimonio_liquido: null, cotistas: null,
  }
}

/** Rounds money to cents (sums of many doubles carry noise in the last digits). */
export const cents = (v: number) => Math.round(v * 100) / 100
