// `dadosbr ingest desmatamento`: INPE's DETER alerts (Amazon and Cerrado) and the Receita's
// municipality table, downloaded (only what changed) or --from a folder, and the bundled sample.
import { municipiosDownloadDir } from '../lib/municipios-rfb'
import { join } from 'node:path'
import type { FlagSpec } from '../../src/cli/args'
import { DETER_DOWNLOAD, RFB_MUNICIPIOS } from '../../src/datasets/desmatamento/upstreams'
import { copyBundled } from '../lib/bundled'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { buildDesmatamento, type DesmatamentoBuildResult } from './load'
import { downloadDesmatamento } from './sources'

export const SAMPLE_DIR = 'test/desmatamento/fixtures/desmatamento-amostra'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os dois zips do DETER como baixados (deter-amz e deter-cerrado-nb, reconhecidos pelo .dbf de dentro ou pelo nome) e a tabela municipios.csv da Receita' },
  { name: '--downloads', value: true, help: 'onde guardar o que for baixado (padrão <data>/downloads/desmatamento)' },
  { name: '--forcar', value: false, help: 'reconstrói mesmo que nenhum arquivo tenha mudado desde a base em uso' },
]

function summary(r: DesmatamentoBuildResult, what: string): string {
  const p = r.manifest.projetos
  if (!r.built) return `base desmatamento já foi construída desses arquivos (alerta mais recente ${r.manifest.referencia}): nada a fazer`
  return (
    `base desmatamento ${r.manifest.referencia} pronta em ${r.seconds.toFixed(1)} s (${what}): ` +
    `Amazônia ${p.amazonia.alertas_desde_corte} alertas desde o corte (até ${p.amazonia.alerta_mais_recente}), ` +
    `Cerrado ${p.cerrado.alertas_desde_corte} (até ${p.cerrado.alerta_mais_recente}); ${r.manifest.municipios_com_alertas} municípios com alertas`
  )
}

export const desmatamentoIngest: IngestDataset = {
  name: 'desmatamento',
  description: 'alertas de desmatamento DETER (INPE), Amazônia e Cerrado, desde 2020-12-31, e a tabela de municípios da Receita',
  synopsis: 'dadosbr ingest desmatamento [--from DIR] [--data DIR]',
  specs: SPECS,
  help:
    'Sem --from, baixa os shapefiles públicos do DETER Amazônia e Cerrado (TerraBrasilis) e a tabela de municípios da\n' +
    'Receita, cada um só se mudou desde a cópia em disco (ETag/Last-Modified), e não constrói nada quando os arquivos\n' +
    'são os da base em uso: rode-o uma vez por dia (cron, CI). Do shapefile só a tabela .dbf é lida. Constrói numa pasta\n' +
    'nova e só troca a base em uso (data/desmatamento/current) quando tudo deu certo; um servidor rodando passa a usar a\n' +
    'base nova sozinho. A rota /v1/desmatamento/fornecedor precisa também da base cnpj.',
  upstreams: [DETER_DOWNLOAD, RFB_MUNICIPIOS],
  sampleAssets: [SAMPLE_DIR],
  async run(ctx: IngestContext) {
    const force = Boolean(ctx.flags['--forcar'])
    const from = ctx.flags['--from'] as string | undefined
    if (from) return summary(await buildDesmatamento({ dir: from, dataDir: ctx.dataDir, force, quiet: ctx.quiet, log: ctx.log }), `de ${from}`)
    const dir = (ctx.flags['--downloads'] as string | undefined) ?? join(ctx.dataDir, 'downloads', 'desmatamento')
    const got = await downloadDesmatamento(dir, { quiet: ctx.quiet, log: ctx.log, municipiosDir: municipiosDownloadDir(ctx.dataDir) })
    const r = await buildDesmatamento({ dir, dataDir: ctx.dataDir, force, quiet: ctx.quiet, log: ctx.log })
    return summary(r, got.fetched.length ? `baixados: ${got.fetched.join(', ')}` : 'nada novo para baixar')
  },
  async sample(ctx, onlyIfNeeded) {
    const copy = await copyBundled(SAMPLE_DIR)
    try {
      return summary(await buildDesmatamento({ dir: copy.dir, dataDir: ctx.dataDir, force: !onlyIfNeeded, quiet: true, log: ctx.log }), 'amostra embutida')
    } finally {
      copy.done()
    }
  },
}
