import { Database } from 'bun:sqlite'
for (const f of process.argv.slice(2)) {
  const d = new Database(f, { readonly: true })
  const q = (s: string) => d.query(s).all()
  console.log(f.split('/').pop(), JSON.stringify(q(`SELECT 'fluxo' t, count(*) n, sum(length(dados)) b FROM fluxo UNION ALL SELECT 'cnae', count(*), sum(length(dados)) FROM fluxo_cnae UNION ALL SELECT 'raiz', count(*), sum(length(dados)) FROM raiz UNION ALL SELECT 'extra', count(*), sum(length(dados)) FROM extra`)), JSON.stringify(q(`SELECT chave, valor FROM meta WHERE chave = 'itens'`)))
}
