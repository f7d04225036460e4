// The bundled samples live in the repository in development and inside the executable when
// compiled (src/core/self.ts bundledPath). Ingests read plain directories with node:fs, so a
// sample is first copied out to a temporary directory: the same code path as `--from DIR`.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundledPath } from '../../src/core/self'

/** Copies a bundled directory (recursively) to a new temporary directory; `done` removes it. */
export async function copyBundled(relativeDir: string): Promise<{ dir: string; done: () => void }> {
  const source = bundledPath(relativeDir)
  const dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'dadosbr-amostra-'))
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
