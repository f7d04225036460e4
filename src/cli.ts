#!/usr/bin/env bun
// Entry point of the single `dadosbr` executable.
import { UsageError } from './cli/args'
import { VERSION } from './core/health'
import { preloadDuckDbLibrary } from './core/stores/native'
import { childEnv, selfCommand } from './core/self'
import { machineCores } from './core/cores'
import { POOL_THREADS_PER_LOAD } from '../ingest/lib/thread-pool'

const HELP = `dadosbr ${VERSION}: dados públicos brasileiros em uma API HTTP/JSON, paga por chamada com x402.

Uso: dadosbr <comando> [opções]

Comandos:
  serve     sobe a API (dadosbr serve --gratis para servir sem cobrar)
  ingest    reconstrói uma base a partir das fontes oficiais (dadosbr ingest cnpj), ou da
            amostra embutida (dadosbr ingest todas --amostra)
  atualizar consulta uma vez as fontes acompanhadas pelo servidor (cron, CI)
  exportar  escreve as bases em uso como Parquet, com dicionário de dados (dadosbr exportar --saida DIR)
  consultar responde uma lista de CNPJs com os dados locais, sem servidor (dadosbr consultar cnpj --arquivo lista.txt)
  historico os meses do histórico do cadastro e o descarte dos antigos (dadosbr historico cnpj --manter 12)
  mcp       servidor MCP por stdio: cada rota é uma ferramenta para agentes de IA, paga com x402
  synth     escreve um dump sintético no formato real (dadosbr synth cnpj --saida DIR --empresas N)
  --version mostra a versão

Cada comando tem --help.
`

type Command = (argv: string[]) => Promise<number>
// Commands load lazily: DuckDB's addon must not load before its library is preloaded (native.ts).
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./cli/serve')).serve,
  ingest: async () => (await import('./cli/ingest')).ingest,
  synth: async () => (await import('./cli/ingest')).synth,
  atualizar: async () => (await import('./cli/atualizar')).atualizar,
  mcp: async () => (await import('./cli/mcp')).mcp,
  exportar: async () => (await import('./cli/exportar')).exportar,
  consultar: async () => (await import('./cli/consultar')).consultar,
  historico: async () => (await import('./cli/historico')).historico,
  // Internal, not in the help: the ingest's name index, run in a process of its own.
  '_indice-de-nomes': async () => (await import('./cli/ingest')).indiceDeNomes,
  // Internal: a helper process of `consultar` (src/cli/consultar-parts.ts).
  '_consultar-parte': async () => (await import('./cli/consultar-parts')).consultarParte,
}

/**
 * DuckDB's queries and Bun's file and zlib work share one native thread pool, sized once at start
 * from UV_THREADPOOL_SIZE. The ingest loads one zip per core at once (long queries plus their
 * pumps), which deadlocks a small pool, so `ingest` re-runs itself with POOL_THREADS_PER_LOAD
 * threads per core (at least two loads' worth, libuv's ceiling 1024) when none was set (see buildPlan in ingest/cnpj/load.ts).
 */
async function rerunWithThreadPool(argv: string[]): Promise<number> {
  const pool = Math.min(1024, Math.max(2 * POOL_THREADS_PER_LOAD, POOL_THREADS_PER_LOAD * machineCores()))
  return rerun(argv, { UV_THREADPOOL_SIZE: String(pool) })
}

/** Runs this command again as `selfCommand()` (with the runtime flags), passing signals on, and returns its exit code. */
async function rerun(argv: string[], env: Record<string, string> = {}): Promise<number> {
  // childEnv: the child dies with this process (dieWithParent), even when this one is killed outright.
  const child = Bun.spawn([...selfCommand(), ...argv], { env: childEnv(env), stdio: ['inherit', 'inherit', 'inherit'] })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  return await child.exited
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP)
    return name ? 0 : 2
  }
  if (name === '--version') {
    process.stdout.write(`${VERSION}\n`)
    return 0
  }
  const load = COMMANDS[name]
  if (!load) {
    process.stderr.write(`dadosbr: comando desconhecido '${name}'; veja dadosbr --help\n`)
    return 2
  }
  if (name === 'ingest' && !process.env.UV_THREADPOOL_SIZE && import.meta.main) return rerunWithThreadPool(argv)
  try {
    await preloadDuckDbLibrary()
    const command = await load()
    return await command(rest)
  } catch (err) {
    // DADOSBR_LOG_FORMATO=json makes this last line a JSON object too (an unknown value falls back to text here).
    const line = (await import('./core/log')).lineWriter(name, process.env.DADOSBR_LOG_FORMATO === 'json' ? 'json' : 'texto')
    if (err instanceof UsageError) {
      line(`dadosbr ${name}: ${err.message}`, 'error')
      return 2
    }
    line(`dadosbr ${name}: ${err instanceof Error ? err.message : String(err)}`, 'error')
    return 1
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))
