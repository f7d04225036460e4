import { DuckDBInstance } from '@duckdb/node-api'
const [dbNew, dbOld] = process.argv.slice(2)
const inst = await DuckDBInstance.create(':memory:', { threads: '2' })
const c = await inst.connect()
await c.run(`ATTACH '${dbNew}' AS depois (READ_ONLY)`)
await c.run(`ATTACH '${dbOld}' AS antes (READ_ONLY)`)
// a changed-root sample: 3% of roots
await c.run(`CREATE TEMP TABLE mudou AS SELECT cnpj_basico AS raiz FROM depois.empresas USING SAMPLE 3 PERCENT (bernoulli)`)
for (const q of [
  `SELECT count(*), sum(length(e.cnpj || coalesce(e.logradouro,''))) FROM depois.estabelecimentos e WHERE cnpj_basico IN (SELECT raiz FROM mudou)`,
  `SELECT count(*), sum(length(cnpj)) FROM depois.estabelecimentos e`,
  `SELECT count(*) FROM depois.estabelecimentos e WHERE cnpj_basico IN (SELECT raiz FROM mudou)`,
]) {
  for (let i = 0; i < 3; i++) { const t = performance.now(); const r = await c.runAndReadAll(q); if (i == 2) console.log((performance.now() - t).toFixed(1), 'ms', r.getRows()[0], q.slice(0, 80)) }
}
const r = await c.runAndReadAll(`EXPLAIN ANALYZE SELECT count(*), sum(length(e.cnpj || coalesce(e.logradouro,''))) FROM depois.estabelecimentos e WHERE cnpj_basico IN (SELECT raiz FROM mudou)`)
console.log(String(r.getRows()[0]![1]))
