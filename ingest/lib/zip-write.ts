// Streaming writer of single-entry zips in the Receita's layout (deflate, data descriptor,
// ZIP64 when needed or asked). Used by the synthetic dump generator and the tests.
import { createWriteStream, type WriteStream } from 'node:fs'
import { once } from 'node:events'
import { createDeflateRaw, constants, deflateRawSync } from 'node:zlib'

export interface ZipWriter {
  write(chunk: Uint8Array): Promise<void>
  close(): Promise<void>
}

const u16 = (n: number) => { const b = Buffer.alloc(2); b.writeUInt16LE(n); return b }
const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n >>> 0); return b }
const u64 = (n: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b }
const DOS_DATE = 0x5b21 // 2025-09-01, like a real dump
const DOS_TIME = 0x6000

export async function createZipWriter(path: string, entryName: string, options: { zip64?: boolean; level?: number } = {}): Promise<ZipWriter> {
  const out: WriteStream = createWriteStream(path)
  await once(out, 'open')
  const name = Buffer.from(entryName, 'latin1')
  const forceZip64 = options.zip64 ?? false
  let offset = 0
  const put = async (b: Uint8Array) => {
    offset += b.length
    if (!out.write(b)) await once(out, 'drain')
  }
  const version = forceZip64 ? 45 : 20
  // Local header: sizes unknown yet (bit 3), so they follow the data in a descriptor.
  const localExtra = forceZip64 ? Buffer.concat([u16(1), u16(16), u64(0), u64(0)]) : Buffer.alloc(0)
  await put(Buffer.concat([u32(0x04034b50), u16(version), u16(0x0008), u16(8), u16(DOS_TIME), u16(DOS_DATE), u32(0),
    u32(forceZip64 ? 0xffffffff : 0), u32(forceZip64 ? 0xffffffff : 0), u16(name.length), u16(localExtra.length), name, localExtra]))
  const dataStart = offset
  const deflate = createDeflateRaw({ level: options.level ?? constants.Z_BEST_SPEED, chunkSize: 1 << 20 })
  let crc = 0
  let size = 0
  const drained = (async () => {
    for await (const chunk of deflate as AsyncIterable<Buffer>) await put(chunk)
  })()
  return {
    async write(chunk) {
      crc = Bun.hash.crc32(chunk, crc)
      size += chunk.length
      if (!deflate.write(chunk)) await once(deflate, 'drain')
    },
    async close() {
      deflate.end()
      await drained
      const compressed = offset - dataStart
      const zip64 = forceZip64 || size >= 0xffffffff || compressed >= 0xffffffff || dataStart >= 0xffffffff
      await put(zip64
        ? Buffer.concat([u32(0x08074b50), u32(crc), u64(compressed), u64(size)])
        : Buffer.concat([u32(0x08074b50), u32(crc), u32(compressed), u32(size)]))
      const cdStart = offset
      const cdExtra = zip64 ? Buffer.concat([u16(1), u16(24), u64(size), u64(compressed), u64(0)]) : Buffer.alloc(0)
      const central = Buffer.concat([u32(0x02014b50), u16(zip64 ? 45 : 20), u16(zip64 ? 45 : 20), u16(0x0008), u16(8), u16(DOS_TIME), u16(DOS_DATE),
        u32(crc), u32(zip64 ? 0xffffffff : compressed), u32(zip64 ? 0xffffffff : size), u16(name.length), u16(cdExtra.length), u16(0),
        u16(0), u16(0), u32(0), u32(zip64 ? 0xffffffff : 0), name, cdExtra])
      await put(central)
      const cdEnd = offset
      if (zip64) {
        await put(Buffer.concat([u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0), u64(1), u64(1), u64(central.length), u64(cdStart)]))
        await put(Buffer.concat([u32(0x07064b50), u32(0), u64(cdEnd), u32(1)]))
      }
      await put(Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(zip64 ? 0xffff : 1), u16(zip64 ? 0xffff : 1),
        u32(zip64 ? 0xffffffff : central.length), u32(zip64 ? 0xffffffff : cdStart), u16(0)]))
      out.end()
      await once(out, 'close')
    },
  }
}

/** Writes a whole small file (fixtures, lookup tables) as a zip. */
export async function writeZip(path: string, entryName: string, content: Uint8Array, options: { zip64?: boolean } = {}): Promise<void> {
  const w = await createZipWriter(path, entryName, options)
  await w.write(content)
  await w.close()
}

export interface ZipArchive {
  /** Starts the next entry; the previous one must be closed first. */
  entry(name: string): Promise<ZipWriter>
  /** Writes the central directory (after the last entry is closed). */
  close(): Promise<void>
}

/**
 * Streaming writer of a zip with several entries (the CVM's zips: a month's portfolio blocks, the
 * fund registry's three files), same layout as createZipWriter: deflate, data descriptors, ZIP64
 * only when a size or offset needs it.
 */
export async function createZipArchive(path: string, options: { level?: number } = {}): Promise<ZipArchive> {
  const out: WriteStream = createWriteStream(path)
  await once(out, 'open')
  let offset = 0
  const put = async (b: Uint8Array) => {
    offset += b.length
    if (!out.write(b)) await once(out, 'drain')
  }
  const central: Buffer[] = []
  let open = false
  return {
    async entry(entryName) {
      if (open) throw new Error('zip: a entrada anterior não foi fechada')
      open = true
      const name = Buffer.from(entryName, 'latin1')
      const headerOffset = offset
      await put(Buffer.concat([u32(0x04034b50), u16(20), u16(0x0008), u16(8), u16(DOS_TIME), u16(DOS_DATE), u32(0), u32(0), u32(0), u16(name.length), u16(0), name]))
      const dataStart = offset
      const deflate = createDeflateRaw({ level: options.level ?? constants.Z_BEST_SPEED, chunkSize: 1 << 20 })
      let crc = 0
      let size = 0
      const drained = (async () => {
        for await (const chunk of deflate as AsyncIterable<Buffer>) await put(chunk)
      })()
      return {
        async write(chunk) {
          crc = Bun.hash.crc32(chunk, crc)
          size += chunk.length
          if (!deflate.write(chunk)) await once(deflate, 'drain')
        },
        async close() {
          deflate.end()
          await drained
          const compressed = offset - dataStart
          const zip64 = size >= 0xffffffff || compressed >= 0xffffffff || headerOffset >= 0xffffffff
          await put(zip64
            ? Buffer.concat([u32(0x08074b50), u32(crc), u64(compressed), u64(size)])
            : Buffer.concat([u32(0x08074b50), u32(crc), u32(compressed), u32(size)]))
          const extra = zip64 ? Buffer.concat([u16(1), u16(24), u64(size), u64(compressed), u64(headerOffset)]) : Buffer.alloc(0)
          central.push(Buffer.concat([u32(0x02014b50), u16(zip64 ? 45 : 20), u16(zip64 ? 45 : 20), u16(0x0008), u16(8), u16(DOS_TIME), u16(DOS_DATE),
            u32(crc), u32(zip64 ? 0xffffffff : compressed), u32(zip64 ? 0xffffffff : size), u16(name.length), u16(extra.length), u16(0),
            u16(0), u16(0), u32(0), u32(zip64 ? 0xffffffff : headerOffset), name, extra]))
          open = false
        },
      }
    },
    async close() {
      if (open) throw new Error('zip: a última entrada não foi fechada')
      const cdStart = offset
      for (const c of central) await put(c)
      const cdEnd = offset
      const zip64 = cdStart >= 0xffffffff || central.length >= 0xffff
      if (zip64) {
        await put(Buffer.concat([u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0), u64(central.length), u64(central.length), u64(cdEnd - cdStart), u64(cdStart)]))
        await put(Buffer.concat([u32(0x07064b50), u32(0), u64(cdEnd), u32(1)]))
      }
      await put(Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(zip64 ? 0xffff : central.length), u16(zip64 ? 0xffff : central.length),
        u32(zip64 ? 0xffffffff : cdEnd - cdStart), u32(zip64 ? 0xffffffff : cdStart), u16(0)]))
      out.end()
      await once(out, 'close')
    },
  }
}

/** Writes a small zip of several whole files (fixtures), in the order given. */
export async function writeZipEntries(path: string, entries: { name: string; content: Uint8Array }[]): Promise<void> {
  const zip = await createZipArchive(path)
  for (const e of entries) {
    const w = await zip.entry(e.name)
    await w.write(e.content)
    await w.close()
  }
  await zip.close()
}

/**
 * A small zip holding several files (the leniency zip holds two CSVs; an XLSX is a zip of XML
 * parts): deflated, sizes in the local headers (no data descriptor), UTF-8 names. writeZipEntries
 * writes the streaming layout (data descriptors, latin-1 names) instead.
 */
export async function writeZipFiles(path: string, files: { name: string; content: Uint8Array | string }[]): Promise<void> {
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const file of files) {
    const data = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content)
    const packed = deflateRawSync(data)
    const name = Buffer.from(file.name, 'utf8')
    const crc = Bun.hash.crc32(data) >>> 0
    const head = Buffer.concat([u32(0x04034b50), u16(20), u16(0x0800), u16(8), u16(DOS_TIME), u16(DOS_DATE), u32(crc), u32(packed.length), u32(data.length), u16(name.length), u16(0), name])
    central.push(Buffer.concat([u32(0x02014b50), u16(20), u16(20), u16(0x0800), u16(8), u16(DOS_TIME), u16(DOS_DATE), u32(crc), u32(packed.length), u32(data.length),
      u16(name.length), u16(0), u16(0), u16(0), u16(0), u32(0), u32(offset), name]))
    parts.push(head, packed)
    offset += head.length + packed.length
  }
  const cd = Buffer.concat(central)
  await Bun.write(path, Buffer.concat([...parts, cd, u32(0x06054b50), u16(0), u16(0), u16(files.length), u16(files.length), u32(cd.length), u32(offset), u16(0)]))
}
