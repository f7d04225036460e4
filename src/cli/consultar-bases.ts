// The bases `dadosbr consultar` answers from (consultar.ts): the registry's cards and the
// five-list screening, opened from the local data and held for the whole list, each answer the
// single route's (/v1/cnpj/empresa/{cnpj}, /v1/integridade/consulta/{cnpj}) as JSON or CSV cells.
import { ZodArray, ZodNullable, ZodObject, ZodOptional, type z } from 'zod'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { Empresa } from '../datasets/cnpj/model'
import { cartaoJson, notFound } from '../datasets/cnpj/service'
import { cardCells } from '../datasets/cnpj/card-json'
import { openCnpjStore } from '../datasets/cnpj/store'
import { LISTAS } from '../datasets/integridade/layout'
import { triagemJson } from '../datasets/integridade/service'
import { openIntegridadeStore } from '../datasets/integridade/store'
import { formatCnpj } from '../core/documents'

/** The output: JSON lines, CSV for tools (RFC 4180), or CSV for Excel in Portuguese (--excel). */
export type Format = 'jsonl' | 'csv' | 'excel'

/** A base's answer to one valid CNPJ: the route's JSON (JSONL) or its CSV cells (CSV), and whether it was found. */
export interface Answer {
  encontrado: boolean
  resultadoJson?: string | Uint8Array
  celulas?: string[]
  erro?: { codigo: string; mensagem: string }
}

/** A base: its answer to one valid CNPJ, in the output's format, and its CSV columns. */
export interface Base {
  answer(cnpj: string, format: Format): Answer
  columns: string[]
  /** The build the base holds (a file of it, under its build folder): processes that must answer from the same month compare these. */
  build: string
  /** The file each answer reads a page of at random, if any (the card store): a long list has it read whole first (consultar.ts, readsWholeFirst). */
  randomReads?: string
  close(): Promise<void>
}


/** The dotted column names of a zod object (what flatten gives its values). */
function columnsOf(schema: z.ZodType, prefix = ''): string[] {
  if (schema instanceof ZodArray) return [prefix]
  if (schema instanceof ZodNullable || schema instanceof ZodOptional) return columnsOf(schema.unwrap() as z.ZodType, prefix)
  if (!(schema instanceof ZodObject)) return [prefix]
  return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([k, v]) => columnsOf(v, prefix ? `${prefix}.${k}` : k))
}

/**
 * The files a store has open now, held for the whole list (a month swapped in meanwhile is not
 * mixed in): `release` lets the store close them. Fails as the store's use() fails (no data).
 */
async function hold<F>(use: (fn: (files: F) => Promise<void>) => Promise<void>): Promise<{ files: F; release: () => void }> {
  let release!: () => void
  const held = new Promise<void>((done) => (release = done))
  let files!: F
  let ready!: () => void
  const opened = new Promise<void>((done) => (ready = done))
  const used = use(async (f) => {
    files = f
    ready()
    await held
  })
  await Promise.race([opened, used])
  return { files, release }
}

export async function cnpjBase(dataDir: string): Promise<Base> {
  const store = await openCnpjStore(loadConfig({ free: true, dataDir, prewarm: '0' }, {}), createLogger('silent'))
  const { files, release } = await hold<Parameters<Parameters<typeof store.use>[0]>[0]>((fn) => store.use(fn))
  const columns = columnsOf(Empresa).filter((c) => c !== 'cnpj' && !c.startsWith('fonte.'))
  // A CSV takes the card's cells straight from its raw values (no JSON to write and read back).
  const cells = cardCells(columns)
  return {
    answer(cnpj, format) {
      const notFoundAnswer = () => ({ encontrado: false, erro: { codigo: 'nao_encontrado', mensagem: notFound(files, cnpj).message } })
      if (format !== 'jsonl') {
        const v = files.cards.card(cnpj)
        return v === null ? notFoundAnswer() : { encontrado: true, celulas: cells(files, v) }
      }
      const card = cartaoJson(files, cnpj)
      return card === null ? notFoundAnswer() : { encontrado: true, resultadoJson: card }
    },
    columns,
    build: files.search.filename,
    randomReads: files.cards.path,
    async close() {
      release()
      await store.close()
    },
  }
}

export async function integridadeBase(dataDir: string): Promise<Base> {
  const store = await openIntegridadeStore(loadConfig({ free: true, dataDir, prewarm: '0' }, {}), createLogger('silent'))
  const held = await hold<Parameters<Parameters<typeof store.use>[0]>[0]>((fn) => store.use(fn))
  const { files } = held.files
  const release = held.release
  return {
    answer(cnpj, format) {
      const encontrado = files.porRaiz.has(cnpj.slice(0, 8))
      const json = triagemJson(files, cnpj)
      if (format === 'jsonl') return { encontrado, resultadoJson: json }
      const t = JSON.parse(new TextDecoder().decode(json)) as { ficha_limpa: boolean; total_apontamentos: number; apontamentos: Record<string, { vigente: boolean }[]> }
      return {
        encontrado,
        celulas: [String(t.ficha_limpa), String(t.total_apontamentos), ...LISTAS.flatMap((l) => [String(t.apontamentos[l]!.length), String(t.apontamentos[l]!.filter((a) => a.vigente).length)])],
      }
    },
    columns: ['ficha_limpa', 'total_apontamentos', ...LISTAS.flatMap((l) => [l, `${l}_vigentes`])],
    build: files.db.filename,
    async close() {
      release()
      await store.close()
    },
  }
}

/**
 * How a CSV is written. `csv`: RFC 4180, for tools (DuckDB, pandas, R): commas, values as the API
 * gives them. `excel`: for Excel set to Portuguese (Brazil), which splits a line at `;` (its list
 * separator), reads a file without a BOM as Windows-1252 (every accent broken) and turns text that
 * looks like a number into one (a CNPJ or a CEP loses its leading zeros, 1000.50 is read as 100050):
 * `;`, a UTF-8 BOM, CRLF, the CNPJ and the CEP with their masks (kept as text) and the capital with a
 * decimal comma. Codes of two or three digits (qualificação 05) still show as numbers there; the
 * description beside each says what it is (docs/cnpj.md).
 */
export interface CsvDialect {
  separator: string
  newline: string
  /** What the file starts with. */
  bom: string
  /** A cell of `column` as written (its value as the API gives it). */
  cell: (column: string, value: string) => string
}

const EXCEL_CELL: Record<string, (v: string) => string> = {
  cnpj: (v) => (v.length === 14 ? formatCnpj(v) : v),
  'endereco.cep': (v) => (/^\d{8}$/.test(v) ? `${v.slice(0, 5)}-${v.slice(5)}` : v),
  capital_social: (v) => v.replace('.', ','),
}

export const CSV_DIALECTS: Record<Exclude<Format, 'jsonl'>, CsvDialect> = {
  csv: { separator: ',', newline: '\n', bom: '', cell: (_, v) => v },
  excel: { separator: ';', newline: '\r\n', bom: '\uFEFF', cell: (c, v) => (v && EXCEL_CELL[c] ? EXCEL_CELL[c](v) : v) },
}

/** A CSV field: quoted when it holds the separator, a quote or a line break (RFC 4180). */
export const csvField = (v: string, separator: string) => (v.includes(separator) || /["\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)
