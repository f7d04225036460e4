import { DuckDBInstance } from '@duckdb/node-api'
const inst = await DuckDBInstance.create(process.argv[2]!, { access_mode: 'READ_ONLY', threads: '2' })
const c = await inst.connect()
for (const t of ['empresas', 'simples']) console.log(t, (await c.runAndReadAll(`SELECT count(*), count(DISTINCT cnpj_basico) FROM ${t}`)).getRows()[0])
