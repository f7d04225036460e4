// Where a /v1/cnpj/empresa request's CPU goes under load, part by part: one-process servers that each
// do one more step of the request (return a fixed card, read the card from SQLite, decode its fields,
// write its JSON, send it, the whole app), and one that serves ready JSON bytes from memory touching a
// random page of the card file, the ceiling of a card store that would keep the answer's bytes.
// Each under wrk with 100 000 never-asked CNPJs, the server's CPU divided by its requests, then bare
// Bun with the same wrk list mode (docs/desempenho.md, "O que chegaria aos 50 %").
//   bun bench/empresa-partes.ts --data DIR [--segundos 5] [--so fixo,sqlite,...]
// With --servir VARIANTE: the child serving one variant on a free port (printed on its first line).
import { DuckDBInstance } from '@duckdb/node-api'
import { readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { firstLine, machineLoad, opt, withBareBun, wrk } from './lib'

const data = resolve(opt('--data', ''))
const seconds = Number(opt('--segundos', '5'))
const PREFIX = '/v1/cnpj/empresa/'
const VARIANTS = ['fixo', 'fixo-bytes', 'sqlite', 'sqlite-mesmo', 'campos', 'json', 'cartao', 'servidor', 'pronto'] as const
type Variant = (typeof VARIANTS)[number]
const WHAT: Record<Variant, string> = {
  fixo: 'devolve um cartão fixo (texto)',
  'fixo-bytes': 'devolve um cartão fixo (bytes)',
  sqlite: '+ lê o cartão no SQLite, sem decodificar',
  'sqlite-mesmo': '+ lê sempre o mesmo cartão no SQLite',
  campos: '+ decodifica os campos',
  json: '+ escreve o JSON (sem mandá-lo)',
  cartao: '+ manda o JSON (a rota sem o Elysia)',
  servidor: 'o servidor inteiro (app.handle)',
  pronto: 'JSON pronto em bytes na memória + uma página aleatória das fichas',
}

const serving = opt('--servir', '') as Variant | ''
if (serving) await serve(serving, opt('--lista', ''), opt('--exemplo', ''))
else await measure()

/** The child: one variant's server. */
async function serve(variant: Variant, listFile: string, example: string) {
  const { loadConfig } = await import('../src/core/config')
  const { createLogger } = await import('../src/core/log')
  const { createApp } = await import('../src/app')
  const { storeOf } = await import('../src/core/context')
  const { cartaoJson } = await import('../src/datasets/cnpj/service')
  type Store = import('../src/datasets/cnpj/store').CnpjStore
  type Files = import('../src/datasets/cnpj/store').CnpjFiles
  const app = await createApp(loadConfig({ free: true, dataDir: data, prewarm: '0' }, {}), { log: createLogger('silent') })
  // The month's files, held for the whole run (nothing swaps them here).
  const files = await storeOf<Store>(app.ctx, 'cnpj').use((f: Files) => f)
  const headers = { 'content-type': 'application/json; charset=utf-8' }
  const fixed = cartaoJson(files, example) ?? '{}'
  const fixedBytes = new TextEncoder().encode(fixed)
  const cnpjOf = (url: string) => url.slice(url.indexOf(PREFIX) + PREFIX.length)
  const ready = new Map<string, Uint8Array<ArrayBuffer>>()
  let cardFile: Uint8Array | null = null
  // Each request adds the byte it read here: a sum the engine cannot drop as unused.
  let sink = 0
  if (variant === 'pronto') {
    for (const x of readFileSync(listFile, 'utf8').split('\n')) {
      const json = x && cartaoJson(files, x)
      if (json) ready.set(x, new TextEncoder().encode(json))
    }
    // Bun maps at most 2 GB at a time: the file's first 2 GB stand for it.
    const path = join(data, 'cnpj', 'current', 'fichas.sqlite')
    cardFile = Bun.mmap(path, { offset: 0, size: Math.min(2 ** 31, Bun.file(path).size) } as Parameters<typeof Bun.mmap>[1])
  }
  const handlers: Record<Variant, (r: Request) => Response | Promise<Response>> = {
    fixo: () => new Response(fixed, { headers }),
    'fixo-bytes': () => new Response(fixedBytes, { headers }),
    sqlite: (r) => (files.cards.hasCard(cnpjOf(r.url)), new Response(fixed, { headers })),
    'sqlite-mesmo': () => (files.cards.hasCard(example), new Response(fixed, { headers })),
    campos: (r) => (files.cards.card(cnpjOf(r.url)), new Response(fixed, { headers })),
    json: (r) => (cartaoJson(files, cnpjOf(r.url)), new Response(fixed, { headers })),
    cartao: (r) => new Response(cartaoJson(files, cnpjOf(r.url)) ?? 'null', { headers }),
    servidor: (r) => app.handle(r),
    pronto: (r) => {
      sink += cardFile![Math.floor(Math.random() * cardFile!.length)]!
      return new Response(ready.get(cnpjOf(r.url)) ?? fixedBytes, { headers })
    },
  }
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: handlers[variant] })
  console.log(server.port)
  await Bun.sleep(1e9)
}

/** The parent: each variant's server under wrk, then bare Bun. */
async function measure() {
  const only = opt('--so', VARIANTS.join(',')).split(',') as Variant[]
  const db = await DuckDBInstance.create(join(data, 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
  const c = await db.connect()
  const cnpjs = (await c.runAndReadAll(`SELECT cnpj FROM estabelecimentos USING SAMPLE ${100_000 * (only.length + 1)}`)).getRows().map((r) => String(r[0]))
  c.closeSync()
  db.closeSync()
  let at = 0
  const take = (n: number) => cnpjs.slice(at, (at += n))
  const listFile = join(tmpdir(), `dadosbr-empresa-partes-${process.pid}.txt`)
  console.log(`-- /v1/cnpj/empresa por partes: um processo, wrk 32 conexões, ${seconds} s, 100 000 CNPJs nunca pedidos por linha (${machineLoad()}) --`)
  try {
    for (const variant of only) {
      if (!VARIANTS.includes(variant)) throw new Error(`variante desconhecida: ${variant} (${VARIANTS.join(', ')})`)
      const list = take(100_000)
      writeFileSync(listFile, list.join('\n'))
      const child = Bun.spawn([process.execPath, import.meta.path, '--servir', variant, '--data', data, '--lista', listFile, '--exemplo', cnpjs[0]!], { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' })
      try {
        const port = await firstLine(child, `o servidor da variante ${variant}`)
        const r = await wrk(`http://127.0.0.1:${port}`, list.map((x) => PREFIX + x), { connections: 32, seconds, cpuOf: [child.pid] })
        console.log(`${variant} (${WHAT[variant]}): ${r.rps} req/s, ${r.cpuUs.toFixed(1)} µs de CPU por pedido${r.non2xx ? `, não 2xx ${r.non2xx}` : ''} (${machineLoad()})`)
      } finally {
        child.kill()
        await child.exited
      }
    }
    const bare = await withBareBun(1, (b) => wrk(b.base, take(1000).map((x) => PREFIX + x), { connections: 32, seconds }))
    console.log(`Bun puro: ${bare.rps} req/s (${machineLoad()})`)
  } finally {
    rmSync(listFile, { force: true })
  }
}
