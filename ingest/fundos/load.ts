// One build of the fund dataset: the registry, the daily reports of the last 12 months and the
// latest portfolio months, read from a folder of files as the CVM publishes them, into
// data/fundos/<build>/fundos.sqlite (a temp build, checked, swapped in; the data in use stays on
// any failure).
import { Database } from 'bun:sqlite'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { BuildError, buildSnapshot, currentManifest } from '../lib/snapshot'
import { progress, type Progress } from '../lib/progress'
import { readEntry, ZipError, type ZipEntry } from '../lib/zip'
import type { SnapshotManifest, SourceRecord } from '../../src/core/stores/snapshot-layout'
import { AGGREGATES_EXCLUDE_FIC, BASE, DATASET, DB_FILE, FORMAT, type CompetenciaInfo } from '../../src/datasets/fundos/layout'
import { Cadastro } from './cadastro'
import { consolidatedDay, DailyAggregator, type Reject } from './daily'
import { DAILY_ZIP, describeZipError, findMember, LEGACY_REGISTRY, monthOf, PORTFOLIO_ZIP, REGISTRY_ZIP, rowsOf, sha256File, SourceError } from './files'
import { emptyRegistry, readLegacyRegistry, readRegistryZip } from './parse-registry'
import { PortfolioMonthReader, type PortfolioMonth } from './portfolio'
import { computeRankings } from './ranking'
import { writeDatabase } from './write'

/** Months of daily reports a build keeps (the CVM's rolling window). */
export const DAILY_MONTHS = 12
/** Portfolio months a build keeps by default (the latest disclosed, and two before it to tell a partial month). */
export const PORTFOLIO_MONTHS = 3

export interface SourceFile {
  name: string
  path: string
  /** YYYY-MM of a monthly file. */
  month?: string
  /** HTTP validators of a downloaded file, kept in the manifest. */
  etag?: string | null
  ultima_modificacao?: string | null
}

export interface SourceSet {
  daily: SourceFile[]
  portfolios: SourceFile[]
  registry: SourceFile | null
  legacy: SourceFile | null
}

export interface FundosManifest extends SnapshotManifest {
  informes: { meses: string[]; dias: number; primeiro_dia: string; ultimo_dia: string; dia_consolidado: string; classes: number; linhas: number }
  carteiras: { competencias: CompetenciaInfo[] }
  cadastro: { fundos: number; classes: number; subclasses: number; legado: number }
  tabelas: { consultas: number; carteiras: number; movimentacoes: number; listas_ranking: number; classes_ranqueadas: number }
  rejeitadas: { total: number; exemplos: Reject[] }
  segundos: Record<string, number>
}

const nextMonth = (m: string) => {
  const [y, mo] = m.split('-').map(Number) as [number, number]
  return mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`
}

/**
 * The files of a folder as the CVM names them: the latest `dailyMonths` daily reports, the latest
 * `portfolioMonths` portfolio months, the registry zip and the legacy registry.
 */
export function sourcesInDir(dir: string, dailyMonths = DAILY_MONTHS, portfolioMonths = PORTFOLIO_MONTHS): SourceSet {
  const names = readdirSync(dir).filter((n) => statSync(join(dir, n)).isFile())
  const monthly = (pattern: RegExp, keep: number) =>
    names
      .map((name) => ({ name, path: join(dir, name), month: monthOf(name, pattern) ?? '' }))
      .filter((f) => f.month)
      .sort((a, b) => (a.month < b.month ? -1 : 1))
      .slice(-keep)
  const find = (wanted: string) => {
    const name = names.find((n) => n.toLowerCase() === wanted)
    return name ? { name, path: join(dir, name) } : null
  }
  return { daily: monthly(DAILY_ZIP, dailyMonths), portfolios: monthly(PORTFOLIO_ZIP, portfolioMonths), registry: find(REGISTRY_ZIP), legacy: find(LEGACY_REGISTRY) }
}

/** What a set of files lacks, as one line each (empty when complete). */
export function missingSources(sources: SourceSet): string[] {
  const out: string[] = []
  if (!sources.daily.length) out.push('nenhum informe diário (inf_diario_fi_AAAAMM.zip)')
  for (let i = 1; i < sources.daily.length; i++) {
    for (let m = nextMonth(sources.daily[i - 1]!.month!); m < sources.daily[i]!.month!; m = nextMonth(m))
      out.push(`falta o informe diário de ${m} (inf_diario_fi_${m.replace('-', '')}.zip) entre ${sources.daily[i - 1]!.month} e ${sources.daily[i]!.month}`)
  }
  if (!sources.registry) out.push(`falta o cadastro ${REGISTRY_ZIP}`)
  if (!sources.portfolios.length) out.push('nenhuma carteira mensal (cda_fi_AAAAMM.zip)')
  return out
}

/** The build in use when it was made from exactly these files (same names and sha256) in this layout. */
export async function upToDateBuild(dataDir: string, sources: SourceSet): Promise<string | null> {
  const manifest = currentManifest<FundosManifest>(dataDir, DATASET)
  if (!manifest || manifest.formato !== FORMAT) return null
  const files = [...sources.daily, ...sources.portfolios, sources.registry, sources.legacy].filter((f): f is SourceFile => !!f)
  const recorded = new Map(manifest.arquivos.map((a) => [a.nome, a.sha256]))
  if (recorded.size !== files.length) return null
  for (const f of files) if (recorded.get(f.name) !== (await sha256File(f.path))) return null
  return manifest.construido_em
}

/** Chunks of a zip member, counted on a progress bar as they are inflated. */
async function* counted(path: string, entry: ZipEntry, bar: Progress): AsyncGenerator<Uint8Array> {
  for await (const chunk of readEntry(path, entry)) {
    bar.add(chunk.length)
    yield chunk
  }
}

/** A source file that does not open (truncated, CRC mismatch): the build stops, and a downloaded copy can be dropped. */
export class CorruptFileError extends BuildError {
  constructor(message: string, readonly path: string) {
    super(message)
  }
}

/** Runs a step over a file; a corrupt zip or an unreadable layout becomes a BuildError naming the file. */
async function step<T>(f: SourceFile, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof ZipError) throw new CorruptFileError(describeZipError(f.name, err), f.path)
    if (err instanceof SourceError) throw new BuildError(`${f.name}: ${err.message}; a base em uso foi mantida`)
    throw err
  }
}

export interface BuildOptions {
  sources: SourceSet
  dataDir: string
  quiet?: boolean
  log?: (line: string) => void
  /** Build even when files are missing (samples, tests). */
  allowPartial?: boolean
  /** Malformed daily rows tolerated before the build fails. */
  maxRejects?: number
}

export async function buildFundos(options: BuildOptions): Promise<FundosManifest> {
  const { sources } = options
  const missing = missingSources(sources)
  if (missing.length && !options.allowPartial) throw new BuildError(`arquivos ausentes: ${missing.join('; ')}; a base em uso foi mantida`)
  if (!sources.daily.length) throw new BuildError('nenhum informe diário (inf_diario_fi_AAAAMM.zip): nada a construir; a base em uso foi mantida')
  const maxRejects = options.maxRejects ?? 1000
  const seconds: Record<string, number> = {}
  const started = performance.now()
  let mark = started
  const lap = (name: string) => {
    const now = performance.now()
    seconds[name] = Math.round((now - mark) / 100) / 10
    mark = now
  }

  return buildSnapshot<FundosManifest>({
    dataDir: options.dataDir,
    dataset: DATASET,
    build: async (work) => {
      const arquivos: SourceRecord[] = []
      const record = async (f: SourceFile, extra: Partial<SourceRecord>) => {
        arquivos.push({
          nome: f.name, bytes: statSync(f.path).size, sha256: await sha256File(f.path),
          ...(f.etag !== undefined ? { etag: f.etag } : {}), ...(f.ultima_modificacao !== undefined ? { ultima_modificacao: f.ultima_modificacao } : {}),
          ...extra,
        } as SourceRecord)
      }

      // 1. Registry (classifications are needed while the daily rows are folded).
      const registry = emptyRegistry()
      if (sources.registry) {
        const f = sources.registry
        await step(f, () => readRegistryZip(f.path, registry))
        const counts = registry.counts.filter((c) => c.tipo.startsWith('registro'))
        await record(f, { tipo: 'registro_fundo_classe', linhas_mantidas: counts.reduce((n, c) => n + c.linhas_mantidas, 0), linhas_descartadas: counts.reduce((n, c) => n + c.linhas_descartadas, 0), partes: counts })
      }
      if (sources.legacy) {
        const f = sources.legacy
        await step(f, () => readLegacyRegistry(f.path, registry))
        const c = registry.counts.find((x) => x.tipo === 'cad_fi')!
        await record(f, { tipo: 'cad_fi', linhas_mantidas: c.linhas_mantidas, linhas_descartadas: c.linhas_descartadas })
      }
      const cadastro = new Cadastro(registry)
      lap('cadastro')

      // 2. Daily reports, oldest month first.
      const members: { f: SourceFile; entry: ZipEntry }[] = []
      for (const f of sources.daily) {
        const entry = await step(f, async () => {
          const e = await findMember(f.path, /^inf_diario_fi_\d{6}\.csv$/i)
          if (!e) throw new SourceError(`não tem o arquivo inf_diario_fi_${f.month!.replace('-', '')}.csv`)
          return e
        })
        members.push({ f, entry })
      }
      const bar = progress('informes diários', members.reduce((n, m) => n + m.entry.uncompressedSize, 0), { quiet: options.quiet })
      const aggregator = new DailyAggregator(cadastro.traits, AGGREGATES_EXCLUDE_FIC)
      let dailyRows = 0
      for (const { f, entry } of members) {
        const r = await step(f, () => aggregator.addMonth(f.month!, f.name, rowsOf(counted(f.path, entry, bar))))
        dailyRows += r.kept
        await record(f, { tipo: 'inf_diario', layout: r.layout, linhas_mantidas: r.kept, linhas_descartadas: r.dropped })
        if (aggregator.rejected > maxRejects)
          throw new BuildError(`${aggregator.rejected} linhas malformadas nos informes diários (limite ${maxRejects}, --max-rejeitadas); a primeira: ${JSON.stringify(aggregator.rejects[0])}; a base em uso foi mantida`)
      }
      bar.done(`${dailyRows.toLocaleString('pt-BR')} linhas`)
      const daily = aggregator.result()
      if (!daily.dates.length) throw new BuildError('os informes diários não têm nenhuma linha válida; a base em uso foi mantida')
      const consolidated = consolidatedDay(daily.reporting)
      lap('informes')

      // 3. Portfolio months: block 4 and the net-assets file of each.
      const months: PortfolioMonth[] = []
      for (const f of sources.portfolios) {
        const month = await step(f, async () => {
          const reader = new PortfolioMonthReader(f.month!)
          const ym = f.month!.replace('-', '')
          const block4 = await findMember(f.path, new RegExp(`^cda_fi_BLC_4_${ym}\\.csv$`, 'i'))
          const pl = await findMember(f.path, new RegExp(`^cda_fi_PL_${ym}\\.csv$`, 'i'))
          if (!block4) throw new SourceError(`não tem o bloco 4 (cda_fi_BLC_4_${ym}.csv)`)
          if (!pl) throw new SourceError(`não tem o arquivo de patrimônio (cda_fi_PL_${ym}.csv)`)
          const cbar = progress(`carteiras ${f.month}`, block4.uncompressedSize + pl.uncompressedSize, { quiet: options.quiet })
          await reader.readBlock4(rowsOf(counted(f.path, block4, cbar)), block4.name)
          await reader.readPl(rowsOf(counted(f.path, pl, cbar)), pl.name)
          cbar.done()
          return reader.result()
        })
        months.push(month)
        await record(f, {
          tipo: 'cda', linhas_mantidas: month.rows.bloco4.mantidas + month.rows.pl.mantidas,
          linhas_descartadas: month.rows.bloco4.descartadas + month.rows.pl.descartadas, linhas: month.rows,
        })
      }
      const largest = Math.max(0, ...months.map((m) => m.fundosInformantes))
      const competencias: CompetenciaInfo[] = months.map((m) => ({
        competencia: m.competencia, data: m.data, fundos_informantes: m.fundosInformantes, fundos_com_acoes: m.fundosComAcoes,
        ativos: m.movements.length, consolidada: m.fundosInformantes >= 0.9 * largest,
      }))
      lap('carteiras')

      const rankings = computeRankings(daily, consolidated, cadastro)
      lap('rankings')

      const tables = writeDatabase({
        path: join(work, DB_FILE), daily, consolidated, consultas: cadastro.consultas(daily), rankings, months, competencias,
        coverageStart: `${sources.daily[0]!.month}-01`,
      })
      lap('escrita')
      seconds.total = Math.round((performance.now() - started) / 100) / 10

      return {
        base: BASE,
        formato: FORMAT,
        referencia: daily.dates[consolidated]!,
        arquivos,
        informes: {
          meses: sources.daily.map((f) => f.month!), dias: daily.dates.length, primeiro_dia: daily.dates[0]!, ultimo_dia: daily.dates[daily.dates.length - 1]!,
          dia_consolidado: daily.dates[consolidated]!, classes: daily.classes.length, linhas: dailyRows,
        },
        carteiras: { competencias },
        cadastro: { fundos: registry.funds.length, classes: registry.classes.length, subclasses: registry.subclasses.length, legado: registry.legacy.length },
        tabelas: { consultas: tables.consultas, carteiras: tables.carteiras, movimentacoes: tables.movimentacoes, listas_ranking: tables.listas, classes_ranqueadas: rankings.classes.length },
        rejeitadas: { total: aggregator.rejected, exemplos: aggregator.rejects.slice(0, 5) },
        segundos: seconds,
      }
    },
    check: (work, manifest) => {
      const db = new Database(join(work, DB_FILE), { readonly: true })
      try {
        const count = (table: string) => (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
        if (count('fluxo_dia') === 0) throw new BuildError('a base construída não tem fluxos diários; a base em uso foi mantida')
        if (count('consulta') === 0) throw new BuildError('a base construída não tem nenhum fundo; a base em uso foi mantida')
        if (!manifest.referencia) throw new BuildError('a base construída não tem dia de referência; a base em uso foi mantida')
      } finally {
        db.close()
      }
    },
  })
}

/** A build's one-line summary. */
export function summary(m: FundosManifest, seconds: number): string {
  const carteiras = m.carteiras.competencias.map((c) => `${c.competencia}${c.consolidada ? '' : ' (parcial)'}`).join(', ') || 'nenhuma'
  return `base de fundos pronta em ${seconds.toFixed(1)} s: informes ${m.informes.meses[0]} a ${m.informes.meses.at(-1)} (${m.informes.linhas.toLocaleString('pt-BR')} linhas, ` +
    `${m.informes.classes.toLocaleString('pt-BR')} classes, dia consolidado ${m.informes.dia_consolidado}), carteiras ${carteiras}, ` +
    `${m.tabelas.consultas.toLocaleString('pt-BR')} CNPJs no cadastro` + (m.rejeitadas.total ? `; ${m.rejeitadas.total} linhas malformadas` : '')
}

