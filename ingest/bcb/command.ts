// `dadosbr ingest bcb`: the Banco Central's "Relação de instituições em funcionamento no país"
// (five monthly lists), downloaded or --from a folder, and the bundled sample.
import { join } from 'node:path'
import { UsageError, type FlagSpec } from '../../src/cli/args'
import { BCB_INSTITUICOES } from '../../src/datasets/bcb/upstreams'
import { copyBundled } from '../lib/bundled'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { buildBcb, type BcbBuildResult } from './load'
import { downloadBcb } from './sources'

export const SAMPLE_DIR = 'test/bcb/fixtures/bcb-amostra'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os cinco zips como baixados (XLSX, ou CSV nos meses antigos); cada lista é reconhecida pelas colunas, pelo título ou pelo nome' },
  { name: '--mes', value: true, help: 'mês AAAA-MM a baixar (padrão: o mais recente publicado)' },
  { name: '--downloads', value: true, help: 'onde guardar os zips baixados (padrão <data>/downloads/bcb)' },
  { name: '--forcar', value: false, help: 'reconstrói mesmo que nenhum arquivo tenha mudado desde a base em uso' },
]

function summary(r: BcbBuildResult, what: string): string {
  const listas = Object.entries(r.manifest.listas).map(([k, v]) => `${k} ${v}`).join(', ')
  if (!r.built) return `base bcb já foi construída desses arquivos (${listas}): nada a fazer`
  const counts = Object.entries(r.manifest.registros as Record<string, number>).map(([k, v]) => `${k}=${v}`).join(' ')
  return `base bcb ${r.manifest.referencia} pronta em ${r.seconds.toFixed(1)} s (${what}): ${counts}; ${r.manifest.raizes} raízes`
}

export const bcbIngest: IngestDataset = {
  name: 'bcb',
  description: 'instituições autorizadas pelo Banco Central e seus sítios oficiais (relação mensal, cinco listas)',
  synopsis: 'dadosbr ingest bcb [--from DIR] [--mes AAAA-MM] [--data DIR]',
  specs: SPECS,
  help:
    'Sem --from, procura o mês mais recente publicado (do atual para trás) e baixa só o que mudou; não faz nada\n' +
    'quando os arquivos são os da base em uso. Constrói numa pasta nova e só troca a base em uso\n' +
    '(data/bcb/current) quando tudo deu certo; um servidor rodando passa a usar a base nova sozinho.',
  upstreams: [BCB_INSTITUICOES],
  sampleAssets: [SAMPLE_DIR],
  async run(ctx: IngestContext) {
    const force = Boolean(ctx.flags['--forcar'])
    const from = ctx.flags['--from'] as string | undefined
    if (from) return summary(await buildBcb({ dir: from, dataDir: ctx.dataDir, force, log: ctx.log }), `de ${from}`)
    const mes = ctx.flags['--mes'] as string | undefined
    if (mes !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(mes)) throw new UsageError('--mes precisa ser AAAA-MM, ex. 2026-10')
    const dir = (ctx.flags['--downloads'] as string | undefined) ?? join(ctx.dataDir, 'downloads', 'bcb')
    const got = await downloadBcb(dir, { month: mes?.replace('-', ''), quiet: ctx.quiet, log: ctx.log })
    const r = await buildBcb({ dir, dataDir: ctx.dataDir, force, log: ctx.log })
    return summary(r, got.fetched.length ? `baixados: ${got.fetched.join(', ')}` : `${got.month}: nada novo para baixar`)
  },
  async sample(ctx, onlyIfNeeded) {
    const copy = await copyBundled(SAMPLE_DIR)
    try {
      return summary(await buildBcb({ dir: copy.dir, dataDir: ctx.dataDir, force: !onlyIfNeeded, log: ctx.log }), 'amostra embutida')
    } finally {
      copy.done()
    }
  },
}
