// The files of a `--from DIR` build as the government publishes them: CSVs, alone or inside zips
// of any name, recognized by their header (never by file name or column position). A dataset
// gives a `recognize` function; this module finds every CSV in the directory (one level, and
// every .csv entry of every .zip), decodes it (cp1252 unless it is valid UTF-8), skips title lines
// above the header, and hands back the header and the rows below it.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { chunksOf, csvRows, decodeText, isBlankRow, sniffEncoding } from '../../src/core/text/csv'
import { listEntries, readEntry, type ZipEntry } from './zip'

export interface TableFile {
  /** The file on disk (a .csv, or the .zip holding it). */
  path: string
  /** Its name as found in the directory. */
  file: string
  /** The zip entry, when the CSV is inside a zip. */
  entry?: ZipEntry
  /** For messages and the manifest: `file` or `file:entry`. */
  label: string
}

export class TableError extends Error {}

/** Every CSV in `dir`: the .csv files and the .csv entries of the .zip files, in name order. */
export async function listTables(dir: string, extensions = ['.csv']): Promise<TableFile[]> {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    throw new TableError(`pasta não encontrada: ${dir}`)
  }
  const out: TableFile[] = []
  const wanted = (n: string) => extensions.some((e) => n.toLowerCase().endsWith(e))
  for (const file of names) {
    const path = join(dir, file)
    if (!statSync(path).isFile()) continue
    if (file.toLowerCase().endsWith('.zip')) {
      for (const entry of await listEntries(path)) if (!entry.name.endsWith('/') && wanted(entry.name)) out.push({ path, file, entry, label: `${file}:${entry.name}` })
    } else if (wanted(file)) out.push({ path, file, label: file })
  }
  return out
}

/** The whole content of a table's file or entry (the government's lists are megabytes, not gigabytes). */
export async function tableBytes(t: TableFile): Promise<Uint8Array> {
  if (!t.entry) return new Uint8Array(await Bun.file(t.path).arrayBuffer())
  const parts: Uint8Array[] = []
  for await (const chunk of readEntry(t.path, t.entry)) parts.push(chunk)
  return Buffer.concat(parts)
}

export interface Table<K> {
  kind: K
  /** Rows above the header (title lines; the MTE list has a few). */
  preamble: string[][]
  header: string[]
  /** 1-based line of the header, for messages. */
  headerRow: number
  rows: AsyncGenerator<string[]>
}

/**
 * Reads a table: the first row (within `maxTitleRows`) that `recognize` accepts is its header.
 * Returns null when no row is recognized, with the first non-blank row for the message.
 */
export async function readTable<K>(t: TableFile, recognize: (header: string[]) => K | null, maxTitleRows = 50): Promise<Table<K> | { unknown: string[] }> {
  const bytes = await tableBytes(t)
  const rows = csvRows(decodeText(chunksOf(bytes), sniffEncoding(bytes)), ';')
  const preamble: string[][] = []
  let firstNonBlank: string[] | null = null
  for (let n = 1; n <= maxTitleRows; n++) {
    const next = await rows.next()
    if (next.done) break
    const row = next.value
    if (isBlankRow(row)) continue
    firstNonBlank ??= row
    const kind = recognize(row)
    if (kind !== null) return { kind, preamble, header: row, headerRow: n, rows }
    preamble.push(row)
  }
  return { unknown: firstNonBlank ?? [] }
}

/** sha256 of a file, hex. */
export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256')
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk)
  return hasher.digest('hex')
}
