import { DuckDBInstance } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { cardQueries } from './ingest/cnpj/card-store'
const db = await DuckDBInstance.create('/work/bench/data-1000000/cnpj/current/cnpj.duckdb', { access_mode: 'READ_ONLY', threads: '2' })
const c = await db.connect()
const rel = (k: string, p: number) => `read_parquet('/tmp/parts/${k}/part=${p}/*.parquet', hive_partitioning = false)`
const T: Record<string, number> = {}
const sq = new Database(':memory:')
sq.exec('CREATE TABLE t (chave TEXT PRIMARY KEY, dados TEXT NOT NULL) WITHOUT ROWID')
const ins = sq.prepare('INSERT OR IGNORE INTO t VALUES (?, ?)')
const add = (k: string, t: number) => (T[k] = (T[k] ?? 0) + performance.now() - t)
for (let p = 0; p < 20; p++) {
  const sql = cardQueries({ estabelecimentos: rel('estabelecimentos', p), empresas: rel('empresas', p), simples: rel('simples', p), socios: rel('socios', p) }).estabelecimentos
  let t = performance.now()
  await c.runAndReadAll(`SELECT sum(length(dados)) FROM (${sql})`); add('query with concat (no transfer)', t)
  t = performance.now()
  let st = await c.stream(sql); const rows: [string, string][] = []
  for (;;) { const ch = await st.fetchChunk(); if (!ch || ch.rowCount === 0) break; add('fetchChunk', t); t = performance.now(); const a = ch.getColumnVector(0), b = ch.getColumnVector(1); for (let i = 0; i < ch.rowCount; i++) rows.push([a.getItem(i) as string, b.getItem(i) as string]); add('getItem', t); t = performance.now() }
  add('fetchChunk', t)
  t = performance.now(); sq.exec('BEGIN'); for (const [k, v] of rows) ins.run(k, v); sq.exec('COMMIT'); add('sqlite insert', t); sq.exec('DELETE FROM t')
}
for (const [k, v] of Object.entries(T)) console.log(k, (v * 5 / 1000).toFixed(2), 's for 100 partitions')
