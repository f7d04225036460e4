// Runs this same program again as a child process and collects its CPU time.
import { childEnv, selfCommand } from '../../src/core/self'

export interface Child {
  /** Resolves with the child's CPU time (user + system, seconds) when it exits 0; rejects with its exit code otherwise. */
  done: Promise<{ cpuSeconds: number }>
  kill(): void
}

/** Starts `dadosbr <args>` with the same environment; its output goes to this process's. */
export function runSelf(args: string[], describe: string): Child {
  const child = Bun.spawn([...selfCommand(), ...args], { env: childEnv(), stdio: ['ignore', 'inherit', 'inherit'] })
  const done = child.exited.then((code) => {
    if (code !== 0) throw new Error(`${describe} falhou (saída ${code})`)
    const usage = child.resourceUsage()
    // Microseconds.
    return { cpuSeconds: usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : 0 }
  })
  return { done, kill: () => child.kill() }
}
