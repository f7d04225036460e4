// The bundled sample of a polled source: its recorded upstream answers (real format, kept under
// test/<base>/fixtures/) replayed by a local server through the feed's own fetch and parse code,
// and stored as the feed's copies with the date they were recorded: `make run` serves them with
// their true age, offline, marked as the sample (status `amostra`) until a fetch of the server replaces them.
import { join } from 'node:path'
import { FeedRunner, type FeedDef } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { bundledPath } from '../../src/core/self'
import { copyBundled } from './bundled'
import { loadRecordings, readRecordingIndex, startReplay } from './replay'

export async function installFeedSample(options: {
  dataDir: string
  feeds: FeedDef[]
  /** Repository-relative directory holding recordings.json and its files (embedded in the executable). */
  recordings: string
  onlyIfNeeded: boolean
}): Promise<string> {
  const probe = new FeedRunner(options.feeds, { dataDir: options.dataDir, log: createLogger('silent') })
  const keysOf = (f: FeedDef) => f.defaultKeys ?? ['']
  if (options.onlyIfNeeded && options.feeds.every((f) => keysOf(f).every((k) => probe.copy(f.name, k)?.dados))) {
    // A sample installed by a version that did not mark it: its copies carry the recording time.
    const { gravado_em } = readRecordingIndex(join(bundledPath(options.recordings), 'recordings.json'))
    for (const f of options.feeds)
      for (const k of keysOf(f)) {
        const c = probe.copy(f.name, k)!
        if (!c.amostra && c.consultado_em && Date.parse(c.consultado_em) === Date.parse(gravado_em)) probe.write(f, k, { ...c, amostra: true })
      }
    return `fontes ${options.feeds.map((f) => f.name).join(', ')}: cópias já presentes, nada a fazer`
  }
  const copy = await copyBundled(options.recordings)
  const index = join(copy.dir, 'recordings.json')
  const { gravado_em, respostas } = readRecordingIndex(index)
  const envs = [...new Set(respostas.map((r) => r.upstream))]
  const servers = envs.map((env) => ({ env, server: startReplay(loadRecordings(index, env)), before: process.env[env] }))
  const problems: string[] = []
  try {
    for (const s of servers) process.env[s.env] = s.server.url
    // The feed clock reads the recording time, so each copy says when its data really came.
    const runner = new FeedRunner(options.feeds, { dataDir: options.dataDir, log: createLogger('silent'), now: () => Date.parse(gravado_em), sample: true })
    for (const feed of options.feeds)
      for (const key of keysOf(feed))
        await runner.refresh(feed.name, key).catch((err: Error) => problems.push(`${feed.name}${key ? ` (${key})` : ''}: ${err.message}`))
  } finally {
    for (const s of servers) {
      s.server.close()
      if (s.before === undefined) delete process.env[s.env]
      else process.env[s.env] = s.before
    }
    copy.done()
  }
  if (problems.length) throw new Error(`a amostra gravada não foi lida: ${problems.join('; ')}`)
  return `fontes ${options.feeds.map((f) => f.name).join(', ')}: amostra gravada em ${gravado_em} instalada`
}
