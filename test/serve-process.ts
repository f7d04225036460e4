// A `dadosbr serve` in a process of its own, as a user starts it, and what tests ask of its processes.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RUNTIME_FLAGS } from '../src/core/self'

const CLI = join(import.meta.dir, '..', 'src', 'cli.ts')

/** Live child processes of `pid`, from /proc (field 4 of stat is the parent). */
export function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) === pid && fields[0] !== 'Z') out.push(Number(entry))
    } catch {
      // exited meanwhile
    }
  }
  return out
}

export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(50)) {
    const v = await probe()
    if (v !== undefined) return v
  }
  throw new Error(`esperando ${what}`)
}

/** Running (an orphan's zombie waits for an init that may never reap it). */
export const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/**
 * Starts `dadosbr serve --gratis --host 127.0.0.1 <args>` (without --gratis when args has --pay-to); collects its log as it comes; `announced`
 * resolves once the first process announced the port it got (--port 0) and its process count.
 */
export function startServe(args: string[], env?: Record<string, string>) {
  // Free unless the test asks for payments (--pay-to).
  const mode = args.includes('--pay-to') ? [] : ['--gratis']
  const proc = Bun.spawn([process.execPath, ...RUNTIME_FLAGS, CLI, 'serve', ...mode, '--host', '127.0.0.1', ...args], { stderr: 'pipe', env: env ? { ...process.env, ...env } : undefined })
  const log = { text: '' }
  const decoder = new TextDecoder()
  const read = (async () => {
    for await (const chunk of proc.stderr) log.text += decoder.decode(chunk, { stream: true })
  })()
  const announced = until(() => {
    const m = /ouvindo em http:\/\/127\.0\.0\.1:(\d+) .*processos=(\d+)/.exec(log.text)
    if (m) return { port: Number(m[1]), processes: Number(m[2]) }
    if (proc.exitCode !== null) throw new Error(`o servidor saiu (${proc.exitCode}) sem anunciar a porta: ${log.text.slice(-500)}`)
    return undefined
  }, 'o anúncio da porta')
  // A test about a server that must not start never awaits this: its rejection, seconds later, must not
  // land on whichever test runs then. Awaiting it still rejects.
  announced.catch(() => {})
  return { proc, log, announced, read }
}
