import { DuckDBInstance } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { cardQueries } from './ingest/cnpj/card-store'
import { partitionSql, PARTITIONED_TABLES } from './src/datasets/cnpj/layout'
import { existsSync, rmSync } from 'node:fs'
const db = await DuckDBInstance.create('/work/bench/data-1000000/cnpj/current/cnpj.duckdb', { access_mode: 'READ_ONLY', threads: '2' })
const c = await db.connect()
if (!existsSync('/tmp/parts/socios')) { (await import('node:fs')).mkdirSync('/tmp/parts', { recursive: true }) }
if (!existsSync('/tmp/parts/socios')) for (const k of PARTITIONED_TABLES) await c.run(`COPY (SELECT *, ${partitionSql('cnpj_basico')} AS part FROM ${k}) TO '/tmp/parts/${k}' (FORMAT parquet, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
const rel = (k: string, p: number) => `read_parquet('/tmp/parts/${k}/part=${p}/*.parquet', hive_partitioning = false)`
const T: Record<string, number> = {}
const sq = new Database(':memory:')
sq.exec('CREATE TABLE t (chave TEXT PRIMARY KEY, dados TEXT NOT NULL) WITHOUT ROWID')
for (let p = 0; p < 20; p++) {
  const q = cardQueries({ estabelecimentos: rel('estabelecimentos', p), empresas: rel('empresas', p), simples: rel('simples', p), socios: rel('socios', p) })
  for (const [name, sql] of Object.entries(q)) {
    let t = performance.now()
    const r = await c.runAndReadAll(`SELECT count(*) FROM (${sql})`)
    T[name + ' query'] = (T[name + ' query'] ?? 0) + performance.now() - t
    t = performance.now()
    const st = await c.stream(sql)
    const ins = sq.prepare('INSERT OR IGNORE INTO t VALUES (?, ?)')
    sq.exec('BEGIN')
    for (;;) { const ch = await st.fetchChunk(); if (!ch || ch.rowCount === 0) break; const a = ch.getColumnVector(0), b = ch.getColumnVector(1); for (let i = 0; i < ch.rowCount; i++) ins.run(a.getItem(i) as string, b.getItem(i) as string) }
    sq.exec('COMMIT'); sq.exec('DELETE FROM t')
    T[name + ' query+insert'] = (T[name + ' query+insert'] ?? 0) + performance.now() - t
  }
}
for (const [k, v] of Object.entries(T)) console.log(k, (v * 5 / 1000).toFixed(2), 's for 100 partitions')
