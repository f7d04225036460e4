// What every bench/<base>.ts prints beside its figures: the machine's load while it measured (the
// machine is shared, so a figure without it means little), and a command timed to its end.
import { readFileSync } from 'node:fs'

/** The load average over the last 1 and 5 minutes, and the cores it is shared by. */
export function machineLoad(): string {
  const [one, five] = readFileSync('/proc/loadavg', 'utf8').split(' ')
  return `carga ${one} (1 min), ${five} (5 min), ${navigator.hardwareConcurrency} núcleos`
}

/**
 * Runs a command to its end: wall seconds, CPU seconds (user + system), the peak resident memory of
 * its process (sampled every 50 ms) and the last line it printed. A failure throws with its output.
 */
export async function timed(cmd: string[]) {
  const started = performance.now()
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  let peak = 0
  const sampler = setInterval(() => {
    try { peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024) } catch {}
  }, 50)
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()]
  await proc.exited
  clearInterval(sampler)
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(' ')}: ${err || out}`)
  const usage = proc.resourceUsage()
  const cpu = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : NaN
  return { seconds: (performance.now() - started) / 1000, cpu, peak, line: (out || err).trim().split('\n').pop()! }
}
