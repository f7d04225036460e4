import { Database } from 'bun:sqlite'
for (const f of process.argv.slice(2)) { const d = new Database(f, { readonly: true }); console.log(f.split('/').slice(-4).join('/'), JSON.stringify(d.query(`SELECT valor FROM meta WHERE chave IN ('por_tipo','itens')`).all())) }
