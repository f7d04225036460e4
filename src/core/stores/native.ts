// In the single executable, DuckDB's addon (duckdb.node) is embedded by `bun build --compile`
// but the 70 MB libduckdb.so it links against is not. The build embeds that library as a file
// asset; here it is written to $TMPDIR and dlopen'ed before the addon loads, so the addon's
// dependency resolves to the already-loaded library (NOTES §1).
import { dlopen } from 'bun:ffi'
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// A file import: in development this is the path in node_modules; in the compiled binary the
// file is embedded and the path points into the binary's own virtual filesystem (/$bunfs/...).
import libduckdbPath from '@duckdb/node-bindings-linux-x64/libduckdb.so' with { type: 'file' }

let loaded = false

export async function preloadDuckDbLibrary(): Promise<void> {
  if (loaded) return
  loaded = true
  if (!libduckdbPath.startsWith('/$bunfs/')) return // development: the addon finds libduckdb.so beside itself
  const lib = Bun.file(libduckdbPath)
  const dir = join(process.env.TMPDIR || tmpdir(), `dadosbr-duckdb-${lib.size}`)
  const path = join(dir, 'libduckdb.so')
  if (!existsSync(path) || statSync(path).size !== lib.size) {
    mkdirSync(dir, { recursive: true })
    const part = `${path}.${process.pid}`
    writeFileSync(part, new Uint8Array(await lib.arrayBuffer()))
    // rename is atomic: two processes starting at once never load a half-written library.
    renameSync(part, path)
  }
  dlopen(path, { duckdb_library_version: { args: [], returns: 'cstring' } })
}
