// Full-size synthetic inputs in the published formats, for the benchmark: the two DETER zips
// (shapefile members, the .dbf as pgsql2shp writes it, ~400 k alerts over the whole history as the
// real files carry: about 460 k in the Amazon file and 130 k in the Cerrado one in 2026) and a
// Receita municipality table of 5,570 rows whose TOM codes are the synthetic registry's
// (ingest/lib/synth-codes.ts), so supplier lookups land in municipalities with alerts.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodeCp1252 } from '../lib/cp1252'
import { SYNTH_MUNICIPIOS } from '../lib/synth-codes'
import { seededRandom } from '../lib/random'
import { createZipArchive } from '../lib/zip-write'
import { dayOf, isoDay } from './dbf'
import { todosMunicipios, UF_POR_CODIGO } from './microrregioes'
import { dbfHeader, dbfRecordInto, pgColumn, recordLength, SIRGAS_2000_PRJ, writeShp, type DbfColumn, type DbfValue } from './shapefile-write'

export interface SynthDeterOptions {
  out: string
  /** Alerts in both files together (default 400 000: 300 k Amazon, 100 k Cerrado). */
  alertas?: number
  seed?: number
  /** Newest view date (default 2026-09-30). */
  referencia?: string
}

const AMZ_UFS = ['11', '12', '13', '14', '15', '16', '17', '21', '51']
const CERRADO_UFS = ['17', '21', '22', '29', '31', '35', '41', '50', '51', '52', '53']
const AMZ_CLASSES: [string, number][] = [['DESMATAMENTO_CR', 40], ['DEGRADACAO', 25], ['CICATRIZ_DE_QUEIMADA', 15], ['CS_DESORDENADO', 8], ['DESMATAMENTO_VEG', 7], ['MINERACAO', 3], ['CS_GEOMETRICO', 2]]
const SATELLITES: [string, string][] = [['AMAZONIA-1', 'WFI'], ['CBERS-4', 'AWFI'], ['CBERS-4A', 'WFI']]
const UCS = ['FLORESTA NACIONAL DO JAMANXIM', 'RESERVA EXTRATIVISTA CHICO MENDES', 'ÁREA DE PROTEÇÃO AMBIENTAL DO TAPAJÓS', 'PARQUE NACIONAL DA CHAPADA DOS VEADEIROS', 'ESTAÇÃO ECOLÓGICA DA TERRA DO MEIO']

function picker(pairs: [string, number][]) {
  const total = pairs.reduce((n, [, w]) => n + w, 0)
  return (r: number) => {
    let acc = 0
    for (const [v, w] of pairs) if (r < (acc += w / total)) return v
    return pairs[pairs.length - 1]![0]
  }
}

/** Municipalities of some states, each with a weight (a few carry most of the alerts, as in DETER). */
function municipiosDe(ufs: string[], next: () => number): { codes: string[]; cumulative: number[] } {
  const codes = todosMunicipios().map(([c]) => c).filter((c) => ufs.includes(c.slice(0, 2)))
  let acc = 0
  const cumulative = codes.map(() => (acc += Math.pow(next(), 4)))
  return { codes, cumulative: cumulative.map((c) => c / acc) }
}

function pickFrom(m: { codes: string[]; cumulative: number[] }, r: number): string {
  let lo = 0, hi = m.codes.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (r < m.cumulative[mid]!) hi = mid
    else lo = mid + 1
  }
  return m.codes[lo]!
}

const NAMES = ['classname', 'quadrant', 'path_row', 'view_date', 'sensor', 'satellite', 'areauckm', 'uc', 'areamunkm', 'municipality', 'geocodibge', 'uf'] as const

/** Column widths as pgsql2shp would find them (the longest value of each text column). */
function columns(): DbfColumn[] {
  const widths: Record<string, DbfValue[]> = {
    classname: AMZ_CLASSES.map(([c]) => c), quadrant: [null], path_row: ['037015'], sensor: ['AWFI'], satellite: ['AMAZONIA-1'],
    uc: UCS, municipality: ['MUNICIPIO SINTETICO 0000000'], geocodibge: ['0000000'], uf: ['SP'],
  }
  return NAMES.map((n) => (n === 'view_date' ? pgColumn(n, 'date') : n === 'areauckm' || n === 'areamunkm' ? pgColumn(n, 'float8') : pgColumn(n, 'text', widths[n] ?? [])))
}

async function writeDeter(path: string, project: string, count: number, row: (i: number) => DbfValue[]): Promise<number> {
  const cols = columns()
  const size = recordLength(cols)
  const zip = await createZipArchive(path)
  const { shp, shx } = writeShp(new Array(count).fill(null))
  for (const [ext, content] of [['shp', shp], ['shx', shx], ['prj', new TextEncoder().encode(SIRGAS_2000_PRJ)]] as const) {
    const w = await zip.entry(`${project}-deter-public.${ext}`)
    await w.write(content)
    await w.close()
  }
  const w = await zip.entry(`${project}-deter-public.dbf`)
  await w.write(dbfHeader(cols, count))
  const batch = 4096
  const buf = new Uint8Array(size * batch)
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i)
    for (let k = 0; k < n; k++) dbfRecordInto(buf, k * size, cols, row(i + k))
    await w.write(buf.slice(0, n * size))
  }
  await w.close()
  await zip.close()
  return count
}

export async function synthDeter(options: SynthDeterOptions): Promise<{ amazonia: number; cerrado: number; municipios: number }> {
  mkdirSync(options.out, { recursive: true })
  const next = seededRandom(options.seed ?? 1)
  const total = options.alertas ?? 400_000
  const amz = Math.round(total * 0.75)
  const cer = total - amz
  const last = dayOf(options.referencia ?? '2026-09-30')
  const first = dayOf('2016-08-01')
  const classe = picker(AMZ_CLASSES)
  const amzMunis = municipiosDe(AMZ_UFS, next)
  const cerMunis = municipiosDe(CERRADO_UFS, next)
  // Newer years hold more alerts (the history thins out backwards), about half after the cut-off.
  const day = () => Math.max(first, last - Math.floor(Math.pow(next(), 1.6) * (last - first)))
  const area = () => Math.min(80, 0.0625 * Math.exp(next() * next() * 7))
  const row = (munis: typeof amzMunis, cls: () => string) => (): DbfValue[] => {
    const code = pickFrom(munis, next())
    const [sat, sensor] = SATELLITES[Math.floor(next() * SATELLITES.length)]!
    const a = area()
    const inUc = next() < 0.15
    return [cls(), null, String(1 + Math.floor(next() * 300)).padStart(3, '0') + '0' + String(1 + Math.floor(next() * 20)).padStart(2, '0'), isoDay(day()), sensor, sat,
      inUc ? a : 0, inUc ? UCS[Math.floor(next() * UCS.length)]! : null, a, `MUNICIPIO SINTETICO ${code}`, code, UF_POR_CODIGO[code.slice(0, 2)]!]
  }
  const amzRow = row(amzMunis, () => classe(next()))
  const cerRow = row(cerMunis, () => 'DESMATAMENTO_CR')
  await writeDeter(join(options.out, 'deter-amz-public-2026out01.zip'), 'deter-amz', amz, amzRow)
  await writeDeter(join(options.out, 'deter-cerrado-nb-public-2026out01.zip'), 'deter-cerrado-nb', cer, cerRow)
  // The municipality table: the synthetic registry's TOM codes, one per IBGE code (Boa Esperança do Norte left out, as published).
  const ibge = todosMunicipios().map(([c]) => c).filter((c) => c !== '5101837')
  const lines = ['CÓDIGO DO MUNICÍPIO - TOM;CÓDIGO DO MUNICÍPIO - IBGE;MUNICÍPIO - TOM;MUNICÍPIO - IBGE;UF']
  SYNTH_MUNICIPIOS.forEach((tom, i) => {
    const code = ibge[i % ibge.length]!
    lines.push(`${tom};${code};MUNICIPIO ${code};Município ${code};${UF_POR_CODIGO[code.slice(0, 2)]}`)
  })
  lines.push('9707;0;EXTERIOR;EXTERIOR;EX')
  writeFileSync(join(options.out, 'municipios.csv'), encodeCp1252(lines.join('\r\n') + '\r\n'))
  return { amazonia: amz, cerrado: cer, municipios: SYNTH_MUNICIPIOS.length }
}
