// Fingerprints: from the DuckDB tables (as now) vs from the Parquet partitions. bun fpexp.ts DUCKDB SCRATCH
import { DuckDBInstance } from '@duckdb/node-api'
import { mkdirSync, rmSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { partitionSelect } from '../ingest/cnpj/partitions'
import { partitionSql, PARTITIONED_TABLES, PARTITIONS } from '../src/datasets/cnpj/layout'
import { ESTABLISHMENT_VALUES_SQL, ESTABLISHMENT_CARD_SQL } from '../ingest/cnpj/card-store'
const [db, scratch] = process.argv.slice(2) as [string, string]
rmSync(scratch, { recursive: true, force: true }); mkdirSync(scratch, { recursive: true })
const inst = await DuckDBInstance.create(db, { threads: '2', memory_limit: '4GB', access_mode: 'READ_ONLY', temp_directory: join(scratch, 'tmp'), preserve_insertion_order: 'false' })
const c = await inst.connect()
const cols = (k: string) => partitionSelect(k as any).split(', ').filter((x) => x !== 'cnpj_basico')
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
const timed = async (label: string, f: () => Promise<void>) => { const t = performance.now(), c0 = cpu(); await f(); console.log(label.padEnd(40), ((performance.now() - t) / 1000).toFixed(2), 's wall', (cpu() - c0).toFixed(2), 's cpu') }
await c.run(`SET partitioned_write_flush_threshold = 100000`)
const parts = join(scratch, 'partes')
await timed('split partitions (as the ingest)', async () => {
  mkdirSync(parts)
  for (const kind of PARTITIONED_TABLES) await c.run(`COPY (SELECT ${partitionSelect(kind)}, ${partitionSql('cnpj_basico')} AS part FROM ${kind}) TO '${join(parts, kind)}' (FORMAT parquet, COMPRESSION 'uncompressed', PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
})
const OLD: Record<string, string> = {
  estabelecimentos: `SELECT cnpj, cnpj_basico, hash(${ESTABLISHMENT_VALUES_SQL.join(', ')}) AS h, ${partitionSql('cnpj_basico')} AS part FROM estabelecimentos`,
  empresas: `SELECT cnpj_basico, hash(${cols('empresas').join(', ')}) AS h, ${partitionSql('cnpj_basico')} AS part FROM empresas`,
  simples: `SELECT cnpj_basico, hash(${cols('simples').join(', ')}) AS h, ${partitionSql('cnpj_basico')} AS part FROM simples`,
  socios: `SELECT cnpj_basico, sum(hash(${cols('socios').join(', ')})) AS h, any_value(${partitionSql('cnpj_basico')}) AS part FROM socios GROUP BY cnpj_basico`,
}
for (const comp of ['snappy', 'uncompressed']) await timed(`old (tables), ${comp}`, async () => {
  mkdirSync(join(scratch, 'old-' + comp)); for (const k of Object.keys(OLD)) await c.run(`COPY (${OLD[k]}) TO '${join(scratch, 'old-' + comp, k)}' (FORMAT parquet, COMPRESSION ${comp}, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
})
const NEWT: Record<string, string> = {
  estabelecimentos: `SELECT cnpj, cnpj_basico, hash(${ESTABLISHMENT_CARD_SQL}) AS h, ${partitionSql('cnpj_basico')} AS part FROM estabelecimentos`,
  empresas: OLD.empresas!, simples: OLD.simples!, socios: OLD.socios!,
}
await timed('new hash over tables (fallback), uncompr', async () => {
  mkdirSync(join(scratch, 'newt')); for (const k of Object.keys(NEWT)) await c.run(`COPY (${NEWT[k]}) TO '${join(scratch, 'newt', k)}' (FORMAT parquet, COMPRESSION uncompressed, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
})
const fromPart = (k: string, rel: string) => k === 'estabelecimentos' ? `SELECT cnpj, cnpj_basico, hash(ficha) AS h FROM ${rel}` : k === 'socios' ? `SELECT cnpj_basico, sum(hash(${cols(k).join(', ')})) AS h FROM ${rel} GROUP BY cnpj_basico` : `SELECT cnpj_basico, hash(${cols(k).join(', ')}) AS h FROM ${rel}`
await timed('new from partitions, one COPY per partition', async () => {
  for (const k of PARTITIONED_TABLES) for (let p = 0; p < PARTITIONS; p++) {
    const dir = join(parts, k, `part=${p}`); if (!existsSync(dir)) continue
    mkdirSync(join(scratch, 'newp', k, `part=${p}`), { recursive: true })
    await c.run(`COPY (${fromPart(k, `read_parquet('${dir}/*.parquet')`)}) TO '${join(scratch, 'newp', k, `part=${p}`, 'data_0.parquet')}' (FORMAT parquet, COMPRESSION uncompressed)`)
  }
})
await timed('new from partitions, one COPY per kind', async () => {
  mkdirSync(join(scratch, 'newk')); for (const k of PARTITIONED_TABLES) {
    const rel = `read_parquet('${join(parts, k)}/*/*.parquet', hive_partitioning = true)`
    const q = k === 'socios' ? `SELECT cnpj_basico, sum(hash(${cols(k).join(', ')})) AS h, any_value(part) AS part FROM ${rel} GROUP BY cnpj_basico` : fromPart(k, rel).replace(' FROM ', ', part FROM ')
    await c.run(`COPY (${q}) TO '${join(scratch, 'newk', k)}' (FORMAT parquet, COMPRESSION uncompressed, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
  }
})
// same hashes? (tables fallback vs partitions)
for (const k of PARTITIONED_TABLES) {
  const key = k === 'estabelecimentos' ? 'cnpj' : 'cnpj_basico'
  const r = await c.runAndReadAll(`SELECT count(*), count(*) FILTER (WHERE a.h IS DISTINCT FROM b.h) FROM read_parquet('${join(scratch, 'newt', k)}/*/*.parquet') a FULL OUTER JOIN read_parquet('${join(scratch, 'newp', k)}/*/*.parquet') b USING (${key})`)
  console.log(k, r.getRows()[0])
}
