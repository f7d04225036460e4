// Whether a process recorded by an earlier run (a build lock's holder, a temp folder's owner) is
// still that run. A pid alone is not enough: after a reboot, or a long time, the number is reused,
// and an unrelated process holding it would keep a dead build's lock forever (every scheduled
// ingest refused). On Linux a process that started after the record was written cannot be its owner.
import { readFileSync } from 'node:fs'

/** Clock ticks per second of /proc/<pid>/stat's start time (USER_HZ: 100 on every Linux build Bun runs on). */
const USER_HZ = 100

let bootMs: number | null | undefined
/** When the system booted (ms since the epoch), from /proc/stat; null elsewhere. */
function bootTime(): number | null {
  if (bootMs !== undefined) return bootMs
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]
    bootMs = btime ? Number(btime) * 1000 : null
  } catch {
    bootMs = null
  }
  return bootMs
}

/** Process `pid` as /proc shows it: its state letter and when it started (ms since the epoch, to 1 s); null when unknown (not Linux, gone). */
function procStat(pid: number): { state: string; startedAt: number | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces), from field 3 (state): starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const boot = bootTime()
    return { state: fields[0]!, startedAt: boot === null ? null : boot + (Number(fields[19]) / USER_HZ) * 1000 }
  } catch {
    return null
  }
}

/** A process with this pid exists (a zombie too: it has not been reaped yet). */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * True while the process that wrote a record at `recordedAtMs` with its pid may still be running:
 * the pid exists, is not a zombie (dead, waiting for a parent that may never reap it, as under a
 * container's init), and (where the start time is known) started before the record, with 2 s of
 * slack for the boot time's 1 s precision.
 */
export function stillRunning(pid: number, recordedAtMs?: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !exists(pid)) return false
  const stat = procStat(pid)
  if (stat?.state === 'Z' || stat?.state === 'X') return false
  if (recordedAtMs === undefined || !stat?.startedAt) return true
  return stat.startedAt <= recordedAtMs + 2000
}
