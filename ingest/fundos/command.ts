// `dadosbr ingest fundos`: the CVM's fund files (downloaded, only what changed, or --from a folder)
// into a new build, and the bundled sample (real-format files in test/fundos/fixtures/fundos-amostra).
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { UsageError, type FlagSpec } from '../../src/cli/args'
import { upstreamUrl } from '../../src/core/upstream'
import { copyBundled } from '../lib/bundled'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { buildFundos, CorruptFileError, DAILY_MONTHS, missingSources, PORTFOLIO_MONTHS, sourcesInDir, summary, upToDateBuild, type SourceSet } from './load'
import { CVM_FI, downloadSources } from './sources'

/** The bundled sample: files in the CVM's published format (test/fundos/fixtures/README.md says which rows are real). */
export const SAMPLE_DIR = 'test/fundos/fixtures/fundos-amostra'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os arquivos como a CVM publica (inf_diario_fi_AAAAMM.zip, cda_fi_AAAAMM.zip, registro_fundo_classe.zip, cad_fi.csv); sem ela, baixa da CVM' },
  { name: '--downloads', value: true, help: 'onde guardar os arquivos baixados (padrão <data>/downloads/fundos); só o que mudou é baixado de novo' },
  { name: '--fonte', value: true, help: `endereço dos dados abertos de fundos da CVM (padrão ${CVM_FI.padrao}) [${CVM_FI.env}]` },
  { name: '--meses-carteira', value: true, help: `quantas competências de carteira (CDA) carregar, as mais recentes (padrão ${PORTFOLIO_MONTHS})` },
  { name: '--se-preciso', value: false, help: 'nada constrói se a base em uso já foi feita destes mesmos arquivos, no formato desta versão' },
  { name: '--parcial', value: false, help: 'constrói mesmo faltando arquivos (um mês no meio, o cadastro, as carteiras)' },
  { name: '--max-rejeitadas', value: true, help: 'linhas malformadas toleradas nos informes diários antes de falhar (padrão 1000)' },
]

function positiveInt(flag: string, value: unknown, min: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} precisa ser um inteiro >= ${min}`)
  return n
}

async function build(ctx: IngestContext, sources: SourceSet, allowPartial: boolean): Promise<string> {
  const started = performance.now()
  const manifest = await buildFundos({
    sources, dataDir: ctx.dataDir, quiet: ctx.quiet, log: ctx.log, allowPartial,
    maxRejects: positiveInt('--max-rejeitadas', ctx.flags['--max-rejeitadas'], 0),
  })
  return summary(manifest, (performance.now() - started) / 1000)
}

export const fundosIngest: IngestDataset = {
  name: 'fundos',
  description: 'fundos de investimento, dos dados abertos da CVM (informes diários de 12 meses, cadastro, carteiras)',
  synopsis: 'dadosbr ingest fundos [--from DIR] [--meses-carteira N] [--data DIR]',
  specs: SPECS,
  upstreams: [CVM_FI],
  help:
    'Lê os informes diários dos últimos 12 meses (inf_diario_fi_AAAAMM.zip), o cadastro (registro_fundo_classe.zip\n' +
    'e o antigo cad_fi.csv) e as carteiras mensais mais recentes (cda_fi_AAAAMM.zip: bloco 4 e PL). Sem --from,\n' +
    'pergunta à CVM a versão de cada arquivo e baixa só os que mudaram desde a última vez.\n' +
    'Constrói numa pasta nova e só troca a base em uso (link data/fundos/current) quando tudo deu certo;\n' +
    'um servidor rodando passa a usar a base nova sozinho, sem reiniciar.',
  sampleAssets: [SAMPLE_DIR],
  async run(ctx) {
    const { flags, dataDir } = ctx
    const portfolioMonths = positiveInt('--meses-carteira', flags['--meses-carteira'], 1) ?? PORTFOLIO_MONTHS
    const allowPartial = Boolean(flags['--parcial'])
    let sources: SourceSet
    let note = ''
    const fromDir = flags['--from'] as string | undefined
    if (fromDir) sources = sourcesInDir(fromDir, DAILY_MONTHS, portfolioMonths)
    else {
      const baseUrl = flags['--fonte'] ? String(flags['--fonte']).replace(/\/+$/, '') : upstreamUrl(CVM_FI)
      const downloaded = await downloadSources({
        baseUrl, dir: (flags['--downloads'] as string | undefined) ?? join(dataDir, 'downloads', 'fundos'),
        dailyMonths: DAILY_MONTHS, portfolioMonths, quiet: ctx.quiet, log: ctx.log,
      })
      sources = downloaded.sources
      note = `; baixados ${downloaded.baixados.length}, inalterados ${downloaded.inalterados.length}`
    }
    const missing = missingSources(sources)
    if (missing.length && !allowPartial) throw new UsageError(`arquivos ausentes: ${missing.join('; ')} (use --parcial para construir assim mesmo); a base em uso foi mantida`)
    if (flags['--se-preciso']) {
      const built = await upToDateBuild(dataDir, sources)
      if (built) return `base de fundos construída em ${built} destes mesmos arquivos, no formato desta versão: nada a fazer${note}`
    }
    try {
      return (await build(ctx, sources, allowPartial)) + note
    } catch (err) {
      // A downloaded copy that does not open would be kept by the next run (the server answers 304):
      // drop it, with its validators, so the next run downloads it again.
      if (err instanceof CorruptFileError && !fromDir) {
        rmSync(err.path, { force: true })
        rmSync(`${err.path}.http.json`, { force: true })
        throw new CorruptFileError(`${err.message}; a cópia baixada foi apagada e a próxima rodada a baixa de novo`, err.path)
      }
      throw err
    }
  },
  async sample(ctx, onlyIfNeeded) {
    const copy = await copyBundled(SAMPLE_DIR)
    try {
      const sources = sourcesInDir(copy.dir)
      if (onlyIfNeeded) {
        const built = await upToDateBuild(ctx.dataDir, sources)
        if (built) return `amostra de fundos já construída em ${built}: nada a fazer`
      }
      return await build(ctx, sources, false)
    } finally {
      copy.done()
    }
  },
}
