// Where `dadosbr consultar` gets its answers (consultar.ts): from the base this process opened, or
// from helper processes (`dadosbr _consultar-parte`, this program again), one per core, each with
// the base open on its own. A card's lookup and its JSON or CSV take ~50 µs of CPU; one process
// answered a million CNPJs of a 10 M registry in ~63 s, the list's own work (reading, checking,
// writing the rows in order) staying in the first process. A helper gets a batch of CNPJs as one
// line (comma-separated) and answers with one JSON line: [found (1/0), text, error code, message]
// per CNPJ, the text being the card's JSON or its CSV cells already joined.
import type { Subprocess } from 'bun'
import { childEnv, dieWithParent, selfCommand } from '../core/self'
import { parseArgs, UsageError, type FlagSpec } from './args'
import { cnpjBase, csvField, integridadeBase, type Base, type Format } from './consultar-bases'

/** An answer as the output writes it: the JSON of the card or screening, or its CSV cells joined by commas. */
export interface AnswerText {
  encontrado: boolean
  texto?: string | Uint8Array
  erro?: { codigo: string; mensagem: string }
}

/** Answers to batches of valid CNPJs, in the order asked; `parts`: the processes answering. */
export interface Answers {
  parts: number
  ask(cnpjs: string[]): Promise<AnswerText[]>
  close(): Promise<void>
}

export function answerText(base: Base, format: Format, cnpj: string): AnswerText {
  const a = base.answer(cnpj, format)
  return { encontrado: a.encontrado, erro: a.erro, texto: a.celulas ? a.celulas.map(csvField).join(',') : a.resultadoJson }
}

/** Answers from the base opened in this process. */
export function localAnswers(base: Base, format: Format): Answers {
  return { parts: 1, ask: async (cnpjs) => cnpjs.map((c) => answerText(base, format, c)), close: async () => {} }
}

/**
 * A batch's answers on the wire: one line of JSON, [found (1/0), error code, message, text length]
 * per CNPJ, then the texts one after another (a card's JSON or CSV cells, which may hold line
 * breaks), their lengths in UTF-16 units. Sent as they are: inside a JSON string each card's
 * quotes would be escaped by the helper and read back here, which cost more than the lookup saved.
 */
type Head = [number, string | null, string | null, number]

/** Reads a helper's batches off its output, each handed over whole (a body is joined once, when all of it is in). */
async function eachBatch(stream: ReadableStream<Uint8Array>, onBatch: (answers: AnswerText[]) => void): Promise<void> {
  const decoder = new TextDecoder()
  let pieces: string[] = []
  let held = 0
  let head: Head[] | null = null
  let need = 0
  /** The text held, as one string, after its first `n` units are taken off (returned). */
  const cut = (n: number): string => {
    const all = pieces.length === 1 ? pieces[0]! : pieces.join('')
    const rest = all.slice(n)
    pieces = rest ? [rest] : []
    held = rest.length
    return all.slice(0, n)
  }
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true })
    pieces.push(text)
    held += text.length
    for (;;) {
      if (!head) {
        const all = pieces.length === 1 ? pieces[0]! : pieces.join('')
        const nl = all.indexOf('\n')
        pieces = [all]
        if (nl < 0) break
        head = JSON.parse(cut(nl + 1)) as Head[]
        need = head.reduce((n, h) => n + h[3], 0)
      }
      if (held < need) break
      const body = cut(need)
      let at = 0
      onBatch(head.map(([found, codigo, mensagem, length]) => {
        const a: AnswerText = { encontrado: found === 1 }
        if (codigo !== null) a.erro = { codigo, mensagem: mensagem ?? '' }
        if (length) a.texto = body.slice(at, (at += length))
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
export async function partAnswers(which: 'cnpj' | 'integridade', format: Format, dataDir: string, count: number): Promise<Answers> {
  interface Helper {
    child: Subprocess<'pipe', 'pipe', 'pipe'>
    waiting: { resolve: (a: AnswerText[]) => void; reject: (e: Error) => void }[]
    failed: Error | null
    /** Settles once the helper has exited and what it said is read. */
    gone: Promise<void>
  }
  const helpers: Helper[] = []
  for (let k = 0; k < count; k++) {
    const child = Bun.spawn([...selfCommand(), '_consultar-parte', which, '--formato', format, '--data', dataDir], { env: childEnv(), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
    const h: Helper = { child, waiting: [], failed: null, gone: Promise.resolve() }
    const read = eachBatch(child.stdout, (got) => h.waiting.shift()?.resolve(got))
    // Read as it comes: a helper that wrote more than a pipe holds would otherwise block.
    const said = new Response(child.stderr).text()
    h.gone = child.exited.then(async (code) => {
      await read.catch(() => {})
      if (code === 0 && !h.waiting.length) return
      const last = (await said).trim().split('\n').at(-1)
      h.failed = new Error(`um processo de consulta saiu (${child.signalCode ?? `código ${code}`})${last ? `: ${last}` : ''}; rode de novo, ou com --processos 1`)
      for (const w of h.waiting.splice(0)) w.reject(h.failed)
    })
    helpers.push(h)
  }
  let next = 0
  return {
    parts: count,
    ask(cnpjs) {
      const h = helpers[next++ % count]!
      if (h.failed) return Promise.reject(h.failed)
      return new Promise((resolve, reject) => {
        h.waiting.push({ resolve, reject })
        h.child.stdin.write(cnpjs.join(',') + '\n')
        h.child.stdin.flush()
      })
    },
    async close() {
      for (const h of helpers) {
        try {
          h.child.stdin.end()
        } catch {
          // Already gone: its exit says why.
        }
      }
      await Promise.all(helpers.map((h) => h.gone))
      const failed = helpers.find((h) => h.failed)?.failed
      if (failed) throw failed
    },
  }
}

const PART_SPECS: FlagSpec[] = [
  { name: '--formato', value: true, help: 'csv ou jsonl' },
  { name: '--data', value: true, help: 'pasta dos dados' },
]

/** `dadosbr _consultar-parte cnpj|integridade --formato F --data DIR` (internal): a helper process of consultar. */
export async function consultarParte(argv: string[]): Promise<number> {
  // Never outlives the consultar that started it.
  dieWithParent('SIGKILL')
  const { flags, positionals } = parseArgs(argv, PART_SPECS, 1)
  const which = positionals[0]
  const format = flags['--formato']
  if ((which !== 'cnpj' && which !== 'integridade') || (format !== 'csv' && format !== 'jsonl') || typeof flags['--data'] !== 'string') throw new UsageError('uso interno: _consultar-parte cnpj|integridade --formato csv|jsonl --data DIR')
  const base = which === 'cnpj' ? await cnpjBase(flags['--data']) : await integridadeBase(flags['--data'])
  const out = Bun.stdout.writer({ highWaterMark: 1 << 20 })
  const decoder = new TextDecoder()
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
      const texts: string[] = []
      for (const cnpj of line ? line.split(',') : []) {
        const a = answerText(base, format, cnpj)
        const text = a.texto === undefined ? '' : typeof a.texto === 'string' ? a.texto : decoder.decode(a.texto)
        head.push([a.encontrado ? 1 : 0, a.erro?.codigo ?? null, a.erro?.mensagem ?? null, text.length])
        texts.push(text)
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
