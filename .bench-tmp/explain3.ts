import { DuckDBInstance } from '@duckdb/node-api'
const [dbNew, pct] = process.argv.slice(2)
const inst = await DuckDBInstance.create(':memory:', { threads: '2' })
const c = await inst.connect()
await c.run(`ATTACH '${dbNew}' AS depois (READ_ONLY)`)
await c.run(`CREATE TEMP TABLE mudou AS SELECT cnpj_basico AS raiz FROM depois.empresas USING SAMPLE ${pct ?? 3} PERCENT (bernoulli)`)
const all = (await c.runAndReadAll(`SELECT string_agg('coalesce(' || column_name || ','''')', ' || ') FROM duckdb_columns() WHERE database_name='depois' AND table_name='estabelecimentos' AND data_type='VARCHAR'`)).getRows()[0]![0]
const roots = (await c.runAndReadAll(`SELECT raiz FROM mudou`)).getRows().map(r => `'${r[0]}'`)
console.log('roots', roots.length)
const time = async (label: string, q: string, pre = '') => {
  if (pre) await c.run(pre)
  let best = 1e9, r: any
  for (let i = 0; i < 3; i++) { const t = performance.now(); r = await c.runAndReadAll(q); best = Math.min(best, performance.now() - t) }
  console.log(best.toFixed(1), 'ms', label, r.getRows()[0])
}
await time('semi join, all varchar', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE cnpj_basico IN (SELECT raiz FROM mudou)`)
await time('IN literal list', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE cnpj_basico IN (${roots.join(',')})`)
const t0 = performance.now(); await c.run(`CREATE OR REPLACE TEMP TABLE sel AS SELECT rowid AS rid FROM depois.estabelecimentos WHERE cnpj_basico IN (SELECT raiz FROM mudou)`); console.log('sel create', (performance.now()-t0).toFixed(1))
const rids = (await c.runAndReadAll(`SELECT rid FROM sel ORDER BY rid`)).getRows().map(r => String(r[0]))
await time('rowid IN literal', `SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE rowid IN (${rids.join(',')})`)
const r = await c.runAndReadAll(`EXPLAIN ANALYZE SELECT count(*), sum(length(${all})) FROM depois.estabelecimentos WHERE cnpj_basico IN (${roots.join(',')})`)
console.log(String(r.getRows()[0]![1]).split('\n').filter(l => /[A-Z_]{5,}|Type|rows|\d\.\d\ds|Filter|optional/.test(l)).slice(-14).join('\n'))
