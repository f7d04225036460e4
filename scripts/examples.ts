// Records the examples of the OpenAPI document (src/core/examples.json) from the bundled sample:
// each route called with its example input (its 200 answer), and with inputs that trigger each of
// its error codes (their real bodies). `bun scripts/examples.ts` rewrites the file; the test
// test/core/examples.test.ts regenerates it and fails when the committed one differs.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROUTES, createApp } from '../src/app'
import { loadConfig } from '../src/core/config'
import { exampleInputOf, type RouteExample } from '../src/core/examples'
import { createLogger } from '../src/core/log'
import type { RouteDef } from '../src/core/route'

/** A concrete path of a route for given parameters and query. */
function pathOf(route: RouteDef, params: Record<string, string>, query: Record<string, string>): string {
  const p = route.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? ''))
  const q = new URLSearchParams(query).toString()
  return q ? `${p}?${q}` : p
}

/** Inputs that make a route answer a given error code, tried in order (the first that answers it wins). */
function errorProbes(route: RouteDef, input: RouteExample['input']): { codigo: string; path: string }[] {
  const path = (params: Record<string, string>, query: Record<string, string> = input.query) => pathOf(route, params, query)
  const probes: { codigo: string; path: string }[] = []
  if (route.path.includes('{cnpj}')) {
    probes.push({ codigo: 'cnpj_invalido', path: path({ ...input.params, cnpj: '12345678000100' }) })
    probes.push({ codigo: 'nao_encontrado', path: path({ ...input.params, cnpj: '11222333000181' }) })
  }
  probes.push({ codigo: 'parametro_desconhecido', path: path(input.params, { ...input.query, x: '1' }) })
  probes.push({ codigo: 'metodo_nao_permitido', path: `POST ${path(input.params)}` })
  for (const name of Object.keys((route.query as { shape?: object } | undefined)?.shape ?? {})) {
    for (const bad of ['0', 'abc', 'x'.repeat(300), '']) probes.push({ codigo: 'parametro_invalido', path: path(input.params, { ...input.query, [name]: bad }) })
  }
  for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) if (name !== 'cnpj') probes.push({ codigo: 'parametro_invalido', path: path({ ...input.params, [name!]: 'abc' }) })
  return probes
}

export async function recordExamples(dataDir: string): Promise<Record<string, RouteExample>> {
  // Offline (as make run serves the sample): no refresh is attempted, so the answers do not depend on the network or on timing.
  const app = await createApp(loadConfig({ free: true, dataDir, semFontes: true }, {}), { log: createLogger('silent') })
  const call = async (target: string) => {
    const [method, path] = target.startsWith('POST ') ? ['POST', target.slice(5)] : ['GET', target]
    const r = await app.handle(new Request(`http://localhost:8080${path}`, { method }))
    return { status: r.status, body: (await r.json()) as any }
  }
  const out: Record<string, RouteExample> = {}
  try {
    for (const route of ROUTES) {
      const input = exampleInputOf(route)
      const ok = await call(pathOf(route, input.params, input.query))
      const example: RouteExample = { input, errors: {} }
      if (ok.status === 200) example.output = ok.body
      for (const probe of errorProbes(route, input)) {
        if (example.errors[probe.codigo]) continue
        const r = await call(probe.path)
        if (r.status >= 400 && r.body?.erro?.codigo === probe.codigo) example.errors[probe.codigo] = r.body
      }
      out[route.path] = example
    }
  } finally {
    await app.close()
  }
  return out
}

if (import.meta.main) {
  const { buildSampleData } = await import('../test/helpers')
  const examples = await recordExamples(await buildSampleData())
  writeFileSync(join(import.meta.dir, '..', 'src', 'core', 'examples.json'), JSON.stringify(examples, null, 2) + '\n')
  const missing = Object.entries(examples).filter(([, e]) => e.output === undefined).map(([p]) => p)
  console.error(`src/core/examples.json: ${Object.keys(examples).length} rotas${missing.length ? `; sem exemplo de resposta (a amostra não tem dado para a entrada): ${missing.join(', ')}` : ''}`)
  process.exit(0)
}
