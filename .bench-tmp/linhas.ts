// linhas (the changed roots' rows) from the DuckDB file vs from the Parquet split. bun linhas.ts DUCKDB PARTS SCRATCH
import { DuckDBInstance } from '@duckdb/node-api'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { partitionSelect } from '../ingest/cnpj/partitions'
import { partitionSql } from '../src/datasets/cnpj/layout'
import { ESTABLISHMENT_CARD_SQL } from '../ingest/cnpj/card-store'
const [db, parts, scratch] = process.argv.slice(2) as [string, string, string]
rmSync(scratch, { recursive: true, force: true }); mkdirSync(scratch, { recursive: true })
const inst = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '512MB', temp_directory: join(scratch, 'tmp'), preserve_insertion_order: 'false' })
const c = await inst.connect()
await c.run(`ATTACH '${db}' AS depois (READ_ONLY)`)
await c.run(`CREATE TEMP TABLE mudou AS SELECT cnpj_basico AS raiz FROM depois.empresas USING SAMPLE 3 PERCENT (bernoulli)`)
const DETAIL: Record<string, string> = { estabelecimentos: `cnpj, cnpj_basico, ${ESTABLISHMENT_CARD_SQL} AS ficha, matriz_filial`, empresas: partitionSelect('empresas'), simples: partitionSelect('simples'), socios: partitionSelect('socios') }
const DETAILP: Record<string, string> = { ...DETAIL, estabelecimentos: 'cnpj, cnpj_basico, ficha, matriz_filial' }
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
for (const round of [1, 2]) for (const src of ['duckdb', 'parquet']) {
  mkdirSync(join(scratch, src + round))
  const t = performance.now(), c0 = cpu()
  for (const k of Object.keys(DETAIL)) {
    const from = src === 'duckdb' ? `depois.${k}` : `read_parquet('${join(parts, k)}/*/*.parquet', hive_partitioning = false)`
    const sel = src === 'duckdb' ? DETAIL[k] : DETAILP[k]
    await c.run(`COPY (SELECT ${sel}, ${partitionSql('cnpj_basico')} % 10 AS part FROM ${from} WHERE cnpj_basico IN (SELECT raiz FROM mudou)) TO '${join(scratch, src + round, k)}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (part), OVERWRITE_OR_IGNORE)`)
  }
  console.log(round, src.padEnd(8), ((performance.now() - t) / 1000).toFixed(2), 's wall', (cpu() - c0).toFixed(2), 's cpu')
}
for (const k of Object.keys(DETAIL)) {
  const r = await c.runAndReadAll(`SELECT (SELECT count(*) FROM (SELECT * FROM read_parquet('${join(scratch, 'duckdb1', k)}/*/*.parquet') EXCEPT ALL SELECT * FROM read_parquet('${join(scratch, 'parquet1', k)}/*/*.parquet'))), (SELECT count(*) FROM read_parquet('${join(scratch, 'duckdb1', k)}/*/*.parquet'))`)
  console.log(k, r.getRows()[0])
}
