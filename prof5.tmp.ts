import { DuckDBInstance } from '@duckdb/node-api'
import { mkdirSync, existsSync } from 'node:fs'
import { partitionSql, PARTITIONED_TABLES, FICHA } from './src/datasets/cnpj/layout'
const src = await Bun.file('ingest/cnpj/card-store.ts').text()
const FIELD: Record<string,string> = eval('(' + src.slice(src.indexOf('{', src.indexOf('const FICHA_SQL')), src.indexOf('}\n', src.indexOf('const FICHA_SQL')) + 1) + ')')
const db = await DuckDBInstance.create('/work/bench/data-1000000/cnpj/current/cnpj.duckdb', { access_mode: 'READ_ONLY', threads: '2' })
const c = await db.connect()
if (!existsSync('/tmp/partsu/socios')) { mkdirSync('/tmp/partsu', { recursive: true }); for (const k of PARTITIONED_TABLES) await c.run(`COPY (SELECT *, ${partitionSql('cnpj_basico')} AS part FROM ${k}) TO '/tmp/partsu/${k}' (FORMAT parquet, COMPRESSION 'uncompressed', PARTITION_BY (part), OVERWRITE_OR_IGNORE)`) }
const variants: Record<string, (f: string) => string> = {
  none: (f) => f,
  oneReplace: (f) => `replace(${f}, chr(31), ' ')`,
  twoReplace: (f) => `replace(replace(${f}, chr(31), ' '), chr(30), ' ')`,
  translate: (f) => `translate(${f}, chr(30) || chr(31), '  ')`,
}
for (const dir of ['/tmp/parts', '/tmp/partsu'])
  for (const [name, wrap] of Object.entries(variants)) {
    const rel = (k: string, p: number) => `read_parquet('${dir}/${k}/part=${p}/*.parquet', hive_partitioning = false)`
    const one = (r: string) => `(SELECT DISTINCT ON (cnpj_basico) * FROM ${r})`
    const t = performance.now()
    for (let p = 0; p < 20; p++) await c.runAndReadAll(`SELECT sum(length(dados)) FROM (SELECT e.cnpj, concat(${FICHA.map((f) => wrap(FIELD[f]!)).join(', chr(31), ')}) AS dados FROM ${rel('estabelecimentos', p)} e LEFT JOIN ${one(rel('empresas', p))} m USING (cnpj_basico) LEFT JOIN ${one(rel('simples', p))} si USING (cnpj_basico) ORDER BY e.cnpj)`)
    console.log(dir, name, ((performance.now() - t) * 5 / 1000).toFixed(2), 's/100')
  }
