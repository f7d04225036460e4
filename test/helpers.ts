import { cpSync } from 'node:fs'
import { createApp, type App, type AppOptions } from '../src/app'
import { loadConfig, type SettingName } from '../src/core/config'
import { createLogger } from '../src/core/log'

import { loadRecordings, readRecordingIndex, startReplay, type ReplayServer } from '../ingest/lib/replay'
import { tempDir } from './temp'

export { tempDir }

/** An app in --free mode over a data directory, with response checking on and logs captured. */
export async function testApp(settings: Partial<Record<SettingName, string | boolean>> = {}, options: AppOptions = {}) {
  const logs: string[] = []
  const config = loadConfig({ free: true, dataDir: '/nonexistent-dadosbr-data', logLevel: 'debug', ...settings }, {})
  const app = await createApp(config, { log: createLogger('debug', (l) => logs.push(l)), checkResponses: true, ...options })
  return { app, logs }
}

export async function get(app: App, path: string, init: RequestInit = {}) {
  const response = await app.handle(new Request(`http://localhost${path}`, init))
  const text = await response.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body, text }
}

let samples: Promise<string> | undefined
/**
 * A data directory holding every dataset's bundled sample, built by the same code as
 * `dadosbr ingest todas --amostra` (once per test run) and handed to each caller as a copy of its
 * own (~10 MB): a test whose app tries the polled sources writes their attempts into the copies, and
 * must not change what the next test file sees. A dataset added to ingest/registry.ts joins it, and
 * with it the generated-input test.
 */
export async function buildSampleData(): Promise<string> {
  samples ??= (async () => {
    const { INGESTS } = await import('../ingest/registry')
    const dataDir = tempDir('dadosbr-amostras-')
    for (const d of INGESTS) await d.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
    return dataDir
  })()
  const copy = tempDir('dadosbr-amostras-')
  // The `current` links are relative: copied as they are, they point into the copy.
  cpSync(await samples, copy, { recursive: true, verbatimSymlinks: true })
  return copy
}

/** Replay servers of a polled dataset's recorded upstreams, its settings pointed at them. */
export interface Upstreams {
  server(env: string): ReplayServer
  all: ReplayServer[]
  close(): void
}

/** A replay server per upstream setting of a recordings.json; each setting points at its server until close(). */
export function startRecordedUpstreams(recordings: string): Upstreams {
  const envs = [...new Set(readRecordingIndex(recordings).respostas.map((r) => r.upstream))]
  const servers = new Map(envs.map((env) => [env, startReplay(loadRecordings(recordings, env))]))
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
