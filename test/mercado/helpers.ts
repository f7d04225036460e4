// The markets tests' upstreams: one local replay server per upstream setting, answering the bundled
// sample's recordings (real formats), the settings pointed at them; and the sample installed.
import { join } from 'node:path'
import { installFeedSample } from '../../ingest/lib/feed-sample'
import { loadRecordings, readRecordingIndex, startReplay, type ReplayServer } from '../../ingest/lib/replay'
import { MERCADO_FEEDS } from '../../src/datasets/mercado'
import { tempDir } from '../temp'

export const RECORDINGS = join(import.meta.dir, 'fixtures', 'amostra', 'recordings.json')
export const GRAVADO_EM = Date.parse(readRecordingIndex(RECORDINGS).gravado_em)

export interface Upstreams {
  server(env: string): ReplayServer
  all: ReplayServer[]
  close(): void
}

/** A replay server per upstream of the recordings; each setting points at its server until close(). */
export function startUpstreams(): Upstreams {
  const envs = [...new Set(readRecordingIndex(RECORDINGS).respostas.map((r) => r.upstream))]
  const servers = new Map(envs.map((env) => [env, startReplay(loadRecordings(RECORDINGS, env))]))
  const before = new Map(envs.map((env) => [env, process.env[env]]))
  for (const [env, s] of servers) process.env[env] = s.url
  return {
    server: (env) => servers.get(env)!,
    all: [...servers.values()],
    close() {
      for (const s of servers.values()) s.close()
      for (const [env, v] of before) {
        if (v === undefined) delete process.env[env]
        else process.env[env] = v
      }
    },
  }
}

/** A data directory holding the bundled sample of the markets dataset, installed as `make run` does. */
export async function sampleDataDir(): Promise<string> {
  const dataDir = tempDir('mercado-amostra-')
  await installFeedSample({ dataDir, feeds: MERCADO_FEEDS, recordings: 'test/mercado/fixtures/amostra', onlyIfNeeded: false })
  return dataDir
}
