// One integrity build: every file of DIR recognized by its header, the five lists parsed, one
// SQLite file written in a temp directory, checked (each list present, not empty, its reference
// date known) and swapped in with its manifest. Any failure leaves the data in use.
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { DATASET, DB_FILE, FORMAT, LISTAS, SCHEMA, type IntegridadeManifest, type Lista } from '../../src/datasets/integridade/layout'
import type { SourceRecord } from '../../src/core/stores/snapshot-layout'
import { isBlankRow } from '../../src/core/text/csv'
import { HeaderError } from '../../src/core/text/header'
import { BuildError, buildSnapshot, currentManifest, sameSources } from '../lib/snapshot'
import { listTables, readTable, sha256File, TableError, type Table, type TableFile } from '../lib/tables'
import { datesIn, validIsoDate } from '../lib/values'
import { describeHeader, KIND_LABEL, kindOf, type Kind } from './kinds'
import { acordosParser, cepimParser, efeitosParser, emptyCounts, mteParser, ParseError, sanctionParser, type Apontamento, type Counts, type Efeito } from './parse'

const ALL_KINDS: Kind[] = ['ceis', 'cnep', 'cepim', 'acordos', 'efeitos', 'mte']
/** The kind that feeds each list of the answer (the effects only complete the agreements). */
const LIST_OF: Record<Exclude<Kind, 'efeitos'>, Lista> = { ceis: 'ceis', cnep: 'cnep', cepim: 'cepim', acordos: 'acordos_leniencia', mte: 'trabalho_escravo' }

export interface IntegridadeBuildOptions {
  /** The files as downloaded (zips of any name, the MTE .csv). */
  dir: string
  dataDir: string
  /** Dates known from the download (CGU landing pages), by file name: win over dates in names. */
  knownDates?: Record<string, string>
  /** Rebuild even when every source file is the one the data in use was built from. */
  force?: boolean
  log?: (line: string) => void
}

export type BuildResult = { built: true; manifest: IntegridadeManifest; seconds: number } | { built: false; manifest: IntegridadeManifest }

/** A CGU file's date: the YYYYMMDD its entry or zip is named with (20260930_CEIS.csv). */
function dateInName(...names: (string | undefined)[]): string | null {
  for (const n of names) {
    for (const m of (n ?? '').matchAll(/(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)/g)) {
      const iso = `${m[1]}-${m[2]}-${m[3]}`
      if (validIsoDate(iso)) return iso
    }
  }
  return null
}

interface Found {
  table: TableFile
  kind: Kind
  parsed: Table<Kind>
}

/** Reads DIR's tables and says which is which; every failure is one line naming the file. */
async function recognize(dir: string): Promise<Map<Kind, Found>> {
  let tables: TableFile[]
  try {
    tables = await listTables(dir)
  } catch (err) {
    throw new BuildError(err instanceof Error ? err.message : String(err))
  }
  const found = new Map<Kind, Found>()
  for (const table of tables) {
    const parsed = await readTable(table, kindOf).catch((err) => {
      throw new BuildError(`${table.label}: ${err instanceof Error ? err.message : err}`)
    })
    if ('unknown' in parsed)
      throw new BuildError(`${table.label}: cabeçalho não reconhecido (não é CEIS, CNEP, CEPIM, acordos de leniência nem o cadastro de empregadores do MTE): ${describeHeader(parsed.unknown)}`)
    const previous = found.get(parsed.kind)
    if (previous) throw new BuildError(`dois arquivos de ${KIND_LABEL[parsed.kind]}: ${previous.table.label} e ${table.label}; deixe só um em ${dir}`)
    found.set(parsed.kind, { table, kind: parsed.kind, parsed })
  }
  const missing = ALL_KINDS.filter((k) => !found.has(k))
  if (missing.length) throw new BuildError(`falta${missing.length > 1 ? 'm' : ''} em ${dir}: ${missing.map((k) => KIND_LABEL[k]).join(', ')}`)
  return found
}

/** The source files of a directory with their sha256, to compare with the build in use. */
export async function sourceHashes(dir: string): Promise<Map<string, string>> {
  const tables = await listTables(dir).catch(() => [])
  const out = new Map<string, string>()
  for (const t of tables) if (!out.has(t.file)) out.set(t.file, await sha256File(t.path))
  return out
}

interface Parsed {
  latestInclusion: string | null
  records: Apontamento[]
  counts: Map<Kind, Counts & { rows: number }>
  notes: Map<string, string>
  efeitos: Map<string, Efeito[]>
}

async function parseAll(found: Map<Kind, Found>): Promise<Parsed> {
  const records: Apontamento[] = []
  const counts = new Map<Kind, Counts & { rows: number }>()
  const notes = new Map<string, string>()
  const efeitos = new Map<string, Efeito[]>()
  const latest = { date: null as string | null }
  for (const kind of ALL_KINDS) {
    const { table, parsed } = found.get(kind)!
    const c = { ...emptyCounts(), rows: 0 }
    counts.set(kind, c)
    let parseRow: (row: string[], line: number) => Apontamento | null | 'nota' | void
    try {
      if (kind === 'ceis' || kind === 'cnep') parseRow = sanctionParser(kind, parsed.header, c, table.label)
      else if (kind === 'cepim') parseRow = cepimParser(parsed.header, c)
      else if (kind === 'acordos') parseRow = acordosParser(parsed.header, c)
      else if (kind === 'efeitos') parseRow = efeitosParser(parsed.header, efeitos)
      else parseRow = mteParser(parsed.header, c, notes, latest)
    } catch (err) {
      if (err instanceof HeaderError) throw new BuildError(`${table.label}: ${err.message}`)
      throw err
    }
    let line = parsed.headerRow
    try {
      for await (const row of parsed.rows) {
        line++
        if (isBlankRow(row)) continue
        const r = parseRow(row, line)
        if (r === 'nota' || r === undefined) continue
        c.rows++
        if (r) records.push(r)
      }
    } catch (err) {
      if (err instanceof ParseError) throw new BuildError(err.message)
      throw new BuildError(`${table.label}: ${err instanceof Error ? err.message : err}`)
    }
    if (kind !== 'efeitos' && c.rows === 0) throw new BuildError(`${table.label}: ${KIND_LABEL[kind]} sem nenhuma linha (arquivo vazio ou cortado?)`)
  }
  return { records, counts, notes, efeitos, latestInclusion: latest.date }
}

/** The MTE list's date: a date in its title lines ("atualizado em ..."), else the latest date of its inclusion column. */
function mteDate(preamble: string[][], latestInclusion: string | null): string | null {
  const titled = preamble.flatMap((row) => datesIn(row.join(' ')))
  return titled.length ? titled.sort().pop()! : latestInclusion
}

function writeDb(path: string, records: Apontamento[], listas: Record<Lista, string>, totals: Record<Lista, number>) {
  // Grouped by root and list, newest first: the order a screening returns them in.
  records.sort((a, b) => {
    const ra = a.cnpj.slice(0, 8), rb = b.cnpj.slice(0, 8)
    if (ra !== rb) return ra < rb ? -1 : 1
    if (a.lista !== b.lista) return a.lista < b.lista ? -1 : 1
    return a.ordenarPor === b.ordenarPor ? 0 : a.ordenarPor > b.ordenarPor ? -1 : 1
  })
  const db = new Database(path, { create: true })
  try {
    db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;')
    db.exec(SCHEMA)
    const insert = db.prepare('INSERT INTO apontamentos (raiz, lista, ordem, cnpj, fim, situacao, corpo) VALUES (?, ?, ?, ?, ?, ?, ?)')
    db.transaction(() => {
      records.forEach((r, i) => insert.run(r.cnpj.slice(0, 8), r.lista, i, r.cnpj, r.fim, r.situacao, Buffer.from(JSON.stringify(r.corpo))))
      const lista = db.prepare('INSERT INTO listas (lista, referencia, registros) VALUES (?, ?, ?)')
      for (const l of LISTAS) lista.run(l, listas[l], totals[l])
    })()
    db.exec('ANALYZE; VACUUM;')
  } finally {
    db.close()
  }
}

/**
 * Builds data/integridade from DIR unless the build in use came from exactly these files (then
 * returns it, built: false). Throws BuildError (one line, the data in use kept) on a bad input.
 */
export async function buildIntegridade(options: IntegridadeBuildOptions): Promise<BuildResult> {
  const started = performance.now()
  const hashes = await sourceHashes(options.dir)
  const inUse = currentManifest<IntegridadeManifest>(options.dataDir, DATASET)
  if (inUse && !options.force && sameSources(inUse, FORMAT, hashes)) return { built: false, manifest: inUse }
  const manifest = await buildSnapshot<IntegridadeManifest>({
    dataDir: options.dataDir,
    dataset: DATASET,
    build: async (work) => {
      const found = await recognize(options.dir)
      const { records, counts, notes, efeitos, latestInclusion } = await parseAll(found)
      // Effects complete their agreements; footnotes their employers.
      for (const r of records) {
        if (r.lista === 'acordos_leniencia') r.corpo.efeitos = efeitos.get(String(r.corpo.id_acordo)) ?? []
        if (r.lista === 'trabalho_escravo') {
          const marker = r.corpo.nota as string | null
          delete r.corpo.nota
          r.corpo.nota_rodape = marker
          r.corpo.observacao = marker ? (notes.get(marker) ?? null) : null
        }
      }
      const dateOf = (kind: Kind): string | null => {
        const { table, parsed } = found.get(kind)!
        if (kind === 'mte') return options.knownDates?.[table.file] ?? mteDate(parsed.preamble, latestInclusion)
        return options.knownDates?.[table.file] ?? dateInName(table.entry?.name, table.file)
      }
      const listas = {} as Record<Lista, string>
      for (const [kind, lista] of Object.entries(LIST_OF) as [Exclude<Kind, 'efeitos'>, Lista][]) {
        const date = dateOf(kind)
        if (!date)
          throw new BuildError(
            kind === 'mte'
              ? `${found.get(kind)!.table.label}: data de referência desconhecida (nenhuma data nas linhas de título nem na coluna de inclusão)`
              : `${found.get(kind)!.table.label}: data de referência desconhecida: o nome do arquivo não traz a data AAAAMMDD (como 20260930_${kind === 'acordos' ? 'Acordos' : kind.toUpperCase()}.csv)`,
          )
        listas[lista] = date
      }
      const totals = Object.fromEntries(LISTAS.map((l) => [l, records.filter((r) => r.lista === l).length])) as Record<Lista, number>
      writeDb(join(work, DB_FILE), records, listas, totals)
      const arquivos: SourceRecord[] = ALL_KINDS.map((kind) => {
        const { table } = found.get(kind)!
        const c = counts.get(kind)!
        const record: SourceRecord = {
          nome: table.file,
          tipo: kind,
          data: kind === 'efeitos' ? listas.acordos_leniencia : listas[LIST_OF[kind as Exclude<Kind, 'efeitos'>]],
          bytes: statSync(table.path).size,
          sha256: hashes.get(table.file)!,
        }
        if (table.entry) record.entrada = table.entry.name
        if (kind === 'efeitos') record.linhas = [...efeitos.values()].reduce((n, e) => n + e.length, 0)
        else Object.assign(record, { linhas_mantidas: c.kept, linhas_descartadas: c.pessoaFisica + c.semCnpj, descartes: { pessoa_fisica: c.pessoaFisica, sem_cnpj: c.semCnpj } })
        return record
      })
      const referencia = Object.values(listas).sort().pop()!
      return { base: 'CGU/MTE', formato: FORMAT, referencia, arquivos, listas, registros: totals }
    },
    check: (work, m) => {
      for (const l of LISTAS) if (!m.listas[l]) throw new BuildError(`lista ${l} sem data de referência; a base em uso foi mantida`)
      if (statSync(join(work, DB_FILE)).size === 0) throw new BuildError('arquivo da base vazio; a base em uso foi mantida')
    },
  }).catch((err) => {
    if (err instanceof TableError) throw new BuildError(err.message)
    throw err
  })
  return { built: true, manifest, seconds: (performance.now() - started) / 1000 }
}
