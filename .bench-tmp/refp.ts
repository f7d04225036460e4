// A build's fingerprints made again by this version from its DuckDB tables (the fallback path; a test holds it equal to the ingest's).
import { DuckDBInstance } from '@duckdb/node-api'
import { join } from 'node:path'
import { writeFingerprints } from '../ingest/cnpj/history'
const [build] = process.argv.slice(2) as [string]
const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '4GB', temp_directory: '/work/bench-data/nat/refp.tmp', preserve_insertion_order: 'false' })
const conn = await instance.connect()
await conn.run(`ATTACH '${join(build, 'cnpj.duckdb')}' AS m (READ_ONLY)`)
const t = performance.now()
await writeFingerprints(conn, { db: 'm' }, build)
console.log('fingerprints again', ((performance.now() - t) / 1000).toFixed(1), 's')
