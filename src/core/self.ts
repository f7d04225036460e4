// This same program run again as a child process (the ingest's name indexes, the server's extra
// processes), and the child's side of that bond.
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

/** Tells a child started by selfCommand who its parent is (see exitWhenOrphaned). */
const PARENT_ENV = 'DADOSBR_PAI'

/** The environment for a child started by selfCommand: this one, plus this process's pid. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...extra, [PARENT_ENV]: String(process.pid) }
}

/**
 * Exits when the parent dies without stopping this process (killed outright, not through the
 * terminal's process group). The parent's pid comes from childEnv: a parent killed before this
 * process got here has already left it to init, so its own ppid would look like the parent.
 */
export function exitWhenOrphaned(code = 1): void {
  const parent = Number(process.env[PARENT_ENV]) || process.ppid
  const check = () => process.ppid !== parent && process.exit(code)
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
