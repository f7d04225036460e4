// Preloaded by `bun test` (bunfig.toml): a global afterAll runs once, after every test file.
import { afterAll } from 'bun:test'
import { removeTempDirs } from './temp'

afterAll(removeTempDirs)
