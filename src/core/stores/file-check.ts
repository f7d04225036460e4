// Checks a build's data files from their own headers before any native library reads them: a
// file cut short (a full disk, a copy interrupted, a truncate) or whose first page was overwritten
// is refused with one line that names it, where SQLite would answer "database disk image is
// malformed" only on the queries that reach the missing pages, and DuckDB fails at open with an
// I/O error. Run by the ingest before a swap (ingest/lib/snapshot.ts swapIn) and by the server
// before it opens a build (current-link.ts). Reads a few KB per file.
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ApiError } from '../errors'

export class DamagedFileError extends Error {}

function readHead(path: string, bytes: number): Buffer {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(bytes)
    const n = readSync(fd, buffer, 0, bytes, 0)
    return buffer.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

const SQLITE_MAGIC = 'SQLite format 3\0'

/**
 * A SQLite file: the magic string, a page size SQLite allows, and (when the header's page count
 * is valid: its "version-valid-for" equals the change counter, true of any file written by
 * SQLite 3.7 or later) at least that many pages on disk.
 */
export function checkSqliteFile(path: string): void {
  const size = statSync(path).size
  const head = readHead(path, 100)
  if (head.length < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) throw new DamagedFileError(`${path}: não é um arquivo SQLite (cabeçalho ausente ou sobrescrito)`)
  const raw = head.readUInt16BE(16)
  const pageSize = raw === 1 ? 65536 : raw
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) throw new DamagedFileError(`${path}: cabeçalho SQLite danificado (página de ${raw} bytes)`)
  const pages = head.readUInt32BE(28)
  const countValid = head.readUInt32BE(92) === head.readUInt32BE(24)
  if (countValid && pages > 0 && size < pages * pageSize)
    throw new DamagedFileError(`${path}: arquivo SQLite truncado (${size} bytes, o cabeçalho diz ${pages} páginas de ${pageSize} = ${pages * pageSize})`)
}

/** DuckDB's file: a main header block and two database headers of 4 KiB, then blocks of block_alloc_size. */
const DUCKDB_HEADER_BYTES = 3 * 4096
const DUCKDB_MAGIC_OFFSET = 8
const DUCKDB_DEFAULT_BLOCK = 262_144

/**
 * A DuckDB file: the magic `DUCK`, and at least as many blocks on disk as its newer database
 * header (the one with the higher iteration) counts. Each database header, after its 8-byte
 * checksum: iteration, meta block, free list, block count, block size (u64, little-endian).
 */
export function checkDuckDbFile(path: string): void {
  const size = statSync(path).size
  const head = readHead(path, DUCKDB_HEADER_BYTES)
  if (head.length < DUCKDB_HEADER_BYTES || head.toString('latin1', DUCKDB_MAGIC_OFFSET, DUCKDB_MAGIC_OFFSET + 4) !== 'DUCK')
    throw new DamagedFileError(`${path}: não é um arquivo DuckDB (cabeçalho ausente, curto ou sobrescrito)`)
  const header = (at: number) => ({
    iteration: head.readBigUInt64LE(at + 8),
    blocks: head.readBigUInt64LE(at + 32),
    blockSize: Number(head.readBigUInt64LE(at + 40)) || DUCKDB_DEFAULT_BLOCK,
  })
  const [a, b] = [header(4096), header(8192)]
  const active = a.iteration >= b.iteration ? a : b
  if (active.blockSize % 4096 !== 0 || active.blockSize > 1 << 30 || active.blocks > BigInt(Number.MAX_SAFE_INTEGER))
    throw new DamagedFileError(`${path}: cabeçalho DuckDB danificado`)
  const expected = DUCKDB_HEADER_BYTES + Number(active.blocks) * active.blockSize
  if (size < expected) throw new DamagedFileError(`${path}: arquivo DuckDB truncado (${size} bytes, o cabeçalho diz ${active.blocks} blocos = ${expected})`)
}

/** Every SQLite and DuckDB file of a build directory, by extension; throws DamagedFileError on the first bad one. */
export function checkBuildFiles(dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (name.endsWith('.sqlite')) checkSqliteFile(path)
    else if (name.endsWith('.duckdb')) checkDuckDbFile(path)
  }
}

/**
 * An error a data file gave while being read: corruption or I/O (SQLite's CORRUPT, NOTADB,
 * IOERR*, DuckDB's I/O errors and checksum failures, the system's EIO), as opposed to a bug or bad
 * input. A store that gets one drops the build (current-link.ts).
 */
export function isDataFault(err: unknown): boolean {
  // An answer already decided (a part of the build that failed on its own, as the registry's
  // history: historico-store.ts), whose message may quote SQLite's: not the build's fault to drop it for.
  if (err instanceof ApiError) return false
  if (err instanceof DamagedFileError) return true
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && /^(SQLITE_(CORRUPT|NOTADB|IOERR|CANTOPEN)|EIO|ENXIO|ESTALE)/.test(code)) return true
  return /^(IO Error|Corrupt database file|INTERNAL Error: .*(checksum|corrupt))|database disk image is malformed|file is not a database/i.test(err.message)
}
