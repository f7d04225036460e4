// `make bench`: the registry benchmark (synthetic dumps in the real format) and the payment
// benchmark (local chain). Pass --companies 1000000,5000000,10000000 for the scale curve.
const bun = process.execPath
const args = process.argv.slice(2)
for (const script of ['registry.ts', 'payments.ts', 'integridade.ts', 'fundos.ts', 'licitacoes.ts', 'mercado.ts', 'commodities.ts', 'tributos.ts', 'desmatamento.ts', 'cadeias.ts', 'usuarios.ts']) {
  console.log(`\n### ${script} (${new Date().toISOString()}, ${navigator.hardwareConcurrency} núcleos)`)
  const proc = Bun.spawn([bun, `${import.meta.dir}/${script}`, ...(script === 'registry.ts' ? args : [])], { stdout: 'inherit', stderr: 'inherit' })
  if ((await proc.exited) !== 0) process.exit(1)
}
