// This same program run again as a child process (the ingest's name indexes, the server's extra
// processes), and the child's side of that bond.
import { join } from 'node:path'

/** The command that runs `dadosbr`: the compiled executable when running as one (its entry point lives in Bun's embedded file system), otherwise bun with src/cli.ts. */
export function selfCommand(): string[] {
  return Bun.main.startsWith('/$bunfs/') ? [process.execPath] : [process.execPath, join(import.meta.dir, '..', 'cli.ts')]
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
