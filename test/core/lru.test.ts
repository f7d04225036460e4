import { expect, test } from 'bun:test'
import { Lru } from '../../src/core/lru'

test('keeps the most recently used entries up to its capacity', () => {
  const lru = new Lru<string, number>(2)
  lru.set('a', 1)
  lru.set('b', 2)
  expect(lru.get('a')).toBe(1) // a is now the most recent
  lru.set('c', 3) // evicts b, the least recently used
  expect(lru.get('b')).toBeUndefined()
  expect(lru.get('a')).toBe(1)
  expect(lru.get('c')).toBe(3)
  lru.set('a', 10) // overwrite keeps one entry
  expect(lru.size).toBe(2)
  expect(lru.get('a')).toBe(10)
})

test('capacity 0 keeps nothing', () => {
  const lru = new Lru<string, number>(0)
  lru.set('a', 1)
  expect(lru.get('a')).toBeUndefined()
  expect(lru.size).toBe(0)
})
