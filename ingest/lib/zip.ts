// Streaming reader for the Receita's zips: one entry each, deflated, often over 4 GiB (ZIP64).
// Reads the central directory for the entry's true sizes and CRC, then inflates the entry
// straight from disk, checking the CRC at the end. Nothing is unzipped to disk or held whole.
import { open, stat } from 'node:fs/promises'
import { createReadStream } from 'node:fs'
import { createInflateRaw } from 'node:zlib'

export class ZipError extends Error {}

export interface ZipEntry {
  name: string
  method: number
  compressedSize: number
  uncompressedSize: number
  crc32: number
  /** Offset of the entry's local header. */
  localHeaderOffset: number
}

const EOCD = 0x06054b50
const ZIP64_EOCD_LOCATOR = 0x07064b50
const ZIP64_EOCD = 0x06064b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

/** Lists the entries of a zip file from its central directory (ZIP64 aware). */
export async function listEntries(path: string): Promise<ZipEntry[]> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    if (size < 22) throw new ZipError(`${path}: não é um zip (${size} bytes)`)
    const tailSize = Math.min(size, 65_557)
    const tail = Buffer.alloc(tailSize)
    await file.read(tail, 0, tailSize, size - tailSize)
    let eocd = -1
    for (let i = tailSize - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { eocd = i; break }
    if (eocd < 0) throw new ZipError(`${path}: zip truncado ou corrompido (fim do diretório central não encontrado)`)
    let count = tail.readUInt16LE(eocd + 10)
    let cdSize = tail.readUInt32LE(eocd + 12)
    let cdOffset = tail.readUInt32LE(eocd + 16)
    const locator = eocd - 20
    if (locator >= 0 && tail.readUInt32LE(locator) === ZIP64_EOCD_LOCATOR) {
      const z64Offset = Number(tail.readBigUInt64LE(locator + 8))
      const z64 = Buffer.alloc(56)
      await file.read(z64, 0, 56, z64Offset)
      if (z64.readUInt32LE(0) !== ZIP64_EOCD) throw new ZipError(`${path}: registro ZIP64 corrompido`)
      count = Number(z64.readBigUInt64LE(32))
      cdSize = Number(z64.readBigUInt64LE(40))
      cdOffset = Number(z64.readBigUInt64LE(48))
    }
    if (cdOffset + cdSize > size) throw new ZipError(`${path}: zip truncado (diretório central além do fim do arquivo)`)
    const cd = Buffer.alloc(cdSize)
    await file.read(cd, 0, cdSize, cdOffset)
    const entries: ZipEntry[] = []
    let p = 0
    for (let i = 0; i < count; i++) {
      if (cd.readUInt32LE(p) !== CENTRAL) throw new ZipError(`${path}: diretório central corrompido`)
      const method = cd.readUInt16LE(p + 10)
      const crc32 = cd.readUInt32LE(p + 16)
      let compressedSize = cd.readUInt32LE(p + 20)
      let uncompressedSize = cd.readUInt32LE(p + 24)
      const nameLength = cd.readUInt16LE(p + 28)
      const extraLength = cd.readUInt16LE(p + 30)
      const commentLength = cd.readUInt16LE(p + 32)
      let localHeaderOffset = cd.readUInt32LE(p + 42)
      const name = cd.toString('latin1', p + 46, p + 46 + nameLength)
      // ZIP64 extended information: the 64-bit values appear in order, only for fields set to 0xFFFFFFFF.
      let e = p + 46 + nameLength
      const extraEnd = e + extraLength
      while (e + 4 <= extraEnd) {
        const id = cd.readUInt16LE(e)
        const len = cd.readUInt16LE(e + 2)
        if (id === 0x0001) {
          let q = e + 4
          if (uncompressedSize === 0xffffffff) { uncompressedSize = Number(cd.readBigUInt64LE(q)); q += 8 }
          if (compressedSize === 0xffffffff) { compressedSize = Number(cd.readBigUInt64LE(q)); q += 8 }
          if (localHeaderOffset === 0xffffffff) { localHeaderOffset = Number(cd.readBigUInt64LE(q)); q += 8 }
        }
        e += 4 + len
      }
      entries.push({ name, method, compressedSize, uncompressedSize, crc32, localHeaderOffset })
      p = extraEnd + commentLength
    }
    return entries
  } finally {
    await file.close()
  }
}

/** Where an entry's compressed data starts: after its local header, whose lengths may differ from the central one. */
async function dataOffset(path: string, entry: ZipEntry): Promise<number> {
  const file = await open(path, 'r')
  try {
    const header = Buffer.alloc(30)
    await file.read(header, 0, 30, entry.localHeaderOffset)
    if (header.readUInt32LE(0) !== LOCAL) throw new ZipError(`${path}: cabeçalho local de ${entry.name} corrompido`)
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
  } finally {
    await file.close()
  }
}

/** Feeds bytes [from, to) of a file to a hasher. */
async function hashRange(path: string, from: number, to: number, hasher: Bun.CryptoHasher): Promise<void> {
  if (to <= from) return
  for await (const chunk of createReadStream(path, { start: from, end: to - 1, highWaterMark: 1 << 20 })) hasher.update(chunk as Buffer)
}

/**
 * Inflated bytes of one entry, as a stream of chunks. Throws ZipError at the end when the
 * CRC or the size does not match the central directory (a truncated or corrupt download).
 * With `hasher`, the whole zip file goes through it on the way, in order (the bytes before the
 * entry, its compressed bytes as they are read, the bytes after), so a file's sha256 costs no
 * second read.
 */
export async function* readEntry(path: string, entry: ZipEntry, hasher?: Bun.CryptoHasher): AsyncGenerator<Uint8Array> {
  if (entry.method !== 8 && entry.method !== 0) throw new ZipError(`${path}: ${entry.name} usa compressão ${entry.method}, não suportada`)
  const start = await dataOffset(path, entry)
  const end = start + entry.compressedSize
  if (hasher) await hashRange(path, 0, start, hasher)
  const raw = createReadStream(path, { start, end: end - 1, highWaterMark: 1 << 20 })
  if (hasher) raw.on('data', (chunk) => hasher.update(chunk as Buffer))
  const source = entry.method === 8 ? raw.pipe(createInflateRaw({ chunkSize: 1 << 20 })) : raw
  raw.on('error', (err) => source.destroy(err))
  let crc = 0
  let total = 0
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      crc = Bun.hash.crc32(chunk, crc)
      total += chunk.length
      yield chunk
    }
  } catch (err) {
    throw new ZipError(`${path}: ${entry.name} corrompido: ${err instanceof Error ? err.message : err}`)
  }
  if (total !== entry.uncompressedSize || crc >>> 0 !== entry.crc32 >>> 0)
    throw new ZipError(`${path}: ${entry.name} corrompido (tamanho ${total} de ${entry.uncompressedSize}, CRC ${crc >>> 0} de ${entry.crc32 >>> 0})`)
  if (hasher) await hashRange(path, end, (await stat(path)).size, hasher)
}

/** The single entry of a Receita zip (they hold one file each). */
export async function singleEntry(path: string): Promise<ZipEntry> {
  const entries = (await listEntries(path)).filter((e) => !e.name.endsWith('/'))
  if (entries.length !== 1) throw new ZipError(`${path}: esperava 1 arquivo dentro do zip, achei ${entries.length}`)
  return entries[0]!
}
