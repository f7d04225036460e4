import { DuckDBInstance } from '@duckdb/node-api'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { partitionSelect } from '../ingest/cnpj/partitions'
import { PARTITIONED_TABLES } from '../src/datasets/cnpj/layout'
const [scratch] = process.argv.slice(2) as [string]
const parts = join(scratch, 'partes')
const inst = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '4GB', preserve_insertion_order: 'false' })
const c = await inst.connect()
await c.run(`SET partitioned_write_flush_threshold = 100000`)
const cols = (k: string) => partitionSelect(k as any).split(', ').filter((x) => x !== 'cnpj_basico')
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
for (const comp of ['uncompressed', 'snappy', 'lz4_raw', 'zstd, COMPRESSION_LEVEL 1', 'uncompressed', 'lz4_raw']) {
  const out = join(scratch, 'c-' + comp.replace(/\W+/g, '')); rmSync(out, { recursive: true, force: true }); mkdirSync(out)
  const t = performance.now(), c0 = cpu()
  for (const k of PARTITIONED_TABLES) {
    const rel = `read_parquet('${join(parts, k)}/*/*.parquet', hive_partitioning = true)`
    const q = k === 'estabelecimentos' ? `SELECT cnpj, cnpj_basico, hash(ficha) AS h, part FROM ${rel}` : k === 'socios' ? `SELECT cnpj_basico, sum(hash(${cols(k).join(', ')})) AS h, any_value(part) AS part FROM ${rel} GROUP BY cnpj_basico` : `SELECT cnpj_basico, hash(${cols(k).join(', ')}) AS h, part FROM ${rel}`
    await c.run(`COPY (${q}) TO '${join(out, k)}' (FORMAT parquet, COMPRESSION ${comp}, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
  }
  const w = (performance.now() - t) / 1000, cp = cpu() - c0
  const size = Number((await c.runAndReadAll(`SELECT sum(size) FROM read_blob('${out}/*/*/*.parquet')`)).getRows()[0]![0])
  const t2 = performance.now(), c2 = cpu()
  for (const k of PARTITIONED_TABLES) await c.runAndReadAll(`SELECT count(*), sum(h) FROM read_parquet('${out}/${k}/*/*.parquet')`)
  console.log(comp.padEnd(28), 'write', w.toFixed(2), 's', cp.toFixed(2), 'cpu;', (size / 1e6).toFixed(1), 'MB; read', ((performance.now() - t2) / 1000).toFixed(2), 's', (cpu() - c2).toFixed(2), 'cpu')
}
