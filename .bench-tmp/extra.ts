import { Database } from 'bun:sqlite'
import { decodeJson } from '../src/datasets/cnpj/historico-layout'
for (const f of process.argv.slice(2)) {
  const d = new Database(f, { readonly: true })
  for (const r of d.query(`SELECT chave, dados FROM extra ORDER BY 1`).all() as any[]) {
    const v = decodeJson(r.dados) as any
    const norm = Array.isArray(v) ? [...v].sort() : Object.fromEntries(Object.entries(v).sort().map(([k, x]: any) => [k, [...x].sort()]))
    console.log(f.slice(-30), r.chave, Bun.hash(JSON.stringify(norm)), Bun.hash(JSON.stringify(v)))
  }
}
