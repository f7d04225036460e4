// Preloaded by `bun test` (bunfig.toml): a global afterAll runs once, after every test file.
import { afterAll } from 'bun:test'
import { removeTempDirs } from './temp'
import { DATASETS } from '../src/datasets/registry'

// No test reaches a real government server: every upstream setting a test does not set itself
// points at a closed local port (a feed refreshed by a route under test fails at once, offline).
for (const d of DATASETS) for (const u of [...(d.upstreams ?? []), ...(d.feeds ?? []).flatMap((f) => f.upstreams)]) process.env[u.env] ??= 'http://127.0.0.1:9'

afterAll(removeTempDirs)
