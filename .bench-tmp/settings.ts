import { DuckDBInstance } from '@duckdb/node-api'
const inst = await DuckDBInstance.create(':memory:')
const c = await inst.connect()
for (const r of (await c.runAndReadAll(`SELECT name, value, description FROM duckdb_settings() WHERE name ILIKE '%filter%' OR name ILIKE '%late%' OR name ILIKE '%bloom%'`)).getRows()) console.log(r.join(' | '))
