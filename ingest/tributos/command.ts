// `dadosbr ingest tributos`: the NCM table (Portal Único Siscomex), downloaded or --from a folder,
// checked against the annexes of LC 214/2025 that the program carries; and the bundled sample.
import { join } from 'node:path'
import type { FlagSpec } from '../../src/cli/args'
import { ANEXOS } from '../../src/datasets/tributos/anexos'
import { SISCOMEX_CLASSIF } from '../../src/datasets/tributos/upstreams'
import { copyBundled } from '../lib/bundled'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { buildTributos, type TributosBuildResult } from './load'
import { downloadTabelaNcm } from './sources'

export const SAMPLE_DIR = 'test/tributos/fixtures/tributos-amostra'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com a Tabela NCM como baixada do Siscomex (um arquivo .json, de qualquer nome)' },
  { name: '--downloads', value: true, help: 'onde guardar a tabela baixada (padrão <data>/downloads/tributos)' },
  { name: '--forcar', value: false, help: 'reconstrói mesmo que a tabela e os anexos sejam os da base em uso' },
]

function summary(r: TributosBuildResult, what: string): string {
  const t = r.manifest.tabela_ncm
  if (!r.built) return `base tributos já foi construída desta tabela (${t.vigencia}) e desta versão dos anexos (${ANEXOS.versao}): nada a fazer`
  const fora = r.manifest.anexos.fora_da_tabela.length
  return `base tributos ${r.manifest.referencia} pronta em ${r.seconds.toFixed(1)} s (${what}): ${t.codigos} códigos NCM (${t.subitens} de 8 dígitos), ${t.vigencia}; anexos ${ANEXOS.versao}${fora ? `, ${fora} códigos citados fora da tabela` : ''}`
}

export const tributosIngest: IngestDataset = {
  name: 'tributos',
  description: 'tabela NCM vigente (Siscomex) para os regimes de IBS/CBS dos anexos da LC 214/2025',
  synopsis: 'dadosbr ingest tributos [--from DIR] [--data DIR]',
  specs: SPECS,
  help:
    'Sem --from, baixa a Tabela NCM vigente do Portal Único Siscomex (JSON, ~3 MB), pedindo de novo só\n' +
    'se ela mudou (ETag/Last-Modified), e não faz nada quando a tabela e os anexos são os da base em uso.\n' +
    'Os anexos da LC 214/2025 vêm no próprio programa (src/datasets/tributos/data/anexos.json); o manifesto\n' +
    'lista os códigos citados neles que a tabela não tem. Constrói numa pasta nova e só troca a base em uso\n' +
    '(data/tributos/current) quando tudo deu certo; um servidor rodando passa a usar a base nova sozinho.',
  upstreams: [SISCOMEX_CLASSIF],
  sampleAssets: [SAMPLE_DIR],
  async run(ctx: IngestContext) {
    const force = Boolean(ctx.flags['--forcar'])
    const from = ctx.flags['--from'] as string | undefined
    if (from) return summary(await buildTributos({ dir: from, dataDir: ctx.dataDir, force, log: ctx.log }), `de ${from}`)
    const dir = (ctx.flags['--downloads'] as string | undefined) ?? join(ctx.dataDir, 'downloads', 'tributos')
    const got = await downloadTabelaNcm(dir, { quiet: ctx.quiet, log: ctx.log })
    const r = await buildTributos({ dir, dataDir: ctx.dataDir, force, log: ctx.log })
    return summary(r, got.changed ? 'tabela baixada' : 'tabela inalterada no Siscomex')
  },
  async sample(ctx, onlyIfNeeded) {
    const copy = await copyBundled(SAMPLE_DIR)
    try {
      // The bundled table is an excerpt (docs/tributos.md): the whole-table size check does not apply.
      return summary(await buildTributos({ dir: copy.dir, dataDir: ctx.dataDir, force: !onlyIfNeeded, minSubitens: 1, log: ctx.log }), 'amostra embutida')
    } finally {
      copy.done()
    }
  },
}
