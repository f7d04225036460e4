// The server's side of a snapshot dataset: follows data/<dataset>/current, opens each new build
// (checking its layout version) and hands requests the generation they started with, so an
// ingest's swap is picked up live and never fails a request (current-link.ts).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Config } from '../config'
import type { DatasetHealth, DatasetStore } from '../dataset'
import type { Logger } from '../log'
import { followLink } from './current-link'
import { CURRENT_LINK, readManifest, type SnapshotManifest } from './snapshot-layout'

export interface Snapshot<F, M extends SnapshotManifest = SnapshotManifest> {
  dir: string
  manifest: M
  files: F
}

export interface SnapshotStore<F, M extends SnapshotManifest = SnapshotManifest> extends DatasetStore {
  use<R>(fn: (snapshot: Snapshot<F, M>) => R | Promise<R>): Promise<R>
  /** The generation in use right now (for fonte and health), or null. */
  peek(): Snapshot<F, M> | null
  /** Re-reads the current link now (tests; the server polls every 2 s). */
  reload(): Promise<boolean>
}

export interface SnapshotSpec<F, M extends SnapshotManifest> {
  /** Folder under the data directory, and the name in `dadosbr ingest <name>`. */
  dataset: string
  /** The layout version this server reads (the ingest writes it in the manifest). */
  formato: number
  open: (dir: string, manifest: M) => F | Promise<F>
  close: (files: F) => void | Promise<void>
}

export async function openSnapshot<F, M extends SnapshotManifest = SnapshotManifest>(config: Config, log: Logger, spec: SnapshotSpec<F, M>): Promise<SnapshotStore<F, M>> {
  const root = resolve(config.dataDir, spec.dataset)
  const link = join(root, CURRENT_LINK)
  if (!existsSync(link)) throw new Error(`arquivo de dados ausente em ${config.dataDir}; rode 'dadosbr ingest ${spec.dataset}' (ou --amostra, a amostra embutida)`)
  const follower = await followLink<Snapshot<F, M>>(link, {
    dataset: spec.dataset,
    open: async (target) => {
      const dir = resolve(root, target)
      const manifest = readManifest<M>(dir)
      if (manifest.formato !== spec.formato)
        throw new Error(`${dir} foi construída por outra versão do dadosbr (formato ${manifest.formato}, este servidor lê o ${spec.formato}); rode 'dadosbr ingest ${spec.dataset}' de novo`)
      const files = await spec.open(dir, manifest)
      log.info(`base ${spec.dataset} carregada`, { referencia: manifest.referencia, pasta: target })
      return { dir, manifest, files }
    },
    close: (snapshot) => spec.close(snapshot.files),
    onError: (err, serving) =>
      serving
        ? log.error(`nova base ${spec.dataset} não abriu; mantida a anterior`, { erro: err instanceof Error ? err.message : String(err) })
        : log.error(`base ${spec.dataset} indisponível`, { erro: err instanceof Error ? err.message : String(err) }),
    onDrop: (target, err) => log.error(`base ${spec.dataset} fora do ar: arquivo danificado`, { pasta: target, erro: err instanceof Error ? err.message : String(err) }),
  })
  return {
    use: (fn) => follower.use(fn),
    peek: () => follower.peek(),
    reload: () => follower.check(),
    unavailable: () => follower.unavailable(),
    async health(): Promise<DatasetHealth> {
      const s = follower.peek()
      return s ? { ok: true, referencia: s.manifest.referencia } : { ok: false, motivo: follower.unavailable() ?? 'nenhuma construção aberta' }
    },
    close: () => follower.close(),
  }
}
