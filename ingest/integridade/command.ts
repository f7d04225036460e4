// `dadosbr ingest integridade`: the five lists (CGU's CEIS, CNEP, CEPIM, leniency agreements; the
// MTE's employers list), downloaded daily or --from a folder of the files as downloaded, and the
// bundled sample (real-format files under test/integridade/fixtures/integridade-amostra).
import { join } from 'node:path'
import type { FlagSpec } from '../../src/cli/args'
import { copyBundled } from '../lib/bundled'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { buildIntegridade, type BuildResult } from './load'
import { CGU_DOWNLOADS, downloadLists, MTE_CADASTRO } from './sources'

export const SAMPLE_DIR = 'test/integridade/fixtures/integridade-amostra'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os arquivos como baixados: os zips da CGU (qualquer nome) e o .csv do MTE; cada lista é reconhecida pelo cabeçalho' },
  { name: '--downloads', value: true, help: 'onde guardar os arquivos baixados (padrão <data>/downloads/integridade)' },
  { name: '--forcar', value: false, help: 'reconstrói mesmo que nenhum arquivo tenha mudado desde a base em uso' },
]

function summary(r: BuildResult, what: string): string {
  const m = r.manifest
  const listas = Object.entries(m.listas).map(([k, v]) => `${k} ${v}`).join(', ')
  if (!r.built) return `base integridade já foi construída desses arquivos (${listas}): nada a fazer`
  const counts = Object.entries(m.registros as Record<string, number>).map(([k, v]) => `${k}=${v}`).join(' ')
  const dropped = m.arquivos.reduce((n, a) => n + (typeof a.linhas_descartadas === 'number' ? a.linhas_descartadas : 0), 0)
  return `base integridade ${m.referencia} pronta em ${r.seconds.toFixed(1)} s (${what}): ${counts}; ${dropped} linhas de pessoas físicas ou sem CNPJ descartadas`
}

export const integridadeIngest: IngestDataset = {
  name: 'integridade',
  description: 'cinco listas de integridade: CEIS, CNEP, CEPIM, acordos de leniência (CGU) e cadastro de empregadores do MTE (diário)',
  synopsis: 'dadosbr ingest integridade [--from DIR] [--data DIR]',
  specs: SPECS,
  help:
    'Sem --from, baixa o arquivo mais recente de cada lista (só o que mudou desde a última vez) e não faz\n' +
    'nada quando nenhum arquivo mudou desde a base em uso. Pessoas físicas (CPF) são contadas e descartadas.\n' +
    'Constrói numa pasta nova e só troca a base em uso (data/integridade/current) quando tudo deu certo;\n' +
    'um servidor rodando passa a usar a base nova sozinho, sem reiniciar.',
  upstreams: [CGU_DOWNLOADS, MTE_CADASTRO],
  sampleAssets: [SAMPLE_DIR],
  async run(ctx: IngestContext) {
    const force = Boolean(ctx.flags['--forcar'])
    const from = ctx.flags['--from'] as string | undefined
    if (from) return summary(await buildIntegridade({ dir: from, dataDir: ctx.dataDir, force, log: ctx.log }), `de ${from}`)
    const dir = (ctx.flags['--downloads'] as string | undefined) ?? join(ctx.dataDir, 'downloads', 'integridade')
    const got = await downloadLists(dir, { quiet: ctx.quiet, log: ctx.log })
    const r = await buildIntegridade({ dir, dataDir: ctx.dataDir, knownDates: got.dates, force, log: ctx.log })
    return summary(r, got.fetched.length ? `baixados: ${got.fetched.join(', ')}` : 'nada novo para baixar')
  },
  async sample(ctx, onlyIfNeeded) {
    const copy = await copyBundled(SAMPLE_DIR)
    try {
      // The same check as a daily run: the sample in use, built by this version, is kept.
      return summary(await buildIntegridade({ dir: copy.dir, dataDir: ctx.dataDir, force: !onlyIfNeeded, log: ctx.log }), 'amostra embutida')
    } finally {
      copy.done()
    }
  },
}
