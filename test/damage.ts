// Damage done to a data file in place, as a failing disk or a stray write would: shared by the
// fault tests (test/core/faults.test.ts) and the long fault run (bench/faults.ts).
import { closeSync, openSync, realpathSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** The real path of a file of a dataset's build in use. */
export const fileInUse = (dataDir: string, dataset: string, name: string) => join(realpathSync(join(dataDir, dataset, 'current')), name)

/** Overwrites `bytes` of a file from `at` with garbage (0x5a), in place. */
export function scribble(path: string, at: number, bytes: number): void {
  const fd = openSync(path, 'r+')
  try {
    writeSync(fd, Buffer.alloc(bytes, 0x5a), 0, bytes, at)
  } finally {
    closeSync(fd)
  }
}
