// Builds dist/dadosbr: one executable with Bun, the app, the docs UI and DuckDB (its addon and,
// as an embedded file, the libduckdb.so the addon needs; see src/core/stores/native.ts).
import { mkdirSync } from 'node:fs'
import { RUNTIME_FLAGS } from '../src/core/self'
import { INGESTS } from '../ingest/registry'

// DuckDB's loader names every platform's binding; only linux-x64 is installed and wanted.
const otherPlatforms = ['linux-arm64', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-arm64', 'darwin-x64', 'win32-x64', 'win32-arm64'].map((p) => `@duckdb/node-bindings-${p}`)

mkdirSync('dist', { recursive: true })
const started = performance.now()
const result = await Bun.build({
  entrypoints: ['src/cli.ts'],
  // The bundled samples ride inside the executable: `dadosbr ingest <base> --amostra` needs no repository.
  compile: { outfile: 'dist/dadosbr', execArgv: RUNTIME_FLAGS, assets: INGESTS.flatMap((i) => i.sampleAssets) },
  external: otherPlatforms,
  minify: true,
  sourcemap: 'none',
})
if (!result.success) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}
const size = Bun.file('dist/dadosbr').size
console.error(`dist/dadosbr: ${(size / 1e6).toFixed(0)} MB em ${((performance.now() - started) / 1000).toFixed(1)} s`)
