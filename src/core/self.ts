// This same program run again as a child process (the ingest's name indexes, the server's extra
// processes), and the child's side of that bond.
import { dlopen, FFIType } from 'bun:ffi'
import { constants } from 'node:os'
import { basename, dirname, join } from 'node:path'

/**
 * Flags of the Bun runtime the server needs. Bun answers a request line or headers over its limit
 * (16 KiB by default) with a bare 431 before the app sees it; raised to 1 MiB, every URL up to
 * that size reaches the app, which answers 414 in the error envelope. The compiled executable gets
 * them built in (scripts/build.ts); `make run`, `npm start` and the processes started by selfCommand
 * pass them to bun (a bare `bun src/cli.ts serve` keeps Bun's 16 KiB limit: serve warns).
 */
export const RUNTIME_FLAGS = ['--max-http-header-size=1048576']

/** True when running as the compiled executable (its entry point lives in Bun's embedded file system). */
export const compiled = () => Bun.main.startsWith('/$bunfs/')

/** True when this process runs with RUNTIME_FLAGS. */
export const hasRuntimeFlags = () => compiled() || RUNTIME_FLAGS.every((f) => process.execArgv.includes(f))

/** The command that runs `dadosbr`: the compiled executable when running as one, otherwise bun with the runtime flags and src/cli.ts. */
export function selfCommand(): string[] {
  return compiled() ? [process.execPath] : [process.execPath, ...RUNTIME_FLAGS, join(import.meta.dir, '..', 'cli.ts')]
}

/** Tells a child started by selfCommand who its parent is (see dieWithParent). */
const PARENT_ENV = 'DADOSBR_PAI'

/** The environment for a child started by selfCommand: this one, plus this process's pid. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...extra, [PARENT_ENV]: String(process.pid) }
}

/** The pid of the process that started this one with childEnv, or null when a user (or another program) started it. */
export function startedBy(): number | null {
  const pid = Number(process.env[PARENT_ENV])
  return Number.isInteger(pid) && pid > 0 ? pid : null
}

/**
 * False once the process that started this one (childEnv) is gone: the parent's pid comes from the
 * environment, since a parent killed before this process looked has already left it to init (or a
 * subreaper), whose pid would pass for the parent's. True for a process no parent of ours started.
 */
export function parentAlive(): boolean {
  const parent = startedBy()
  return parent === null || process.ppid === parent
}

const PR_SET_PDEATHSIG = 1

/**
 * Asks Linux to send `signal` to this process the moment its parent dies (prctl PR_SET_PDEATHSIG,
 * through libc). Returns false where that cannot be reached (another system, no glibc). The signal
 * comes when the parent's thread that forked this process ends: Bun.spawn forks from the JavaScript
 * thread, which lives as long as the parent.
 */
function deathSignal(signal: 'SIGKILL' | 'SIGTERM'): boolean {
  if (process.platform !== 'linux') return false
  try {
    const libc = dlopen('libc.so.6', { prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 } })
    const ok = libc.symbols.prctl(PR_SET_PDEATHSIG, constants.signals[signal], 0, 0, 0) === 0
    return ok
  } catch {
    return false
  }
}

/**
 * A child started by selfCommand dies with its parent, however the parent ends (killed outright
 * with SIGKILL included, which the parent cannot pass on): an ingest's internal process must never
 * outlive the command the user started, keep its lock and swap its build in anyway. On Linux the
 * kernel sends `signal` at once (SIGKILL: an ingest stops where it is, the next one removes what it
 * left; SIGTERM: a serving process finishes its requests); a check every second covers the other
 * systems, and a check right away covers a parent that died before this process got here.
 * Nothing happens in a process no parent of ours started.
 */
export function dieWithParent(signal: 'SIGKILL' | 'SIGTERM', code = 1): void {
  if (startedBy() === null) return
  deathSignal(signal)
  const check = () => {
    if (!parentAlive()) process.exit(code)
  }
  check()
  setInterval(check, 1000).unref()
}

/** The repository root in development (src/core/../..). */
const REPO_ROOT = join(import.meta.dir, '..', '..')

/**
 * A file or directory the build embeds in the executable (scripts/build.ts `assets`: the bundled
 * samples), by its path relative to the repository: read from the repository in development,
 * from the executable's embedded file system when compiled. `bun build --compile` embeds an asset
 * directory under its last name only (test/cnpj/fixtures/rfb becomes /$bunfs/root/rfb), so the
 * samples' folder names must be unique (test/core/registry.test.ts checks it).
 */
export function bundledPath(relative: string): string {
  return compiled() ? join(dirname(Bun.main), basename(relative)) : join(REPO_ROOT, relative)
}
