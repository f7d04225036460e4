// In the single executable, DuckDB's addon (duckdb.node) is embedded by `bun build --compile`
// but the 70 MB libduckdb.so it links against is not. The build embeds that library as a file
// asset; here it is written to $TMPDIR and dlopen'ed before the addon loads, so the addon's
// dependency resolves to the already-loaded library (NOTES §1).
import { dlopen } from 'bun:ffi'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let loaded = false

/** The embedded libduckdb.so, when running as a compiled binary; null in development. */
function embeddedLibrary(): Blob | null {
  for (const file of Bun.embeddedFiles) if ((file as Blob & { name: string }).name.startsWith('libduckdb')) return file
  return null
}

export async function preloadDuckDbLibrary(): Promise<void> {
  if (loaded) return
  loaded = true
  const lib = embeddedLibrary()
  if (!lib) return // development: the addon finds libduckdb.so beside itself
  const dir = join(process.env.TMPDIR || tmpdir(), `dadosbr-duckdb-${lib.size}`)
  const path = join(dir, 'libduckdb.so')
  if (!existsSync(path) || statSync(path).size !== lib.size) {
    mkdirSync(dir, { recursive: true })
    const part = `${path}.${process.pid}`
    writeFileSync(part, new Uint8Array(await lib.arrayBuffer()))
    // rename is atomic: two processes starting at once never load a half-written library.
    require('node:fs').renameSync(part, path)
  }
  dlopen(path, { duckdb_library_version: { args: [], returns: 'cstring' } })
}
