// The PNCP consulta API's records (SOURCES.md §3) and how each becomes this service's shape.
// Shared by the contracts ingest (ingest/licitacoes) and the open-tenders feed (feed.ts), so the
// same record always maps to the same answer.
import { defineUpstream } from '../../core/upstream'

export const PNCP = defineUpstream('PNCP_URL', 'https://pncp.gov.br/api/consulta', 'API de consulta do PNCP (contratos e licitações abertas)')

/** The pagination envelope of every PNCP list endpoint; an empty result may also be HTTP 204 with no body. */
export interface PncpPage<T> {
  data: T[]
  totalRegistros: number
  totalPaginas: number
  numeroPagina?: number
  paginasRestantes?: number
  empty?: boolean
}

export interface PncpOrgao {
  cnpj?: string | null
  razaoSocial?: string | null
  poderId?: string | null
  esferaId?: string | null
}

export interface PncpUnidade {
  codigoUnidade?: string | null
  nomeUnidade?: string | null
  municipioNome?: string | null
  ufSigla?: string | null
  codigoIbge?: string | null
}

/** A `/v1/contratos` record: only the fields this service reads are typed. */
export interface PncpContrato {
  numeroControlePNCP?: string | null
  niFornecedor?: string | null
  tipoPessoa?: string | null
  nomeRazaoSocialFornecedor?: string | null
  orgaoEntidade?: PncpOrgao | null
  unidadeOrgao?: PncpUnidade | null
  tipoContrato?: { id?: number | null; nome?: string | null } | null
  objetoContrato?: string | null
  valorInicial?: number | null
  valorGlobal?: number | null
  dataAssinatura?: string | null
  dataVigenciaInicio?: string | null
  dataVigenciaFim?: string | null
  dataPublicacaoPncp?: string | null
  dataAtualizacao?: string | null
  numeroRetificacao?: number | null
}

/** A `/v1/contratacoes/proposta` record (a procurement with proposal reception open). */
export interface PncpContratacao {
  numeroControlePNCP?: string | null
  anoCompra?: number | null
  sequencialCompra?: number | null
  objetoCompra?: string | null
  valorTotalEstimado?: number | null
  orgaoEntidade?: PncpOrgao | null
  unidadeOrgao?: PncpUnidade | null
  modalidadeId?: number | null
  modalidadeNome?: string | null
  dataAberturaProposta?: string | null
  dataEncerramentoProposta?: string | null
  linkSistemaOrigem?: string | null
}

/** Modalidades de contratação (PNCP domain table, manual §5.2): the codes /v1/licitacoes/abertas accepts. */
export const MODALIDADES: Record<string, string> = {
  '1': 'Leilão - Eletrônico',
  '2': 'Diálogo Competitivo',
  '3': 'Concurso',
  '4': 'Concorrência - Eletrônica',
  '5': 'Concorrência - Presencial',
  '6': 'Pregão - Eletrônico',
  '7': 'Pregão - Presencial',
  '8': 'Dispensa de Licitação',
  '9': 'Inexigibilidade',
  '10': 'Manifestação de Interesse',
  '11': 'Pré-qualificação',
  '12': 'Credenciamento',
  '13': 'Leilão - Presencial',
}

const ESFERAS: Record<string, string> = { F: 'federal', E: 'estadual', M: 'municipal', D: 'distrital', N: 'nao_se_aplica' }
const PODERES: Record<string, string> = { L: 'legislativo', E: 'executivo', J: 'judiciario', N: 'nao_se_aplica' }

export const esfera = (id: unknown): string | null => (typeof id === 'string' ? (ESFERAS[id.trim().toUpperCase()] ?? null) : null)
export const poder = (id: unknown): string | null => (typeof id === 'string' ? (PODERES[id.trim().toUpperCase()] ?? null) : null)

/** Whether a string needs no cleaning: no blank at either end, no run of blanks, no control character. */
function clean(s: string): boolean {
  const n = s.length
  if (n === 0 || s.charCodeAt(0) <= 32 || s.charCodeAt(n - 1) <= 32) return false
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 32 || (c === 32 && s.charCodeAt(i + 1) === 32)) return false
  }
  return true
}

/** Trimmed text with inner runs of blanks collapsed; null for absent or blank. */
export function text(v: unknown): string | null {
  if (typeof v !== 'string') return v === null || v === undefined || typeof v === 'object' ? null : String(v)
  // Most PNCP texts are clean: checked by a loop, cleaned by regexes only when needed (20 M records a sync).
  if (clean(v)) return v
  const s = v.replace(/\u0000/g, '').replace(/\s+/g, ' ').trim()
  return s === '' ? null : s
}

/**
 * Free text (a contract's or a procurement's object) kept as the source wrote it: its line breaks as
 * \n (CRLF and CR normalized), inner spacing untouched, trimmed only at the ends; NUL bytes dropped.
 * Null for absent or blank. Names and labels use text(), which collapses blanks.
 */
export function textoLivre(v: unknown): string | null {
  if (typeof v !== 'string') return text(v)
  const s = (v.includes('\r') || v.includes('\u0000') ? v.replace(/\u0000/g, '').replace(/\r\n?/g, '\n') : v).trim()
  return s === '' ? null : s
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** A date-only field (`2024-08-01`, sometimes sent with a time): `YYYY-MM-DD`, or null when absent or impossible. */
export function day(v: unknown): string | null {
  if (typeof v !== 'string' || v.length < 10) return null
  const s = v.length === 10 ? v : v.trim().slice(0, 10)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return null
  const y = Number(s.slice(0, 4))
  const m = Number(s.slice(5, 7))
  const d = Number(s.slice(8, 10))
  if (m < 1 || m > 12 || d < 1 || d > DAYS_IN_MONTH[m - 1]!) return null
  if (m === 2 && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return null
  return s
}

/**
 * A PNCP timestamp (Brasília local time without offset, `2023-10-27T23:59:00`) as ISO 8601 with
 * Brasília's offset (no daylight saving since 2019): `2023-10-27T23:59:00-03:00`. A timestamp that
 * already carries an offset or Z is kept.
 */
export function brasilia(v: unknown): string | null {
  if (typeof v !== 'string') return null
  const s = v.trim()
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s)
  if (!m || !day(m[1])) return null
  const time = m[2]!.length === 5 ? `${m[2]}:00` : m[2]
  return `${m[1]}T${time}${m[4] ?? '-03:00'}`
}

/** A money value: a finite number (PNCP sends JSON numbers with up to 4 decimals), else null. */
export function money(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}

/** `<cnpj>-<kind>-<seq>/<year>`: the parts of a numeroControlePNCP (kind 1 = contratação, 2 = contrato). */
export function controlParts(numero: string): { cnpj: string; tipo: string; sequencial: number; ano: string } | null {
  const m = /^([0-9A-Z]{14})-(\d)-(\d{1,9})\/(\d{4})$/.exec(numero)
  return m ? { cnpj: m[1]!, tipo: m[2]!, sequencial: Number(m[3]), ano: m[4]! } : null
}

/** The contract's page on pncp.gov.br (from its control number). */
export function contratoLink(numero: string): string | null {
  const p = controlParts(numero)
  return p ? `https://pncp.gov.br/app/contratos/${p.cnpj}/${p.ano}/${p.sequencial}` : null
}

/** The procurement's page on pncp.gov.br. */
export function editalLink(numero: string): string | null {
  const p = controlParts(numero)
  return p ? `https://pncp.gov.br/app/editais/${p.cnpj}/${p.ano}/${p.sequencial}` : null
}

/** A supplier document as stored: punctuation removed, letters upper-cased. */
export const documento = (v: unknown): string =>
  typeof v !== 'string' ? '' : /^[0-9A-Z]{14}$/.test(v) ? v : v.replace(/[^0-9A-Za-z]/g, '').toUpperCase()

/** Whether a contract's supplier is a company this service can index by CNPJ (PJ with 14 characters). */
export function supplierCnpj(c: PncpContrato): string | null {
  const ni = documento(c.niFornecedor)
  // PF rows carry a CPF (never stored, LGPD); PE rows a foreign id that no CNPJ lookup can reach.
  if (ni.length !== 14 || !/^[0-9A-Z]{12}[0-9]{2}$/.test(ni)) return null
  const tipo = text(c.tipoPessoa)?.toUpperCase()
  return tipo === undefined || tipo === 'PJ' ? ni : null
}

export interface Oportunidade {
  numero_controle_pncp: string
  objeto: string | null
  valor_estimado: number | null
  orgao: { cnpj: string | null; razao_social: string | null; esfera: string | null; poder: string | null }
  unidade: { nome: string | null; municipio: string | null; uf: string | null }
  modalidade: { codigo: string | null; nome: string | null }
  data_abertura_proposta: string | null
  data_encerramento_proposta: string | null
  link: string | null
}

const httpLink = (v: unknown): string | null => {
  const s = text(v)
  return s && /^https?:\/\/\S+$/i.test(s) ? s : null
}

/** A procurement with open proposals as an opportunity; null when it has no control number. */
export function oportunidade(c: PncpContratacao): Oportunidade | null {
  const numero = text(c.numeroControlePNCP)
  if (!numero) return null
  const estimado = money(c.valorTotalEstimado)
  const codigo = c.modalidadeId === null || c.modalidadeId === undefined ? null : String(c.modalidadeId)
  return {
    numero_controle_pncp: numero,
    objeto: textoLivre(c.objetoCompra),
    // PNCP sends 0 when the budget is secret (orçamento sigiloso, Lei 14.133 art. 24) or not given.
    valor_estimado: estimado === null || estimado === 0 ? null : estimado,
    orgao: {
      cnpj: documento(c.orgaoEntidade?.cnpj) || null,
      razao_social: text(c.orgaoEntidade?.razaoSocial),
      esfera: esfera(c.orgaoEntidade?.esferaId),
      poder: poder(c.orgaoEntidade?.poderId),
    },
    unidade: { nome: text(c.unidadeOrgao?.nomeUnidade), municipio: text(c.unidadeOrgao?.municipioNome), uf: text(c.unidadeOrgao?.ufSigla)?.toUpperCase() ?? null },
    modalidade: { codigo, nome: text(c.modalidadeNome) ?? (codigo ? (MODALIDADES[codigo] ?? null) : null) },
    data_abertura_proposta: brasilia(c.dataAberturaProposta),
    data_encerramento_proposta: brasilia(c.dataEncerramentoProposta),
    link: httpLink(c.linkSistemaOrigem) ?? editalLink(numero),
  }
}

/** Reads a PNCP list answer: HTTP 204 or an empty body is an empty page; anything not the envelope throws. */
export async function readPage<T>(response: Response, what: string): Promise<PncpPage<T>> {
  const body = response.status === 204 ? '' : await response.text()
  if (body.trim() === '') return { data: [], totalRegistros: 0, totalPaginas: 0 }
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new Error(`${what}: resposta não é JSON (${body.length} bytes, começa com ${JSON.stringify(body.slice(0, 40))})`)
  }
  const page = parsed as Partial<PncpPage<T>>
  if (!page || typeof page !== 'object' || !Array.isArray(page.data)) throw new Error(`${what}: resposta sem a lista "data" do PNCP`)
  const total = Number(page.totalRegistros ?? page.data.length)
  const pages = Number(page.totalPaginas ?? (page.data.length ? 1 : 0))
  if (!Number.isInteger(total) || total < 0 || !Number.isInteger(pages) || pages < 0) throw new Error(`${what}: totalRegistros/totalPaginas inválidos`)
  return { ...page, data: page.data, totalRegistros: total, totalPaginas: pages }
}

/** Today's date in Brasília (UTC-3), YYYY-MM-DD. */
export function todayBrasilia(now = Date.now()): string {
  return new Date(now - 3 * 3600_000).toISOString().slice(0, 10)
}

/** YYYY-MM-DD plus n days. */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}

/** YYYY-MM-DD as PNCP's query format, AAAAMMDD. */
export const pncpDate = (date: string) => date.replace(/-/g, '')

/** fn over items with at most n running at once; results in input order. */
export async function mapLimit<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i]!)
      }
    }),
  )
  return out
}
