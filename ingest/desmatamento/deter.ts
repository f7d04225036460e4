// One DETER zip as TerraBrasilis delivers it (file-delivery/download/deter-amz/shape and
// deter-cerrado-nb/shape; saved as deter-amz-public-2025set01.zip and the like): a shapefile
// whose .dbf, {project}-deter-public.dbf, is the only member read. Its fields, as pgsql2shp
// names them: CLASSNAME, QUADRANT, PATH_ROW, VIEW_DATE, SENSOR, SATELLITE, AREAUCKM, UC,
// AREAMUNKM, MUNICIPALI, GEOCODIBGE, UF (the "auth" file adds AREATOTKM). Fields are picked by
// name. Each row is the piece of an alert inside one municipality: AREAMUNKM is that piece's
// area, so summing it per municipality never counts an alert twice (AREATOTKM would).
import { basename } from 'node:path'
import { CLASS_ALIASES, type Bioma } from '../../src/datasets/desmatamento/layout'
import { DbfError, fieldDay, fieldNamed, fieldNumber, fieldText, readDbf, type DbfField } from './dbf'
import { listEntries, readEntry, ZipError, type ZipEntry } from '../lib/zip'

export class DeterError extends Error {}

/** The biome (DETER project) a zip is, from its .dbf member's name or its own name; null when neither says. */
export function biomaDe(...names: string[]): Bioma | 'outro' | null {
  for (const raw of names) {
    const n = basename(raw).toLowerCase()
    if (/pantanal|deter[-_]nf\b|deter[-_]nf[-_]|nao[-_]?floresta/.test(n)) return 'outro'
    if (/cerrado/.test(n)) return 'cerrado'
    if (/deter[-_]amz|amazonia/.test(n)) return 'amazonia'
  }
  return null
}

/** What the reader hands over for each kept row. `nome` is decoded only when asked (once per municipality). */
export interface AlertaSink {
  (ibge: number, uf: string | null, nome: () => string | null, day: number, classe: string, area: number): void
}

export interface DeterLeitura {
  bioma: Bioma
  arquivo: string
  entrada: string
  registros: number
  apagados: number
  mantidos: number
  anteriores_ao_corte: number
  descartados: { data: number; municipio: number; area: number; data_futura: number }
  /** Newest view date kept (day number), or null. */
  mais_recente: number | null
}

/** The .dbf member of a DETER zip: the public table when there are several. */
export function dbfEntry(entries: ZipEntry[], label: string): ZipEntry {
  const dbfs = entries.filter((e) => /\.dbf$/i.test(e.name))
  if (!dbfs.length) throw new DeterError(`${label}: nenhum .dbf dentro do zip (o DETER vem como shapefile: .shp, .shx, .prj, .dbf)`)
  if (dbfs.length === 1) return dbfs[0]!
  const pub = dbfs.filter((e) => /public/i.test(e.name))
  if (pub.length === 1) return pub[0]!
  throw new DeterError(`${label}: ${dbfs.length} arquivos .dbf no zip (${dbfs.map((e) => e.name).join(', ')}); deixe só o público`)
}

const REQUIRED = ['CLASSNAME', 'VIEW_DATE', 'AREAMUNKM', 'GEOCODIBGE'] as const

export interface ReadOptions {
  /** First day kept (day number): older alerts are counted, not kept. */
  firstDay: number
  /** Last plausible day (day number): later view dates are dropped as bad data. */
  lastDay: number
  hasher?: Bun.CryptoHasher
  /** Called with the uncompressed bytes read so far (progress). */
  onBytes?: (n: number) => void
}

export async function readDeterZip(path: string, sink: AlertaSink, options: ReadOptions): Promise<DeterLeitura> {
  const arquivo = basename(path)
  let entries: ZipEntry[]
  try {
    entries = await listEntries(path)
  } catch (err) {
    throw new DeterError(`${arquivo}: não é um zip legível (${err instanceof Error ? err.message : err}); baixe de novo`)
  }
  const entry = dbfEntry(entries, arquivo)
  const bioma = biomaDe(entry.name, arquivo)
  if (bioma === 'outro') throw new DeterError(`${arquivo}: DETER do Pantanal ou de não-floresta, sem código IBGE por alerta; só Amazônia (deter-amz) e Cerrado (deter-cerrado-nb) são lidos`)
  if (!bioma) throw new DeterError(`${arquivo}: não sei de qual bioma é (nem ${entry.name} nem o nome do zip dizem deter-amz ou deter-cerrado); renomeie o zip como baixado`)
  const out: DeterLeitura = {
    bioma, arquivo, entrada: entry.name, registros: 0, apagados: 0, mantidos: 0, anteriores_ao_corte: 0,
    descartados: { data: 0, municipio: 0, area: 0, data_futura: 0 }, mais_recente: null,
  }
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of readEntry(path, entry, options.hasher)) {
      options.onBytes?.(chunk.length)
      yield chunk
    }
  }
  try {
    const result = await readDbf(counted(), (header) => {
      const f = {} as Record<(typeof REQUIRED)[number], DbfField>
      const missing = REQUIRED.filter((n) => !fieldNamed(header, n))
      if (missing.length) throw new DeterError(`${arquivo}:${entry.name}: campos ausentes: ${missing.join(', ')} (tem ${header.fields.map((x) => x.name).join(', ')})`)
      for (const n of REQUIRED) f[n] = fieldNamed(header, n)!
      if (f.VIEW_DATE.type !== 'D' && f.VIEW_DATE.type !== 'C') throw new DeterError(`${arquivo}: VIEW_DATE de tipo ${f.VIEW_DATE.type}, esperava data`)
      const uf = fieldNamed(header, 'UF')
      const nomeField = fieldNamed(header, 'MUNICIPALI') ?? fieldNamed(header, 'MUNICIPALITY') ?? fieldNamed(header, 'COUNTY')
      const classes = new Map<string, string>()
      return (buf, at) => {
        out.registros++
        const day = fieldDay(buf, at, f.VIEW_DATE)
        if (day === null) return void out.descartados.data++
        if (day < options.firstDay) return void out.anteriores_ao_corte++
        if (day > options.lastDay) return void out.descartados.data_futura++
        // GEOCODIBGE: 7 digits, first 1-5 (a region), read without making a string.
        let ibge = 0
        const p = at + f.GEOCODIBGE.offset
        let digits = 0
        for (let i = 0; i < f.GEOCODIBGE.length; i++) {
          const c = buf[p + i]!
          if (c >= 0x30 && c <= 0x39) {
            if (digits === 7) { digits = 8; break }
            ibge = ibge * 10 + (c - 0x30)
            digits++
          } else if (c === 0x20 || c === 0) {
            if (digits) break
          } else { digits = 0; break }
        }
        if (digits !== 7 || ibge < 1_000_000 || ibge >= 6_000_000) return void out.descartados.municipio++
        const area = fieldNumber(buf, at, f.AREAMUNKM)
        if (area === null || !Number.isFinite(area) || area < 0) return void out.descartados.area++
        const raw = fieldText(buf, at, f.CLASSNAME) ?? ''
        let classe = classes.get(raw)
        if (classe === undefined) {
          const up = raw.trim().toUpperCase()
          classe = CLASS_ALIASES[up] ?? (up || 'SEM_CLASSE')
          classes.set(raw, classe)
        }
        const ufText = uf ? fieldText(buf, at, uf) : null
        out.mantidos++
        if (out.mais_recente === null || day > out.mais_recente) out.mais_recente = day
        sink(ibge, ufText && /^[A-Z]{2}$/i.test(ufText) ? ufText.toUpperCase() : null, () => (nomeField ? fieldText(buf, at, nomeField) : null), day, classe, area)
      }
    }, `${arquivo}:${entry.name}`)
    out.apagados = result.deleted
  } catch (err) {
    if (err instanceof DbfError || err instanceof ZipError) throw new DeterError(`${err.message}; baixe o arquivo de novo`)
    throw err
  }
  return out
}
