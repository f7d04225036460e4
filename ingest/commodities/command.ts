// Two commands for the commodities dataset:
// - `dadosbr ingest exportacoes [--from DIR]`: ComexStat's EXP_AAAA.csv (this year and last) into
//   data/exportacoes, monthly; its sample builds from real-format files in test/commodities/fixtures/exportacoes-amostra.
// - `dadosbr ingest commodities`: the polled sources (weather, fire, reservoirs, briefing) refreshed
//   once into the copies the server serves, as `dadosbr atualizar commodities` does; its sample
//   installs recorded upstream answers (test/commodities/fixtures/commodities-amostra) with their true age.
import { join } from 'node:path'
import { UsageError, type FlagSpec } from '../../src/cli/args'
import { COMMODITIES_FEEDS } from '../../src/datasets/commodities'
import { COMEXSTAT } from '../../src/datasets/commodities/upstreams'
import { copyBundled } from '../lib/bundled'
import { feedIngest } from '../lib/feed-ingest'
import type { IngestDataset } from '../lib/dataset'
import { buildExportacoes, type ExportacoesBuild } from './exportacoes'
import { downloadExp } from './sources'

export const COMMODITIES_SAMPLE = 'test/commodities/fixtures/commodities-amostra'
export const EXPORTACOES_SAMPLE = 'test/commodities/fixtures/exportacoes-amostra'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os arquivos EXP_AAAA.csv como baixados (todos os anos que houver nela)' },
  { name: '--anos', value: true, help: 'quantos anos baixar, do atual para trás (padrão 3: este e o anterior para os 13 meses, e o antes deles para a variação anual de todos; 2 deixa sem variação os meses do ano anterior)' },
  { name: '--downloads', value: true, help: 'onde guardar os arquivos baixados (padrão <data>/downloads/exportacoes)' },
  { name: '--forcar', value: false, help: 'reconstrói mesmo que os arquivos sejam os da base em uso' },
]

function summary(r: ExportacoesBuild, what: string): string {
  const m = r.manifest
  const files = m.arquivos.map((a) => `${a.nome} ${(a.linhas_mantidas ?? 0).toLocaleString('pt-BR')} linhas`).join(', ')
  if (!r.built) return `exportações já construídas desses arquivos (${files}): nada a fazer`
  return `exportações até ${m.referencia} prontas em ${r.seconds.toFixed(1)} s (${what}): ${files}; ${m.linhas_nos_grupos.toLocaleString('pt-BR')} linhas nos grupos`
}

export const exportacoesIngest: IngestDataset = {
  name: 'exportacoes',
  description: 'commodities: exportações mensais por grupo de NCM (ComexStat EXP_AAAA.csv), para /v1/commodities/exportacoes',
  synopsis: 'dadosbr ingest exportacoes [--from DIR] [--anos N] [--data DIR]',
  specs: SPECS,
  help:
    'Sem --from, baixa EXP_AAAA.csv deste ano, do anterior e do antes dele (só o que mudou: o do ano corrente é reescrito todo mês) e soma\n' +
    'valor FOB e peso líquido por grupo de commodity (prefixos de NCM em src/datasets/commodities/grupos-ncm.json) e mês.\n' +
    'Constrói numa pasta nova e só troca a base em uso (data/exportacoes/current) quando tudo deu certo; um servidor rodando passa a usar a base nova sozinho.',
  upstreams: [COMEXSTAT],
  sampleAssets: [EXPORTACOES_SAMPLE],
  async run(ctx) {
    const force = Boolean(ctx.flags['--forcar'])
    const from = ctx.flags['--from'] as string | undefined
    if (from) return summary(await buildExportacoes({ dir: from, dataDir: ctx.dataDir, force, quiet: ctx.quiet }), `de ${from}`)
    const anosFlag = ctx.flags['--anos'] as string | undefined
    if (anosFlag !== undefined && !/^[1-5]$/.test(anosFlag)) throw new UsageError('--anos precisa ser um número de 1 a 5')
    const dir = (ctx.flags['--downloads'] as string | undefined) ?? join(ctx.dataDir, 'downloads', 'exportacoes')
    const got = await downloadExp(dir, { anos: anosFlag ? Number(anosFlag) : 3, quiet: ctx.quiet, log: ctx.log })
    const r = await buildExportacoes({ dir, dataDir: ctx.dataDir, force, quiet: ctx.quiet, anos: got.anos })
    return summary(r, got.baixados.length ? `baixados: ${got.baixados.join(', ')}` : 'nada novo para baixar')
  },
  async sample(ctx, onlyIfNeeded) {
    const copy = await copyBundled(EXPORTACOES_SAMPLE)
    try {
      return summary(await buildExportacoes({ dir: copy.dir, dataDir: ctx.dataDir, force: !onlyIfNeeded, quiet: true }), 'amostra embutida')
    } finally {
      copy.done()
    }
  },
}

export const commoditiesIngest = feedIngest({
  name: 'commodities',
  description: 'commodities: consulta uma vez clima (Open-Meteo), focos (INPE) e reservatórios (ONS) e escreve o briefing',
  help:
    'Clima, fogo e hidrologia são consultados pelo próprio servidor (clima duas vezes ao dia, fogo e reservatórios diariamente) e o briefing é refeito\n' +
    'quando um sinal muda; este comando faz uma consulta de cada agora. As exportações têm o seu: dadosbr ingest exportacoes.\n' +
    'Reescrita do briefing por LLM (opcional, compatível com a API da OpenAI): LLM_URL, LLM_MODEL, LLM_API_KEY.\n' +
    'Com --amostra, instala as respostas gravadas (sem internet).',
  feeds: COMMODITIES_FEEDS,
  sample: COMMODITIES_SAMPLE,
  ofTheDataset: 'de commodities',
})
