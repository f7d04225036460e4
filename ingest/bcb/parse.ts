// The Banco Central's monthly lists as rows of text, and each row as a registro of the answer.
// A sheet (XLSX, or CSV in older months) has banner rows (the department, the list's title,
// "Posição: 31.5.2024"), then the header, the data, and a "FONTE: ..." footer; cells are padded
// with spaces. Columns are picked by normalized header name (accents, case, spaces).
import { readSheet } from 'read-excel-file/node'
import type { Segmento } from '../../src/datasets/bcb/layout'
import { chunksOf, csvRows, decodeText, sniffEncoding } from '../../src/core/text/csv'
import { columnIndex, normalizeHeader, pick, type ColumnSpec } from '../../src/core/text/header'
import { dateOrNull, textOrNull } from '../lib/values'

export class SheetError extends Error {}

/** A cell as text: numbers as written (a root typed as a number loses its leading zeros: restored later), dates as ISO. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString().slice(0, 10)
  return String(v)
}

/** The rows of an XLSX workbook's first sheet. */
export async function xlsxRows(bytes: Uint8Array): Promise<string[][]> {
  try {
    const rows = await readSheet(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    return rows.map((r) => r.map(cellText))
  } catch (err) {
    throw new SheetError(`planilha ilegível (${err instanceof Error ? err.message : err})`)
  }
}

/** The rows of a CSV list (older months): `;` unless the header line has more commas. */
export async function csvSheetRows(bytes: Uint8Array): Promise<string[][]> {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 8192))
  const delimiter = (head.match(/,/g)?.length ?? 0) > (head.match(/;/g)?.length ?? 0) ? ',' : ';'
  const out: string[][] = []
  for await (const row of csvRows(decodeText(chunksOf(bytes), sniffEncoding(bytes)), delimiter)) out.push(row)
  return out
}

export interface Sheet {
  /** Text of the rows above the header (title, "Posição: ..."). */
  banner: string
  header: string[]
  rows: string[][]
  /** From "Posição: 31.5.2024" (day.month.year), when the banner has it. */
  posicao: string | null
}

const blank = (row: string[]) => row.every((c) => !c.trim())

/** Splits a sheet's rows into banner, header, data; the footer ("FONTE: ...") and blank rows are dropped. */
export function splitSheet(rows: string[][]): Sheet {
  const at = rows.findIndex((r) => r.filter((c) => c.trim()).length >= 3 && r.some((c) => /^CNPJ\b/.test(normalizeHeader(c))))
  if (at < 0) throw new SheetError('cabeçalho não encontrado (nenhuma linha com a coluna CNPJ e outras colunas)')
  const banner = rows.slice(0, at).map((r) => r.filter((c) => c.trim()).join(' ')).filter(Boolean).join(' | ')
  const data: string[][] = []
  for (const row of rows.slice(at + 1)) {
    if (blank(row)) continue
    const first = row.find((c) => c.trim()) ?? ''
    if (/^\s*FONTE\s*:/i.test(first)) break
    data.push(row)
  }
  const m = /Posi[çc][ãa]o\s*:?\s*(\d{1,2})[./](\d{1,2})[./](\d{4})/i.exec(banner)
  const posicao = m ? dateOrNull(`${m[1]}/${m[2]}/${m[3]}`) : null
  return { banner, header: rows[at]!, rows: data, posicao }
}

const INSTITUICAO = {
  cnpj: 'CNPJ',
  nome: ['NOME INSTITUIÇÃO', 'NOME DA INSTITUIÇÃO', 'NOME'],
  segmento: 'SEGMENTO',
  endereco: ['ENDEREÇO', 'LOGRADOURO'],
  complemento: 'COMPLEMENTO',
  bairro: 'BAIRRO',
  cep: 'CEP',
  municipio: ['MUNICÍPIO', 'CIDADE'],
  uf: 'UF',
  municipio_ibge: ['MUNICÍPIO IBGE', 'CÓDIGO IBGE'],
  ddd: 'DDD',
  telefone: ['TELEFONE', 'FONE'],
  sitio: ['SÍTIO NA INTERNET', 'SITIO', 'SITE', 'ENDEREÇO ELETRÔNICO'],
  carteira_comercial: ['CART COMERCIAL', 'CARTEIRA COMERCIAL'],
  classe: 'CLASSE',
  criterio: ['CRITÉRIO DE ASSOCIAÇÃO', 'CRITERIO ASSOCIACAO'],
  categoria: ['CATEG COOP SING', 'CATEGORIA'],
  filiacao: 'FILIAÇÃO',
} satisfies ColumnSpec

const CONGLOMERADO = {
  conglomerado: 'NOME DO CONGLOMERADO',
  classe: 'CLASSE DO CONGLOMERADO',
  cnpj: ['CNPJ PARTICIPANTE', 'CNPJ DO PARTICIPANTE', 'CNPJ'],
  nome: ['NOME DO PARTICIPANTE', 'NOME PARTICIPANTE'],
  tipo: ['TIPO PARTICIPAÇÃO', 'TIPO DE PARTICIPAÇÃO'],
  inicio: ['DATA INÍCIO', 'DATA DE INÍCIO'],
  uf: 'UF',
} satisfies ColumnSpec

/** Which list a sheet is: by its columns, then its banner's title, then the file's name (202405BANCOS.zip). */
export function segmentOf(sheet: Sheet, names: string[]): Segmento | null {
  const h = sheet.header.map(normalizeHeader)
  if (h.includes('NOME DO CONGLOMERADO')) return 'conglomerados'
  if (h.includes('CATEG COOP SING') || h.includes('FILIACAO')) return 'cooperativas'
  if (h.includes('CART COMERCIAL')) return 'bancos'
  const b = normalizeHeader(sheet.banner)
  if (/CONSORCIO/.test(b)) return 'consorcios'
  if (/COOPERATIVAS DE CREDITO/.test(b)) return 'cooperativas'
  if (/CONGLOMERADO/.test(b)) return 'conglomerados'
  if (/NAO BANCARIAS|DEMAIS|SOCIEDADES/.test(b)) return 'demais_instituicoes'
  if (/INSTITUICOES BANCARIAS|BANCOS/.test(b)) return 'bancos'
  const n = names.map((x) => x.toUpperCase()).join(' ')
  if (/CONGLOMERADOS/.test(n)) return 'conglomerados'
  if (/COOPERATIVAS/.test(n)) return 'cooperativas'
  if (/CONSORCIO/.test(n)) return 'consorcios'
  if (/SOCIEDADES/.test(n)) return 'demais_instituicoes'
  if (/BANCOS/.test(n)) return 'bancos'
  return null
}

/** An 8-character root as the lists write it (00.000.000, 00000000, or a number that lost its leading zeros), or null. */
export function rootOf(raw: string): string | null {
  let s = raw.replace(/[.\/\-\s]/g, '').toUpperCase()
  if (/^\d{1,7}$/.test(s)) s = s.padStart(8, '0')
  // A full CNPJ in the column: its root.
  if (/^[0-9A-Z]{12}\d{2}$/.test(s)) s = s.slice(0, 8)
  return /^[0-9A-Z]{8}$/.test(s) && /\d/.test(s) ? s : null
}

/** Second-level zones under .br that are no one's site on their own (com.br, gov.br...). */
const BR_ZONES = new Set(['com', 'org', 'net', 'gov', 'edu', 'coop', 'b', 'art', 'ind', 'inf', 'leg', 'jus', 'mil', 'mp', 'def', 'app', 'tec', 'srv', 'adv', 'eco', 'emp', 'bio', 'agr', 'far', 'fin', 'imb', 'med', 'odo', 'psi', 'tur'])

/**
 * Hostnames of a "SÍTIO NA INTERNET" cell: lower case, without scheme, path or port. Several
 * sites may share a cell, separated by `;`, `|`, ` / ` or ` e `. An entry with a space or comma
 * inside, an e-mail, no dot, bad characters or a bare zone (com.br) is malformed and dropped.
 */
export function hostnames(raw: string | null): string[] {
  const out: string[] = []
  for (const entry of (raw ?? '').split(/[;|\n]|\s+\/\s+|\s+e\s+/i)) {
    const t = entry.trim().replace(/^[<("']+|[>)"'.]+$/g, '')
    if (!t || /[\s,@]/.test(t)) continue
    let host: string
    try {
      host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(t) ? t : `http://${t}`).hostname.toLowerCase()
    } catch {
      continue
    }
    if (!/^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,24}|xn--[a-z0-9-]{2,59})$/.test(host)) continue
    const labels = host.split('.')
    if (labels.length === 2 && labels[1] === 'br' && BR_ZONES.has(labels[0]!)) continue
    if (!out.includes(host)) out.push(host)
  }
  return out
}

export interface Registro {
  lista: Segmento
  nome: string | null
  segmento: string | null
  endereco: { logradouro: string | null; complemento: string | null; bairro: string | null; cep: string | null; municipio: string | null; uf: string | null; municipio_ibge: string | null }
  telefone: string | null
  sitio: string | null
  carteira_comercial: boolean | null
  cooperativa: { classe: string | null; criterio_associacao: string | null; categoria: string | null; filiacao: string | null } | null
  conglomerado: { nome: string | null; classe: string | null; tipo_participacao: string | null; data_inicio: string | null } | null
}

/** `(61) 34933638`; non-geographic prefixes (0800, 0300) as dialled. */
function phone(ddd: string | null, number: string | null): string | null {
  const d = (ddd ?? '').replace(/\D/g, '').replace(/^0+/, '')
  const n = (number ?? '').replace(/\D/g, '')
  if (!n) return null
  if (!d) return n
  if (/^(800|300|500|900)$/.test(d)) return `0${d} ${n}`
  return `(${d}) ${n}`
}

const yesNo = (raw: string | null) => {
  const s = normalizeHeader(raw ?? '')
  return s === 'SIM' || s === 'S' ? true : s === 'NAO' || s === 'N' ? false : null
}

const DEFAULT_SEGMENT: Partial<Record<Segmento, string>> = { cooperativas: 'Cooperativa de Crédito', consorcios: 'Administradora de Consórcio' }

/** The rows of one list as (root, registro); rows without a usable root are counted, not kept. */
export function registrosOf(segment: Segmento, sheet: Sheet): { itens: { raiz: string; registro: Registro }[]; rejeitadas: number } {
  const itens: { raiz: string; registro: Registro }[] = []
  let rejeitadas = 0
  if (segment === 'conglomerados') {
    const index = columnIndex(sheet.header, CONGLOMERADO, ['classe', 'tipo', 'inicio', 'uf'])
    for (const row of sheet.rows) {
      const r = pick(row, index)
      const raiz = rootOf(r.cnpj)
      if (!raiz) { rejeitadas++; continue }
      itens.push({
        raiz,
        registro: {
          lista: segment, nome: textOrNull(r.nome), segmento: null,
          endereco: { logradouro: null, complemento: null, bairro: null, cep: null, municipio: null, uf: textOrNull(r.uf), municipio_ibge: null },
          telefone: null, sitio: null, carteira_comercial: null, cooperativa: null,
          conglomerado: { nome: textOrNull(r.conglomerado), classe: textOrNull(r.classe), tipo_participacao: textOrNull(r.tipo), data_inicio: dateOrNull(r.inicio) },
        },
      })
    }
    return { itens, rejeitadas }
  }
  const optional = Object.keys(INSTITUICAO).filter((k) => k !== 'cnpj' && k !== 'nome') as (keyof typeof INSTITUICAO)[]
  const index = columnIndex(sheet.header, INSTITUICAO, optional)
  for (const row of sheet.rows) {
    const r = pick(row, index)
    const raiz = rootOf(r.cnpj)
    if (!raiz) { rejeitadas++; continue }
    const coop = segment === 'cooperativas'
    itens.push({
      raiz,
      registro: {
        lista: segment,
        nome: textOrNull(r.nome),
        segmento: textOrNull(r.segmento) ?? DEFAULT_SEGMENT[segment] ?? null,
        endereco: {
          logradouro: textOrNull(r.endereco), complemento: textOrNull(r.complemento), bairro: textOrNull(r.bairro), cep: textOrNull(r.cep),
          municipio: textOrNull(r.municipio), uf: textOrNull(r.uf), municipio_ibge: textOrNull(r.municipio_ibge),
        },
        telefone: phone(textOrNull(r.ddd), textOrNull(r.telefone)),
        sitio: textOrNull(r.sitio),
        carteira_comercial: index.carteira_comercial >= 0 ? yesNo(textOrNull(r.carteira_comercial)) : null,
        cooperativa: coop ? { classe: textOrNull(r.classe), criterio_associacao: textOrNull(r.criterio), categoria: textOrNull(r.categoria), filiacao: textOrNull(r.filiacao) } : null,
        conglomerado: null,
      },
    })
  }
  return { itens, rejeitadas }
}
