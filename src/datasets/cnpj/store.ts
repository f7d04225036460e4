// The registry's open files: DuckDB (cards), SQLite FTS5 (names), the manifest, and the small
// lookup tables held in memory. Follows data/cnpj/current, so a new month is picked up live.
import { Database } from 'bun:sqlite'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { DatasetHealth, DatasetStore } from '../../core/dataset'
import type { Logger } from '../../core/log'
import type { Config } from '../../core/config'
import { Lru } from '../../core/lru'
import { openDuckDb, type DuckDbReader, type Row } from '../../core/stores/duckdb'
import { followLink, type Follower } from '../../core/stores/current-link'
import { prewarm, type Prewarm } from '../../core/stores/prewarm'
import { CURRENT_LINK, DATASET_DIR, DUCKDB_FILE, MANIFEST_FILE, SEARCH_FILE } from './layout'
import { SQL } from './queries'

export type Lookup = Map<string, string | null>

export interface CnpjFiles {
  duck: DuckDbReader
  /** Recent lookup results of this build (it goes with the build, so a new month starts empty). */
  cache: Lru<string, Row[]>
  search: Database
  /** The background read of the DuckDB file into the OS page cache (--prewarm), stopped on close. */
  prewarm?: Prewarm
  referencia: string
  lookups: { cnaes: Lookup; motivos: Lookup; municipios: Lookup; naturezas: Lookup; paises: Lookup; qualificacoes: Lookup }
}

export interface CnpjStore extends DatasetStore {
  use<R>(fn: (files: CnpjFiles) => Promise<R>): Promise<R>
  /** Re-reads the current link now (tests; the server polls it every 2 s). */
  reload(): Promise<boolean>
}

async function openFiles(dir: string, cacheSize: number): Promise<CnpjFiles> {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { referencia: string }
  const duck = await openDuckDb(join(dir, DUCKDB_FILE))
  try {
    const lookup = async (table: string): Promise<Lookup> =>
      new Map((await duck.query(SQL.lookups(table))).map((r) => [String(r.codigo), (r.descricao as string | null) ?? null]))
    const search = new Database(join(dir, SEARCH_FILE), { readonly: true })
    return {
      duck,
      cache: new Lru(cacheSize),
      search,
      referencia: manifest.referencia,
      lookups: {
        cnaes: await lookup('cnaes'), motivos: await lookup('motivos'), municipios: await lookup('municipios'),
        naturezas: await lookup('naturezas'), paises: await lookup('paises'), qualificacoes: await lookup('qualificacoes'),
      },
    }
  } catch (err) {
    duck.close()
    throw err
  }
}

function startPrewarm(path: string, referencia: string, log: Logger): Prewarm {
  const warm = prewarm(path)
  const gb = (bytes: number) => Math.round(bytes / 1e8) / 10
  warm.done.then(
    (r) => {
      if (r.status === 'lido') log.info('cnpj.duckdb lido para o cache de páginas do sistema', { referencia, gb: gb(r.bytes), segundos: Math.round(r.seconds) })
      else if (r.status === 'pulado') log.info('cnpj.duckdb maior que a memória disponível: sem pré-leitura (--prewarm)', { referencia })
    },
    (err) => log.warn('pré-leitura de cnpj.duckdb falhou', { referencia, erro: err instanceof Error ? err.message : String(err) }),
  )
  return warm
}

export async function openCnpjStore(config: Config, log: Logger): Promise<CnpjStore> {
  const root = resolve(config.dataDir, DATASET_DIR)
  const link = join(root, CURRENT_LINK)
  if (!existsSync(link)) throw new Error(`${link} não existe; rode 'dadosbr ingest cnpj'`)
  const follower: Follower<CnpjFiles> = await followLink(
    link,
    async (target) => {
      const dir = resolve(root, target)
      const files = await openFiles(dir, config.cache)
      log.info('cadastro CNPJ carregado', { referencia: files.referencia, pasta: target })
      if (config.prewarm) files.prewarm = startPrewarm(join(dir, DUCKDB_FILE), files.referencia, log)
      return files
    },
    (files) => {
      files.prewarm?.stop()
      files.duck.close()
      files.search.close()
    },
    (err) => log.error('nova base CNPJ não abriu; mantida a anterior', { erro: err instanceof Error ? err.message : String(err) }),
  )
  if (!follower.peek()) throw new Error(`${link} não aponta para uma base válida`)
  return {
    use: (fn) => follower.use(fn),
    reload: () => follower.check(),
    async health(): Promise<DatasetHealth> {
      const files = follower.peek()
      return files ? { ok: true, referencia: files.referencia } : { ok: false, motivo: 'nenhuma base aberta' }
    },
    close: () => follower.close(),
  }
}
