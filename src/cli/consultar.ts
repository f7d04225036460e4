// `dadosbr consultar cnpj|integridade --arquivo lista.txt|csv [--saida x.csv|x.jsonl]`: a list of
// CNPJs answered from the local data, no server and no payment (researchers, CI). Each input line
// gets an output row, in order: the answer /v1/cnpj/empresa/{cnpj} or /v1/integridade/consulta/{cnpj}
// gives, or why not (invalid, not found, blank line); repeated CNPJs are answered again and say the
// line they repeat. Progress with ETA on stderr, a summary at the end; exit 0 unless the command
// itself is misused (no --arquivo, an unreadable file, an output of unknown kind, no data built).
import { existsSync, statSync } from 'node:fs'
import { extname, resolve } from 'node:path'
import { ZodArray, ZodNullable, ZodObject, ZodOptional, type z } from 'zod'
import { progress } from '../../ingest/lib/progress'
import { loadConfig } from '../core/config'
import { itemDoLote } from '../core/lote'
import { createLogger } from '../core/log'
import { CsvError, csvRows, decodeText, sniffEncoding } from '../core/text/csv'
import { normalizeHeader } from '../core/text/header'
import { Empresa } from '../datasets/cnpj/model'
import { cartaoJson, notFound } from '../datasets/cnpj/service'
import { cardCells } from '../datasets/cnpj/card-json'
import { openCnpjStore } from '../datasets/cnpj/store'
import { LISTAS } from '../datasets/integridade/layout'
import { triagemJson } from '../datasets/integridade/service'
import { openIntegridadeStore } from '../datasets/integridade/store'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'

const SPECS: FlagSpec[] = [
  { name: '--arquivo', value: true, help: 'a lista: .txt (um CNPJ por linha) ou .csv (a coluna cujo cabeçalho tem CNPJ, senão a primeira); obrigatória' },
  { name: '--saida', value: true, help: 'onde escrever: x.jsonl (uma linha JSON por linha da lista) ou x.csv (colunas planas); sem ela, JSONL na saída padrão' },
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data) [DADOSBR_DATA]' },
  { name: '--quiet', value: false, help: 'sem barra de progresso nem resumo' },
]

export const CONSULTAR_HELP = usage(
  'dadosbr consultar: responde uma lista de CNPJs com os dados locais, sem servidor e sem pagamento.',
  'dadosbr consultar cnpj|integridade --arquivo LISTA [--saida SAIDA.csv|SAIDA.jsonl] [--data DIR]',
  SPECS,
  'cnpj: o cartão de cada CNPJ (o mesmo de /v1/cnpj/empresa/{cnpj}); integridade: a triagem nas cinco listas\n' +
    '(a mesma de /v1/integridade/consulta/{cnpj}). Uma linha de saída por linha da lista, na mesma ordem, com\n' +
    'linha, entrada, cnpj, encontrado e o resultado ou o erro (cnpj_invalido, nao_encontrado, linha_vazia);\n' +
    'CNPJs com ou sem pontuação; linhas repetidas são respondidas de novo e dizem qual linha repetem.\n' +
    'No fim, um resumo: encontrados, não encontrados, inválidos, em branco. Sai com 0 mesmo com CNPJs\n' +
    'inválidos ou ausentes; só um uso errado (sem --arquivo, arquivo ilegível, base não construída) sai com 2.',
)

/** One line of the list and its answer. */
interface Row {
  linha: number
  entrada: string
  cnpj: string | null
  encontrado: boolean
  /** The single route's answer, as its JSON (text or bytes: what the route sends). */
  resultadoJson?: string | Uint8Array
  erro?: { codigo: string; mensagem: string }
  repete_linha?: number
  /** The answer as CSV cells, in the base's `columns` order (--saida x.csv). */
  celulas?: string[]
}

type Format = 'jsonl' | 'csv'

/** A base's answer to one valid CNPJ: the route's JSON (JSONL) or its CSV cells (CSV), and whether it was found. */
type Answer = Pick<Row, 'encontrado' | 'resultadoJson' | 'celulas' | 'erro'>

/** A base: its answer to one valid CNPJ, in the output's format, and its CSV columns. */
interface Base {
  answer(cnpj: string, format: Format): Answer
  columns: string[]
  close(): Promise<void>
}

// ---- the list ----

/** The text lines of a .txt list, with their numbers; the text decoded as UTF-8 (BOM dropped) or, when it is not UTF-8, as cp1252. */
async function* textLines(chunks: AsyncIterable<string>): AsyncGenerator<{ linha: number; texto: string }> {
  let rest = ''
  let linha = 0
  for await (const chunk of chunks) {
    rest += chunk
    let at: number
    while ((at = rest.indexOf('\n')) >= 0) {
      yield { linha: ++linha, texto: rest.slice(0, at).replace(/\r$/, '') }
      rest = rest.slice(at + 1)
    }
  }
  if (rest) yield { linha: ++linha, texto: rest.replace(/\r$/, '') }
}

/**
 * The CNPJ field of each record of a .csv list: `;` or `,` (whichever the first line has more of),
 * the column whose header names CNPJ when the first record is a header, else the first column.
 * Numbered as lines of the file (the header is line 1).
 */
async function* csvLines(chunks: AsyncIterable<string>, firstLine: string): AsyncGenerator<{ linha: number; texto: string }> {
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ','
  let column = 0
  let linha = 0
  for await (const row of csvRows(chunks, delimiter)) {
    linha++
    if (linha === 1) {
      const named = row.findIndex((h) => normalizeHeader(h).includes('CNPJ'))
      if (named >= 0) {
        column = named
        continue
      }
    }
    yield { linha, texto: row[column] ?? '' }
  }
}

/** The file's bytes, counted into the progress bar as they are read. */
async function* counted(path: string, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of Bun.file(path).stream()) {
    onBytes(chunk.length)
    yield chunk
  }
}

// ---- the bases ----

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

async function cnpjBase(dataDir: string): Promise<Base> {
  const store = await openCnpjStore(loadConfig({ free: true, dataDir, prewarm: '0' }, {}), createLogger('silent'))
  const { files, release } = await hold<Parameters<Parameters<typeof store.use>[0]>[0]>((fn) => store.use(fn))
  const columns = columnsOf(Empresa).filter((c) => c !== 'cnpj' && !c.startsWith('fonte.'))
  // A CSV takes the card's cells straight from its raw values (no JSON to write and read back).
  const cells = cardCells(columns)
  return {
    answer(cnpj, format) {
      const notFoundAnswer = () => ({ encontrado: false, erro: { codigo: 'nao_encontrado', mensagem: notFound(files, cnpj).message } })
      if (format === 'csv') {
        const v = files.cards.card(cnpj)
        return v === null ? notFoundAnswer() : { encontrado: true, celulas: cells(files, v) }
      }
      const card = cartaoJson(files, cnpj)
      return card === null ? notFoundAnswer() : { encontrado: true, resultadoJson: card }
    },
    columns,
    async close() {
      release()
      await store.close()
    },
  }
}

async function integridadeBase(dataDir: string): Promise<Base> {
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
    async close() {
      release()
      await store.close()
    },
  }
}

// ---- the output ----

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
const csvField = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)

const LEAD = ['linha', 'entrada', 'cnpj', 'encontrado', 'erro_codigo', 'erro_mensagem', 'repete_linha']

function jsonlRow(r: Row): string | Uint8Array[] {
  const { resultadoJson, ...rest } = r
  if (!resultadoJson) return JSON.stringify(rest) + '\n'
  // The route's own JSON (what it sends), after the row's fields.
  const head = JSON.stringify(rest).slice(0, -1)
  return typeof resultadoJson === 'string' ? `${head},"resultado":${resultadoJson}}\n` : [Buffer.from(`${head},"resultado":`), resultadoJson, Buffer.from('}\n')]
}

function csvRow(base: Base, r: Row): string {
  const flat = r.celulas ?? base.columns.map(() => '')
  const lead = [String(r.linha), r.entrada, r.cnpj ?? '', String(r.encontrado), r.erro?.codigo ?? '', r.erro?.mensagem ?? '', r.repete_linha ? String(r.repete_linha) : '']
  return [...lead, ...flat].map(csvField).join(',') + '\n'
}

export async function consultar(argv: string[]): Promise<number> {
  const { flags, positionals, help } = parseArgs(argv, SPECS, 1)
  if (help) {
    process.stdout.write(CONSULTAR_HELP)
    return 0
  }
  const which = positionals[0]
  if (which !== 'cnpj' && which !== 'integridade') throw new UsageError(`diga o que consultar: dadosbr consultar cnpj ou dadosbr consultar integridade (veja --help)`)
  const arquivo = flags['--arquivo']
  if (typeof arquivo !== 'string') throw new UsageError('--arquivo LISTA é obrigatório (um CNPJ por linha, .txt, ou uma planilha .csv)')
  const path = resolve(arquivo)
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`--arquivo ${arquivo}: arquivo não encontrado`)
  const saida = flags['--saida'] as string | undefined
  const format = saida === undefined ? 'jsonl' : extname(saida).toLowerCase() === '.csv' ? 'csv' : extname(saida).toLowerCase() === '.jsonl' ? 'jsonl' : null
  if (!format) throw new UsageError(`--saida ${saida}: use um nome terminado em .csv ou .jsonl`)
  const quiet = Boolean(flags['--quiet'])
  const dataDir = String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data')

  let base: Base
  try {
    base = which === 'cnpj' ? await cnpjBase(dataDir) : await integridadeBase(dataDir)
  } catch (err) {
    throw new UsageError(`${err instanceof Error ? err.message : String(err)} (--data ${dataDir})`)
  }
  const started = performance.now()
  const size = statSync(path).size
  const bar = progress(`consultar ${which}`, size, { quiet })
  const head = new Uint8Array(await Bun.file(path).slice(0, 1 << 20).arrayBuffer())
  // A byte order mark says UTF-8 whatever follows; else UTF-8 when the text is, cp1252 (Excel's) otherwise.
  const encoding = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 'utf-8' : sniffEncoding(head)
  const chunks = decodeText(counted(path, (n) => bar.add(n)), encoding)
  const firstLine = new TextDecoder().decode(head.subarray(0, 4096)).split(/\r?\n/)[0] ?? ''
  const lines = extname(path).toLowerCase() === '.csv' ? csvLines(chunks, firstLine) : textLines(chunks)
  const out = saida ? Bun.file(resolve(saida)).writer({ highWaterMark: 1 << 20 }) : Bun.stdout.writer({ highWaterMark: 1 << 20 })
  const write = (piece: string | Uint8Array[]) => {
    if (typeof piece === 'string') out.write(piece)
    else for (const p of piece) out.write(p)
  }
  if (format === 'csv') write([...LEAD, ...base.columns].join(',') + '\n')

  const summary = { linhas: 0, encontrados: 0, nao_encontrados: 0, invalidos: 0, em_branco: 0, repetidas: 0 }
  const firstSeen = new Map<string, number>()
  /** A CSV list cut inside a quoted field: what came before is answered, and the summary says where it stopped. */
  let cut = ''
  try {
    for await (const { linha, texto } of lines) {
      summary.linhas++
      const entrada = texto.replace(/^\uFEFF/, '').trim()
      let row: Row
      if (!entrada) {
        summary.em_branco++
        row = { linha, entrada: '', cnpj: null, encontrado: false, erro: { codigo: 'linha_vazia', mensagem: 'linha em branco' } }
      } else {
        const item = itemDoLote(entrada)
        if (item.cnpj === null) {
          summary.invalidos++
          row = { linha, entrada: item.entrada, cnpj: null, encontrado: false, erro: item.erro }
        } else {
          const answer = base.answer(item.cnpj, format)
          if (answer.encontrado) summary.encontrados++
          else summary.nao_encontrados++
          row = { linha, entrada: item.entrada, cnpj: item.cnpj, ...answer }
          const first = firstSeen.get(item.cnpj)
          if (first === undefined) firstSeen.set(item.cnpj, linha)
          else {
            row.repete_linha = first
            summary.repetidas++
          }
        }
      }
      write(format === 'csv' ? csvRow(base, row) : jsonlRow(row))
      if (summary.linhas % 4096 === 0) await out.flush()
    }
  } catch (err) {
    if (!(err instanceof CsvError)) throw err
    cut = `; ${err.message}: o resto do arquivo não foi lido`
  } finally {
    await out.end()
    await base.close()
  }
  bar.done()
  if (!quiet) {
    const s = ((performance.now() - started) / 1000).toFixed(1)
    const naoEncontrados = which === 'integridade' ? 'sem apontamento' : 'não encontrados'
    const encontrados = which === 'integridade' ? 'com apontamento' : 'encontrados'
    process.stderr.write(
      `${summary.linhas.toLocaleString('pt-BR')} linhas em ${s} s: ${summary.encontrados.toLocaleString('pt-BR')} ${encontrados}, ` +
        `${summary.nao_encontrados.toLocaleString('pt-BR')} ${naoEncontrados}, ${summary.invalidos.toLocaleString('pt-BR')} inválidos, ` +
        `${summary.em_branco.toLocaleString('pt-BR')} em branco (${summary.repetidas.toLocaleString('pt-BR')} repetidas)${cut}${saida ? ` -> ${saida}` : ''}\n`,
    )
  }
  return 0
}
