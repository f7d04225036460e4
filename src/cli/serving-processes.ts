// The extra processes of `dadosbr serve --processos N`: copies of this program bound to the same
// port with SO_REUSEPORT, among which the kernel spreads the connections. A lookup's SQLite read is
// synchronous: when its page is not in memory the process waits on the disk, and only another
// process can answer in the meantime (README, Desempenho). Each copy opens the data on its own and
// follows month swaps on its own; the first process alone prewarms, since the page cache is shared.
import type { Subprocess } from 'bun'
import type { Logger } from '../core/log'
import { childEnv, selfCommand } from '../core/self'

/** Set in each extra process to its number (1..N-1); absent in the first one. */
export const PROCESS_ENV = 'DADOSBR_PROCESSO'

export function processNumber(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env[PROCESS_ENV] ?? 0)
  return Number.isInteger(n) && n > 0 ? n : 0
}

export interface ServingProcesses {
  /** SIGTERM to each (they finish the requests in flight), SIGKILL to any still alive after `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

const FIRST_RESTART_MS = 1000
const MAX_RESTART_MS = 60_000
/** A process that ran this long before dying is restarted after FIRST_RESTART_MS; one that dies sooner, ever more slowly (up to MAX_RESTART_MS). */
const HEALTHY_RUN_MS = 60_000

/** Starts `count` copies of `dadosbr serve <args>` and restarts any that dies until `stop`. */
export function startServingProcesses(count: number, args: string[], log: Logger): ServingProcesses {
  const live = new Map<number, Subprocess>()
  let stopping = false
  const start = (k: number, delay: number) => {
    const child = Bun.spawn([...selfCommand(), 'serve', ...args], { env: childEnv({ [PROCESS_ENV]: String(k) }), stdio: ['ignore', 'inherit', 'inherit'] })
    const startedAt = Date.now()
    live.set(k, child)
    void child.exited.then((code) => {
      live.delete(k)
      if (stopping) return
      const wait = Date.now() - startedAt >= HEALTHY_RUN_MS ? FIRST_RESTART_MS : delay
      log.warn('processo de atendimento saiu; reiniciando', { processo: k, saida: code ?? child.signalCode, em_s: wait / 1000 })
      setTimeout(() => stopping || start(k, Math.min(wait * 2, MAX_RESTART_MS)), wait)
    })
  }
  for (let k = 1; k <= count; k++) start(k, FIRST_RESTART_MS)
  return {
    stop: async (graceMs = 10_000) => {
      stopping = true
      const children = [...live.values()]
      for (const c of children) c.kill('SIGTERM')
      const exited = Promise.all(children.map((c) => c.exited))
      if ((await Promise.race([exited.then(() => true), Bun.sleep(graceMs).then(() => false)])) === false) for (const c of children) c.kill('SIGKILL')
      await exited
    },
  }
}
