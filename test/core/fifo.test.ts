import { describe, expect, test } from 'bun:test'
import { cleanChunk } from '../../ingest/lib/fifo'

describe('cleanChunk (bytes on their way from the zip to the CSV reader)', () => {
  test('drops NUL and CR, turns the record and unit separators into spaces', () => {
    const input = Uint8Array.from([0x22, 0x41, 0x00, 0x42, 0x1f, 0x43, 0x1e, 0x44, 0x22, 0x0d, 0x0a])
    expect([...cleanChunk(input)]).toEqual([0x22, 0x41, 0x42, 0x20, 0x43, 0x20, 0x44, 0x22, 0x0a])
  })

  test('a clean chunk is returned as is, not copied', () => {
    const input = new TextEncoder().encode('"33683111";"SERPRO"\n')
    expect(cleanChunk(input)).toBe(input)
  })
})
