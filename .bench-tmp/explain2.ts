import { DuckDBInstance } from '@duckdb/node-api'
const [dbNew] = process.argv.slice(2)
const inst = await DuckDBInstance.create(':memory:', { threads: '2' })
const c = await inst.connect()
await c.run(`ATTACH '${dbNew}' AS depois (READ_ONLY)`)
await c.run(`CREATE TEMP TABLE mudou AS SELECT cnpj_basico AS raiz FROM depois.empresas USING SAMPLE 3 PERCENT (bernoulli)`)
const cols = (await c.runAndReadAll(`SELECT string_agg(column_name, ' || coalesce(') FROM (SELECT column_name FROM duckdb_columns() WHERE database_name='depois' AND table_name='estabelecimentos' AND data_type='VARCHAR')`)).getRows()[0]![0]
const all = (await c.runAndReadAll(`SELECT string_agg('coalesce(' || column_name || ','''')', ' || ') FROM duckdb_columns() WHERE database_name='depois' AND table_name='estabelecimentos' AND data_type='VARCHAR'`)).getRows()[0]![0]
const time = async (label: string, q: string, pre = '') => {
  if (pre) await c.run(pre)
  let best = 1e9, r: any
  for (let i = 0; i < 5; i++) { const t = performance.now(); r = await c.runAndReadAll(q); best = Math.min(best, performance.now() - t) }
  console.log(best.toFixed(1), 'ms', label, r.getRows()[0])
}
await time('full scan all varchar', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos`)
await time('semi join, all varchar', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE cnpj_basico IN (SELECT raiz FROM mudou)`)
await time('semi join, key only', `SELECT count(*) FROM depois.estabelecimentos WHERE cnpj_basico IN (SELECT raiz FROM mudou)`)
await time('rowid sel', `SELECT count(*) FROM sel`, `CREATE OR REPLACE TEMP TABLE sel AS SELECT rowid AS rid FROM depois.estabelecimentos WHERE cnpj_basico IN (SELECT raiz FROM mudou)`)
await time('rowid fetch all varchar', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE rowid IN (SELECT rid FROM sel)`)
await time('dyn or 1M semi join all varchar', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE cnpj_basico IN (SELECT raiz FROM mudou)`, `SET dynamic_or_filter_threshold = 1000000`)
const r = await c.runAndReadAll(`EXPLAIN ANALYZE SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE rowid IN (SELECT rid FROM sel)`)
console.log(String(r.getRows()[0]![1]).split('\n').filter(l => /[A-Z_]{5,}|Type|rows|\d\.\d\ds|Filter/.test(l)).join('\n'))
