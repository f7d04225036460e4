// `make bench`: the registry benchmark (synthetic dumps in the real format), its bulk routes,
// filters and offline lookups (bulk.ts), and the payment benchmark (local chain). Pass --companies 1000000,5000000,10000000 for the scale curve.
import { benchArgs as args, opt } from './lib'

const bun = process.execPath
/** The export is measured on the registry registry.ts just built at its largest size (the national one with --companies 65000000). */
const largestRegistry = () => {
  const companies = Math.max(...opt('--companies', '1000000').split(',').map(Number))
  return ['--dados', `${opt('--work', '/tmp/dadosbr-bench')}/data-${companies}`, '--empresas', String(companies)]
}
/** The bulk routes, the search filters and consultar (bulk.ts) on the same registry. */
const largestData = () => ['--data', largestRegistry()[1]!]
for (const script of ['registry.ts', 'historico.ts', 'bulk.ts', 'payments.ts', 'integridade.ts', 'fundos.ts', 'licitacoes.ts', 'mercado.ts', 'commodities.ts', 'tributos.ts', 'desmatamento.ts', 'cadeias.ts', 'usuarios.ts', 'faults.ts']) {
  console.log(`\n### ${script} (${new Date().toISOString()}, ${navigator.hardwareConcurrency} núcleos)`)
  const proc = Bun.spawn([bun, `${import.meta.dir}/${script}`, ...(script === 'registry.ts' || script === 'historico.ts' ? args : script === 'usuarios.ts' ? largestRegistry() : script === 'bulk.ts' ? largestData() : [])], { stdout: 'inherit', stderr: 'inherit' })
  if ((await proc.exited) !== 0) process.exit(1)
}
