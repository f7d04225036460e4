// Follows a `current` symlink that an ingest swaps atomically, and hands out the open
// generation of files it points to. A request holds its generation until it finishes, so a
// swap never fails a request; the old generation closes when its last request is done.
import { readlinkSync } from 'node:fs'

export interface Generation<T> {
  value: T
  target: string
  users: number
  retired: boolean
}

export interface Follower<T> {
  /** Runs fn with the current generation, keeping it open until fn settles. */
  use<R>(fn: (value: T) => R | Promise<R>): Promise<R>
  /** The current generation's value (for health), or null. */
  peek(): T | null
  /** Re-reads the link now; returns true when a new generation was opened. */
  check(): Promise<boolean>
  close(): Promise<void>
}

export async function followLink<T>(
  link: string,
  open: (target: string) => Promise<T>,
  close: (value: T) => void | Promise<void>,
  onError: (err: unknown) => void,
  pollMs = 2000,
): Promise<Follower<T>> {
  let current: Generation<T> | null = null
  const retire = async (g: Generation<T>) => {
    g.retired = true
    if (g.users === 0) await close(g.value)
  }
  const check = async () => {
    let target: string
    try {
      target = readlinkSync(link)
    } catch {
      return false
    }
    if (current && current.target === target) return false
    const value = await open(target)
    const old = current
    current = { value, target, users: 0, retired: false }
    if (old) await retire(old)
    return true
  }
  /** A request is done with g: the last one out closes a retired generation. */
  const release = (g: Generation<T>) => {
    g.users--
    // Not awaited by the request: its answer is ready, and a failure to close is the operator's to read.
    if (g.retired && g.users === 0) Promise.resolve().then(() => close(g.value)).catch(onError)
  }
  await check()
  let checking = false
  const timer = setInterval(async () => {
    if (checking) return
    checking = true
    try {
      await check()
    } catch (err) {
      onError(err) // keep serving the old generation
    } finally {
      checking = false
    }
  }, pollMs)
  timer.unref?.()

  return {
    // Not an async function: most lookups are synchronous, and a synchronous fn then costs no
    // awaits (each layer of them was measurable on a route that answers in a few microseconds).
    // A generation cannot be retired while synchronous code runs, so it is released at once.
    use(fn) {
      const g = current
      if (!g) return Promise.reject(new Error('nenhuma geração aberta'))
      g.users++
      let result
      try {
        result = fn(g.value)
      } catch (err) {
        release(g)
        return Promise.reject(err)
      }
      if (!(result instanceof Promise)) {
        release(g)
        return Promise.resolve(result)
      }
      return result.finally(() => release(g))
    },
    peek: () => current?.value ?? null,
    check,
    async close() {
      clearInterval(timer)
      if (current) await retire(current)
      current = null
    },
  }
}
