import { DuckDBInstance } from '@duckdb/node-api'
const data = process.argv[2]!
const db = await DuckDBInstance.create(`${data}/cnpj/current/cnpj.duckdb`, { access_mode: 'READ_ONLY' })
const c = await db.connect()
const cnpjs = (await c.runAndReadAll('SELECT cnpj FROM estabelecimentos USING SAMPLE 2000')).getRows().map((r) => String(r[0]))
c.closeSync(); db.closeSync()
const port = 45123
const server = Bun.spawn([process.execPath, 'src/cli.ts', 'serve', '--free', '--port', String(port), '--host', '127.0.0.1', '--data', data, '--log', 'warn'], { stderr: 'inherit' })
for (;;) { if (await fetch(`http://127.0.0.1:${port}/v1/health`).then((r) => r.ok).catch(() => false)) break; await Bun.sleep(20) }
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(p * s.length)]!.toFixed(2) }
for (const path of ['', '/completo', '/socios']) {
  const ts: number[] = []
  for (const x of cnpjs) { const t = performance.now(); const r = await fetch(`http://127.0.0.1:${port}/v1/cnpj/empresa/${x}${path}`); await r.arrayBuffer(); ts.push(performance.now() - t); if (r.status !== 200) throw new Error(String(r.status)) }
  console.log(path || '/empresa', 'p50', pct(ts, .5), 'p99', pct(ts, .99))
}
server.kill()
