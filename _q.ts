import { DuckDBInstance } from '@duckdb/node-api'
import { partitionOfRoot, partitionTable } from './src/datasets/cnpj/layout'
const path = process.argv[2]!
for (const [threads, mem] of [['2', '1GB'], ['1', '1GB'], ['2', '4GB']]) {
  const db = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY', threads, memory_limit: mem })
  const c = await db.connect()
  const sample = (await c.runAndReadAll('SELECT cnpj FROM estabelecimentos_p07 USING SAMPLE 10 UNION ALL SELECT cnpj FROM estabelecimentos_p42 USING SAMPLE 10')).getRows().map((r) => String(r[0]))
  const all: string[] = []
  for (let p = 0; p < 100; p++) all.push(...(await c.runAndReadAll(`SELECT cnpj FROM ${partitionTable('estabelecimentos', p)} USING SAMPLE 20`)).getRows().map((r) => String(r[0])))
  const stmts = new Map<string, any>()
  const run = async (list: string[]) => {
    const ts: number[] = []
    for (const x of list) {
      const root = x.slice(0, 8)
      const sql = `SELECT ficha FROM ${partitionTable('estabelecimentos', partitionOfRoot(root))} WHERE cnpj_basico = $1 AND cnpj = $2`
      let st = stmts.get(sql); if (!st) { st = await c.prepare(sql); stmts.set(sql, st) }
      const t = performance.now(); st.bind([root, x]); (await st.runAndReadAll()).getRowObjectsJS(); ts.push(performance.now() - t)
    }
    ts.sort((a, b) => a - b); return `p50 ${ts[Math.floor(ts.length / 2)]!.toFixed(3)} p99 ${ts[Math.floor(ts.length * 0.99)]!.toFixed(3)}`
  }
  console.log(threads, mem, 'cold all', await run(all), '| warm all', await run(all), '| 2 partitions', await run(sample), await run(sample))
  c.closeSync(); db.closeSync()
}
