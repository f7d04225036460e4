// The CVM's fund files as published (SOURCES.md §5): names, the zip members that matter, and
// their rows. Every file is ISO-8859-1 with `;` (decoded as windows-1252, a superset that turns
// the 0x80-0x9F bytes some names carry into their characters instead of control codes).
import { createReadStream } from 'node:fs'
import { csvRows, decodeText, isBlankRow } from '../../src/core/text/csv'
import { listEntries, readEntry, ZipError, type ZipEntry } from '../lib/zip'

/** inf_diario_fi_YYYYMM.zip: one month of daily reports. */
export const DAILY_ZIP = /^inf_diario_fi_(\d{4})(\d{2})\.zip$/i
/** cda_fi_YYYYMM.zip: one month of portfolio disclosures (blocks 1-8, PL, CONFID). */
export const PORTFOLIO_ZIP = /^cda_fi_(\d{4})(\d{2})\.zip$/i
export const REGISTRY_ZIP = 'registro_fundo_classe.zip'
export const LEGACY_REGISTRY = 'cad_fi.csv'

/** The month of a monthly file's name (YYYY-MM), or null. */
export function monthOf(name: string, pattern: RegExp): string | null {
  const m = pattern.exec(name)
  return m ? `${m[1]}-${m[2]}` : null
}

export const monthName = (month: string) => month.replace('-', '')

export class SourceError extends Error {}

/** Rows of a delimited text stream, header first; blank lines skipped. */
export async function* rowsOf(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  for await (const row of csvRows(decodeText(bytes, 'windows-1252'), ';')) if (!isBlankRow(row)) yield row
}

/** The member of a zip whose name matches (case-insensitive, folders ignored), or null. */
export async function findMember(path: string, pattern: RegExp): Promise<ZipEntry | null> {
  const entries = await listEntries(path)
  return entries.find((e) => !e.name.endsWith('/') && pattern.test(e.name.split('/').pop()!)) ?? null
}

/** Rows of one zip member. A corrupt or truncated member throws ZipError naming the file. */
export function memberRows(path: string, entry: ZipEntry): AsyncGenerator<string[]> {
  return rowsOf(readEntry(path, entry))
}

/** Rows of a plain CSV file (cad_fi.csv). */
export function fileRows(path: string): AsyncGenerator<string[]> {
  return rowsOf(createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Uint8Array>)
}

/** sha256 of a whole file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256')
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hasher.update(chunk as Buffer)
  return hasher.digest('hex')
}

/** A zip that does not open, said in one line with what to do. */
export function describeZipError(name: string, err: unknown): string {
  const why = err instanceof ZipError || err instanceof Error ? err.message.replace(/^.*?: /, '') : String(err)
  return `${name} está corrompido ou incompleto (${why}); apague-o e baixe de novo (a base em uso foi mantida)`
}

/**
 * The 14 characters of a CNPJ as the CVM writes it (punctuated `00.017.024/0001-53` or bare), or
 * null. Alphanumeric CNPJs (issued from July 2026, IN RFB 2.229/2024) are kept in upper case.
 */
export function cnpjDigits(raw: string | undefined): string | null {
  if (!raw) return null
  const s = raw.replace(/[.\/\-\s]/g, '').toUpperCase()
  if (s.length === 14 && /^[0-9A-Z]{12}\d{2}$/.test(s)) return s
  // Bare CNPJs that lost their leading zeros (read as numbers somewhere upstream).
  if (/^\d{9,13}$/.test(s)) return s.padStart(14, '0')
  return null
}
