// Docs that cannot rot: every fenced `sh` block of the README, docs/ and data/README.md is run, in
// document order, as a reader following it would, in a fresh folder:
//   - `dadosbr` is this checkout's CLI on the PATH; `dist/` and `scripts/` are the repository's; `make` is the
//     repository's Makefile (make -C), with DATA and PORT pointing at the reader's folder and a free port;
//   - the official sources the commands download from are local stand-ins with real-format files
//     (test/users/upstreams.ts); `~/dumps/2026-08` holds the registry sample's 37 zips;
//   - the placeholders the docs ask the reader to fill ($MEU_ENDERECO, $TOKEN_DO_FACILITADOR,
//     $CHAVE_DO_GAS, $CHAVE_DA_CARTEIRA) are set to test values;
//   - a line that starts a server (`dadosbr serve`, `make run`) runs in the background and the block goes on
//     once /v1/health answers, as the reader's other terminal; `localhost:8080` is the port it got; the server
//     stays up until the next one starts or the document ends;
//   - `make test`, `make data` and `make bench` are checked with `make -n` (make test is what runs this test;
//     make data downloads every official source, each tested against its stand-in by its dataset's tests
//     and by test/users/rebuild.test.ts; make bench takes an hour);
//   - a `curl` block followed by a `json` block must print that JSON.
// A block whose first line is `# exemplo ilustrativo: <why>` is not run (it needs root, a cloud account or
// the live sources); its dadosbr commands' options are still checked against the program's --help. Such
// blocks are few, and each says why.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers'
import { dadosbrShim, startUpstreams, type Upstreams } from './upstreams'

const ROOT = join(import.meta.dir, '..', '..')
const ILLUSTRATIVE = /^# exemplo ilustrativo: \S/
/** Most illustrative blocks allowed across the docs: an exception, not a way out. */
const MAX_ILLUSTRATIVE = 6

export interface Block {
  file: string
  line: number
  code: string
  /** The JSON block right after it, when there is one. */
  expected?: string
}

export function shBlocks(file: string): Block[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const blocks: Block[] = []
  for (const m of text.matchAll(/```sh\n([\s\S]*?)```(?:\n```json\n([\s\S]*?)```)?/g))
    blocks.push({ file, line: text.slice(0, m.index).split('\n').length, code: m[1]!, expected: m[2] })
  return blocks
}

/** The documents in reading order: the README, then docs/ alphabetically, then data/README.md. */
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`), 'data/README.md']
const ALL = FILES.flatMap(shBlocks)

/** Joins backslash continuations, so one command is one line. */
const logicalLines = (code: string) => code.replace(/\s*\\\n\s*/g, ' ').split('\n')
/** A command line, after any VAR=value (quoted values included), that starts a server. */
const SERVER = /^(?:\w+=(?:"(?:[^"\\]|\\.)*"|'[^']*'|\S+)\s+)*(?:make run\b|(?:dist\/)?dadosbr serve\b)/
const CHECKED_MAKE = /^make (test|data|bench)\b.*$/

/** The block as the runner executes it (see the header), with the reader's server on `port`. */
export function transform(code: string, port: number): string {
  return logicalLines(code)
    .map((line) => {
      const command = line.trim()
      if (SERVER.test(command)) return `__serve ${JSON.stringify(command.replace(/\s+#.*$/, '').replace(/--port 8080\b/, `--port ${port}`))}`
      // The target exists and is documented (make help lists it): its full run is elsewhere (see the header).
      if (CHECKED_MAKE.test(command)) return command.replace(CHECKED_MAKE, "make help | grep -q '^$1\\b'")
      return line.replace(/localhost:8080/g, `localhost:${port}`)
    })
    .join('\n')
}

const PRELUDE = `set -eu
__serve() {
  __stop
  setsid bash -c "$1" > "$__LOGS/servidor-$(date +%s%N).log" 2>&1 < /dev/null &
  echo $! > "$__SERVER_PID"
  for i in $(seq 1 600); do
    if curl -sf --max-time 10 "localhost:$PORT/v1/health" > /dev/null; then return 0; fi
    kill -0 "$(cat "$__SERVER_PID")" 2> /dev/null || { echo "o servidor saiu: $1" >&2; cat "$__LOGS"/servidor-*.log | tail -5 >&2; return 1; }
    sleep 0.2
  done
  echo "o servidor não respondeu em 120 s: $1" >&2; return 1
}
__stop() {
  if [ -s "$__SERVER_PID" ]; then
    pid=$(cat "$__SERVER_PID"); kill -TERM -- "-$pid" 2> /dev/null || true
    for i in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2> /dev/null || true
    : > "$__SERVER_PID"
  fi
}
`

let upstreams: Upstreams
let reader: string
let env: Record<string, string>
const freePort = () => {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

beforeAll(() => {
  upstreams = startUpstreams()
  reader = tempDir('dadosbr-leitor-')
  const bin = join(reader, '.bin')
  mkdirSync(bin)
  dadosbrShim(bin)
  // bun for data/README.md's one-liner; make runs the repository's Makefile.
  writeFileSync(join(bin, 'bun'), `#!/bin/sh\nexec "${process.execPath}" "$@"\n`, { mode: 0o755 })
  writeFileSync(join(bin, 'make'), `#!/bin/sh\nexec /usr/bin/make --no-print-directory -C "${ROOT}" "$@"\n`, { mode: 0o755 })
  const work = join(reader, 'pasta')
  mkdirSync(work)
  symlinkSync(join(ROOT, 'dist'), join(work, 'dist'))
  symlinkSync(join(ROOT, 'scripts'), join(work, 'scripts'))
  const home = join(reader, 'home')
  mkdirSync(join(home, 'dumps'), { recursive: true })
  cpSync(join(ROOT, 'test', 'cnpj', 'fixtures', 'rfb'), join(home, 'dumps', '2026-08'), { recursive: true })
  const logs = join(reader, 'logs')
  mkdirSync(logs)
  env = {
    ...(process.env as Record<string, string>),
    ...upstreams.env,
    HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
    PORT: String(freePort()),
    DATA: join(work, 'data'),
    UV_THREADPOOL_SIZE: '8',
    MEU_ENDERECO: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    TOKEN_DO_FACILITADOR: 'token-de-teste',
    CHAVE_DO_GAS: `0x${'11'.repeat(32)}`,
    CHAVE_DA_CARTEIRA: `0x${'22'.repeat(32)}`,
    __LOGS: logs,
    __SERVER_PID: join(reader, 'servidor.pid'),
    __WORK: work,
  }
  delete env.DADOSBR_DATA
})

const stopServer = () => Bun.spawnSync(['bash', '-c', `${PRELUDE}\n__stop`], { env, cwd: env.__WORK })
afterAll(() => {
  if (env) stopServer()
  upstreams?.close()
})

/** Runs one block in the reader's folder; the output goes through files (a server left running keeps pipes open). */
async function runBlock(block: Block): Promise<{ code: number; out: string; err: string }> {
  const script = join(reader, `bloco-${block.file.replace(/\W/g, '_')}-${block.line}.sh`)
  writeFileSync(script, `${PRELUDE}\n${transform(block.code, Number(env.PORT))}\n`)
  const out = `${script}.out`
  const err = `${script}.err`
  const proc = Bun.spawn(['bash', script], { cwd: env.__WORK, env, stdout: Bun.file(out), stderr: Bun.file(err), stdin: 'ignore' })
  const code = await proc.exited
  return { code, out: readFileSync(out, 'utf8'), err: readFileSync(err, 'utf8') }
}

/** The options of `dadosbr <command>` (and of `dadosbr <command> <base>` for ingest), from its --help. */
/** The options a command's --help lists; once per command (the documents name the same few dozens of times, and each start is a second on a busy machine). */
const helpOptions = new Map<string, Set<string>>()
function optionsOf(words: string[]): Set<string> {
  const key = words.join(' ')
  let known = helpOptions.get(key)
  if (!known) {
    const help = Bun.spawnSync([process.execPath, join(ROOT, 'src', 'cli.ts'), ...words, '--help'], { env: { ...process.env } }).stdout.toString()
    helpOptions.set(key, (known = new Set([...help.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!))))
  }
  return known
}

describe('docs: every sh block', () => {
  test('illustrative blocks are few, and each says why', () => {
    const illustrative = ALL.filter((b) => ILLUSTRATIVE.test(b.code))
    expect(illustrative.length).toBeLessThanOrEqual(MAX_ILLUSTRATIVE)
    for (const b of ALL.filter((b) => b.code.startsWith('# exemplo') && !ILLUSTRATIVE.test(b.code))) throw new Error(`${b.file}:${b.line}: use '# exemplo ilustrativo: <motivo>'`)
  })

  test('the options of every dadosbr command shown (illustrative blocks too) exist', () => {
    for (const b of ALL)
      for (const line of logicalLines(b.code)) {
        const m = /(?:^|\s|\/)dadosbr ([a-z][a-z_-]*)(?=\s|$)((?: [a-z][a-z0-9_-]*)?)([^#|;&]*)/.exec(line)
        if (!m) continue
        const words = m[2]!.trim() && m[1] === 'ingest' ? [m[1]!, m[2]!.trim()] : [m[1]!]
        if (words[1] === 'todas') words.pop()
        const known = optionsOf(words)
        for (const [flag] of m[3]!.matchAll(/--[a-z][a-z0-9-]*/g)) expect(`${b.file}:${b.line} dadosbr ${words.join(' ')} ${flag}: ${known.has(flag) ? 'existe' : 'não existe'}`).toEndWith('existe')
      }
  }, 120_000)

  for (const block of ALL) {
    const first = block.code.split('\n')[0]!
    const title = `${block.file}:${block.line}: ${first.slice(0, 70)}`
    if (ILLUSTRATIVE.test(block.code)) continue
    test(title, async () => {
      const r = await runBlock(block)
      if (r.code !== 0) throw new Error(`saiu com ${r.code}\n--- stderr ---\n${r.err.slice(-3000)}\n--- stdout ---\n${r.out.slice(-1500)}`)
      if (block.expected) expect(JSON.parse(r.out)).toEqual(JSON.parse(block.expected))
      // The server a block started answers; with payments on, a paid route asks for payment.
      if (logicalLines(block.code).some((l) => SERVER.test(l.trim()))) {
        const health = await fetch(`http://127.0.0.1:${env.PORT}/v1/health`).then((x) => x.json() as Promise<{ pagamentos: string }>)
        const paid = await fetch(`http://127.0.0.1:${env.PORT}/v1/cnpj/situacao/33683111000280`)
        expect(paid.status).toBe(health.pagamentos === 'desligados' ? 200 : 402)
      }
      // A document's servers stop with it.
      if (block === ALL.filter((b) => b.file === block.file).at(-1)) stopServer()
    }, 600_000)
  }
})

describe('docs: the runner itself', () => {
  test('servers go to the background, make test/data/bench are looked up in make help, the port is the one given', () => {
    expect(transform('make run     # sobe\nmake test    # tudo', 4321)).toBe(`__serve "make run"\nmake help | grep -q '^test\\b'`)
    expect(transform('X402_PAY_TO=$A dist/dadosbr serve \\\n  --port 8080', 4321)).toBe('__serve "X402_PAY_TO=$A dist/dadosbr serve --port 4321"')
    expect(transform(String.raw`H="{\"a\":\"b c\"}" dadosbr serve`, 4321)).toStartWith('__serve ')
    expect(transform("curl 'localhost:8080/v1/health'", 4321)).toBe("curl 'localhost:4321/v1/health'")
    expect(transform('make build', 4321)).toBe('make build')
  })

  test('the README is among the documents, with a curl block and its answer', () => {
    expect(ALL.filter((b) => b.file === 'README.md' && b.expected).length).toBeGreaterThanOrEqual(5)
    expect(existsSync(join(ROOT, 'docs', 'operacao.md'))).toBe(true)
  })
})

describe('docs/operacao.md: systemd units and timers', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'operacao.md'), 'utf8')
  const units = [...doc.matchAll(/```ini\n# \/etc\/systemd\/system\/(\S+)\n([\s\S]*?)```/g)].map((m) => ({ name: m[1]!, text: m[2]! }))

  test('the service, the ingest template and its timer pass systemd-analyze verify', () => {
    expect(units.map((u) => u.name).sort()).toEqual(['dadosbr-ingest@.service', 'dadosbr-ingest@.timer', 'dadosbr.service'])
    const dir = tempDir('dadosbr-systemd-')
    const bin = dadosbrShim(tempDir('dadosbr-systemd-bin-'))
    for (const u of units) {
      const text = u.text.replaceAll('/usr/local/bin/dadosbr', bin)
      writeFileSync(join(dir, u.name), text)
      // An instance of each template, as systemctl enable dadosbr-ingest@cnpj.timer makes.
      if (u.name.includes('@.')) writeFileSync(join(dir, u.name.replace('@.', '@cnpj.')), text)
    }
    const r = Bun.spawnSync(['systemd-analyze', 'verify', ...['dadosbr.service', 'dadosbr-ingest@cnpj.service', 'dadosbr-ingest@cnpj.timer'].map((n) => join(dir, n))])
    expect(`${r.exitCode} ${r.stderr.toString()}`).toBe('0 ')
  })

  test("every base's calendar in the table is a valid OnCalendar, and every ingest base has a row", () => {
    const rows = [...doc.matchAll(/^\| `([a-z]+)` \| [^|]+ \| `([^`]+)`/gm)].map((m) => ({ base: m[1]!, calendar: m[2]! }))
    const { INGESTS } = require('../../ingest/registry') as typeof import('../../ingest/registry')
    // Datasets refreshed by the server itself (their ingest only refreshes its feeds) need no timer.
    const polled = new Set(['mercado', 'commodities', 'cadeias'])
    expect(rows.map((r) => r.base).sort()).toEqual(INGESTS.map((i) => i.name).filter((n) => !polled.has(n)).sort())
    for (const { calendar } of rows) expect(Bun.spawnSync(['systemd-analyze', 'calendar', calendar]).exitCode).toBe(0)
  })
})

// Leave /tmp/sint (docs/cnpj.md's synth example) as it was found.
const hadSint = existsSync('/tmp/sint')
afterAll(() => {
  if (!hadSint) rmSync('/tmp/sint', { recursive: true, force: true })
})
