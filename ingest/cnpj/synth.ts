// Synthetic monthly dump in exactly the Receita's format: 37 zips of latin-1, ';'-separated,
// fully quoted CSV without header, with realistic spreads (UF, CNAE, situação, branches,
// partners, Simples) and the real quirks (NUL bytes, quoted ';', odd dates, decimal commas,
// alphanumeric roots, masked CPFs, CPFs ending individual entrepreneurs' names). Feeds the tests
// and the benchmarks.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { completeCnpj } from '../../src/core/documents'
import { digitoIbge } from '../../src/core/ibge'
import { MUNICIPIOS_ARQUIVO } from '../../src/core/municipios-rfb'
import { progress } from '../lib/progress'
import { seededRandom } from '../lib/random'
import { SYNTH_MUNICIPIOS } from '../lib/synth-codes'
import { createZipWriter, writeZip, type ZipWriter } from '../lib/zip-write'

export interface SynthOptions {
  outDir: string
  companies: number
  seed?: number
  quiet?: boolean
  /** Force ZIP64 on the numbered files (the real Estabelecimentos0 is over 4 GiB). */
  zip64?: boolean
  /**
   * Which month to write: 0 (default) the base dump, k the dump k months later, with the churn of
   * each month between applied in order (CHURN): consecutive k give consecutive months.
   */
  month?: number
}

export interface SynthSummary {
  empresas: number
  estabelecimentos: number
  socios: number
  simples: number
  bytes_csv: number
}

/** Weighted choice table built once: [value, weight][] -> picker. */
function weighted<T>(pairs: [T, number][]) {
  const total = pairs.reduce((n, [, w]) => n + w, 0)
  const cumulative: number[] = []
  let acc = 0
  for (const [, w] of pairs) cumulative.push((acc += w / total))
  return (r: number) => {
    let lo = 0, hi = cumulative.length - 1
    while (lo < hi) { const mid = (lo + hi) >> 1; if (r < cumulative[mid]!) hi = mid; else lo = mid + 1 }
    return pairs[lo]![0]
  }
}

// Shares of establishments by UF, roughly as in the real registry.
const UF = weighted<string>([['SP', 25], ['MG', 11], ['RJ', 8.5], ['RS', 6.5], ['PR', 6.5], ['SC', 4.5], ['BA', 5.5], ['GO', 3.5], ['PE', 3.5], ['CE', 3.5],
  ['DF', 2], ['ES', 2], ['PA', 2.5], ['MT', 2], ['MA', 2], ['MS', 1.5], ['PB', 1.5], ['RN', 1.3], ['AM', 1.3], ['PI', 1.2], ['AL', 1.1], ['SE', 0.8],
  ['RO', 0.8], ['TO', 0.7], ['AC', 0.3], ['AP', 0.3], ['RR', 0.3], ['EX', 0.1]])
const SITUACAO = weighted<string>([['02', 42], ['08', 48], ['04', 8], ['03', 1], ['01', 1]])
const PORTE = weighted<string>([['01', 62], ['05', 25], ['03', 8], ['00', 5]])
const NATUREZA = weighted<string>([['2135', 45], ['2062', 35], ['2305', 6], ['2240', 4], ['2046', 2], ['3999', 5], ['2011', 0.1], ['1031', 1], ['4000', 2]])
const MOTIVO_BAIXA = weighted<string>([['01', 70], ['63', 20], ['71', 10]])

const FIRST = ['JOÃO', 'MARIA', 'JOSÉ', 'ANA', 'ANTÔNIO', 'FRANCISCO', 'CARLOS', 'PAULO', 'LUCAS', 'LUIZ', 'MÁRCIA', 'FÁBIO', 'SÉRGIO', 'ADRIANA', 'JULIANA', 'MÁRIO', 'CONCEIÇÃO', 'RAIMUNDO', 'PEDRO', 'SEBASTIÃO', 'GABRIEL', 'BEATRIZ', 'CÉSAR', 'INÊS', 'ÍGOR', 'OTÁVIO']
const LAST = ['SILVA', 'SANTOS', 'OLIVEIRA', 'SOUZA', 'RODRIGUES', 'FERREIRA', 'ALVES', 'PEREIRA', 'LIMA', 'GOMES', 'COSTA', 'RIBEIRO', 'MARTINS', 'CARVALHO', 'ARAÚJO', 'MELO', 'BARBOSA', 'CARDOSO', 'ROCHA', 'DIAS', 'NASCIMENTO', 'GONÇALVES', 'LOPES', 'MACHADO', 'MENDONÇA', 'FALCÃO', 'BRAGANÇA', 'TÔRRES']
const TRADE = ['COMÉRCIO', 'SERVIÇOS', 'TRANSPORTES', 'CONSTRUÇÕES', 'INDÚSTRIA', 'AGROPECUÁRIA', 'TECNOLOGIA', 'CONSULTORIA', 'ALIMENTOS', 'DISTRIBUIDORA', 'FARMÁCIA', 'PADARIA', 'AUTO PEÇAS', 'MATERIAIS DE CONSTRUÇÃO', 'RESTAURANTE', 'SALÃO DE BELEZA', 'ENGENHARIA', 'EDUCAÇÃO', 'LOGÍSTICA', 'CONFECÇÕES', 'MERCADO', 'IMOBILIÁRIA', 'SAÚDE', 'INFORMÁTICA']
const PLACE = ['SÃO PAULO', 'BRASÍLIA', 'PARANÁ', 'GOIÁS', 'AMAZÔNIA', 'CEARÁ', 'PIAUÍ', 'MARANHÃO', 'NORDESTE', 'CAPIXABA', 'GAÚCHA', 'MINEIRA', 'CARIOCA', 'BAIANA', 'DO VALE', 'DO SUL', 'CENTRAL', 'NACIONAL', 'BRASIL']
const SUFFIX = weighted<string>([['LTDA', 45], ['', 25], ['ME', 10], ['EIRELI', 8], ['S.A.', 4], ['EPP', 8]])
const STREET = ['RUA', 'AVENIDA', 'TRAVESSA', 'ALAMEDA', 'RODOVIA', 'PRAÇA', 'ESTRADA']
const BAIRRO = ['CENTRO', 'JARDIM AMÉRICA', 'VILA NOVA', 'BOA VISTA', 'SÃO JOSÉ', 'SANTA CRUZ', 'ZONA RURAL', 'LIBERDADE', 'ASA NORTE', 'PIRAJÁ', 'PARQUE INDUSTRIAL', 'JARDIM DAS FLORES', 'CONJUNTO HABITACIONAL']
const TITLE = ['', '', 'DOUTOR ', 'PROFESSOR ', 'CORONEL ', 'PADRE ', 'GOVERNADOR ', 'PRESIDENTE ']
const COMPLEMENTO = ['SALA', 'LOJA', 'APTO', 'GALPAO', 'BLOCO', 'ANDAR', 'CASA', 'QUADRA']
const MAIL = ['gmail.com', 'hotmail.com', 'yahoo.com.br', 'outlook.com', 'uol.com.br', 'bol.com.br']

export const SYNTH_CNAES = Array.from({ length: 1200 }, (_, i) => String(111301 + i * 8231).padStart(7, '0').slice(0, 7))
/** The UF prefixes of IBGE codes, for the synthetic TOM ↔ IBGE table. */
const IBGE_UF = ['11', '12', '13', '14', '15', '16', '17', '21', '22', '23', '24', '25', '26', '27', '28', '29', '31', '32', '33', '35', '41', '42', '43', '50', '51', '52', '53']
/** The IBGE code of the synthetic municipality i (a UF's prefix, a sequence, its check digit): valid for the filters. */
export const synthIbge = (i: number) => {
  const six = IBGE_UF[i % IBGE_UF.length]! + String(Math.floor(i / IBGE_UF.length)).padStart(4, '0')
  return six + digitoIbge(six)
}

/** The UF of each IBGE prefix. */
const UF_OF_PREFIX: Record<string, string> = {
  11: 'RO', 12: 'AC', 13: 'AM', 14: 'RR', 15: 'PA', 16: 'AP', 17: 'TO', 21: 'MA', 22: 'PI', 23: 'CE', 24: 'RN', 25: 'PB', 26: 'PE', 27: 'AL',
  28: 'SE', 29: 'BA', 31: 'MG', 32: 'ES', 33: 'RJ', 35: 'SP', 41: 'PR', 42: 'SC', 43: 'RS', 50: 'MS', 51: 'MT', 52: 'GO', 53: 'DF',
}
/** The UF of the synthetic municipality i (its IBGE code's prefix). */
const synthUf = (i: number) => UF_OF_PREFIX[IBGE_UF[i % IBGE_UF.length]!]!

/**
 * A municipality for an establishment of a UF: one of that UF's, as in the real registry, where a
 * municipality's establishments are all in its UF (so in that UF's part of the search index), and
 * few cities hold most of them (Zipf: the first of a UF, its capital, ~1/6 of the UF's ~200). A city
 * drawn from the whole country put every city's rows in every UF, which no real month has.
 */
const MUNICIPIO_DA_UF: Record<string, (r: number) => string> = (() => {
  const byUf = new Map<string, [string, number][]>()
  SYNTH_MUNICIPIOS.forEach((tom, i) => {
    const list = byUf.get(synthUf(i)) ?? []
    list.push([tom, 1 / (list.length + 1)])
    byUf.set(synthUf(i), list)
  })
  return Object.fromEntries([...byUf].map(([uf, list]) => [uf, weighted(list)]))
})()

const q = (v: string | number) => `"${v}"`

function ymd(year: number, r: () => number): string {
  const m = 1 + Math.floor(r() * 12), d = 1 + Math.floor(r() * 28)
  return `${year}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`
}

/** A date field with the real dumps' oddities now and then: 0, 00000000, blank, impossible years. */
function oddDate(r: () => number, year: number): string {
  const x = r()
  if (x < 0.01) return '0'
  if (x < 0.02) return '00000000'
  if (x < 0.025) return ''
  if (x < 0.026) return r() < 0.5 ? '202' : '41000101'
  return ymd(year, r)
}

/** Writes lines to one of ten numbered zips, round robin by row, as the Receita splits files. */
class NumberedZips {
  private writers: ZipWriter[] = []
  private buffers: string[][] = []
  bytes = 0
  constructor(private dir: string, private base: string, private entrySuffix: string, private zip64: boolean) {}
  async open() {
    for (let i = 0; i < 10; i++) {
      this.writers.push(await createZipWriter(join(this.dir, `${this.base}${i}.zip`), `K3241.K03200Y${i}.D60808.${this.entrySuffix}`, { zip64: this.zip64 }))
      this.buffers.push([])
    }
  }
  async add(file: number, line: string) {
    const buf = this.buffers[file]!
    buf.push(line)
    if (buf.length >= 4096) await this.flush(file)
  }
  private async flush(file: number) {
    const data = Buffer.from(this.buffers[file]!.join(''), 'latin1')
    this.buffers[file] = []
    this.bytes += data.length
    await this.writers[file]!.write(data)
  }
  async close() {
    for (let i = 0; i < 10; i++) {
      if (this.buffers[i]!.length) await this.flush(i)
      await this.writers[i]!.close()
    }
  }
}

/**
 * The Receita's TOM ↔ IBGE table of the synthetic municipalities (municipios.csv, its published
 * format: cp1252, ';', CRLF, header, the EXTERIOR row with IBGE 0), which the ingest reads beside
 * the zips. Written last: a dump without it was cut short.
 */
export async function writeSynthMunicipios(outDir: string): Promise<void> {
  const table = ['CÓDIGO DO MUNICÍPIO - TOM;CÓDIGO DO MUNICÍPIO - IBGE;MUNICÍPIO - TOM;MUNICÍPIO - IBGE;UF']
  SYNTH_MUNICIPIOS.forEach((tom, i) => table.push(`${tom};${synthIbge(i)};${i === 0 ? 'SAO PAULO' : `MUNICIPIO ${i + 1}`};${i === 0 ? 'São Paulo' : `Município ${i + 1}`};${synthUf(i)}`))
  table.push('9707;0;EXTERIOR;EXTERIOR;EX')
  await Bun.write(join(outDir, MUNICIPIOS_ARQUIVO), new Uint8Array(Buffer.from(table.join('\r\n') + '\r\n', 'latin1')))
}

/** One establishment's row (order k of the root: 0 is the headquarters, in `uf0`; a branch is there 70 % of the time). */
function establishment(root: string, k: number, year: number, uf0: string, r: () => number, pick: <T>(list: readonly T[]) => T): string[] {
  const ordem = String(k + 1).padStart(4, '0')
  const cnpj = completeCnpj(root + ordem)
  const situacao = SITUACAO(r())
  const uf = k === 0 || r() < 0.7 ? uf0 : UF(r())
  const municipio = uf === 'EX' ? '9707' : MUNICIPIO_DA_UF[uf]!(r())
  const cnae = pick(SYNTH_CNAES)
  const secundarios = r() < 0.45 ? Array.from({ length: 1 + Math.floor(r() * 12) }, () => pick(SYNTH_CNAES)).join(',') : ''
  const fantasia = r() < 0.55 ? `${pick(TRADE)} ${pick(LAST)}` : ''
  const motivo = situacao === '08' ? MOTIVO_BAIXA(r()) : '00'
  const phone = () => String(30000000 + Math.floor(r() * 69999999))
  const ddd = String(11 + Math.floor(r() * 88))
  const tel = r() < 0.6 ? phone() : ''
  const tel2 = tel && r() < 0.25 ? phone() : ''
  const fax = tel && r() < 0.05 ? phone() : ''
  const email = r() < 0.55 ? `${pick(FIRST)}.${pick(LAST)}${Math.floor(r() * 10000)}@${pick(MAIL)}`.toLowerCase() : ''
  const complemento = r() < 0.45 ? `${pick(COMPLEMENTO)} ${1 + Math.floor(r() * 900)}${r() < 0.4 ? ` ${pick(COMPLEMENTO)} ${1 + Math.floor(r() * 20)}` : ''}` : ''
  return [
    root, ordem, cnpj.slice(12), k === 0 ? '1' : '2', fantasia, situacao, oddDate(r, year + 5), motivo,
    uf === 'EX' ? 'BUENOS AIRES' : '', uf === 'EX' ? '063' : '', oddDate(r, year), cnae, secundarios, pick(STREET),
    `${pick(TITLE)}${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}`, r() < 0.1 ? 'S/N' : String(1 + Math.floor(r() * 3000)), complemento,
    pick(BAIRRO), String(1000000 + Math.floor(r() * 98999999)).padStart(8, '0'), uf, municipio, tel ? ddd : '', tel, tel2 ? ddd : '', tel2,
    fax ? ddd : '', fax, email, '', '',
  ]
}

/** One partner's row. */
function partner(root: string, year: number, r: () => number, pick: <T>(list: readonly T[]) => T): string[] {
  const pj = r() < 0.05
  const doc = pj ? completeCnpj(String(Math.floor(r() * 1e8)).padStart(8, '0') + '0001') : `***${String(Math.floor(r() * 1e6)).padStart(6, '0')}**`
  const nome = pj ? `${pick(TRADE)} ${pick(PLACE)} PARTICIPAÇÕES LTDA` : `${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}`
  const rep = !pj && r() < 0.02
  return [
    root, pj ? '1' : '2', nome, doc, pick(['49', '22', '05', '16', '10']), oddDate(r, Math.max(year, 1990) + 3), '',
    rep ? `***${String(Math.floor(r() * 1e6)).padStart(6, '0')}**` : '***000000**', rep ? `${pick(FIRST)} ${pick(LAST)}` : '',
    rep ? '17' : '00', pj ? '0' : String(2 + Math.floor(r() * 8)),
  ]
}

/** A day of a month AAAA-MM, as the dump writes dates. */
const dayOf = (month: string, r: () => number) => `${month.replace('-', '')}${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`

/** A company opened in `month`: active, its establishments and partners starting that month. */
function opening(c: CompanyRows, month: string) {
  const day = `${month.replace('-', '')}01`
  for (const e of c.estabs) {
    e[E.situacao] = '02'
    e[E.motivo] = '00'
    e[E.data_situacao] = day
    e[10] = day
  }
  for (const s of c.socios) s[5] = day
  if (c.simples) c.simples[2] = day
}

/**
 * One month of changes on a company's rows (CHURN), drawn from the company's stream for that month.
 * `present` says which establishments are in the dump; returns it for the next month (an
 * establishment that left may come back).
 */
function churn(c: CompanyRows, present: boolean[], r: () => number, month: string): boolean[] {
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!
  const root = c.empresa[0]!
  const next = [...present]
  c.estabs.forEach((e, k) => {
    if (!present[k]) {
      if (r() < CHURN.comeBack) next[k] = true
      return
    }
    if (r() < CHURN.vanish) {
      next[k] = false
      return
    }
    if (e[E.situacao] === '02' && r() < CHURN.closing) {
      e[E.situacao] = '08'
      e[E.data_situacao] = dayOf(month, r)
      e[E.motivo] = MOTIVO_BAIXA(r())
    } else if (r() < CHURN.situacao) {
      e[E.situacao] = e[E.situacao] === '02' ? pick(['04', '03']) : '02'
      e[E.data_situacao] = dayOf(month, r)
      e[E.motivo] = '00'
    }
    if (r() < CHURN.move && e[E.uf] !== 'EX') {
      e[E.tipo_logradouro] = pick(STREET)
      e[E.logradouro] = `${pick(TITLE)}${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}`
      e[E.numero] = String(1 + Math.floor(r() * 3000))
      e[E.complemento] = r() < 0.45 ? `${pick(COMPLEMENTO)} ${1 + Math.floor(r() * 900)}` : ''
      e[E.bairro] = pick(BAIRRO)
      e[E.cep] = String(1000000 + Math.floor(r() * 98999999)).padStart(8, '0')
      if (r() < CHURN.moveCity) e[E.municipio] = MUNICIPIO_DA_UF[e[E.uf]!]!(r())
    }
    if (r() < CHURN.contact) {
      if (r() < 0.5) {
        e[E.ddd1] = String(11 + Math.floor(r() * 88))
        e[E.telefone1] = String(30000000 + Math.floor(r() * 69999999))
      } else e[E.email] = `${pick(FIRST)}.${pick(LAST)}${Math.floor(r() * 10000)}@${pick(MAIL)}`.toLowerCase()
    }
    if (r() < CHURN.tradeName) e[E.nome_fantasia] = `${pick(TRADE)} ${pick(LAST)}`
    if (r() < CHURN.cnae) e[E.cnae] = pick(SYNTH_CNAES)
    if (r() < CHURN.secondary) e[E.secundarios] = Array.from({ length: 1 + Math.floor(r() * 6) }, () => pick(SYNTH_CNAES)).join(',')
  })
  if (r() < CHURN.newBranch * c.estabs.length) {
    const k = c.estabs.length
    const e = establishment(root, k, 2000, c.estabs[0]![E.uf]!, r, pick)
    e[E.situacao] = '02'
    e[E.motivo] = '00'
    e[E.data_situacao] = dayOf(month, r)
    e[10] = e[E.data_situacao]!
    c.estabs.push(e)
    next.push(true)
  }
  if (r() < CHURN.capital) c.empresa[M.capital] = `${Math.floor(r() * 5_000_000)},00`
  if (r() < CHURN.porte) c.empresa[M.porte] = pick(['01', '03', '05'])
  if (r() < CHURN.legalName) c.empresa[M.razao] = `${pick(TRADE)} ${pick(PLACE)} ${pick(['LTDA', 'EIRELI', 'S.A.'])}`
  if (r() < CHURN.natureza) c.empresa[M.natureza] = NATUREZA(r())
  if (r() < CHURN.simples) {
    if (!c.simples) c.simples = [root, 'S', dayOf(month, r), '00000000', 'N', '00000000', '00000000']
    else if (c.simples[1] === 'S') {
      c.simples[1] = 'N'
      c.simples[3] = dayOf(month, r)
      if (c.simples[4] === 'S') {
        c.simples[4] = 'N'
        c.simples[6] = c.simples[3]!
      }
    } else {
      c.simples[1] = 'S'
      c.simples[2] = dayOf(month, r)
      c.simples[3] = '00000000'
    }
  }
  if (c.socios.length) {
    if (r() < CHURN.partnerOut) c.socios.splice(Math.floor(r() * c.socios.length), 1)
    if (r() < CHURN.partnerChange && c.socios.length) c.socios[Math.floor(r() * c.socios.length)]![4] = pick(['49', '22', '05', '16', '10'])
  }
  if (c.socios.length ? r() < CHURN.partnerIn : r() < CHURN.partnerIn / 10) {
    const s = partner(root, 2000, r, pick)
    s[5] = dayOf(month, r)
    c.socios.push(s)
  }
  return next
}

/** One company of the dump as its raw rows (field values, unquoted), before they are written. */
interface CompanyRows {
  empresa: string[]
  estabs: string[][]
  socios: string[][]
  simples: string[] | null
}

// Columns of the rows (ingest/cnpj/parse.ts FILE_KINDS), for the monthly changes.
const E = { nome_fantasia: 4, situacao: 5, data_situacao: 6, motivo: 7, cnae: 11, secundarios: 12, tipo_logradouro: 13, logradouro: 14, numero: 15, complemento: 16, bairro: 17, cep: 18, uf: 19, municipio: 20, ddd1: 21, telefone1: 22, email: 27 }
const M = { razao: 1, natureza: 2, capital: 4, porte: 5 }

/** The month the base dump stands for; month k of the generator is k months later. */
export const SYNTH_BASE_MONTH = '2026-07'
export function synthMonth(k: number): string {
  const [y, m] = SYNTH_BASE_MONTH.split('-').map(Number) as [number, number]
  const n = y * 12 + (m - 1) + k
  return `${Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`
}

/**
 * Monthly churn, calibrated on the issue's national figures (65 M companies, 71.5 M
 * establishments): ~300 k openings (new companies, plus new branches), ~150 k closings, and about
 * 2 % of the establishments changing some field each month; partners turn over at ~1 % a month.
 * Per establishment and month unless said otherwise.
 */
export const CHURN = {
  /** New companies a month, as a share of the base's companies (300 k of 65 M). */
  newCompanies: 0.0046,
  newBranch: 0.0004,
  /** An active establishment closing (baixada): ~150 k of the ~30 M active. */
  closing: 0.005,
  situacao: 0.002,
  move: 0.004,
  moveCity: 0.25,
  contact: 0.005,
  tradeName: 0.001,
  cnae: 0.001,
  secondary: 0.002,
  /** An establishment leaving the dump (and, a month later, a tenth of those coming back). */
  vanish: 0.00005,
  comeBack: 0.1,
  /** Per company. */
  capital: 0.001,
  porte: 0.0005,
  legalName: 0.0003,
  natureza: 0.0001,
  simples: 0.003,
  /** Per company with partners: one leaves, one enters, one changes qualification. */
  partnerOut: 0.01,
  partnerIn: 0.01,
  partnerChange: 0.003,
} as const

/** A seed for company i in month m, mixed so that nearby companies and months draw unrelated streams. */
const mix = (seed: number, i: number, m: number) => (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35) ^ Math.imul(m + 7, 0x27d4eb2f)) | 0

export async function synthCnpj(options: SynthOptions): Promise<SynthSummary> {
  const seed = options.seed ?? 42
  const r = seededRandom(seed)
  const month = options.month ?? 0
  await mkdir(options.outDir, { recursive: true })
  const zip64 = options.zip64 ?? false
  const empresas = new NumberedZips(options.outDir, 'Empresas', 'EMPRECSV', zip64)
  const estabs = new NumberedZips(options.outDir, 'Estabelecimentos', 'ESTABELE', zip64)
  const socios = new NumberedZips(options.outDir, 'Socios', 'SOCIOCSV', zip64)
  await Promise.all([empresas.open(), estabs.open(), socios.open()])
  const simples = await createZipWriter(join(options.outDir, 'Simples.zip'), 'F.K03200$W.SIMPLES.CSV.D60808', { zip64 })
  const simplesLines: string[] = []
  let simplesBytes = 0
  const summary: SynthSummary = { empresas: 0, estabelecimentos: 0, socios: 0, simples: 0, bytes_csv: 0 }
  const newPerMonth = Math.round(options.companies * CHURN.newCompanies)
  const total = options.companies + newPerMonth * month
  const bar = progress('sintético', total, { unit: 'rows', quiet: options.quiet })

  /** One company's base rows, drawn from `g` (the dump's stream for the base companies, a stream of its own for those opened later). */
  const generate = (i: number, g: () => number): CompanyRows => {
    const pick = <T>(list: readonly T[]) => list[Math.floor(g() * list.length)]!
    // Roots: a spread-out numeric sequence (7919 is prime to 10^8: no two companies share one); 1 % alphanumeric (IN RFB 2.229/2024).
    let root = String((i * 7919 + 10_000_019) % 100_000_000).padStart(8, '0')
    if (g() < 0.01) root = root.slice(0, 2) + String.fromCharCode(65 + Math.floor(g() * 26), 65 + Math.floor(g() * 26)) + root.slice(4)
    const person = `${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}`
    const x = g()
    let razao = x < 0.35 ? `${person}` : x < 0.8 ? `${pick(TRADE)} ${pick(PLACE)}` : `${pick(LAST)} & ${pick(LAST)} ${pick(TRADE)}`
    const suffix = SUFFIX(g())
    if (suffix) razao += ` ${suffix}`
    // An individual entrepreneur's legal name can end in the owner's CPF (masked by the load).
    else if (x < 0.35 && g() < 0.3) razao += ` ${String(Math.floor(g() * 1e11)).padStart(11, '0')}`
    if (g() < 0.002) razao = `${razao}; FILIAL "CENTRO"` // quoted ';' and doubled quotes inside a field
    if (g() < 0.0005) razao = `${razao}\u0000` // NUL bytes occur in real dumps
    const year = 1960 + Math.floor(g() * 66)
    const porte = PORTE(g())
    const capital = porte === '05' ? Math.floor(g() * 50_000_000) : Math.floor(g() * 200_000)
    const cents = g() < 0.3 ? `,${String(Math.floor(g() * 100)).padStart(2, '0')}` : ',00'
    const company: CompanyRows = { empresa: [root, razao, NATUREZA(g()), '49', `${capital}${cents}`, porte, ''], estabs: [], socios: [], simples: null }

    // Establishments: one headquarters, sometimes branches (about 1.10 per company overall).
    const count = g() < 0.05 ? 2 + Math.floor(g() * 3) : 1
    const uf0 = UF(g())
    for (let k = 0; k < count; k++) company.estabs.push(establishment(root, k, year, uf0, g, pick))

    // Partners: about 0.44 per company (a real month: ~27 M rows); CPFs pre-masked as the Receita publishes them.
    const partners = g() < 0.22 ? 1 + Math.floor(g() * 3) : 0
    for (let k = 0; k < partners; k++) company.socios.push(partner(root, year, g, pick))

    // Simples/MEI rows: about 0.6 per company (every root that ever opted in keeps its row).
    if (porte !== '05' && g() < 0.8) {
      const mei = g() < 0.4
      company.simples = [root, 'S', ymd(Math.max(year, 2007), g), g() < 0.2 ? ymd(2024, g) : '00000000', mei ? 'S' : 'N', mei ? ymd(Math.max(year, 2009), g) : '00000000', '00000000']
    }
    return company
  }

  const write = async (file: number, c: CompanyRows) => {
    await empresas.add(file, c.empresa.map((v) => q(v.replace(/"/g, '""'))).join(';') + '\n')
    summary.empresas++
    for (const e of c.estabs) {
      await estabs.add(file, e.map(q).join(';') + '\n')
      summary.estabelecimentos++
    }
    for (const s of c.socios) {
      await socios.add(file, s.map(q).join(';') + '\n')
      summary.socios++
    }
    if (c.simples) {
      simplesLines.push(c.simples.map(q).join(';') + '\n')
      summary.simples++
      if (simplesLines.length >= 4096) {
        const data = Buffer.from(simplesLines.join(''), 'latin1')
        simplesLines.length = 0
        simplesBytes += data.length
        await simples.write(data)
      }
    }
  }

  for (let i = 0; i < total; i++) {
    // A company opened in month `opened` (0: in the base dump) has its own stream, so the base
    // companies draw the same values in every month.
    const opened = i < options.companies ? 0 : 1 + Math.floor((i - options.companies) / newPerMonth)
    const company = opened === 0 ? generate(i, r) : generate(i, seededRandom(mix(seed, i, -1)))
    if (opened > 0) opening(company, synthMonth(opened))
    let present = company.estabs.map(() => true)
    for (let m = opened + 1; m <= month; m++) present = churn(company, present, seededRandom(mix(seed, i, m)), synthMonth(m))
    company.estabs = company.estabs.filter((_, k) => present[k])
    await write(i % 10, company)
    if (i % 4096 === 0) bar.add(Math.min(4096, total - i))
  }
  if (simplesLines.length) {
    const data = Buffer.from(simplesLines.join(''), 'latin1')
    simplesBytes += data.length
    await simples.write(data)
  }
  await Promise.all([empresas.close(), estabs.close(), socios.close(), simples.close()])
  bar.done()

  const lookups: Record<string, [string, string][]> = {
    Cnaes: SYNTH_CNAES.map((c, i) => [c, `Atividade econômica sintética nº ${i + 1} – comércio e serviços`]),
    Motivos: [['00', 'SEM  MOTIVO'], ['01', 'EXTINCAO POR ENCERRAMENTO LIQUIDACAO VOLUNTARIA'], ['63', 'OMISSAO DE DECLARACOES'], ['71', 'INAPTIDAO (LEI 11.941/2009 ART.54)']],
    Municipios: SYNTH_MUNICIPIOS.map((c, i) => [c, i === 0 ? 'SÃO PAULO' : `MUNICÍPIO ${i + 1}`]).concat([['9707', 'EXTERIOR']]) as [string, string][],
    Naturezas: [['2135', 'Empresário (Individual)'], ['2062', 'Sociedade Empresária Limitada'], ['2305', 'Empresa Individual de Responsabilidade Limitada (de Natureza Empresária)'], ['2240', 'Sociedade Simples Limitada'], ['2046', 'Sociedade Anônima Aberta'], ['3999', 'Associação Privada'], ['2011', 'Empresa Pública'], ['1031', 'Órgão Público do Poder Executivo Municipal'], ['4000', 'Pessoa Física']],
    Paises: [['105', 'BRASIL'], ['063', 'ARGENTINA']],
    Qualificacoes: [['00', 'Não informada'], ['05', 'Administrador'], ['10', 'Diretor'], ['16', 'Presidente'], ['17', 'Procurador'], ['22', 'Sócio'], ['49', 'Sócio-Administrador']],
  }
  for (const [name, rows] of Object.entries(lookups)) {
    const data = Buffer.from(rows.map(([c, d]) => `${q(c)};${q(d)}\n`).join(''), 'latin1')
    summary.bytes_csv += data.length
    await writeZip(join(options.outDir, `${name}.zip`), `F.K03200$Z.D60808.${name.toUpperCase().slice(0, 5)}CSV`, data)
  }
  summary.bytes_csv += empresas.bytes + estabs.bytes + socios.bytes + simplesBytes
  await writeSynthMunicipios(options.outDir)
  return summary
}
