// `dadosbr serve --sem-fontes` (what `make run` starts): the bundled sample served as what it is
// (status amostra, its recording date), health ok, and not one connection leaving the process. Every
// upstream setting of every dataset (and the LLM) points at a local listener that counts the
// connections it receives; the server is run as a user runs it, every route is called, and the
// listener must have seen none.
import { afterAll, describe, expect, test } from 'bun:test'
import { ROUTES } from '../../src/app'
import { SERVE_HELP } from '../../src/cli/serve'
import { loadConfig } from '../../src/core/config'
import { exampleInputOf } from '../../src/core/examples'
import { DATASETS } from '../../src/datasets/registry'
import { buildSampleData } from '../helpers'
import { startServe } from '../serve-process'

// The sample is built first, as `make sample` does before `make run` (its news are classified by the LLM when one is configured).
const dataDir = await buildSampleData()
const connections: string[] = []
const listener = Bun.listen({
  hostname: '127.0.0.1',
  port: 0,
  socket: {
    open(socket) {
      connections.push(`conexão de ${socket.remoteAddress}`)
    },
    data(socket, data) {
      // What was asked, to name the culprit in a failure.
      connections.push(new TextDecoder().decode(data).split('\r\n')[0]!)
      socket.end()
    },
  },
})
const target = `http://127.0.0.1:${listener.port}`
const envs = [...new Set(DATASETS.flatMap((d) => [...(d.upstreams ?? []), ...(d.feeds ?? []).flatMap((f) => f.upstreams)]).map((u) => u.env)), 'LLM_URL']
const saved = new Map([...envs, 'LLM_MODEL'].map((e) => [e, process.env[e]]))
for (const e of envs) process.env[e] = target
process.env.LLM_MODEL = 'modelo-que-ninguem-chama'

let server: ReturnType<typeof startServe> | undefined
afterAll(async () => {
  server?.proc.kill('SIGTERM')
  await server?.proc.exited
  listener.stop(true)
  for (const [e, v] of saved) v === undefined ? delete process.env[e] : (process.env[e] = v)
})

const pathOf = (path: string, input: { params: Record<string, string>; query: Record<string, string> }) => {
  const p = path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(input.params[n] ?? ''))
  const q = new URLSearchParams(input.query).toString()
  return q ? `${p}?${q}` : p
}

describe('serve --sem-fontes', () => {
  test('the listener counts a connection when one is made (the probe works)', async () => {
    await fetch(target).catch(() => {})
    expect(connections).toEqual(['conexão de 127.0.0.1', 'GET / HTTP/1.1'])
    connections.length = 0
  })

  test('every route answers from the copies on disk, health is ok with every source `amostra`, and no connection leaves the machine', async () => {
    server = startServe(['--sem-fontes', '--port', '0', '--data', dataDir])
    const { port, processes } = await server.announced
    const base = `http://127.0.0.1:${port}`
    expect(server.log.text).toContain('fontes DESLIGADAS (--sem-fontes)')
    const health = (await (await fetch(`${base}/v1/health`)).json()) as any
    expect([health.status, health.sem_fontes, health.motivos]).toEqual(['ok', true, []])
    expect(health.fontes.map((f: any) => [f.nome, f.status, f.problema])).toEqual(DATASETS.flatMap((d) => d.feeds ?? []).map((f) => [f.name, 'amostra', null]))
    // Every route (twice: a second request finds the copies as old as the first did), then the documents and /metrics.
    const paths = ROUTES.map((r) => pathOf(r.path, exampleInputOf(r)))
    for (let round = 0; round < 2; round++)
      for (const p of [...paths, '/v1/licitacoes/abertas?uf=MG', '/metrics', '/openapi.json', '/llms.txt']) {
        const r = await fetch(base + p)
        expect([p, r.status]).toEqual([p, 200])
        await r.arrayBuffer()
      }
    const cambio = (await (await fetch(`${base}/v1/mercado/cambio`)).json()) as any
    expect([cambio.fontes.cripto.status, cambio.fontes.cripto.consultado_em, cambio.fontes.cripto.tentado_em, cambio.falhas]).toEqual(['amostra', '2026-01-29T15:30:00.000Z', '2026-01-29T15:30:00.000Z', []])
    expect(cambio.avisos[0]).toStartWith('cotações das corretoras: amostra embutida no programa, gravada em 2026-01-29T15:30:00.000Z (há ')
    const cnpj = (await (await fetch(`${base}/v1/cnpj/amostra`)).json()) as any
    expect([cnpj.amostra, cnpj.origem, cnpj.fonte.referencia]).toEqual([true, 'base_carregada', '2026-08'])
    // Time for any background work to reach out, had there been any (the feeds' first tick runs at start).
    await Bun.sleep(1000)
    expect({ processes, connections }).toEqual({ processes, connections: [] })
  }, 60_000)

  test('the setting: --sem-fontes or DADOSBR_SEM_FONTES, listed in serve --help', () => {
    expect(loadConfig({ free: true }, {}).semFontes).toBe(false)
    expect(loadConfig({ free: true }, { DADOSBR_SEM_FONTES: '1' }).semFontes).toBe(true)
    expect(loadConfig({ free: true, semFontes: true }, { DADOSBR_SEM_FONTES: '0' }).semFontes).toBe(true)
    expect(() => loadConfig({ free: true }, { DADOSBR_SEM_FONTES: 'talvez' })).toThrow('configuração inválida: --sem-fontes / DADOSBR_SEM_FONTES')
    expect(SERVE_HELP).toContain('--sem-fontes')
    expect(SERVE_HELP).toContain('[DADOSBR_SEM_FONTES]')
  })
})
