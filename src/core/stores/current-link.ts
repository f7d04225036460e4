// Follows a `current` symlink that an ingest swaps atomically, and hands out the open
// generation of files it points to. A request holds its generation until it finishes, so a
// swap never fails a request; the old generation closes when its last request is done.
//
// A damaged build never takes the process down and never answers 500: its files are checked from
// their headers before any native library opens them (file-check.ts), and a build that fails to
// open, or whose files give a read error while serving (corruption, I/O), leaves the dataset
// unavailable: requests get 503 dados_indisponiveis with the reason, which health() reports too.
// The follower keeps trying the build `current` points to: at once when the link moves to another
// build or the build's files change (restored), otherwise after a delay that doubles from
// RETRY_FIRST_MS (a transient I/O error heals; a corrupt page that the open's probe queries do not
// reach is dropped again on its next read).
import { readdirSync, readlinkSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { ApiError } from '../errors'
import { checkBuildFiles, isDataFault } from './file-check'

export interface Generation<T> {
  value: T
  target: string
  users: number
  retired: boolean
  dropped: boolean
}

export interface Follower<T> {
  /** Runs fn with the current generation, keeping it open until fn settles; 503 while no build serves. */
  use<R>(fn: (value: T) => R | Promise<R>): Promise<R>
  /** The current generation's value (for health), or null. */
  peek(): T | null
  /** Why no build serves right now, or null while one does. */
  unavailable(): string | null
  /** Re-reads the link now; returns true when a new generation was opened. */
  check(): Promise<boolean>
  close(): Promise<void>
}

export interface FollowOptions<T> {
  /** The dataset's name, for the 503's message. */
  dataset: string
  /** Opens a build (its directory name, relative to the link's); throws when it cannot serve. */
  open: (target: string) => Promise<T>
  close: (value: T) => void | Promise<void>
  /** A build did not open (`serving`: another one serves, and is kept), or a close failed. */
  onError: (err: unknown, serving: boolean) => void
  /** The build in use gave a data fault and was dropped. */
  onDrop: (target: string, err: unknown) => void
  pollMs?: number
}

/** First wait before the same unchanged build is tried again; doubles up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 30_000
const RETRY_MAX_MS = 30 * 60_000

/** A build that failed (to open, or while serving), and when the same files may be tried again. */
interface Fault {
  target: string
  reason: string
  /** The build's files (names, sizes, times, inodes) when it failed: a change means they were replaced. */
  files: string
  retryAt: number
  delayMs: number
}

/** What identifies a build directory's files on disk. */
function filesOf(dir: string): string {
  try {
    return readdirSync(dir)
      .sort()
      .map((name) => {
        const s = statSync(join(dir, name))
        return `${name}:${s.size}:${s.mtimeMs}:${s.ino}`
      })
      .join('|')
  } catch {
    return ''
  }
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

export async function followLink<T>(link: string, options: FollowOptions<T>): Promise<Follower<T>> {
  const { open, close, onError, onDrop, dataset } = options
  const root = dirname(link)
  let current: Generation<T> | null = null
  let fault: Fault | null = null
  let closed = false

  const retire = async (g: Generation<T>) => {
    if (g.retired) return
    g.retired = true
    if (g.users === 0) await close(g.value)
  }

  const remember = (target: string, reason: string) => {
    const delayMs = fault && fault.target === target ? Math.min(fault.delayMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS
    fault = { target, reason, files: filesOf(resolve(root, target)), retryAt: Date.now() + delayMs, delayMs }
  }

  /** One check at a time (the poll, a drop, a test's reload): two would open the same build twice. */
  let checking: Promise<boolean> | null = null
  const check = () => (checking ??= checkNow().finally(() => (checking = null)))
  const report = (err: unknown) => onError(err, current !== null)

  const checkNow = async () => {
    if (closed) return false
    let target: string
    try {
      target = readlinkSync(link)
    } catch {
      return false
    }
    if (current && current.target === target) return false
    if (fault && fault.target === target && Date.now() < fault.retryAt && filesOf(resolve(root, target)) === fault.files) return false
    let value: T
    try {
      // Headers and sizes first: a cut or overwritten file is refused before SQLite or DuckDB reads it.
      checkBuildFiles(resolve(root, target))
      value = await open(target)
    } catch (err) {
      remember(target, messageOf(err))
      throw err
    }
    const old = current
    current = { value, target, users: 0, retired: false, dropped: false }
    fault = null
    if (old) await retire(old)
    return true
  }

  const unavailableError = () =>
    new ApiError(
      'dados_indisponiveis',
      `A base '${dataset}' está indisponível neste servidor: ${fault?.reason ?? 'nenhuma construção aberta'}. Ela volta sozinha quando houver uma construção boa em ${link} (rode 'dadosbr ingest ${dataset}').`,
    )

  /** A read from g's files failed with a data fault: g leaves service now, and the link is tried again. */
  const drop = (g: Generation<T>, err: unknown) => {
    if (g.dropped) return
    g.dropped = true
    if (current === g) {
      current = null
      remember(g.target, `arquivo danificado na construção ${g.target} (${messageOf(err)})`)
      onDrop(g.target, err)
    }
    // Closed when its last request is done; a newer build may already be in place.
    retire(g).catch(report)
    check().catch(report)
  }

  /** A request is done with g: the last one out closes a retired generation. */
  const release = (g: Generation<T>) => {
    g.users--
    // Not awaited by the request: its answer is ready, and a failure to close is the operator's to read.
    if (g.retired && g.users === 0) Promise.resolve().then(() => close(g.value)).catch(report)
  }

  /** fn's failure: a data fault drops the generation and answers 503; any other error passes as it is. */
  const failed = (g: Generation<T>, err: unknown): Promise<never> => {
    if (!isDataFault(err)) return Promise.reject(err)
    drop(g, err)
    return Promise.reject(unavailableError())
  }

  // The first open: a build that cannot open leaves the dataset unavailable, not the server down.
  await check().catch(report)
  // A failed check keeps serving the old generation, if any.
  const timer = setInterval(() => void check().catch(report), options.pollMs ?? 2000)
  timer.unref?.()

  return {
    // Not an async function: most lookups are synchronous, and a synchronous fn then costs no
    // awaits (each layer of them was measurable on a route that answers in a few microseconds).
    // A generation cannot be retired while synchronous code runs, so it is released at once.
    use(fn) {
      const g = current
      if (!g) return Promise.reject(unavailableError())
      g.users++
      let result
      try {
        result = fn(g.value)
      } catch (err) {
        release(g)
        return failed(g, err)
      }
      if (!(result instanceof Promise)) {
        release(g)
        return Promise.resolve(result)
      }
      return result.then(
        (value) => {
          release(g)
          return value
        },
        (err) => {
          release(g)
          return failed(g, err)
        },
      )
    },
    peek: () => current?.value ?? null,
    unavailable: () => (current ? null : (fault?.reason ?? 'nenhuma construção aberta')),
    check,
    async close() {
      closed = true
      clearInterval(timer)
      if (current) await retire(current)
      current = null
    },
  }
}
