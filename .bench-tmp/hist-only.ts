// The history's comparison alone, on two builds already made: M0 (the month before) and M1.
// bun .bench-tmp/hist-only.ts M0_BUILD M1_BUILD MONTH1 SCRATCH
import { mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { buildHistory, planHistory } from '../ingest/cnpj/history'
import { DuckDBConnection } from '@duckdb/node-api'
// Wall time per SQL statement shape (PROFILE_SQL=1): which queries bound the comparison.
const bySql = new Map<string, { n: number; ms: number }>()
if (process.env.PROFILE_SQL) for (const m of ['run', 'runAndReadAll'] as const) {
  const orig = (DuckDBConnection.prototype as any)[m]
  ;(DuckDBConnection.prototype as any)[m] = async function (sql: string, ...rest: unknown[]) {
    const t = performance.now()
    try { return await orig.call(this, sql, ...rest) } finally {
      const k = sql.replace(/\s+/g, ' ').replace(/\d+/g, 'N').replace(/'[^']*'/g, "'S'").slice(0, 150)
      const e = bySql.get(k) ?? { n: 0, ms: 0 }; e.n++; e.ms += performance.now() - t; bySql.set(k, e)
    }
  }
}
const [m0, m1, month, scratch] = process.argv.slice(2)
rmSync(scratch!, { recursive: true, force: true })
mkdirSync(join(scratch!, 'data', 'cnpj'), { recursive: true })
symlinkSync(resolve(m0!), join(scratch!, 'data', 'cnpj', 'current'))
const work = join(scratch!, 'work')
mkdirSync(work)
for (const f of ['cnpj.duckdb', 'impressoes']) symlinkSync(resolve(m1!, f), join(work, f))
const plan = planHistory(join(scratch!, 'data'), month!)
let peak = 0
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 1000)
const t = performance.now(), c = process.cpuUsage()
const s = await buildHistory({ plan, work, memoryLimit: '512MB', threads: 2, quiet: true })
const u = process.cpuUsage(c)
clearInterval(timer)
console.log(JSON.stringify({ wall: +((performance.now() - t) / 1000).toFixed(1), cpu: +((u.user + u.system) / 1e6).toFixed(1), peakRssMB: Math.round(peak / 1e6), itens: s.itens, segundos: s.segundos, cpu_segundos: s.cpu_segundos, bytes: s.bytes }))
if (process.env.PROFILE_SQL) for (const [k, v] of [...bySql].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) console.log((v.ms / 1000).toFixed(2).padStart(8), String(v.n).padStart(5), k)
