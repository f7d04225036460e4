import { Database } from 'bun:sqlite'
const [a, b] = process.argv.slice(2)
const da = new Database(a!, { readonly: true }), db = new Database(b!, { readonly: true })
let diff = 0
for (const t of ['meta', 'rotulos', 'fluxo', 'fluxo_cnae', 'indice', 'raiz', 'extra']) {
  const ra = da.query(`SELECT * FROM ${t} ORDER BY 1`).all(), rb = db.query(`SELECT * FROM ${t} ORDER BY 1`).all()
  const same = ra.length === rb.length && ra.every((r: any, i) => JSON.stringify(Object.values(r).map(v => v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)) === JSON.stringify(Object.values(rb[i] as any).map(v => v instanceof Uint8Array ? Buffer.from(v as any).toString('base64') : v)))
  console.log(t, ra.length, rb.length, same ? 'same' : 'DIFFERENT'); if (!same) diff++
}
process.exit(diff ? 1 : 0)
