// ComexStat exports (SOURCES.md §7.1): EXP_AAAA.csv, `;`, codes quoted ("CO_NCM" "02023000"),
// metrics unquoted, ASCII. Each row is summed into its commodity group (NCM prefixes kept as data,
// src/datasets/commodities/grupos-ncm.json) and month; the build keeps the last 13 months with the
// same month a year before. Codes stay strings: an NCM is never a number.
import { readdirSync, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { GRUPOS, grupoDoNcm, type GrupoNcm } from '../../src/datasets/commodities/grupos'
import {
  EXPORTACOES_ARQUIVO,
  EXPORTACOES_DATASET,
  EXPORTACOES_FORMATO,
  MESES_SERIE,
  type ExportacoesDados,
  type ExportacoesManifest,
  type MesExportado,
} from '../../src/datasets/commodities/exportacoes'
import type { SourceRecord } from '../../src/core/stores/snapshot-layout'
import { csvRows, decodeText } from '../../src/core/text/csv'
import { columnIndex, HeaderError } from '../../src/core/text/header'
import { progress } from '../lib/progress'
import { BuildError, buildSnapshot, currentManifest } from '../lib/snapshot'
import { sha256File } from '../lib/tables'

export const EXP_FILE = /^EXP_(\d{4})\.csv$/i

const COLUNAS = { ano: 'CO_ANO', mes: 'CO_MES', ncm: 'CO_NCM', kg: 'KG_LIQUIDO', fob: 'VL_FOB' }

/** Sums per group and month (key: group index × 100000 + year × 100 + month), and the file's counts. */
export interface Somas {
  fob: Map<number, number>
  kg: Map<number, number>
  linhas: number
  noGrupo: number
  descartadas: number
  /** Latest YYYYMM seen (as a number). */
  ultimo: number
}

export function novasSomas(): Somas {
  return { fob: new Map(), kg: new Map(), linhas: 0, noGrupo: 0, descartadas: 0, ultimo: 0 }
}

const DIGITS = /^\d+$/

/** Reads one EXP file into the sums. Throws BuildError when it is not an EXP file (an HTML page, a cut header). */
export async function somarArquivo(chunks: AsyncIterable<Uint8Array>, nome: string, somas: Somas, grupos: GrupoNcm[] = GRUPOS, onBytes?: (n: number) => void): Promise<void> {
  // NCM -> group index (-1: none), decided once per distinct code (~10 k of them).
  const cache = new Map<string, number>()
  let idx: Record<keyof typeof COLUNAS, number> | null = null
  let maxCol = 0
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const c of chunks) {
      onBytes?.(c.length)
      yield c
    }
  }
  for await (const row of csvRows(decodeText(counted(), 'utf-8'), ';')) {
    if (!idx) {
      try {
        idx = columnIndex(row, COLUNAS)
      } catch (err) {
        throw new BuildError(`${nome}: não é um arquivo EXP da ComexStat (${err instanceof HeaderError ? err.message : String(err)})`)
      }
      maxCol = Math.max(...Object.values(idx))
      continue
    }
    if (row.length <= maxCol) {
      // A blank last line is no row; anything else short is a broken row.
      if (!(row.length === 1 && row[0] === '')) somas.descartadas++
      continue
    }
    somas.linhas++
    const ncm = row[idx.ncm]!
    let g = cache.get(ncm)
    if (g === undefined) {
      g = ncm.length === 8 && DIGITS.test(ncm) ? (grupoDoNcm(ncm, grupos) ?? -1) : -2
      cache.set(ncm, g)
    }
    if (g === -2) {
      somas.descartadas++
      continue
    }
    const ano = row[idx.ano]!
    const mes = row[idx.mes]!
    const ym = Number(ano) * 100 + Number(mes)
    const m = ym % 100
    if (ano.length !== 4 || mes.length !== 2 || !(m >= 1 && m <= 12)) {
      somas.descartadas++
      continue
    }
    if (ym > somas.ultimo) somas.ultimo = ym
    if (g < 0) continue
    const kg = Number(row[idx.kg])
    const fob = Number(row[idx.fob])
    if (!Number.isFinite(kg) || !Number.isFinite(fob) || kg < 0 || fob < 0) {
      somas.descartadas++
      continue
    }
    somas.noGrupo++
    const key = g * 100000 + ym
    somas.fob.set(key, (somas.fob.get(key) ?? 0) + fob)
    somas.kg.set(key, (somas.kg.get(key) ?? 0) + kg)
  }
  if (!idx) throw new BuildError(`${nome}: arquivo vazio`)
}

const ymString = (ym: number) => `${Math.floor(ym / 100)}-${String(ym % 100).padStart(2, '0')}`
const addMonths = (ym: number, n: number) => {
  const t = Math.floor(ym / 100) * 12 + (ym % 100) - 1 + n
  return Math.floor(t / 12) * 100 + (t % 12) + 1
}
const pct = (now: number, before: number | null) => (before === null || before === 0 ? null : Math.round((now / before - 1) * 1000) / 10)

/** The 13-month answer from the sums; `anos` are the years whose files were read (a year-earlier month outside them has no YoY). */
export function exportacoesDe(somas: Somas, anos: Set<number>, grupos: GrupoNcm[] = GRUPOS): ExportacoesDados {
  if (!somas.ultimo) throw new BuildError('nenhuma linha de exportação nos arquivos lidos')
  const meses = Array.from({ length: MESES_SERIE }, (_, k) => addMonths(somas.ultimo, k - (MESES_SERIE - 1)))
  const faltam = [...new Set(meses.map((m) => Math.floor(m / 100)))].filter((a) => !anos.has(a))
  if (faltam.length) throw new BuildError(`os últimos ${MESES_SERIE} meses vão até ${ymString(somas.ultimo)} e pedem EXP_${faltam.join('.csv, EXP_')}.csv, que não foi lido`)
  return {
    referencia: ymString(somas.ultimo),
    meses: meses.map(ymString),
    grupos: grupos.map((g, i) => {
      const serie = meses.map((ym): MesExportado => {
        const antes = addMonths(ym, -12)
        const temAntes = anos.has(Math.floor(antes / 100))
        const fob = somas.fob.get(i * 100000 + ym) ?? 0
        const kg = somas.kg.get(i * 100000 + ym) ?? 0
        const fobA = temAntes ? (somas.fob.get(i * 100000 + antes) ?? 0) : null
        const kgA = temAntes ? (somas.kg.get(i * 100000 + antes) ?? 0) : null
        return { mes: ymString(ym), fob_usd: fob, kg_liquido: kg, fob_usd_ano_anterior: fobA, kg_liquido_ano_anterior: kgA, variacao_fob_pct: pct(fob, fobA), variacao_kg_pct: pct(kg, kgA) }
      })
      return { id: g.id, nome: g.nome, en: g.en, ncm_prefixos: g.ncm_prefixos, serie, ultimo_mes: serie[serie.length - 1]! }
    }),
  }
}

/** The EXP_AAAA.csv files of a directory, newest year first. */
export function arquivosExp(dir: string): { nome: string; path: string; ano: number }[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    throw new BuildError(`pasta ${dir} não existe ou não pode ser lida`)
  }
  return names
    .map((nome) => ({ nome, m: EXP_FILE.exec(nome) }))
    .filter((x) => x.m)
    .map((x) => ({ nome: x.nome, path: join(dir, x.nome), ano: Number(x.m![1]) }))
    .sort((a, b) => b.ano - a.ano)
}

export interface ExportacoesBuild {
  built: boolean
  manifest: ExportacoesManifest
  seconds: number
}

/** Builds data/exportacoes from the EXP files of `dir` (all of them, or the `anos` given); nothing to do when they are the files of the build in use. */
export async function buildExportacoes(options: { dir: string; dataDir: string; force?: boolean; quiet?: boolean; anos?: number[] }): Promise<ExportacoesBuild> {
  const started = performance.now()
  let files = arquivosExp(options.dir)
  if (options.anos) files = files.filter((f) => options.anos!.includes(f.ano))
  if (!files.length) throw new BuildError(`nenhum arquivo EXP_AAAA.csv em ${options.dir}; baixe de ${'https://balanca.economia.gov.br/balanca/bd/comexstat-bd/ncm/'} ou rode sem --from`)
  const hashes = new Map<string, string>()
  for (const f of files) hashes.set(f.nome, await sha256File(f.path))
  const current = currentManifest<ExportacoesManifest>(options.dataDir, EXPORTACOES_DATASET)
  if (
    !options.force &&
    current?.formato === EXPORTACOES_FORMATO &&
    current.arquivos.length === files.length &&
    current.arquivos.every((a) => hashes.get(a.nome) === a.sha256)
  )
    return { built: false, manifest: current, seconds: (performance.now() - started) / 1000 }
  const manifest = await buildSnapshot<ExportacoesManifest>({
    dataDir: options.dataDir,
    dataset: EXPORTACOES_DATASET,
    async build(work) {
      const somas = novasSomas()
      const arquivos: SourceRecord[] = []
      const total = files.reduce((a, f) => a + statSync(f.path).size, 0)
      const bar = progress('ComexStat EXP', total, { quiet: options.quiet })
      for (const f of files) {
        const before = { linhas: somas.linhas, descartadas: somas.descartadas }
        await somarArquivo(Bun.file(f.path).stream() as unknown as AsyncIterable<Uint8Array>, f.nome, somas, GRUPOS, (n) => bar.add(n))
        arquivos.push({ nome: f.nome, tipo: 'EXP', data: String(f.ano), bytes: statSync(f.path).size, sha256: hashes.get(f.nome)!, linhas_mantidas: somas.linhas - before.linhas, linhas_descartadas: somas.descartadas - before.descartadas })
      }
      bar.done()
      if (somas.descartadas > Math.max(10, somas.linhas * 0.01))
        throw new BuildError(`${somas.descartadas} linhas fora do formato (de ${somas.linhas + somas.descartadas}): arquivo truncado ou de outro layout? A base em uso foi mantida`)
      const dados = exportacoesDe(somas, new Set(files.map((f) => f.ano)))
      await writeFile(join(work, EXPORTACOES_ARQUIVO), JSON.stringify(dados))
      return { base: 'MDIC/ComexStat (EXP_AAAA.csv por NCM)', formato: EXPORTACOES_FORMATO, referencia: dados.referencia, arquivos, linhas_lidas: somas.linhas, linhas_nos_grupos: somas.noGrupo }
    },
  })
  return { built: true, manifest, seconds: (performance.now() - started) / 1000 }
}
