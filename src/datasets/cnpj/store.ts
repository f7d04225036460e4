// The registry's open files: the card store (SQLite: cards and partners), the two name indexes
// (SQLite FTS5), the manifest, and the small code tables, read from the month's DuckDB file into memory.
// Follows data/cnpj/current, so a new month is picked up live.
import type { Database } from 'bun:sqlite'
import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { DatasetHealth, DatasetStore } from '../../core/dataset'
import type { Logger } from '../../core/log'
import type { Config } from '../../core/config'
import { openDuckDb } from '../../core/stores/duckdb'
import { openImmutable } from '../../core/stores/sqlite'
import { followLink, type Follower } from '../../core/stores/current-link'
import { availableMemory, prewarm, PREWARM_SHARE, type Prewarm } from '../../core/stores/prewarm'
import { buildHead, CARDS_FILE, CURRENT_LINK, DATASET_DIR, DUCKDB_FILE, FORMAT, PARTNER_SEARCH_FILE, SEARCH_FILE } from './layout'
import { CardStoreReader } from './cards'
import { municipiosIbge } from './card-json'
import { HistoryStore } from './historico-store'
import { HISTORY_DIR, historyFile } from './historico-layout'
import { SQL } from './queries'

export type Lookup = Map<string, string | null>

export interface CnpjFiles {
  /** The company name index. */
  search: Database
  /** The partner name index. */
  partnerSearch: Database
  /** The card store: cards and partners by CNPJ and root. */
  cards: CardStoreReader
  /** The months of history the build holds (historico-store.ts). */
  historico: HistoryStore
  /** The background read of the served files into the OS page cache (--prewarm), stopped on close. */
  prewarm?: { stop(): void }
  referencia: string
  lookups: { cnaes: Lookup; motivos: Lookup; municipios: Lookup; naturezas: Lookup; paises: Lookup; qualificacoes: Lookup }
  /** The month's municipalities by TOM code and by IBGE code (municipios.codigo_ibge, from the Receita's TOM ↔ IBGE table). */
  ibge: MunicipiosIbge
}

export interface MunicipiosIbge {
  /** TOM (4 digits) -> IBGE (7 digits). */
  porTom: Map<string, string>
  /** IBGE -> the TOM codes the table gives it (one, in every table seen). */
  tomsPorIbge: Map<string, string[]>
}

export interface CnpjStore extends DatasetStore {
  /** A synchronous fn releases the month at once (no promise in between: src/core/stores/current-link.ts). */
  use<R>(fn: (files: CnpjFiles) => R | Promise<R>): Promise<R>
  unavailable(): string | null
  /** Re-reads the current link now (tests; the server polls it every 2 s). */
  reload(): Promise<boolean>
}

export const LOOKUP_TABLES = ['cnaes', 'motivos', 'municipios', 'naturezas', 'paises', 'qualificacoes'] as const

/**
 * The month's small code tables (a few thousand rows) and the IBGE code of each municipality,
 * read once from its DuckDB file, one after the other on the reader's one connection: a failed read
 * (a damaged file) stops the rest before the reader closes.
 */
async function readLookups(path: string): Promise<Pick<CnpjFiles, 'lookups' | 'ibge'>> {
  const duck = await openDuckDb(path, 1)
  try {
    const lookups: Record<string, Lookup> = {}
    for (const table of LOOKUP_TABLES)
      lookups[table] = new Map((await duck.query(SQL.lookups(table))).map((r) => [String(r.codigo), (r.descricao as string | null) ?? null]))
    const ibge = municipiosIbge((await duck.query(SQL.municipiosIbge)).map((r) => [String(r.codigo), String(r.codigo_ibge)] as const))
    return { lookups: lookups as CnpjFiles['lookups'], ibge }
  } finally {
    await duck.close()
  }
}

async function openFiles(dir: string): Promise<CnpjFiles> {
  const manifest = buildHead(dir)
  if (manifest.formato !== FORMAT)
    throw new Error(`${dir} foi construída por outra versão do dadosbr (formato ${manifest.formato}, este servidor lê o ${FORMAT}); rode 'dadosbr ingest cnpj' de novo`)
  const { lookups, ibge } = await readLookups(join(dir, DUCKDB_FILE))
  const opened: { close(): void }[] = []
  const open = <T extends { close(): void }>(file: T) => (opened.push(file), file)
  try {
    return {
      search: open(openImmutable(join(dir, SEARCH_FILE))),
      partnerSearch: open(openImmutable(join(dir, PARTNER_SEARCH_FILE))),
      cards: open(new CardStoreReader(join(dir, CARDS_FILE))),
      historico: open(new HistoryStore(dir, manifest.referencia)),
      referencia: manifest.referencia,
      lookups,
      ibge,
    }
  } catch (err) {
    for (const file of opened) file.close()
    throw err
  }
}

/**
 * The bytes of the company name index before its filter bitmaps (filtro_meta, written by the
 * build): the bitmaps serve filter-only searches, read and kept by the server's own cache
 * (filter-bitmaps.ts), and reading them ahead would take that much page cache from the cards.
 * Undefined for an index without them (read whole, as before).
 */
function searchIndexPart(search: Database): number | undefined {
  const has = search.query("SELECT 1 FROM sqlite_master WHERE name = 'filtro_meta'").get()
  if (!has) return undefined
  return (search.query("SELECT valor FROM filtro_meta WHERE chave = 'inicio_bytes'").get() as { valor: number } | null)?.valor
}

/** At most this many bytes of the history's month files read by the prewarm (a national month is ~190 MB: five of them). */
const HISTORY_PREWARM_BYTES = 1e9

/**
 * Reads the served files into the OS page cache, most valuable first, while the running total fits
 * in PREWARM_SHARE of the memory available at the start (MemAvailable counts page cache as free,
 * so it is not re-read between files: a later file would evict an earlier, hotter one); the file
 * that crosses the budget is read in part. The company name index goes first: a search reads many
 * pages of its index (each word's list), a lookup one page of the card store (its interior pages
 * stay in SQLite's cache). Measured nationally with the card store read and the name index not:
 * rare-name search p95 158 ms; a lookup from disk, p50 1.0 ms. The card store comes next, before
 * the partner index: every lookup route (/empresa, the lote, the screening, `consultar`) reads it,
 * and nationally, read after the partner index, only 8.3 of its 13.5 GB got in (before it, 11.2-12.2
 * GB: every establishment card) and the lote's throughput followed the share cached
 * (docs/desempenho.md). The card store holds
 * the establishment cards at its front (ingest/cnpj/load.ts), so a partial read covers them before
 * the partners. The filter bitmaps at the end of the name index come last, with what memory is left.
 */
function startPrewarm(dir: string, referencia: string, search: Database, historico: HistoryStore, log: Logger): { stop(): void } {
  let current: Prewarm | undefined
  let stopped = false
  const gb = (bytes: number) => Math.round(bytes / 1e8) / 10
  // The history's months, newest first, up to HISTORY_PREWARM_BYTES, before the cards: every
  // history answer reads them (a national month is ~190 MB), and a cold one put /historico's p99 at
  // 26 ms where the warm route gives 6-12.
  const months: string[] = []
  let historyBytes = 0
  for (const m of [...historico.held].reverse()) {
    const path = join(dir, HISTORY_DIR, historyFile(m))
    const size = existsSync(path) ? statSync(path).size : 0
    if (historyBytes + size > HISTORY_PREWARM_BYTES) break
    historyBytes += size
    months.push(join(HISTORY_DIR, historyFile(m)))
  }
  void (async () => {
    let budget = PREWARM_SHARE * (await availableMemory())
    const bitmapsAt = searchIndexPart(search)
    for (const name of [SEARCH_FILE, ...months, CARDS_FILE, PARTNER_SEARCH_FILE, DUCKDB_FILE]) {
      if (stopped) return
      current = prewarm(join(dir, name), { budgetBytes: budget, upTo: name === SEARCH_FILE ? bitmapsAt : undefined })
      const r = await current.done
      if (r.status === 'parado') return
      if (r.status === 'pulado') {
        log.info(`${name}: sem memória para a pré-leitura (--prewarm)`, { referencia })
        return
      }
      budget -= r.bytes
      const how = r.status === 'lido' ? 'lido' : 'lido em parte'
      log.info(`${name} ${how} para o cache de páginas do sistema`, { referencia, gb: gb(r.bytes), segundos: Math.round(r.seconds) })
      if (r.status === 'parcial') return
    }
    // Everything else fits: the filter bitmaps too, last (a filter-only search's first read of a
    // word then comes from memory; nationally the cards take the budget before this).
    if (stopped || bitmapsAt === undefined) return
    current = prewarm(join(dir, SEARCH_FILE), { budgetBytes: budget, from: bitmapsAt })
    const r = await current.done
    if (r.status === 'lido' || r.status === 'parcial')
      log.info(`${SEARCH_FILE} (bitmaps de filtros) ${r.status === 'lido' ? 'lido' : 'lido em parte'} para o cache de páginas do sistema`, { referencia, gb: gb(r.bytes), segundos: Math.round(r.seconds) })
  })().catch((err) => log.warn('pré-leitura falhou', { referencia, erro: err instanceof Error ? err.message : String(err) }))
  return {
    stop() {
      stopped = true
      current?.stop()
    },
  }
}

export async function openCnpjStore(config: Config, log: Logger): Promise<CnpjStore> {
  const root = resolve(config.dataDir, DATASET_DIR)
  const link = join(root, CURRENT_LINK)
  if (!existsSync(link)) throw new Error(`arquivo de dados ausente em ${config.dataDir}; rode 'dadosbr ingest cnpj'`)
  const follower: Follower<CnpjFiles> = await followLink(link, {
    dataset: DATASET_DIR,
    open: async (target) => {
      const dir = resolve(root, target)
      const files = await openFiles(dir)
      log.info('cadastro CNPJ carregado', { referencia: files.referencia, pasta: target })
      if (config.prewarm) {
        files.prewarm = startPrewarm(dir, files.referencia, files.search, files.historico, log)
        // A serving process builds the months' root filters now, in the background, rather than on
        // its first history answer.
        void files.historico.rootFilters()
      }
      return files
    },
    close: (files) => {
      files.prewarm?.stop()
      files.search.close()
      files.partnerSearch.close()
      files.cards.close()
      files.historico.close()
    },
    onError: (err, serving) =>
      serving
        ? log.error('nova base CNPJ não abriu; mantida a anterior', { erro: err instanceof Error ? err.message : String(err) })
        : log.error('base CNPJ indisponível', { erro: err instanceof Error ? err.message : String(err) }),
    onDrop: (target, err) => log.error('base CNPJ fora do ar: arquivo danificado', { pasta: target, erro: err instanceof Error ? err.message : String(err) }),
  })
  return {
    use: (fn) => follower.use(fn),
    reload: () => follower.check(),
    unavailable: () => follower.unavailable(),
    async health(): Promise<DatasetHealth> {
      const files = follower.peek()
      if (!files) return { ok: false, motivo: follower.unavailable() ?? 'nenhuma construção aberta' }
      const fault = files.historico.fault
      return { ok: true, referencia: files.referencia, ...(fault ? { aviso: `histórico indisponível (${fault}); as fichas do mês em uso seguem disponíveis` } : {}) }
    },
    close: () => follower.close(),
  }
}
