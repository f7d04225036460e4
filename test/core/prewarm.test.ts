import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../src/core/config'
import { availableMemory, cachedShare, prewarm } from '../../src/core/stores/prewarm'
import { tempDir } from '../helpers'

const SIZE = 9 * 1024 * 1024 + 123 // more than two 4 MiB chunks, not a multiple of one

function file(): string {
  const path = join(tempDir('dadosbr-warm-'), 'cnpj.duckdb')
  writeFileSync(path, Buffer.alloc(SIZE, 7))
  return path
}

describe('prewarm', () => {
  test('reads a file that fits the budget to its last byte', async () => {
    expect(await prewarm(file(), { budgetBytes: SIZE }).done).toMatchObject({ status: 'lido', bytes: SIZE })
  })

  test('reads a file bigger than the budget up to the budget', async () => {
    expect(await prewarm(file(), { budgetBytes: SIZE - 5 * 1024 * 1024 }).done).toMatchObject({ status: 'parcial', bytes: SIZE - 5 * 1024 * 1024 })
  })

  test('only the first bytes asked (the part worth reading): read whole, not cut by the budget', async () => {
    expect(await prewarm(file(), { budgetBytes: SIZE, upTo: 5 * 1024 * 1024 + 7 }).done).toMatchObject({ status: 'lido', bytes: 5 * 1024 * 1024 + 7 })
    // Beyond the file, the file; a smaller budget still cuts it.
    expect(await prewarm(file(), { budgetBytes: SIZE, upTo: 2 * SIZE }).done).toMatchObject({ status: 'lido', bytes: SIZE })
    expect(await prewarm(file(), { budgetBytes: 1024 * 1024, upTo: 5 * 1024 * 1024 }).done).toMatchObject({ status: 'parcial', bytes: 1024 * 1024 })
  })

  test('from an offset on (the part read last): its bytes only, cut by the budget', async () => {
    expect(await prewarm(file(), { budgetBytes: SIZE, from: 5 * 1024 * 1024 }).done).toMatchObject({ status: 'lido', bytes: SIZE - 5 * 1024 * 1024 })
    expect(await prewarm(file(), { budgetBytes: 1024 * 1024, from: 5 * 1024 * 1024 }).done).toMatchObject({ status: 'parcial', bytes: 1024 * 1024 })
    expect(await prewarm(file(), { budgetBytes: SIZE, from: 2 * SIZE }).done).toMatchObject({ status: 'lido', bytes: 0 })
  })

  test('no budget left: nothing read', async () => {
    expect(await prewarm(file(), { budgetBytes: 0 }).done).toMatchObject({ status: 'pulado', bytes: 0 })
  })

  test('stops when asked (a new month replaced the file)', async () => {
    const warm = prewarm(file(), { budgetBytes: SIZE })
    warm.stop()
    const r = await warm.done
    expect(r.status).toBe('parado')
    expect(r.bytes).toBeLessThan(SIZE)
  })

  test('a missing file fails its promise, not the process', async () => {
    await expect(prewarm('/nonexistent/cnpj.duckdb').done).rejects.toThrow()
  })

  test('available memory is a positive number of bytes', async () => {
    expect(await availableMemory()).toBeGreaterThan(1024 * 1024)
  })

  test('on by default; DADOSBR_PRE_LEITURA=0 or --pre-leitura 0 turns it off (old DADOSBR_PREWARM too); a bad value names the setting', () => {
    expect(loadConfig({ free: true }, {}).prewarm).toBe(true)
    expect(loadConfig({ free: true }, { DADOSBR_PRE_LEITURA: '0' }).prewarm).toBe(false)
    expect(loadConfig({ free: true }, { DADOSBR_PREWARM: '0' }).prewarm).toBe(false)
    expect(loadConfig({ free: true, prewarm: '0' }, { DADOSBR_PRE_LEITURA: '1' }).prewarm).toBe(false)
    expect(() => loadConfig({ free: true }, { DADOSBR_PRE_LEITURA: 'talvez' })).toThrow(/--pre-leitura \/ DADOSBR_PRE_LEITURA/)
  })

  test('cachedShare: a file just written is in the page cache (its sampled reads take microseconds); an empty file counts as cached', () => {
    // Timed reads: some samples can be slowed by the machine's other work (consultar asks for 0.9),
    // so the check here is loose; a file from disk gives ~0 (90-300 µs a page, measured).
    expect(cachedShare(file())).toBeGreaterThanOrEqual(0.5)
    const empty = join(tempDir('dadosbr-warm-'), 'vazio')
    writeFileSync(empty, '')
    expect(cachedShare(empty)).toBe(1)
  })
})
