// `dadosbr consultar cnpj|integridade --arquivo lista.txt|csv [--saida x.csv|x.jsonl]`: a list of
// CNPJs answered from the local data, no server and no payment (researchers, CI). Each input line
// gets an output row, in order: the answer /v1/cnpj/empresa/{cnpj} or /v1/integridade/consulta/{cnpj}
// gives, or why not (invalid, not found, blank line); repeated CNPJs are answered again and say the
// line they repeat. Progress with ETA on stderr, a summary at the end; exit 0 unless the command
// itself is misused (no --arquivo, an unreadable file, an output of unknown kind, no data built).
// A long list is answered by helper processes, two per core up to 4 (consultar-parts.ts): this process
// reads the list and writes the rows in order, they look the CNPJs up and write their answers.
import { closeSync, existsSync, openSync, readSync, statSync, truncateSync } from 'node:fs'
import { dirname, extname, resolve } from 'node:path'
import { progress } from '../../ingest/lib/progress'
import { itemDoLote } from '../core/lote'
import { CsvError, csvRows, decodeText, sniffEncoding } from '../core/text/csv'
import { normalizeHeader } from '../core/text/header'
import { parseArgs, usage, UsageError, type FlagSpec } from './args'
import { cnpjBase, CSV_DIALECTS, csvField, integridadeBase, type Base, type CsvDialect, type Format } from './consultar-bases'
import { machineCores } from '../core/cores'
import { cachedShare, prewarm } from '../core/stores/prewarm'
import { localAnswers, partAnswers, type AnswerText, type Answers } from './consultar-parts'

const SPECS: FlagSpec[] = [
  { name: '--arquivo', value: true, help: 'a lista: .txt (um CNPJ por linha) ou .csv (a coluna cujo cabeçalho tem CNPJ, senão a que traz CNPJs); obrigatória' },
  { name: '--saida', value: true, help: 'onde escrever: x.jsonl (uma linha JSON por linha da lista) ou x.csv (colunas planas); sem ela, JSONL na saída padrão' },
  { name: '--excel', value: false, help: 'com --saida x.csv: um CSV para o Excel em português (separado por ;, UTF-8 com BOM, CNPJ e CEP com máscara, capital com vírgula)' },
  { name: '--data', value: true, help: 'pasta dos dados (padrão ./data) [DADOSBR_DATA]' },
  { name: '--quiet', value: false, help: 'sem barra de progresso nem resumo' },
  { name: '--processos', value: true, help: 'processos que consultam a base (padrão: dois por núcleo, até 4, numa lista de mais de 1 MB, senão 1)' },
]

export const CONSULTAR_HELP = usage(
  'dadosbr consultar: responde uma lista de CNPJs com os dados locais, sem servidor e sem pagamento.',
  'dadosbr consultar cnpj|integridade --arquivo LISTA [--saida SAIDA.csv [--excel]|SAIDA.jsonl] [--data DIR]',
  SPECS,
  'cnpj: o cartão de cada CNPJ (o mesmo de /v1/cnpj/empresa/{cnpj}); integridade: a triagem nas cinco listas\n' +
    '(a mesma de /v1/integridade/consulta/{cnpj}). Uma linha de saída por linha da lista, na mesma ordem, com\n' +
    'linha, entrada, cnpj, encontrado e o resultado ou o erro (cnpj_invalido, nao_encontrado, linha_vazia);\n' +
    'CNPJs com ou sem pontuação; linhas repetidas são respondidas de novo e dizem qual linha repetem.\n' +
    'No fim, um resumo: encontrados, não encontrados, inválidos, em branco. Sai com 0 mesmo com CNPJs\n' +
    'inválidos ou ausentes; só um uso errado (sem --arquivo, arquivo ilegível, base não construída) sai com 2.\n' +
    'Uma lista longa (nacionalmente, mais de ~200 mil linhas) lê as fichas do cadastro de ponta a ponta enquanto\n' +
    'responde, se não estão na memória: ler de uma vez custa menos ao disco que ler cada cartão ao acaso.',
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
  /** The answer as CSV text: its cells, in the base's `columns` order, joined (--saida x.csv); bytes from a helper process. */
  celulas?: string | Uint8Array
  /** Whether the answer is still to come (a valid CNPJ). */
  pergunta?: boolean
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

/** Records read before the CNPJ column of a .csv without a CNPJ header is chosen. */
const SNIFF_RECORDS = 50

/**
 * The CNPJ field of each record of a .csv list: `;` or `,` (whichever the first line has more of).
 * The column whose header names CNPJ; without one, the column where most of the first records hold
 * a valid CNPJ (the first column when none does), and a first record whose cell there has no digit
 * is a header. Numbered as lines of the file (the header is line 1).
 */
async function* csvLines(chunks: AsyncIterable<string>, firstLine: string): AsyncGenerator<{ linha: number; texto: string }> {
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ','
  const rows = csvRows(chunks, delimiter)[Symbol.asyncIterator]()
  const first: string[][] = []
  let done = false
  // A file cut within the first records: those before the cut are still answered, then the error.
  let cut: unknown = null
  while (first.length < SNIFF_RECORDS) {
    let next: IteratorResult<string[]>
    try {
      next = await rows.next()
    } catch (err) {
      cut = err
      next = { done: true, value: undefined }
    }
    if (next.done) {
      done = true
      break
    }
    first.push(next.value)
  }
  let column = first[0]?.findIndex((h) => normalizeHeader(h).includes('CNPJ')) ?? -1
  let linha = 0
  if (column >= 0) {
    // The header names the column; it is not a line of the list.
    first.shift()
    linha = 1
  } else {
    const valid = (cell: string | undefined) => cell !== undefined && cnpjDaPlanilha(cell.trim()).cnpj !== null
    const width = Math.max(0, ...first.map((r) => r.length))
    let best = 0
    column = 0
    for (let c = 0; c < width; c++) {
      const n = first.filter((r) => valid(r[c])).length
      if (n > best) [best, column] = [n, c]
    }
    // A header: text in that column, and no digit (a blank cell is a blank line of the list, answered as such).
    if (best > 0 && first[0] && /\S/.test(first[0][column] ?? '') && !/\d/.test(first[0][column] ?? '')) {
      first.shift()
      linha = 1
    }
  }
  for (const row of first) yield { linha: ++linha, texto: row[column] ?? '' }
  if (cut) throw cut
  if (done) return
  for (let next = await rows.next(); !next.done; next = await rows.next()) yield { linha: ++linha, texto: next.value[column] ?? '' }
}

/**
 * A list item as a spreadsheet gives it: the CNPJ rule of the bulk routes, and a number of 12 or 13
 * digits (a CNPJ whose leading zeros the spreadsheet dropped: 00638595000105 shown as
 * 638595000105) taken with its zeros back when its check digits then hold. A leading apostrophe
 * (Excel's mark for a number kept as text) is dropped.
 */
export function cnpjDaPlanilha(text: string) {
  const entrada = text.trim()
  const item = itemDoLote(entrada.replace(/^'/, ''))
  if (item.cnpj === null && /^\d{12,13}$/.test(item.entrada)) {
    const padded = itemDoLote(item.entrada.padStart(14, '0'))
    if (padded.cnpj !== null) return { entrada, cnpj: padded.cnpj }
  }
  return { ...item, entrada }
}

/** The byte order marks a list may start with (Windows' "Unicode" text is UTF-16LE). */
function encodingOf(head: Uint8Array): 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be' {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8'
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le'
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be'
  // Else UTF-8 when the text is, cp1252 (Excel's) otherwise.
  return sniffEncoding(head)
}

/** A spreadsheet saved in its own binary format (xlsx and ods are zips, xls an OLE file): not a list to read line by line. */
function binarySpreadsheet(path: string): boolean {
  if (/\.(xlsx|xlsm|xls|ods|numbers)$/i.test(path)) return true
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(4)
    const n = readSync(fd, head, 0, 4, 0)
    return n === 4 && (head.readUInt32BE(0) === 0x504b0304 || head.readUInt32BE(0) === 0xd0cf11e0)
  } finally {
    closeSync(fd)
  }
}

/** The file's bytes, counted into the progress bar as they are read. */
async function* counted(path: string, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of Bun.file(path).stream()) {
    onBytes(chunk.length)
    yield chunk
  }
}

// ---- the output ----

const LEAD = ['linha', 'entrada', 'cnpj', 'encontrado', 'erro_codigo', 'erro_mensagem', 'repete_linha']

function jsonlRow(r: Row): string | Uint8Array[] {
  const { resultadoJson, ...rest } = r
  if (!resultadoJson) return JSON.stringify(rest) + '\n'
  // The route's own JSON (what it sends), after the row's fields.
  const head = JSON.stringify(rest).slice(0, -1)
  return typeof resultadoJson === 'string' ? `${head},"resultado":${resultadoJson}}\n` : [Buffer.from(`${head},"resultado":`), resultadoJson, Buffer.from('}\n')]
}

function csvRow(d: CsvDialect, noCells: string, r: Row): string | Uint8Array[] {
  const lead = [String(r.linha), r.entrada, d.cell('cnpj', r.cnpj ?? ''), String(r.encontrado), r.erro?.codigo ?? '', r.erro?.mensagem ?? '', r.repete_linha ? String(r.repete_linha) : '']
  const start = `${lead.map((v) => csvField(v, d.separator)).join(d.separator)}${d.separator}`
  const cells = r.celulas ?? noCells
  return typeof cells === 'string' ? `${start}${cells}${d.newline}` : [Buffer.from(start), cells, Buffer.from(d.newline)]
}

/** Lines (the header included) Excel opens from a CSV: the rows of a sheet. */
const EXCEL_MAX_ROWS = 1_048_576

/** Lines a batch of the list holds: the unit sent to a helper process. */
const BATCH_LINES = 1024
/** A list above this many bytes (~60 000 CNPJs) is answered by helper processes by default. */
const PARTS_FROM_BYTES = 1 << 20
/** Helper processes at most by default (each holds the base open: the memory of a long list). */
const HELPERS_MAX = 4

/**
 * The processes answering a list of `bytes` by default: 1 (this one) for a short list, else two
 * helpers per core up to HELPERS_MAX. A card not in the page cache is a read from disk, and two
 * helpers a core keep more reads in flight (docs/desempenho.md: a national million from a cold
 * cache in 99-102 s with 4 helpers on 2 cores, 141-284 s with 2; 41 against 36 s warm). Each holds
 * the base open (~0.4 GB nationally): 4 peaked at 1.76 GB, 8 at 3.1 GB.
 */
export function defaultHelpers(bytes: number, cores: number): number {
  return bytes > PARTS_FROM_BYTES ? Math.min(2 * cores, HELPERS_MAX) : 1
}

/** Bytes a line of a list takes, about (14 digits and a line break; punctuated ones more). */
const LIST_BYTES_PER_LINE = 15
/** SQLite's page: a card not in memory costs one page read at random. */
const PAGE_BYTES = 4096
/**
 * How many pages a sequential read brings in for the time of one page read at random, with margin:
 * measured on this machine's disk, 520-860 MB/s front to back (13.5 GB in 26 s) against ~10 000
 * random 4 KB reads a second with four helpers (a national million from a cold cache in 99-102 s), 13-21.
 */
const SEQUENTIAL_PAGES_PER_RANDOM_READ = 16

/** The share of sampled pages found in memory above which the card file counts as cached (a few samples may be slowed by other work). */
const IN_MEMORY_SHARE = 0.9

/**
 * Whether a list of `listBytes` should have the card file (`fileBytes`) read whole, front to back,
 * while it is answered: when its CNPJs would read at random more than a 16th of the file's pages,
 * the sequential read costs less than their share of it, and every card after it is in memory.
 * Nationally (13.5 GB of cards) from ~200 000 lines. A file already in memory is not read again (consultar).
 */
export function readsWholeFirst(listBytes: number, fileBytes: number): boolean {
  return (listBytes / LIST_BYTES_PER_LINE) * SEQUENTIAL_PAGES_PER_RANDOM_READ >= fileBytes / PAGE_BYTES
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
  if (binarySpreadsheet(path)) throw new UsageError(`--arquivo ${arquivo}: é uma planilha no formato do Excel ou do LibreOffice; salve-a como CSV (ou a coluna de CNPJs como .txt) e rode de novo`)
  const saida = flags['--saida'] as string | undefined
  const excel = Boolean(flags['--excel'])
  const ext = saida === undefined ? null : extname(saida).toLowerCase()
  const format: Format | null = ext === null || ext === '.jsonl' ? 'jsonl' : ext === '.csv' ? (excel ? 'excel' : 'csv') : null
  if (!format) throw new UsageError(`--saida ${saida}: use um nome terminado em .csv ou .jsonl`)
  if (excel && format !== 'excel') throw new UsageError(`--excel vale para um CSV: use --saida com um nome terminado em .csv`)
  const outPath = saida === undefined ? null : resolve(saida)
  let truncateOutput = false
  if (outPath !== null) {
    // Checked before the base is opened: a wrong output is a usage error, found in a second.
    if (!existsSync(dirname(outPath)) || !statSync(dirname(outPath)).isDirectory()) throw new UsageError(`--saida ${saida}: a pasta ${dirname(outPath)} não existe; crie-a ou escolha outra`)
    // The same file by device and inode: a symlink, a hard link or another spelling of the list (a case-insensitive disk) too.
    const out = existsSync(outPath) ? statSync(outPath) : null
    const list = statSync(path)
    if (out && (out.isDirectory() || (out.dev === list.dev && out.ino === list.ino)))
      throw new UsageError(`--saida ${saida}: ${out.isDirectory() ? 'é uma pasta' : 'é o próprio arquivo da lista'}; escolha outro nome`)
    // Bun's file writer writes over an existing file without cutting it (an older, longer output
    // would keep its tail): a regular file is cut when the writing starts; a device or a pipe is not.
    truncateOutput = out?.isFile() ?? false
  }
  const quiet = Boolean(flags['--quiet'])
  const dataDir = String(flags['--data'] ?? process.env.DADOSBR_DATA ?? './data')
  const processosFlag = flags['--processos']
  if (processosFlag !== undefined && !/^[1-9]\d?$/.test(String(processosFlag))) throw new UsageError(`--processos ${processosFlag}: um número de 1 a 99`)

  let base: Base
  try {
    base = which === 'cnpj' ? await cnpjBase(dataDir) : await integridadeBase(dataDir)
  } catch (err) {
    throw new UsageError(`${err instanceof Error ? err.message : String(err)} (--data ${dataDir})`)
  }
  const started = performance.now()
  const size = statSync(path).size
  const parts = processosFlag !== undefined ? Number(processosFlag) : defaultHelpers(size, machineCores())
  // In the background, on the native pool (the OS keeps the pages; this process does not grow),
  // unless the file is in memory already (read again from there, 13.5 GB cost the helpers' cores
  // 8-13 s of a 37 s national million): a national million from a cold cache went from 74-91 s of
  // random reads to 45-67 s (docs/desempenho.md).
  const readAhead = base.randomReads && readsWholeFirst(size, statSync(base.randomReads).size) && cachedShare(base.randomReads) < IN_MEMORY_SHARE ? prewarm(base.randomReads) : null
  const stopReadAhead = async () => {
    readAhead?.stop()
    await readAhead?.done.catch(() => {})
  }
  let answers: Answers
  try {
    answers = parts > 1 ? await partAnswers(which, format, dataDir, parts, base.build) : localAnswers(base, format)
  } catch (err) {
    await stopReadAhead()
    await base.close()
    throw err
  }
  // With helpers, this process only needed the base to check the data and name the columns: its
  // files and caches go back now (~0.2-0.3 GB of the command's peak at 10 M companies).
  const columns = base.columns
  const closeBase = (() => {
    let closed: Promise<void> | null = null
    return () => (closed ??= base.close())
  })()
  if (parts > 1) await closeBase()
  const bar = progress(`consultar ${which}`, size, { quiet })
  const head = new Uint8Array(await Bun.file(path).slice(0, 1 << 20).arrayBuffer())
  const encoding = encodingOf(head)
  const chunks = decodeText(counted(path, (n) => bar.add(n)), encoding)
  const firstLine = new TextDecoder(encoding).decode(head.subarray(0, 4096)).split(/\r?\n/)[0] ?? ''
  const lines = extname(path).toLowerCase() === '.csv' ? csvLines(chunks, firstLine) : textLines(chunks)
  if (truncateOutput) truncateSync(outPath!, 0)
  const out = outPath !== null ? Bun.file(outPath).writer({ highWaterMark: 1 << 20 }) : Bun.stdout.writer({ highWaterMark: 1 << 20 })
  const write = (piece: string | Uint8Array[]) => {
    if (typeof piece === 'string') out.write(piece)
    else for (const p of piece) out.write(p)
  }
  const dialect = format === 'jsonl' ? null : CSV_DIALECTS[format]
  if (dialect) write(dialect.bom + [...LEAD, ...columns].join(dialect.separator) + dialect.newline)
  const noCells = dialect ? columns.map(() => '').join(dialect.separator) : ''

  const summary = { linhas: 0, encontrados: 0, nao_encontrados: 0, invalidos: 0, em_branco: 0, repetidas: 0 }
  const firstSeen = new Map<string, number>()
  /**
   * Batches of lines, each with its answers to come (from this process or a helper): written in
   * the list's order, while a few more are being answered.
   */
  const queue: { rows: Row[]; answers: Promise<AnswerText[]> }[] = []
  let batch: Row[] = []
  const send = () => {
    if (!batch.length) return
    const pending = answers.ask(batch.filter((r) => r.pergunta).map((r) => r.cnpj!))
    // Awaited in turn by writeFirst; marked handled now, so a helper's death is reported once, not per batch it held.
    pending.catch(() => {})
    queue.push({ rows: batch, answers: pending })
    batch = []
  }
  const writeFirst = async () => {
    const { rows, answers: pending } = queue.shift()!
    const got = await pending
    let k = 0
    for (const row of rows) {
      if (row.pergunta) {
        const a = got[k++]!
        row.encontrado = a.encontrado
        if (a.erro) row.erro = a.erro
        if (a.texto !== undefined) {
          if (dialect) row.celulas = a.texto
          else row.resultadoJson = a.texto
        }
        delete row.pergunta
        if (row.encontrado) summary.encontrados++
        else summary.nao_encontrados++
      }
      write(dialect ? csvRow(dialect, noCells, row) : jsonlRow(row))
    }
    await out.flush()
  }
  /** Stops everything on an error (a helper's death, a write that failed): the rows written stay, whole. */
  const fail = async (err: unknown): Promise<never> => {
    await answers.stop()
    await out.end()
    await closeBase()
    await stopReadAhead()
    throw err
  }
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
        const item = cnpjDaPlanilha(entrada)
        if (item.cnpj === null) {
          summary.invalidos++
          row = { linha, entrada: item.entrada, cnpj: null, encontrado: false, erro: item.erro }
        } else {
          // (erro first, as a place: a CNPJ not found gets it after repete_linha is set, and keeps the keys' order.)
          row = { linha, entrada: item.entrada, cnpj: item.cnpj, encontrado: false, erro: undefined, pergunta: true }
          const first = firstSeen.get(item.cnpj)
          if (first === undefined) firstSeen.set(item.cnpj, linha)
          else {
            row.repete_linha = first
            summary.repetidas++
          }
        }
      }
      batch.push(row)
      if (batch.length === BATCH_LINES) {
        send()
        // Each helper keeps two batches in hand.
        while (queue.length > 2 * answers.parts) await writeFirst()
      }
    }
  } catch (err) {
    if (!(err instanceof CsvError)) return fail(err)
    cut = `; ${err.message}: o resto do arquivo não foi lido`
  }
  try {
    send()
    while (queue.length) await writeFirst()
  } catch (err) {
    return fail(err)
  }
  try {
    await answers.close()
  } finally {
    await out.end()
    await closeBase()
    await stopReadAhead()
  }
  bar.done()
  // Excel opens a sheet's first 1 048 576 lines and drops the rest without asking (LibreOffice warns).
  if (format === 'excel' && summary.linhas + 1 > EXCEL_MAX_ROWS)
    process.stderr.write(
      `aviso: ${saida} tem ${(summary.linhas + 1).toLocaleString('pt-BR')} linhas e o Excel abre só as primeiras ${EXCEL_MAX_ROWS.toLocaleString('pt-BR')}: ` +
        `divida a lista (split -l 1000000) ou use --saida x.jsonl\n`,
    )
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
