// Where `dadosbr consultar` gets its answers (consultar.ts): from the base this process opened, or
// from helper processes (`dadosbr _consultar-parte`, this program again), two per core up to 4,
// each with the base open on its own. A card's lookup and its JSON or CSV take ~50 µs of CPU; one process
// answered a million CNPJs of a 10 M registry in ~63 s, the list's own work (reading, checking,
// writing the rows in order) staying in the first process. A helper gets a batch of CNPJs as one
// line (comma-separated) and answers with one JSON line: [found (1/0), text, error code, message]
// per CNPJ, the text being the card's JSON or its CSV cells already joined.
import type { Subprocess } from 'bun'
import { childEnv, dieWithParent, selfCommand } from '../core/self'
import { parseArgs, UsageError, type FlagSpec } from './args'
import { cnpjBase, CSV_DIALECTS, csvField, integridadeBase, type Base, type Format } from './consultar-bases'

/** An answer as the output writes it: the JSON of the card or screening, or its CSV cells in the output's dialect, joined. */
export interface AnswerText {
  encontrado: boolean
  texto?: string | Uint8Array
  erro?: { codigo: string; mensagem: string }
}

/** Answers to batches of valid CNPJs, in the order asked; `parts`: the processes answering. */
export interface Answers {
  parts: number
  ask(cnpjs: string[]): Promise<AnswerText[]>
  /** The end of the list: waits for the answering processes; throws when one failed. */
  close(): Promise<void>
  /** Stops at once (an error elsewhere). */
  stop(): Promise<void>
}

export function answerText(base: Base, format: Format, cnpj: string): AnswerText {
  const a = base.answer(cnpj, format)
  if (!a.celulas || format === 'jsonl') return { encontrado: a.encontrado, erro: a.erro, texto: a.resultadoJson }
  const { cell, separator } = CSV_DIALECTS[format]
  return { encontrado: a.encontrado, erro: a.erro, texto: a.celulas.map((v, i) => csvField(cell(base.columns[i]!, v), separator)).join(separator) }
}

/** Answers from the base opened in this process. */
export function localAnswers(base: Base, format: Format): Answers {
  return { parts: 1, ask: async (cnpjs) => cnpjs.map((c) => answerText(base, format, c)), close: async () => {}, stop: async () => {} }
}

/**
 * A batch's answers on the wire: one line of JSON, [found (1/0), error code, message, text length]
 * per CNPJ, then the texts one after another (a card's JSON or CSV cells, which may hold line
 * breaks), their lengths in bytes (UTF-8). The texts stay bytes from the helper to the output:
 * decoding them to strings here and encoding them again to write was most of this process's CPU
 * (a national card is ~1.7 kB; a million of them, 1.7 GB each way).
 */
type Head = [number, string | null, string | null, number]

/** A pipe write's result, its failure handled (a dead helper's pipe: its exit says why). */
const quiet = (r: unknown) => void (r instanceof Promise && r.catch(() => {}))

/**
 * Reads a helper's output: first the build it opened (a JSON string on a line), then its batches,
 * each handed over whole, each text a view of the batch's bytes (copied once when the batch spans
 * the chunks read).
 */
async function eachBatch(stream: ReadableStream<Uint8Array>, onBuild: (build: string) => void, onBatch: (answers: AnswerText[]) => void): Promise<void> {
  const decoder = new TextDecoder()
  const chunks: Uint8Array[] = []
  let held = 0
  let head: Head[] | null = null
  let need = 0
  /** The first `n` bytes held, taken off. */
  const take = (n: number): Uint8Array => {
    held -= n
    const first = chunks[0]!
    if (first.length >= n) {
      if (first.length === n) chunks.shift()
      else chunks[0] = first.subarray(n)
      return first.subarray(0, n)
    }
    const out = new Uint8Array(n)
    for (let at = 0; at < n; ) {
      const c = chunks[0]!
      const k = Math.min(c.length, n - at)
      out.set(k === c.length ? c : c.subarray(0, k), at)
      at += k
      if (k === c.length) chunks.shift()
      else chunks[0] = c.subarray(k)
    }
    return out
  }
  /** Bytes held before the first line break, or -1. */
  const lineLength = (): number => {
    let before = 0
    for (const c of chunks) {
      const i = c.indexOf(10)
      if (i >= 0) return before + i
      before += c.length
    }
    return -1
  }
  for await (const chunk of stream) {
    chunks.push(chunk)
    held += chunk.length
    for (;;) {
      if (!head) {
        const n = lineLength()
        if (n < 0) break
        const line = JSON.parse(decoder.decode(take(n + 1))) as Head[] | string
        if (typeof line === 'string') {
          onBuild(line)
          continue
        }
        head = line
        need = head.reduce((n, h) => n + h[3], 0)
      }
      if (held < need) break
      const body = need ? take(need) : new Uint8Array(0)
      let at = 0
      onBatch(head.map(([found, codigo, mensagem, length]) => {
        const a: AnswerText = { encontrado: found === 1 }
        if (codigo !== null) a.erro = { codigo, mensagem: mensagem ?? '' }
        if (length) a.texto = body.subarray(at, (at += length))
        return a
      }))
      head = null
    }
  }
}

/** The lines of a byte stream (UTF-8), each handed over whole. */
async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder()
  let pieces: string[] = []
  for await (const chunk of stream) {
    let text = decoder.decode(chunk, { stream: true })
    let at: number
    while ((at = text.indexOf('\n')) >= 0) {
      pieces.push(text.slice(0, at))
      onLine(pieces.join(''))
      pieces = []
      text = text.slice(at + 1)
    }
    if (text) pieces.push(text)
  }
}

/**
 * Answers from `count` helper processes, the batches dealt to them in turn. A helper that dies
 * (killed, out of memory) fails the batches it held: the command stops with one line, it never
 * writes a row without its answer.
 */
export async function partAnswers(which: 'cnpj' | 'integridade', format: Format, dataDir: string, count: number, build: string): Promise<Answers> {
  interface Helper {
    child: Subprocess<'pipe', 'pipe', 'pipe'>
    waiting: { resolve: (a: AnswerText[]) => void; reject: (e: Error) => void }[]
    failed: Error | null
    /** Settles once the helper has exited and what it said is read. */
    gone: Promise<void>
    /** The build it opened, once it says. */
    opened: Promise<string>
  }
  const helpers: Helper[] = []
  for (let k = 0; k < count; k++) {
    const child = Bun.spawn([...selfCommand(), '_consultar-parte', which, '--formato', format, '--data', dataDir], { env: childEnv(), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
    let opened!: (build: string) => void
    let notOpened!: (e: Error) => void
    const h: Helper = { child, waiting: [], failed: null, gone: Promise.resolve(), opened: new Promise((ok, no) => ((opened = ok), (notOpened = no))) }
    void h.opened.catch(() => {})
    const fail = (e: Error) => {
      h.failed ??= e
      notOpened(h.failed)
      for (const w of h.waiting.splice(0)) w.reject(h.failed)
    }
    // Output that breaks the framing fails the helper's batches and stops it, rather than leaving them waiting.
    const read = eachBatch(child.stdout, opened, (got) => h.waiting.shift()?.resolve(got)).catch((e: unknown) => {
      fail(new Error(`um processo de consulta respondeu fora do formato (${e instanceof Error ? e.message : String(e)}); rode de novo, ou com --processos 1`))
      child.kill()
    })
    // Read as it comes: a helper that wrote more than a pipe holds would otherwise block.
    const said = new Response(child.stderr).text()
    h.gone = child.exited.then(async (code) => {
      await read
      if (code === 0 && !h.waiting.length && !h.failed) return
      const last = (await said).trim().split('\n').at(-1)
      fail(new Error(`um processo de consulta saiu (${child.signalCode ?? `código ${code}`})${last ? `: ${last}` : ''}; rode de novo, ou com --processos 1`))
    })
    helpers.push(h)
  }
  const stop = async () => {
    for (const h of helpers) h.child.kill()
    await Promise.all(helpers.map((h) => h.gone))
  }
  // Every helper must answer from the build this process checked: a month swapped in while they
  // opened it would mix two months in one output.
  try {
    const builds = await Promise.all(helpers.map((h) => h.opened))
    if (builds.some((b) => b !== build)) throw new Error('o cadastro em uso mudou (um mês novo entrou) enquanto a consulta começava; rode de novo')
  } catch (err) {
    await stop()
    throw err
  }
  let next = 0
  return {
    parts: count,
    ask(cnpjs) {
      const h = helpers[next++ % count]!
      if (h.failed) return Promise.reject(h.failed)
      return new Promise((resolve, reject) => {
        h.waiting.push({ resolve, reject })
        // A helper that just died makes the pipe fail (EPIPE) now or on a later flush: its exit
        // fails its batches (above), so the write's own error is only swallowed here.
        try {
          quiet(h.child.stdin.write(cnpjs.join(',') + '\n'))
          quiet(h.child.stdin.flush())
        } catch {
          // Same: the exit reports it.
        }
      })
    },
    async close() {
      for (const h of helpers) {
        try {
          quiet(h.child.stdin.end())
        } catch {
          // Already gone: its exit says why.
        }
      }
      await Promise.all(helpers.map((h) => h.gone))
      const failed = helpers.find((h) => h.failed)?.failed
      if (failed) throw failed
    },
    stop,
  }
}

const PART_SPECS: FlagSpec[] = [
  { name: '--formato', value: true, help: 'csv, excel ou jsonl' },
  { name: '--data', value: true, help: 'pasta dos dados' },
]

/** `dadosbr _consultar-parte cnpj|integridade --formato csv|excel|jsonl --data DIR` (internal): a helper process of consultar. */
export async function consultarParte(argv: string[]): Promise<number> {
  // Never outlives the consultar that started it.
  dieWithParent('SIGKILL')
  const { flags, positionals } = parseArgs(argv, PART_SPECS, 1)
  const which = positionals[0]
  const format = flags['--formato']
  if ((which !== 'cnpj' && which !== 'integridade') || (format !== 'csv' && format !== 'excel' && format !== 'jsonl') || typeof flags['--data'] !== 'string') throw new UsageError('uso interno: _consultar-parte cnpj|integridade --formato csv|excel|jsonl --data DIR')
  const base = which === 'cnpj' ? await cnpjBase(flags['--data']) : await integridadeBase(flags['--data'])
  const out = Bun.stdout.writer({ highWaterMark: 1 << 20 })
  const encoder = new TextEncoder()
  const none = new Uint8Array(0)
  out.write(JSON.stringify(base.build) + '\n')
  await out.flush()
  try {
    const lines: string[] = []
    let wake: (() => void) | null = null
    let ended = false
    const reading = eachLine(Bun.stdin.stream(), (line) => {
      lines.push(line)
      wake?.()
    }).finally(() => {
      ended = true
      wake?.()
    })
    for (;;) {
      if (!lines.length) {
        if (ended) break
        await new Promise<void>((r) => (wake = r))
        wake = null
        continue
      }
      const line = lines.shift()!
      const head: Head[] = []
      const texts: Uint8Array[] = []
      for (const cnpj of line ? line.split(',') : []) {
        const a = answerText(base, format, cnpj)
        const bytes = a.texto === undefined ? none : typeof a.texto === 'string' ? encoder.encode(a.texto) : a.texto
        head.push([a.encontrado ? 1 : 0, a.erro?.codigo ?? null, a.erro?.mensagem ?? null, bytes.length])
        texts.push(bytes)
      }
      out.write(JSON.stringify(head) + '\n')
      for (const t of texts) out.write(t)
      await out.flush()
    }
    await reading
  } finally {
    await out.end()
    await base.close()
  }
  return 0
}
