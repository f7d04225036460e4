// The per-root Parquet partitions the load writes (one folder per table and partition), read back
// by the card store (load.ts) and by the name indexes (search-index.ts).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sqlString } from '../lib/sql'

/** One partition's Parquet files of a table as a DuckDB relation; null when the partition got no rows. */
export function partitionRelation(partsDir: string, table: string, partition: number): string | null {
  const dir = join(partsDir, table, `part=${partition}`)
  return existsSync(dir) ? `read_parquet(${sqlString(join(dir, '*.parquet'))}, hive_partitioning = false)` : null
}
