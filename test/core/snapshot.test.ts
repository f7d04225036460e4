// Snapshot datasets share one build path (temp dir, check, manifest, atomic swap, lock) and one
// server store (follows `current`, picks a new build up live, refuses another layout version).
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BuildError, buildSnapshot, currentManifest } from '../../ingest/lib/snapshot'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { openSnapshot } from '../../src/core/stores/snapshot'
import { tempDir } from '../temp'

const build = (dataDir: string, value: string, opts: { fail?: boolean; referencia?: string; formato?: number } = {}) =>
  buildSnapshot({
    dataDir,
    dataset: 'teste',
    build: async (work) => {
      writeFileSync(join(work, 'valor.txt'), value)
      if (opts.fail) throw new BuildError('lista vazia; a base em uso foi mantida')
      return { base: 'Teste', formato: opts.formato ?? 1, referencia: opts.referencia ?? '2026-11-24', arquivos: [] }
    },
  })

describe('snapshot builds', () => {
  test('a build is swapped in; a failed one leaves the data in use and no temp directory', async () => {
    const dataDir = tempDir('snap-')
    await build(dataDir, 'um')
    const link = join(dataDir, 'teste', 'current')
    expect(readFileSync(join(link, 'valor.txt'), 'utf8')).toBe('um')
    const first = readlinkSync(link)
    await expect(build(dataDir, 'dois', { fail: true })).rejects.toThrow('lista vazia; a base em uso foi mantida')
    await expect(build(dataDir, 'dois', { referencia: 'ontem' })).rejects.toThrow('data de referência desconhecida (ontem)')
    expect(readlinkSync(link)).toBe(first)
    expect(readdirSync(join(dataDir, 'teste')).filter((e) => e.endsWith('.tmp'))).toEqual([])
    expect(currentManifest(dataDir, 'teste')).toMatchObject({ base: 'Teste', referencia: '2026-11-24', formato: 1 })
  })

  test('the server picks a new build up without restart; a build of another layout is not served', async () => {
    const dataDir = tempDir('snap-')
    await build(dataDir, 'um')
    const closed: string[] = []
    const store = await openSnapshot(loadConfig({ free: true, dataDir }, {}), createLogger('silent'), {
      dataset: 'teste',
      formato: 1,
      open: (dir) => readFileSync(join(dir, 'valor.txt'), 'utf8'),
      close: (v) => void closed.push(v),
    })
    expect(await store.use((s) => s.files)).toBe('um')
    // A request that started on the old build finishes on it.
    let release!: () => void
    const inFlight = store.use((s) => new Promise<string>((r) => (release = () => r(s.files))))
    await build(dataDir, 'dois', { referencia: '2026-11-25' })
    expect(await store.reload()).toBe(true)
    expect(await store.use((s) => s.files)).toBe('dois')
    expect(closed).toEqual([])
    release()
    expect(await inFlight).toBe('um')
    expect(closed).toEqual(['um'])
    expect(await store.health()).toEqual({ ok: true, referencia: '2026-11-25' })
    await build(dataDir, 'três', { formato: 2 })
    await expect(store.reload()).rejects.toThrow('outra versão do dadosbr (formato 2, este servidor lê o 1)')
    expect(await store.use((s) => s.files)).toBe('dois')
    await store.close()
  })

  test('a missing dataset says which command builds it', async () => {
    const dataDir = tempDir('snap-')
    await expect(openSnapshot(loadConfig({ free: true, dataDir }, {}), createLogger('silent'), { dataset: 'teste', formato: 1, open: () => 0, close: () => {} })).rejects.toThrow(`arquivo de dados ausente em ${dataDir}; rode 'dadosbr ingest teste' (ou --amostra, a amostra embutida)`)
    expect(existsSync(join(dataDir, 'teste'))).toBe(false)
  })
})
