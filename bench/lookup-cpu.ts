// CPU of one /v1/cnpj/empresa lookup in process (app.handle, no HTTP), for comparing two checkouts on
// the same data: the machine is shared, and the CPU time of a loop varies less with the others'
// load than a throughput does. Each checkout's app runs in its own process, rounds alternate.
//   bun bench/lookup-cpu.ts --versoes .=DADOS,/outro/checkout=OUTROS_DADOS [--pedidos 200000] [--rodadas 5]
// Each checkout with the data its own ingest built from the same dump (the CNPJs are sampled from
// the first one's). With --uma RAIZ --data DIR: the measuring child, printing µs of CPU a lookup.
import { DuckDBInstance } from '@duckdb/node-api'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { machineLoad, opt } from './lib'

const requests = Number(opt('--pedidos', '200000'))
const one = opt('--uma', '')
const list = join(resolve(opt('--lista', '/tmp')), 'dadosbr-cnpjs-cpu.txt')

if (one) {
  const root = resolve(one)
  const data = resolve(opt('--data', ''))
  const { createApp } = await import(join(root, 'src', 'app.ts'))
  const { loadConfig } = await import(join(root, 'src', 'core', 'config.ts'))
  const { createLogger } = await import(join(root, 'src', 'core', 'log.ts'))
  const app = await createApp(loadConfig({ free: true, dataDir: data, prewarm: '0' }, {}), { log: createLogger('silent') })
  const cnpjs = readFileSync(list, 'utf8').trim().split('\n')
  const run = async (xs: string[]) => {
    for (const x of xs) {
      const r = await app.handle(new Request(`http://localhost/v1/cnpj/empresa/${x}`))
      if (r.status !== 200) throw new Error(`${x}: ${r.status}`)
      await r.arrayBuffer()
    }
  }
  // Pages into the page cache and the JIT warm, then the measured loop over the same CNPJs (each asked once per pass).
  await run(cnpjs)
  const before = process.cpuUsage()
  await run(cnpjs)
  const used = process.cpuUsage(before)
  console.log(((used.user + used.system) / cnpjs.length).toFixed(2))
  await app.close()
  process.exit(0)
}

const versions = opt('--versoes', '.=data').split(',').map((v) => v.split('=').map((p) => resolve(p)) as [string, string])
const rounds = Number(opt('--rodadas', '5'))
const db = await DuckDBInstance.create(join(versions[0]![1], 'cnpj', 'current', 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
const c = await db.connect()
writeFileSync(list, (await c.runAndReadAll(`SELECT cnpj FROM estabelecimentos USING SAMPLE ${requests}`)).getRows().map((r) => String(r[0])).join('\n'))
c.closeSync()
db.closeSync()
const results = new Map<string, number[]>(versions.map(([r]) => [r, []]))
for (let k = 0; k < rounds; k++)
  for (const [root, data] of versions) {
    const child = Bun.spawnSync([process.execPath, import.meta.path, '--data', data, '--uma', root], { stderr: 'inherit' })
    results.get(root)!.push(Number(child.stdout.toString().trim()))
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const [root, xs] of results) console.log(`${root}: mediana ${median(xs).toFixed(2)} µs de CPU por /empresa (rodadas: ${xs.map((x) => x.toFixed(2)).join(', ')})`)
console.log(machineLoad())
