// Runs this same program again as a child process: the compiled executable when running as one
// (its entry point lives in Bun's embedded file system), otherwise bun with src/cli.ts.
import { join } from 'node:path'

export function selfCommand(): string[] {
  return Bun.main.startsWith('/$bunfs/') ? [process.execPath] : [process.execPath, join(import.meta.dir, '..', '..', 'src', 'cli.ts')]
}

export interface Child {
  /** Resolves with the child's CPU time (user + system, seconds) when it exits 0; rejects with its exit code otherwise. */
  done: Promise<{ cpuSeconds: number }>
  kill(): void
}

/** Starts `dadosbr <args>` with the same environment; its output goes to this process's. */
export function runSelf(args: string[], describe: string): Child {
  const child = Bun.spawn([...selfCommand(), ...args], { env: process.env, stdio: ['ignore', 'inherit', 'inherit'] })
  const done = child.exited.then((code) => {
    if (code !== 0) throw new Error(`${describe} falhou (saída ${code})`)
    const usage = child.resourceUsage()
    // Microseconds.
    return { cpuSeconds: usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : 0 }
  })
  return { done, kill: () => child.kill() }
}
