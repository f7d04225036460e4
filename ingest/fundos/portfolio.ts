// The monthly portfolio disclosures (CDA, cda_fi_YYYYMM.zip): block 4 (coded assets: stocks,
// units, BDRs, options, futures...) and the net-assets file (PL). Only stocks, units and BDRs
// owned by the fund are kept: shares lent out still belong to it; shares borrowed (a liability),
// options and futures do not count. The same fund and ticker can come on several rows that differ
// only in TP_APLIC (owned, lent): they are summed into one position.
import { normalizeHeader, columnIndex, HeaderError, pick, type ColumnSpec } from '../../src/core/text/header'
import { textOrNull } from '../lib/values'
import { cents, type AtivoCarteira, type CarteiraCorpo, type MovimentacaoCorpo } from '../../src/datasets/fundos/layout'
import { cnpjDigits, SourceError } from './files'

const BLOCK4_COLUMNS = {
  cnpj: ['CNPJ_FUNDO_CLASSE', 'CNPJ_FUNDO'],
  nome: 'DENOM_SOCIAL',
  data: 'DT_COMPTC',
  aplicacao: 'TP_APLIC',
  ativo: 'TP_ATIVO',
  qtVenda: 'QT_VENDA_NEGOC',
  vlVenda: 'VL_VENDA_NEGOC',
  qtCompra: 'QT_AQUIS_NEGOC',
  vlCompra: 'VL_AQUIS_NEGOC',
  qtPos: 'QT_POS_FINAL',
  vlPos: 'VL_MERC_POS_FINAL',
  codigo: 'CD_ATIVO',
  descricao: 'DS_ATIVO',
  isin: 'CD_ISIN',
} satisfies ColumnSpec
const BLOCK4_OPTIONAL = ['nome', 'data', 'qtVenda', 'vlVenda', 'qtCompra', 'vlCompra', 'descricao', 'isin', 'ativo'] as const

const PL_COLUMNS = { cnpj: ['CNPJ_FUNDO_CLASSE', 'CNPJ_FUNDO'], nome: 'DENOM_SOCIAL', data: 'DT_COMPTC', pl: 'VL_PATRIM_LIQ' } satisfies ColumnSpec

type Tipo = AtivoCarteira['tipo']

/** TP_APLIC (normalized) of the rows kept, and what they are. `emprestada`: shares the fund lent out (still its own). */
const KEPT_APLICACOES = new Map<string, { tipo: Tipo; emprestada: boolean }>([
  ['ACOES', { tipo: 'acao', emprestada: false }],
  ['ACOES E OUTROS TVM CEDIDOS EM EMPRESTIMO', { tipo: 'acao', emprestada: true }],
  ['CERTIFICADO OU RECIBO DE DEPOSITO DE VALORES MOBILIARIOS', { tipo: 'unit', emprestada: false }],
  ['BRAZILIAN DEPOSITORY RECEIPT BDR', { tipo: 'bdr', emprestada: false }],
  ['BRAZILIAN DEPOSITORY RECEIPT', { tipo: 'bdr', emprestada: false }],
  ['BDR', { tipo: 'bdr', emprestada: false }],
])

/** What a row is, from TP_APLIC and TP_ATIVO; null for everything that is not a stock, unit or BDR the fund owns. */
export function kindOf(aplicacao: string, ativo: string): { tipo: Tipo; emprestada: boolean } | null {
  const key = `${aplicacao}\u0001${ativo}`
  let kind = KIND_CACHE.get(key)
  if (kind === undefined) KIND_CACHE.set(key, (kind = classify(aplicacao, ativo)))
  return kind
}
/** A month has a few dozen (TP_APLIC, TP_ATIVO) pairs: normalizing each once saves most of the block's parse time. */
const KIND_CACHE = new Map<string, { tipo: Tipo; emprestada: boolean } | null>()

function classify(aplicacao: string, ativo: string): { tipo: Tipo; emprestada: boolean } | null {
  const kept = KEPT_APLICACOES.get(normalizeHeader(aplicacao))
  if (!kept) return null
  const a = normalizeHeader(ativo)
  if (/\bBDR\b/.test(a)) return { tipo: 'bdr', emprestada: kept.emprestada }
  if (kept.tipo === 'acao' && /^UNIT\b/.test(a)) return { tipo: 'unit', emprestada: kept.emprestada }
  return kept
}

const num = (s: string) => {
  if (s === '') return 0
  const n = +s
  return Number.isNaN(n) ? 0 : n
}

interface Position {
  ticker: string | null
  isin: string | null
  descricao: string | null
  tipo: Tipo
  tipoAtivo: string | null
  qt: number
  vl: number
  qtLent: number
  qtBuy: number
  vlBuy: number
  qtSell: number
  vlSell: number
}

interface FundMonth {
  nome: string | null
  data: string | null
  pl: number | null
  positions: Map<string, Position>
}

export interface PortfolioMonth {
  competencia: string
  /** The most common DT_COMPTC of the month's files. */
  data: string | null
  funds: Map<string, CarteiraCorpo>
  movements: MovimentacaoCorpo[]
  fundosInformantes: number
  fundosComAcoes: number
  rows: { bloco4: { mantidas: number; descartadas: number; outras_aplicacoes: number }; pl: { mantidas: number; descartadas: number } }
}

/** Reads a month's block 4 and PL rows (each header first) into per-fund holdings and per-ticker movements. */
export class PortfolioMonthReader {
  private readonly funds = new Map<string, FundMonth>()
  private readonly dates = new Map<string, number>()
  private readonly rows = { bloco4: { mantidas: 0, descartadas: 0, outras_aplicacoes: 0 }, pl: { mantidas: 0, descartadas: 0 } }
  /** textOrNull of the values that repeat row after row (tickers, ISINs, names, dates), computed once each. */
  private readonly texts = new Map<string, string | null>()
  private text(raw: string): string | null {
    let t = this.texts.get(raw)
    if (t === undefined) {
      t = textOrNull(raw)
      if (this.texts.size < 1_000_000) this.texts.set(raw, t)
    }
    return t
  }

  constructor(readonly competencia: string) {}

  private fund(cnpj: string): FundMonth {
    let f = this.funds.get(cnpj)
    if (!f) this.funds.set(cnpj, (f = { nome: null, data: null, pl: null, positions: new Map() }))
    return f
  }

  private seeDate(raw: string) {
    if (raw) this.dates.set(raw, (this.dates.get(raw) ?? 0) + 1)
  }

  async readBlock4(rows: AsyncIterable<string[]>, file: string): Promise<void> {
    const it = rows[Symbol.asyncIterator]()
    const first = await it.next()
    if (first.done) throw new SourceError(`${file} está vazio`)
    let index
    try {
      index = columnIndex(first.value, BLOCK4_COLUMNS, BLOCK4_OPTIONAL)
    } catch (err) {
      throw new SourceError(`${file}: cabeçalho do bloco 4 não reconhecido (${err instanceof HeaderError ? err.message : err}); o layout mudou? confira SOURCES.md §5`)
    }
    const at = (row: string[], i: number) => (i >= 0 ? (row[i] ?? '') : '')
    let cnpjRaw = ''
    let cnpj: string | null = null
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const row = r.value
      const kind = kindOf(at(row, index.aplicacao), at(row, index.ativo))
      if (!kind) {
        this.rows.bloco4.outras_aplicacoes++
        continue
      }
      // A fund's rows come together: its CNPJ is normalized once.
      if (row[index.cnpj] !== cnpjRaw) {
        cnpjRaw = row[index.cnpj] ?? ''
        cnpj = cnpjDigits(cnpjRaw)
      }
      const ticker = this.text(at(row, index.codigo))
      const isin = this.text(at(row, index.isin))
      if (!cnpj || (!ticker && !isin)) {
        this.rows.bloco4.descartadas++
        continue
      }
      this.rows.bloco4.mantidas++
      const fund = this.fund(cnpj)
      const data = at(row, index.data)
      fund.nome ??= this.text(at(row, index.nome))
      fund.data ??= this.text(data)
      this.seeDate(data)
      const key = ticker ?? isin!
      let p = fund.positions.get(key)
      if (!p) {
        const ativo = at(row, index.ativo)
        p = { ticker, isin, descricao: this.text(at(row, index.descricao)), tipo: kind.tipo, tipoAtivo: this.text(ativo), qt: 0, vl: 0, qtLent: 0, qtBuy: 0, vlBuy: 0, qtSell: 0, vlSell: 0 }
        fund.positions.set(key, p)
      }
      const qt = num(at(row, index.qtPos))
      p.qt += qt
      p.vl += num(at(row, index.vlPos))
      if (kind.emprestada) p.qtLent += qt
      p.qtBuy += num(at(row, index.qtCompra))
      p.vlBuy += num(at(row, index.vlCompra))
      p.qtSell += num(at(row, index.qtVenda))
      p.vlSell += num(at(row, index.vlVenda))
      p.isin ??= isin
    }
  }

  async readPl(rows: AsyncIterable<string[]>, file: string): Promise<void> {
    const it = rows[Symbol.asyncIterator]()
    const first = await it.next()
    if (first.done) throw new SourceError(`${file} está vazio`)
    let index
    try {
      index = columnIndex(first.value, PL_COLUMNS)
    } catch (err) {
      throw new SourceError(`${file}: cabeçalho do arquivo de PL não reconhecido (${err instanceof HeaderError ? err.message : err})`)
    }
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const v = pick(r.value, index)
      const cnpj = cnpjDigits(v.cnpj)
      if (!cnpj) {
        this.rows.pl.descartadas++
        continue
      }
      this.rows.pl.mantidas++
      const fund = this.fund(cnpj)
      fund.nome = textOrNull(v.nome) ?? fund.nome
      fund.data = textOrNull(v.data) ?? fund.data
      this.seeDate(v.data)
      const pl = v.pl === '' ? NaN : +v.pl
      fund.pl = Number.isNaN(pl) ? null : pl
    }
  }

  result(): PortfolioMonth {
    const funds = new Map<string, CarteiraCorpo>()
    const byTicker = new Map<string, MovimentacaoCorpo>()
    let fundosInformantes = 0
    let fundosComAcoes = 0
    for (const [cnpj, f] of [...this.funds].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (f.pl !== null) fundosInformantes++
      if (f.positions.size) fundosComAcoes++
      const ativos: AtivoCarteira[] = [...f.positions.values()]
        .map((p) => ({
          ticker: p.ticker, isin: p.isin, descricao: p.descricao, tipo: p.tipo, tipo_ativo: p.tipoAtivo,
          quantidade: p.qt, valor_mercado: cents(p.vl), quantidade_emprestada: p.qtLent,
          percentual_pl: f.pl ? Math.round((p.vl / f.pl) * 1e6) / 1e4 : null,
          compras: { quantidade: p.qtBuy, valor: cents(p.vlBuy) },
          vendas: { quantidade: p.qtSell, valor: cents(p.vlSell) },
        }))
        .sort((a, b) => b.valor_mercado - a.valor_mercado || (a.ticker ?? a.isin ?? '').localeCompare(b.ticker ?? b.isin ?? ''))
      funds.set(cnpj, { nome: f.nome, data: f.data, patrimonio_liquido: f.pl, ativos })
      for (const [key, p] of f.positions) {
        let m = byTicker.get(key)
        if (!m) {
          m = {
            ticker: p.ticker, isin: p.isin, descricao: p.descricao, tipo: p.tipo,
            compras: { quantidade: 0, valor: 0, fundos: 0 }, vendas: { quantidade: 0, valor: 0, fundos: 0 }, liquido: 0,
            posicao_final: { quantidade: 0, valor: 0, fundos: 0 },
          }
          byTicker.set(key, m)
        }
        m.isin ??= p.isin
        if (p.qtBuy || p.vlBuy) {
          m.compras.quantidade += p.qtBuy
          m.compras.valor += p.vlBuy
          m.compras.fundos++
        }
        if (p.qtSell || p.vlSell) {
          m.vendas.quantidade += p.qtSell
          m.vendas.valor += p.vlSell
          m.vendas.fundos++
        }
        if (p.qt || p.vl) {
          m.posicao_final.quantidade += p.qt
          m.posicao_final.valor += p.vl
          m.posicao_final.fundos++
        }
      }
    }
    const movements = [...byTicker.values()]
      .map((m) => {
        m.compras.valor = cents(m.compras.valor)
        m.vendas.valor = cents(m.vendas.valor)
        m.posicao_final.valor = cents(m.posicao_final.valor)
        m.liquido = cents(m.compras.valor - m.vendas.valor)
        return m
      })
      .sort((a, b) => Math.abs(b.liquido) - Math.abs(a.liquido) || b.posicao_final.valor - a.posicao_final.valor || (a.ticker ?? a.isin ?? '').localeCompare(b.ticker ?? b.isin ?? ''))
    const data = [...this.dates].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1))[0]?.[0] ?? null
    return { competencia: this.competencia, data, funds, movements, fundosInformantes, fundosComAcoes, rows: this.rows }
  }
}
