// A small least-recently-used map: a Map keeps insertion order, so a hit is re-inserted at the
// end and the oldest entry is the first key.
export class Lru<K, V> {
  private readonly map = new Map<K, V>()
  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key)
    if (value !== undefined) {
      this.map.delete(key)
      this.map.set(key, value)
    }
    return value
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K)
  }

  get size(): number {
    return this.map.size
  }
}
