// `dadosbr ingest cnpj`: the registry from the Receita's monthly dump (downloaded, or --from a
// folder of the 37 zips), and its bundled sample (the real-format excerpt of SERPRO).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { UsageError, type FlagSpec } from '../../src/cli/args'
import { copyBundled } from '../lib/bundled'
import type { IngestContext, IngestDataset } from '../lib/dataset'
import { buildCnpj, upToDateBuild } from './load'
import { heldMonths, monthRanges, planHistory } from './history'
import { ALL_ZIPS } from './parse'
import { DEFAULT_SOURCE, downloadMonth, listMonthFiles, listMonths, type ListedFile } from './sources'
import { readManifest, type SnapshotManifest } from '../../src/core/stores/snapshot-layout'
import { downloadMunicipiosTable, municipiosTableIn } from './municipios'
import { municipiosDownloadDir } from '../lib/municipios-rfb'
import { RFB_MUNICIPIOS } from '../../src/core/municipios-rfb'

/** The bundled sample: real files in the published format, of the month they were taken from. */
const SAMPLE_DIR = 'test/cnpj/fixtures/rfb'
const SAMPLE_MONTH = '2026-08'
/** The month before it, in the same format (test/cnpj/fixtures/make-earlier-month.ts): the sample's history. */
const EARLIER_SAMPLE_DIR = 'test/cnpj/fixtures/rfb-2026-07'
const EARLIER_SAMPLE_MONTH = '2026-07'

const SPECS: FlagSpec[] = [
  { name: '--from', value: true, help: 'pasta com os 37 zips do mês e, se houver, a tabela municipios.csv da Receita (sem ela, baixa tudo; sem a tabela, baixa só a tabela)' },
  { name: '--mes', value: true, help: 'mês de referência AAAA-MM (padrão: o mais recente publicado, ou o nome da pasta --from)', aliases: ['--month'] },
  { name: '--downloads', value: true, help: 'onde guardar os zips baixados (padrão <data>/downloads/cnpj/<mês>)' },
  { name: '--fonte', value: true, help: `endereço do compartilhamento da Receita (padrão ${DEFAULT_SOURCE.url}) [RFB_CNPJ_URL]` },
  { name: '--token', value: true, help: 'token do compartilhamento Nextcloud [RFB_CNPJ_TOKEN]' },
  { name: '--se-preciso', value: false, help: 'nada faz se a base em uso já é desse mês, do formato desta versão e dos mesmos zips (com download: nada baixa; um zip de outro tamanho é o mês publicado de novo, construído de novo)' },
  { name: '--parcial', value: false, help: 'constrói mesmo faltando zips (amostras, testes)' },
  { name: '--max-rejeitadas', value: true, help: 'linhas malformadas toleradas antes de falhar (padrão 1000)' },
  { name: '--memoria', value: true, help: 'limite de memória do DuckDB (padrão 4GB; na fase final, dividido com os dois processos dos índices)' },
  { name: '--nucleos', value: true, help: 'núcleos que a construção pode usar (padrão: todos os da máquina; um zip por núcleo na carga)' },
]

/** A --nucleos value: a whole number of cores, at least 1. */
export function coresFlag(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new UsageError('--nucleos precisa ser um inteiro >= 1')
  return n
}

/**
 * The Receita's municipality table (TOM ↔ IBGE) for a build from `dir`: the one in it, else
 * downloaded into `downloads` (a small file, asked again only when it changed). Asked by the
 * build once it has checked its options and the zips.
 */
const municipiosTable = (ctx: IngestContext, dir: string, downloads: string) => async (): Promise<string> =>
  municipiosTableIn(dir) ?? (await downloadMunicipiosTable(downloads, { quiet: ctx.quiet, log: ctx.log })).path

async function build(ctx: IngestContext, source: { dir: string; month: string }, allowPartial: boolean, municipiosCsv?: () => Promise<string>, historyRestart = false): Promise<string> {
  const { flags } = ctx
  const maxRejects = flags['--max-rejeitadas'] === undefined ? undefined : Number(flags['--max-rejeitadas'])
  if (maxRejects !== undefined && !(Number.isInteger(maxRejects) && maxRejects >= 0)) throw new UsageError('--max-rejeitadas precisa ser um inteiro >= 0')
  const started = performance.now()
  const manifest = await buildCnpj({
    sourceDir: source.dir, month: source.month, dataDir: ctx.dataDir, quiet: ctx.quiet, log: ctx.log, maxRejects, allowPartial, municipiosCsv,
    memoryLimit: flags['--memoria'] as string | undefined,
    cores: coresFlag(flags['--nucleos']),
    historyRestart,
  })
  const rows = Object.entries(manifest.linhas).map(([k, v]) => `${k}=${v}`).join(' ')
  const rejected = manifest.rejeitadas.total ? `; ${manifest.rejeitadas.total} linhas malformadas` : ''
  const h = manifest.historico
  const history = h.referencia_anterior
    ? `; histórico ${monthRanges(h.meses)}: ${h.itens} mudanças ${h.lacuna ? `entre ${h.referencia_anterior} e ${manifest.referencia} (meses do meio não carregados)` : `desde ${h.referencia_anterior}`}` +
      (h.republicado ? ` (refeitas: a publicação nova mudou ${h.republicado.raizes_mudadas} raízes)` : '')
    : ''
  return `base CNPJ ${manifest.referencia} pronta em ${((performance.now() - started) / 1000).toFixed(1)} s: ${rows}${rejected}${history}`
}

/** The zips of a folder, with their sizes. */
const localZips = (dir: string): ListedFile[] =>
  existsSync(dir) ? readdirSync(dir).filter((f) => /\.zip$/i.test(f)).map((name) => ({ name, size: statSync(join(dir, name)).size })) : []

/** The month's zips a build loads, by lower-case name (others in a folder or on the share are not read). */
const MONTH_ZIPS = new Set(ALL_ZIPS.map((z) => `${z}.zip`.toLowerCase()))

/**
 * The month's zips (`listed`) that the build in use did not load as they are: of another size (the
 * Receita published the month again), or not loaded (a build --parcial, now whole). Each as "name
 * before → now bytes". A zip the listing lacks is no reason to build (the build would stop for it).
 */
export function republishedZips(build: string, listed: ListedFile[]): string[] {
  const loaded = new Map((readManifest<SnapshotManifest & { arquivos?: { nome: string; bytes: number }[] }>(build).arquivos ?? []).map((a) => [a.nome.toLowerCase(), a.bytes]))
  const out: string[] = []
  for (const f of [...listed].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!MONTH_ZIPS.has(f.name.toLowerCase())) continue
    const before = loaded.get(f.name.toLowerCase())
    if (f.size === undefined || before === f.size) continue
    out.push(before === undefined ? `${f.name} não carregado` : `${f.name} ${before} → ${f.size} bytes`)
  }
  return out
}

export const cnpjIngest: IngestDataset = {
  name: 'cnpj',
  description: 'cadastro de empresas, do dump mensal da Receita Federal (~7,7 GB de zips)',
  synopsis: 'dadosbr ingest cnpj [--from DIR] [--mes AAAA-MM] [--data DIR]',
  specs: SPECS,
  help:
    'Constrói numa pasta nova e só troca a base em uso (link data/cnpj/current) quando tudo deu certo;\n' +
    'um servidor rodando passa a usar a base nova sozinho, sem reiniciar.',
  sampleAssets: [SAMPLE_DIR, EARLIER_SAMPLE_DIR],
  upstreams: [RFB_MUNICIPIOS],
  async run(ctx) {
    const { flags, dataDir } = ctx
    let month = flags['--mes'] as string | undefined
    const fromDir = flags['--from'] as string | undefined
    const share = { url: String(flags['--fonte'] ?? DEFAULT_SOURCE.url).replace(/\/+$/, ''), token: String(flags['--token'] ?? DEFAULT_SOURCE.token) }
    if (fromDir) {
      month ??= /\d{4}-\d{2}/.exec(basename(fromDir))?.[0]
      if (!month) throw new UsageError('informe --mes AAAA-MM (o nome da pasta --from não diz o mês)')
    }
    if (flags['--se-preciso']) {
      // One listing of the share says which month is the latest, before anything is downloaded.
      month ??= (await listMonths(share)).pop()
      const built = month && upToDateBuild(dataDir, month)
      if (built) {
        // The Receita sometimes publishes a month again: a zip of another size than the build's.
        const changed = republishedZips(built, fromDir ? localZips(fromDir) : await listMonthFiles(share, month!))
        if (!changed.length) return `base CNPJ ${month} já está em ${built}, no formato desta versão: nada a fazer`
        ctx.log(`os zips de ${month} diferem dos que a base em uso carregou (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ` e mais ${changed.length - 3}` : ''}): construindo de novo`)
      }
    }
    // A month the history refuses (older than the newest held, or held already) is refused before its ~8 GB are downloaded.
    if (month) planHistory(dataDir, month)
    const downloads = flags['--downloads'] as string | undefined
    const source = fromDir && month
      ? { dir: fromDir, month }
      : await downloadMonth(share, month, (m) => downloads ?? join(dataDir, 'downloads', 'cnpj', m), { quiet: ctx.quiet, log: ctx.log })
    const municipiosCsv = municipiosTable(ctx, source.dir, municipiosDownloadDir(dataDir))
    return build(ctx, source, Boolean(flags['--parcial']), municipiosCsv)
  },
  async sample(ctx, onlyIfNeeded) {
    const built = onlyIfNeeded && upToDateBuild(ctx.dataDir, SAMPLE_MONTH)
    if (built && heldMonths(built).includes(EARLIER_SAMPLE_MONTH)) return `base CNPJ ${SAMPLE_MONTH} já está em ${built}: nada a fazer`
    // Two whole months (all 37 zips each: test/cnpj/fixtures/make-edge-cases.ts and make-earlier-month.ts),
    // built in order as real ones are: the first starts a new history, the second is compared with it.
    const earlier = await copyBundled(EARLIER_SAMPLE_DIR)
    try {
      await build({ ...ctx, quiet: true }, { dir: earlier.dir, month: EARLIER_SAMPLE_MONTH }, false, undefined, true)
    } finally {
      earlier.done()
    }
    const copy = await copyBundled(SAMPLE_DIR)
    try {
      return await build(ctx, { dir: copy.dir, month: SAMPLE_MONTH }, false)
    } finally {
      copy.done()
    }
  },
}
