// The commodities tests' upstreams: one local replay server per upstream setting, answering the
// bundled sample's recordings (real formats), the settings pointed at them; and the samples installed
// as `make run` does (markets first: the briefing reads its PTAX; then the exports and the feeds).
import { join } from 'node:path'
import { commoditiesIngest, exportacoesIngest } from '../../ingest/commodities/command'
import { mercadoIngest } from '../../ingest/mercado/command'
import { loadRecordings, readRecordingIndex, startReplay, type ReplayServer } from '../../ingest/lib/replay'
import { tempDir } from '../temp'

export const RECORDINGS = join(import.meta.dir, 'fixtures', 'commodities-amostra', 'recordings.json')
export const GRAVADO_EM = Date.parse(readRecordingIndex(RECORDINGS).gravado_em)
export const SAMPLE_TIME = '2026-01-29T15:30:00.000Z'

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

const ctx = (dataDir: string) => ({ flags: {}, dataDir, quiet: true, log: () => {} })

/** A data directory holding the bundled samples (markets, exports, commodities feeds). */
export async function sampleDataDir(options: { exportacoes?: boolean } = {}): Promise<string> {
  const dataDir = tempDir('commodities-amostra-')
  await mercadoIngest.sample(ctx(dataDir), false)
  if (options.exportacoes !== false) await exportacoesIngest.sample(ctx(dataDir), false)
  await commoditiesIngest.sample(ctx(dataDir), false)
  return dataDir
}
