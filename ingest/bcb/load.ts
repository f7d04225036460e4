// One Banco Central build: the five monthly lists of DIR (zips of any name holding an XLSX, or a
// CSV in older months; the bare files work too), each recognized by its columns, banner or name;
// one SQLite file with each root's whole answer, checked (five lists, none empty, each with its
// position date) and swapped in with its manifest. Any failure leaves the data in use.
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { DATASET, DB_FILE, FORMAT, SCHEMA, SEGMENTOS, type BcbManifest, type Segmento } from '../../src/datasets/bcb/layout'
import type { SourceRecord } from '../../src/core/stores/snapshot-layout'
import { HeaderError } from '../../src/core/text/header'
import { BuildError, buildSnapshot, currentManifest, sameSources } from '../lib/snapshot'
import { listTables, sha256File, tableBytes, type TableFile } from '../lib/tables'
import { validIsoDate } from '../lib/values'
import { csvSheetRows, hostnames, registrosOf, segmentOf, SheetError, splitSheet, xlsxRows, type Registro, type Sheet } from './parse'

export const SEGMENT_LABEL: Record<Segmento, string> = {
  bancos: 'bancos comerciais, múltiplos e caixas (BANCOS)',
  cooperativas: 'cooperativas de crédito (COOPERATIVAS)',
  consorcios: 'administradoras de consórcio (CONSORCIO)',
  demais_instituicoes: 'demais instituições: bancos de investimento e desenvolvimento, sociedades, IPs (SOCIEDADES)',
  conglomerados: 'conglomerados (CONGLOMERADOS)',
}

export interface BcbBuildOptions {
  dir: string
  dataDir: string
  force?: boolean
  log?: (line: string) => void
}

export type BcbBuildResult = { built: true; manifest: BcbManifest; seconds: number } | { built: false; manifest: BcbManifest }

interface Found {
  table: TableFile
  sheet: Sheet
}

/** The month a file is named for (202405BANCOS.zip), as the last day of that month: when a sheet has no "Posição:". */
function monthInName(...names: (string | undefined)[]): string | null {
  for (const n of names)
    for (const m of (n ?? '').matchAll(/(?<!\d)(20\d{2})(0[1-9]|1[0-2])(?!\d)/g)) {
      const last = new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).toISOString().slice(0, 10)
      if (validIsoDate(last)) return last
    }
  return null
}

async function recognize(dir: string): Promise<Map<Segmento, Found>> {
  let tables: TableFile[]
  try {
    tables = await listTables(dir, ['.xlsx', '.csv'])
  } catch (err) {
    throw new BuildError(err instanceof Error ? err.message : String(err))
  }
  const found = new Map<Segmento, Found>()
  for (const table of tables) {
    let sheet: Sheet
    try {
      const bytes = await tableBytes(table)
      const rows = /\.xlsx$/i.test(table.entry?.name ?? table.file) ? await xlsxRows(bytes) : await csvSheetRows(bytes)
      sheet = splitSheet(rows)
    } catch (err) {
      throw new BuildError(`${table.label}: ${err instanceof Error ? err.message : err}`)
    }
    const segment = segmentOf(sheet, [table.entry?.name ?? '', table.file])
    if (!segment) throw new BuildError(`${table.label}: não sei de qual lista é (nem as colunas, nem o título, nem o nome dizem: BANCOS, COOPERATIVAS, CONSORCIO, SOCIEDADES ou CONGLOMERADOS)`)
    const previous = found.get(segment)
    if (previous) throw new BuildError(`dois arquivos de ${SEGMENT_LABEL[segment]}: ${previous.table.label} e ${table.label}; deixe só um em ${dir}`)
    found.set(segment, { table, sheet })
  }
  const missing = SEGMENTOS.filter((s) => !found.has(s))
  if (missing.length) throw new BuildError(`falta${missing.length > 1 ? 'm' : ''} em ${dir}: ${missing.map((s) => SEGMENT_LABEL[s]).join(', ')}`)
  return found
}

export async function bcbSourceHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const t of await listTables(dir, ['.xlsx', '.csv']).catch(() => [])) if (!out.has(t.file)) out.set(t.file, await sha256File(t.path))
  return out
}

/** The institution lists (not the conglomerates) make a root authorized. */
const SEDES: Segmento[] = ['bancos', 'cooperativas', 'consorcios', 'demais_instituicoes']

export async function buildBcb(options: BcbBuildOptions): Promise<BcbBuildResult> {
  const started = performance.now()
  const hashes = await bcbSourceHashes(options.dir)
  const inUse = currentManifest<BcbManifest>(options.dataDir, DATASET)
  if (inUse && !options.force && sameSources(inUse, FORMAT, hashes)) return { built: false, manifest: inUse }
  const manifest = await buildSnapshot<BcbManifest>({
    dataDir: options.dataDir,
    dataset: DATASET,
    build: async (work) => {
      const found = await recognize(options.dir)
      const porRaiz = new Map<string, Registro[]>()
      const listas = {} as Record<Segmento, string>
      const totals = {} as Record<Segmento, number>
      const arquivos: SourceRecord[] = []
      for (const segment of SEGMENTOS) {
        const { table, sheet } = found.get(segment)!
        let parsed
        try {
          parsed = registrosOf(segment, sheet)
        } catch (err) {
          if (err instanceof HeaderError) throw new BuildError(`${table.label}: ${err.message}`)
          throw err
        }
        if (!parsed.itens.length) throw new BuildError(`${table.label}: ${SEGMENT_LABEL[segment]} sem nenhuma instituição (arquivo vazio ou cortado?)`)
        const date = sheet.posicao ?? monthInName(table.entry?.name, table.file)
        if (!date) throw new BuildError(`${table.label}: data de referência desconhecida (sem "Posição:" no título e sem AAAAMM no nome)`)
        listas[segment] = date
        totals[segment] = parsed.itens.length
        for (const { raiz, registro } of parsed.itens) {
          const list = porRaiz.get(raiz) ?? []
          list.push(registro)
          porRaiz.set(raiz, list)
        }
        const record: SourceRecord = { nome: table.file, tipo: segment, data: date, bytes: statSync(table.path).size, sha256: hashes.get(table.file)!, linhas_mantidas: parsed.itens.length, linhas_descartadas: parsed.rejeitadas }
        if (table.entry) record.entrada = table.entry.name
        arquivos.push(record)
      }
      const db = new Database(join(work, DB_FILE), { create: true })
      try {
        db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;')
        db.exec(SCHEMA)
        const insert = db.prepare('INSERT INTO instituicoes (raiz, corpo) VALUES (?, ?)')
        db.transaction(() => {
          for (const raiz of [...porRaiz.keys()].sort()) {
            // Lists in a fixed order (banks first); the sites of every list make the verified domains.
            const registros = porRaiz.get(raiz)!.sort((a, b) => SEGMENTOS.indexOf(a.lista) - SEGMENTOS.indexOf(b.lista))
            const dominios = [...new Set(registros.flatMap((r) => hostnames(r.sitio)))].sort()
            insert.run(raiz, Buffer.from(JSON.stringify({ autorizada: registros.some((r) => SEDES.includes(r.lista)), registros, dominios_verificados: dominios })))
          }
          const seg = db.prepare('INSERT INTO segmentos (lista, referencia, registros) VALUES (?, ?, ?)')
          for (const s of SEGMENTOS) seg.run(s, listas[s], totals[s])
        })()
        db.exec('VACUUM;')
      } finally {
        db.close()
      }
      const referencia = Object.values(listas).sort().pop()!
      return { base: 'BCB', formato: FORMAT, referencia, arquivos, listas, registros: totals, raizes: porRaiz.size }
    },
  }).catch((err) => {
    if (err instanceof SheetError) throw new BuildError(err.message)
    throw err
  })
  return { built: true, manifest, seconds: (performance.now() - started) / 1000 }
}
