// How many cores this process may really use: the CPUs it may run on (affinity), bounded by a
// container's CPU quota (cgroup v2 cpu.max), which availableParallelism() does not see: a build
// in a 2-CPU container on a 64-core host must not start 37 loads at once, nor a server 64 processes.
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/** Cores from a cgroup v2 `cpu.max` line ("200000 100000" = 2; "max 100000" = no quota). */
export function quotaCores(cpuMax: string): number | null {
  const [quota, period] = cpuMax.trim().split(/\s+/)
  if (!quota || quota === 'max' || !period) return null
  const cores = Number(quota) / Number(period)
  return Number.isFinite(cores) && cores > 0 ? Math.max(1, Math.ceil(cores)) : null
}

export function machineCores(cpuMaxPath = '/sys/fs/cgroup/cpu.max'): number {
  let quota: number | null = null
  try {
    quota = quotaCores(readFileSync(cpuMaxPath, 'utf8'))
  } catch {
    // No cgroup v2 file (macOS, cgroup v1): the affinity count alone.
  }
  return Math.min(availableParallelism(), quota ?? Infinity)
}
