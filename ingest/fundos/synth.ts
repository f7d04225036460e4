// A synthetic copy of the CVM's fund files at the real size, in the real format (benchmarks):
// 12 months of daily reports (about 8 M rows: ~29 000 classes reporting as a whole and ~1 000
// through two or three subclasses, every weekday), the RCVM 175 registry and cad_fi.csv, and one
// portfolio month with ~1.5 M rows (block 4 and the PL file). Same bytes as published: ISO-8859-1,
// `;`, CRLF, dot decimals, CNPJs punctuated (bare in the registry). Deterministic for a seed.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { seededRandom } from '../lib/random'
import { progress } from '../lib/progress'
import { createZipArchive, type ZipWriter } from '../lib/zip-write'

export interface SynthOptions {
  outDir: string
  /** Classes reporting as a whole (about 8 M daily rows at 29 000, with the subclass ones). */
  classes?: number
  /** Classes reporting through subclasses (2 or 3 each). */
  subclassClasses?: number
  /** Block-4 rows of the portfolio month. */
  portfolioRows?: number
  /** The last month of daily reports (YYYY-MM); the portfolio month is two months before it. */
  lastMonth?: string
  seed?: number
  quiet?: boolean
}

export interface SynthSummary {
  meses: string[]
  linhas_diarias: number
  classes: number
  competencia: string
  linhas_carteira: number
  amostras: { classes: string[]; fundos_com_carteira: string[] }
}

function checkDigit(body: string): number {
  let sum = 0
  let weight = 2
  for (let i = body.length - 1; i >= 0; i--) {
    sum += (body.charCodeAt(i) - 48) * weight
    weight = weight === 9 ? 2 : weight + 1
  }
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}
function cnpjOf(first12: string): string {
  const d1 = checkDigit(first12)
  return first12 + d1 + checkDigit(first12 + d1)
}
const punctuated = (c: string) => `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`

const CLASSIFICACOES: [string, number, string][] = [
  ['Renda Fixa', 0.46, 'Renda Fixa Duração Livre Grau de Investimento'],
  ['Multimercado', 0.3, 'Multimercados Livre'],
  ['Ações', 0.16, 'Ações Livre'],
  ['Cambial', 0.02, 'Cambial'],
  // No registry row: the daily reports name classes the registry file does not have yet.
  ['', 0.06, ''],
]

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** Writes latin-1 text to a zip entry in big chunks. */
class LatinWriter {
  private parts: string[] = []
  private size = 0
  constructor(private readonly w: ZipWriter) {}
  async line(s: string) {
    this.parts.push(s)
    this.size += s.length + 2
    if (this.size > 4 << 20) await this.flush()
  }
  async flush() {
    if (!this.parts.length) return
    await this.w.write(new Uint8Array(Buffer.from(this.parts.join('\r\n') + '\r\n', 'latin1')))
    this.parts = []
    this.size = 0
  }
  async close() {
    await this.flush()
    await this.w.close()
  }
}

function monthsEnding(last: string, count: number): string[] {
  let [y, m] = last.split('-').map(Number) as [number, number]
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    out.unshift(`${y}-${String(m).padStart(2, '0')}`)
    if (--m === 0) {
      m = 12
      y--
    }
  }
  return out
}

function weekdays(month: string): string[] {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const out: string[] = []
  for (let d = 1; d <= new Date(Date.UTC(y, m, 0)).getUTCDate(); d++) {
    const wd = new Date(Date.UTC(y, m - 1, d)).getUTCDay()
    if (wd !== 0 && wd !== 6) out.push(`${month}-${String(d).padStart(2, '0')}`)
  }
  return out
}

export async function synthFundos(options: SynthOptions): Promise<SynthSummary> {
  const random = seededRandom(options.seed ?? 42)
  const nWhole = options.classes ?? 29_000
  const nSub = options.subclassClasses ?? 1_000
  const lastMonth = options.lastMonth ?? '2026-10'
  const months = monthsEnding(lastMonth, 12)
  mkdirSync(options.outDir, { recursive: true })

  // The classes: CNPJ, classification, fund of funds, net assets, quota, shareholders, subclasses.
  interface C { cnpj: string; classificacao: string; anbima: string; fic: boolean; pl: number; cota: number; cotistas: number; subs: string[]; fundo: number }
  const classes: C[] = []
  for (let i = 0; i < nWhole + nSub; i++) {
    let r = random()
    const [classificacao, , anbima] = CLASSIFICACOES.find(([, share]) => (r -= share) < 0) ?? CLASSIFICACOES[0]!
    const subs = i >= nWhole ? Array.from({ length: 2 + Math.floor(random() * 2) }, (_, k) => `SYN${LETTERS[i % 26]}${LETTERS[k]}${String(1_700_000_000 + i * 3 + k)}`) : []
    classes.push({
      cnpj: cnpjOf(`9${String(10_000_000 + i).padStart(7, '0')}0001`.slice(0, 12)),
      classificacao, anbima, fic: random() < 0.25, pl: Math.exp(12 + random() * 9), cota: 1 + random() * 50, cotistas: Math.max(1, Math.floor(Math.exp(random() * 10))), subs,
      // One fund in ten has a second class (the next one).
      fundo: i > 0 && random() < 0.1 ? classes[i - 1]!.fundo : i,
    })
  }

  // Daily reports, one zip per month.
  const days = months.flatMap(weekdays)
  const rowsTotal = days.length * (nWhole + classes.slice(nWhole).reduce((n, c) => n + c.subs.length, 0))
  const bar = progress('sintético: informes diários', rowsTotal, { unit: 'rows', quiet: options.quiet })
  const header = 'TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;ID_SUBCLASSE;DT_COMPTC;VL_TOTAL;VL_QUOTA;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST'
  let dailyRows = 0
  const punct = classes.map((c) => punctuated(c.cnpj))
  for (const month of months) {
    const ym = month.replace('-', '')
    const zip = await createZipArchive(join(options.outDir, `inf_diario_fi_${ym}.zip`))
    const w = new LatinWriter(await zip.entry(`inf_diario_fi_${ym}.csv`))
    await w.line(header)
    for (const date of weekdays(month)) {
      for (let i = 0; i < classes.length; i++) {
        const c = classes[i]!
        const units = c.subs.length ? c.subs : ['']
        for (const sub of units) {
          const share = c.subs.length ? 1 / c.subs.length : 1
          const ret = (random() - 0.49) * 0.01
          c.cota *= 1 + ret / units.length
          const flows = random() < 0.45
          const cap = flows && random() < 0.7 ? c.pl * share * random() * 0.004 : 0
          const res = flows && random() < 0.7 ? c.pl * share * random() * 0.004 : 0
          c.pl = Math.max(1000, c.pl * (1 + ret / units.length) + cap - res)
          const pl = c.pl * share
          await w.line(`CLASSES - FIF;${punct[i]};${sub};${date};${(pl * 1.002).toFixed(2)};${c.cota.toFixed(12)};${pl.toFixed(2)};${cap.toFixed(2)};${res.toFixed(2)};${Math.max(1, Math.round(c.cotistas * share))}`)
          dailyRows++
        }
      }
      bar.add(nWhole + nSub * 2.5)
    }
    await w.close()
    await zip.close()
  }
  bar.done(`${dailyRows.toLocaleString('pt-BR')} linhas`)

  // Registry: one fund per class (one in ten funds with two classes), subclasses, and cad_fi with the old funds too.
  const registro = await createZipArchive(join(options.outDir, 'registro_fundo_classe.zip'))
  const fundoW = new LatinWriter(await registro.entry('registro_fundo.csv'))
  await fundoW.line('ID_Registro_Fundo;CNPJ_Fundo;Codigo_CVM;Data_Registro;Data_Constituicao;Tipo_Fundo;Denominacao_Social;Data_Cancelamento;Situacao;Data_Inicio_Situacao;Data_Adaptacao_RCVM175;Data_Inicio_Exercicio_Social;Data_Fim_Exercicio_Social;Patrimonio_Liquido;Data_Patrimonio_Liquido;Diretor;CNPJ_Administrador;Administrador;Tipo_Pessoa_Gestor;CPF_CNPJ_Gestor;Gestor')
  const gestores = Array.from({ length: 800 }, (_, g) => ({ cnpj: cnpjOf(`8${String(1_000_000 + g).padStart(7, '0')}0001`.slice(0, 12)), nome: `GESTORA SINTÉTICA ${g} LTDA` }))
  const seenFund = new Set<number>()
  for (let i = 0; i < classes.length; i++) {
    const c = classes[i]!
    if (!c.classificacao || seenFund.has(c.fundo)) continue
    seenFund.add(c.fundo)
    const g = gestores[c.fundo % gestores.length]!
    await fundoW.line([c.fundo + 1, classes[c.fundo]!.cnpj, 100000 + c.fundo, '2015-01-02', '2014-12-01', 'FIF', `FUNDO SINTÉTICO ${c.fundo} FIF`, '', 'Em Funcionamento Normal', '2024-10-01', '2024-10-01', '2026-01-01', '2026-12-31',
      c.pl.toFixed(2), '2026-09-30', 'DIRETOR SINTÉTICO', '80000000000191', 'ADMINISTRADORA SINTÉTICA S.A.', 'PJ', g.cnpj, g.nome].join(';'))
  }
  await fundoW.close()
  const classeW = new LatinWriter(await registro.entry('registro_classe.csv'))
  await classeW.line('ID_Registro_Fundo;ID_Registro_Classe;CNPJ_Classe;Codigo_CVM;Data_Registro;Data_Constituicao;Data_Inicio;Tipo_Classe;Denominacao_Social;Situacao;Data_Inicio_Situacao;Classificacao;Indicador_Desempenho;Classe_Cotas;Classificacao_Anbima;Tributacao_Longo_Prazo;Entidade_Investimento;Permitido_Aplicacao_CemPorCento_Exterior;Classe_ESG;Forma_Condominio;Exclusivo;Publico_Alvo;Patrimonio_Liquido;Data_Patrimonio_Liquido;CNPJ_Auditor;Auditor;CNPJ_Custodiante;Custodiante;CNPJ_Controlador;Controlador')
  const subW: string[] = ['ID_Registro_Classe;ID_Subclasse;Codigo_CVM;Data_Constituicao;Data_Inicio;Denominacao_Social;Situacao;Data_Inicio_Situacao;Forma_Condominio;Exclusivo;Publico_Alvo;Previdenciario;Exclusivo_INR;Exclusivo_Previdencia_Complementar']
  for (let i = 0; i < classes.length; i++) {
    const c = classes[i]!
    if (!c.classificacao) continue
    await classeW.line([c.fundo + 1, 500000 + i, c.cnpj, 200000 + i, '2015-01-02', '2014-12-01', '2024-10-01', 'Classes de Cotas de Fundos FIF', `CLASSE SINTÉTICA ${i}`, 'Em Funcionamento Normal', '2024-10-01',
      c.classificacao, 'CDI', c.fic ? 'S' : 'N', c.anbima, 'S', 'N', 'N', 'N', 'Aberto', 'N', 'Público Geral', c.pl.toFixed(2), '2026-09-30', '', '', '', '', '', ''].join(';'))
    for (const s of c.subs) subW.push([500000 + i, s, '', '2024-10-01', '2024-10-01', `SUBCLASSE ${s}`, 'Em Funcionamento Normal', '2024-10-01', 'Aberto', 'N', 'Público Geral', 'N', 'N', 'N'].join(';'))
  }
  await classeW.close()
  const sub = await registro.entry('registro_subclasse.csv')
  await sub.write(new Uint8Array(Buffer.from(subW.join('\r\n') + '\r\n', 'latin1')))
  await sub.close()
  await registro.close()

  const cad: string[] = ['TP_FUNDO;CNPJ_FUNDO;DENOM_SOCIAL;DT_REG;DT_CONST;CD_CVM;DT_CANCEL;SIT;DT_INI_SIT;DT_INI_ATIV;DT_INI_EXERC;DT_FIM_EXERC;CLASSE;DT_INI_CLASSE;RENTAB_FUNDO;CONDOM;FUNDO_COTAS;FUNDO_EXCLUSIVO;TRIB_LPRAZO;PUBLICO_ALVO;ENTID_INVEST;TAXA_PERFM;INF_TAXA_PERFM;TAXA_ADM;INF_TAXA_ADM;VL_PATRIM_LIQ;DT_PATRIM_LIQ;DIRETOR;CNPJ_ADMIN;ADMIN;PF_PJ_GESTOR;CPF_CNPJ_GESTOR;GESTOR;CNPJ_AUDITOR;AUDITOR;CNPJ_CUSTODIANTE;CUSTODIANTE;CNPJ_CONTROLADOR;CONTROLADOR;INVEST_CEMPR_EXTER;CLASSE_ANBIMA']
  // Old funds, long cancelled, that only cad_fi still lists.
  for (let i = 0; i < 40_000; i++)
    cad.push(['FI', punctuated(cnpjOf(`7${String(10_000_000 + i).padStart(7, '0')}0001`.slice(0, 12))), `FUNDO SINTÉTICO ANTIGO ${i} FI`, '2005-01-03', '2004-12-01', String(300000 + i), '2015-06-30', 'CANCELADA', '2015-06-30', '2005-02-01', '', '',
      'Fundo Multimercado', '2005-01-03', 'CDI', 'Aberto', 'N', 'N', 'N', 'Público Geral', 'N', '', '', '1.00', '', '0.00', '2015-06-30', 'DIRETOR SINTÉTICO', '80.000.000/0001-91', 'ADMINISTRADORA SINTÉTICA S.A.', 'PJ', '', '', '', '', '', '', '', '', 'N', ''].join(';'))
  writeFileSync(join(options.outDir, 'cad_fi.csv'), Buffer.from(cad.join('\r\n') + '\r\n', 'latin1'))

  // One portfolio month: stocks, units, BDRs and the rows the ingest skips, for the equity and multimarket classes.
  const competencia = monthsEnding(lastMonth, 3)[0]!
  const cym = competencia.replace('-', '')
  const [cy, cm] = competencia.split('-').map(Number) as [number, number]
  const data = `${competencia}-${new Date(Date.UTC(cy, cm, 0)).getUTCDate()}`
  const tickers = Array.from({ length: 700 }, (_, t) => {
    const code = LETTERS[t % 26]! + LETTERS[Math.floor(t / 26) % 26]! + LETTERS[(t * 7) % 26]! + LETTERS[(t * 11) % 26]!
    const kind = t % 50 === 0 ? 'unit' : t % 10 === 0 ? 'bdr' : 'acao'
    const ticker = kind === 'bdr' ? `${code}34` : kind === 'unit' ? `${code}11` : `${code}${t % 3 ? 3 : 4}`
    return { ticker, isin: `BR${code}${kind === 'bdr' ? 'BDR' : kind === 'unit' ? 'CDA' : 'ACN'}${String(t % 1000).padStart(3, '0')}`.slice(0, 12), kind, price: 2 + random() * 120 }
  })
  const holders = classes.map((c, i) => ({ c, i })).filter(({ c }) => c.classificacao === 'Ações' || (c.classificacao === 'Multimercado' && random() < 0.5))
  const target = options.portfolioRows ?? 1_450_000
  const perFund = Math.max(1, Math.round(target / holders.length))
  const cda = await createZipArchive(join(options.outDir, `cda_fi_${cym}.zip`))
  const b4 = new LatinWriter(await cda.entry(`cda_fi_BLC_4_${cym}.csv`))
  await b4.line('TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;DENOM_SOCIAL;DT_COMPTC;TP_APLIC;TP_ATIVO;EMISSOR_LIGADO;TP_NEGOC;QT_VENDA_NEGOC;VL_VENDA_NEGOC;QT_AQUIS_NEGOC;VL_AQUIS_NEGOC;QT_POS_FINAL;VL_MERC_POS_FINAL;VL_CUSTO_POS_FINAL;DT_CONFID_APLIC;CD_ATIVO;DS_ATIVO;CD_ISIN;DT_INI_VIGENCIA;DT_FIM_VIGENCIA')
  let portfolioRows = 0
  const withPortfolio: string[] = []
  for (const { c, i } of holders) {
    const n = Math.max(1, Math.round(perFund * (0.3 + random() * 1.4)))
    withPortfolio.push(c.cnpj)
    for (let k = 0; k < n && portfolioRows < target; k++) {
      const t = tickers[Math.floor(random() * random() * tickers.length)]!
      const q = Math.round(1000 + random() * 2_000_000)
      const r = random()
      const aplic = r < 0.08 ? 'Opções - Posições titulares' : r < 0.12 ? 'Ações e outros TVM cedidos em empréstimo' : t.kind === 'bdr' ? 'Brazilian Depository Receipt - BDR' : t.kind === 'unit' ? 'Certificado ou recibo de depósito de valores mobiliários' : 'Ações'
      const buy = random() < 0.3 ? Math.round(q * random() * 0.3) : 0
      const sell = random() < 0.3 ? Math.round(q * random() * 0.3) : 0
      await b4.line([`CLASSES - FIF`, punct[i], `CLASSE SINTÉTICA ${i}`, data, aplic, t.kind === 'acao' ? 'Ação ordinária' : t.kind === 'bdr' ? 'BDR Nível I' : 'Certificado de depósito de ações', 'N', 'Para negociação',
        sell.toFixed(6), (sell * t.price).toFixed(2), buy.toFixed(6), (buy * t.price).toFixed(2), q.toFixed(6), (q * t.price).toFixed(2), '', '', t.ticker, `${t.ticker} SINTÉTICA`, t.isin, '', ''].join(';'))
      portfolioRows++
    }
  }
  await b4.close()
  const plW = new LatinWriter(await cda.entry(`cda_fi_PL_${cym}.csv`))
  await plW.line('TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;DENOM_SOCIAL;DT_COMPTC;VL_PATRIM_LIQ')
  for (let i = 0; i < classes.length; i++) await plW.line(['CLASSES - FIF', punct[i], `CLASSE SINTÉTICA ${i}`, data, classes[i]!.pl.toFixed(2)].join(';'))
  await plW.close()
  await cda.close()

  return {
    meses: months, linhas_diarias: dailyRows, classes: classes.length, competencia, linhas_carteira: portfolioRows + classes.length,
    amostras: { classes: classes.filter((_, i) => i % 97 === 0).map((c) => c.cnpj), fundos_com_carteira: withPortfolio.filter((_, i) => i % 13 === 0) },
  }
}
