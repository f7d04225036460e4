import { createApp, type App, type AppOptions } from '../src/app'
import { loadConfig, type SettingName } from '../src/core/config'
import { createLogger } from '../src/core/log'

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
 * `dadosbr ingest todas --amostra` (once per test file). A dataset added to ingest/registry.ts
 * joins it, and with it the generated-input test.
 */
export function buildSampleData(): Promise<string> {
  samples ??= (async () => {
    const { INGESTS } = await import('../ingest/registry')
    const dataDir = tempDir('dadosbr-amostras-')
    for (const d of INGESTS) await d.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
    return dataDir
  })()
  return samples
}
