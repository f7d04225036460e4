// The bundled samples live in the repository in development and inside the executable when
// compiled (src/core/self.ts bundledPath). Ingests read plain directories with node:fs, so a
// sample is first copied out to a temporary directory: the same code path as `--from DIR`. A run
// killed before it removed its copy leaves it behind; the next run removes it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundledPath } from '../../src/core/self'
import { stillRunning } from './processes'

const PREFIX = 'dadosbr-amostra-'

/**
 * Removes the copies of runs that died before their `done` (killed): each copy's name carries its
 * process's pid, and a copy whose process is gone (or is another process now) is left over.
 */
function removeDeadCopies(temp: string): void {
  for (const name of readdirSync(temp)) {
    const pid = Number(/^dadosbr-amostra-(\d+)-/.exec(name)?.[1])
    if (!pid || pid === process.pid) continue
    const path = join(temp, name)
    try {
      if (!stillRunning(pid, statSync(path).mtimeMs)) rmSync(path, { recursive: true, force: true })
    } catch {
      // removed meanwhile by another run
    }
  }
}

/** Copies a bundled directory (recursively) to a new temporary directory; `done` removes it. */
export async function copyBundled(relativeDir: string): Promise<{ dir: string; done: () => void }> {
  const source = bundledPath(relativeDir)
  const temp = process.env.TMPDIR || tmpdir()
  removeDeadCopies(temp)
  const dir = mkdtempSync(join(temp, `${PREFIX}${process.pid}-`))
  const copy = async (from: string, to: string) => {
    for (const name of readdirSync(from)) {
      const path = join(from, name)
      if (statSync(path).isDirectory()) {
        mkdirSync(join(to, name))
        await copy(path, join(to, name))
      } else await Bun.write(join(to, name), Bun.file(path))
    }
  }
  await copy(source, dir)
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) }
}
