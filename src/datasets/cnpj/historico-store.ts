// Reads a build's history (historico-layout.ts): one immutable SQLite file per month held, opened
// with the build. Finds a root's changes (its feed positions in `raiz`) and a filter's range of the
// feed by binary search over each ordering's first keys (read once per month, on first use) and
// one block; blocks are zstd, decoded through a small shared cache.
//
// A damaged history never takes the registry with it: a month file that fails its header check or
// its open, a chain of months with a hole (a month file lost), or a read that fails while serving
// (a corrupt page, a missing block, a block that does not decode) answers 503 on the history's
// answers only (HistoryDamagedError), while the cards, searches and lots of the month in use go on.
import type { Database, Statement } from 'bun:sqlite'
import { existsSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { ApiError } from '../../core/errors'
import { checkSqliteFile } from '../../core/stores/file-check'
import { openImmutable } from '../../core/stores/sqlite'
import {
  CNAE_BLOCK, decodeCnaeBlock, decodeFeedBlock, decodeFloats, decodeJson, decodeRootBlock, FEED_BLOCK, feedLine, ROOT_BLOCK, HISTORY_DIR, HISTORY_FILE, HISTORY_FORMAT, historyFile,
  INDEX_CNAE, INDEX_FEED, itemOf, ROTULO_IBGE, ROTULOS_ANTERIOR, ROTULOS_MES, type CnaeBlock, type FeedBlock, type HistoryMeta, type Item, type RootBlock, type RotulosJson,
} from './historico-layout'
import { municipiosIbge, type CardView } from './card-json'
import type { Lookup } from './store'
import { lowerBound } from '../../core/sorted'

/**
 * Decoded blocks kept per process (a feed block is ~5 KB decoded): the blocks of popular ranges stay
 * hot. Two generations instead of a strict LRU: a hit costs a lookup (moving each hit to the end of
 * one Map was 8 % of a feed page's CPU); when the young generation is full it becomes the old one,
 * and a block read again from the old one moves back to the young.
 */
const CACHE_BLOCKS = 2048
export class BlockCache {
  private young = new Map<number, FeedBlock | CnaeBlock | RootBlock>()
  private old = new Map<number, FeedBlock | CnaeBlock | RootBlock>()
  /** Keys: (month id, kind, block) packed in a number (a string key built per lookup cost as much as the lookup). */
  get<T extends FeedBlock | CnaeBlock | RootBlock>(key: number, load: () => T): T {
    let value = this.young.get(key) as T | undefined
    if (value) return value
    value = (this.old.get(key) as T | undefined) ?? load()
    if (this.young.size >= CACHE_BLOCKS / 2) {
      this.old = this.young
      this.young = new Map()
    }
    this.young.set(key, value)
    return value
  }
  clear() {
    this.young.clear()
    this.old.clear()
  }
}

/** murmur3's finalizer: a 32-bit value's bits spread over all 32. */
function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/**
 * The roots that changed in a month, as a Bloom filter (10 bits a root, 4 probes: ~1 % false
 * positives). A root it does not hold has no items that month, known without reading and
 * decoding a root block (SQLite + zstd, ~10-20 µs): a CNPJ's history reads one root block per
 * month held, so with a year held, eleven for a CNPJ that changed in none of them.
 */
export class RootFilter {
  private readonly bits: Uint32Array
  private readonly mask: number
  constructor(capacity: number) {
    let n = 1024
    while (n < capacity * 10) n *= 2
    this.bits = new Uint32Array(n / 32)
    this.mask = n - 1
  }
  /** The 4 probes of a root key (an integer below 2^53): double hashing of its two 32-bit halves. */
  private probe(key: number, fn: (bit: number) => boolean): boolean {
    const lo = key % 4294967296
    const hi = (key - lo) / 4294967296
    const h1 = mix(lo ^ mix(hi))
    const h2 = mix(hi ^ 0x9e3779b9 ^ h1) | 1
    for (let i = 0; i < 4; i++) if (!fn((h1 + Math.imul(i, h2)) & this.mask)) return false
    return true
  }
  add(key: number) {
    this.probe(key, (b) => ((this.bits[b >>> 5]! |= 1 << (b & 31)), true))
  }
  /** False: the root surely has no items; true: it may. */
  has(key: number): boolean {
    return this.probe(key, (b) => (this.bits[b >>> 5]! & (1 << (b & 31))) !== 0)
  }
  get bytes() {
    return this.bits.byteLength
  }
}

/**
 * Decoded root blocks a serving process keeps (~41 MB a national month: about two months). A
 * changed root's answer then reads no root block; the others go through the block cache.
 */
const KEPT_ROOT_BYTES = 96 * 1024 * 1024

/** Root blocks read per turn of the event loop while a month's filter is built (~3 ms). */
const FILTER_SLICE = 200

/** Why the history cannot answer, and what the operator can do about it. */
export interface HistoryDamage {
  /** dano: a file cut, corrupt, lost or out of its chain; formato: written by another version of the history's layout. */
  kind: 'dano' | 'formato'
  reason: string
  /** What to do, in Portuguese: depends on where the damage is (history-fix). */
  fix: string
}

/** The history cannot answer: 503 on the route that needed it, the rest of the registry unaffected. */
export class HistoryDamagedError extends ApiError {
  constructor(damage: HistoryDamage) {
    super('dados_indisponiveis', `O histórico do cadastro ${damage.kind === 'formato' ? 'foi gravado por outra versão' : 'está danificado'} neste servidor (${damage.reason}); as fichas do mês em uso seguem disponíveis. ${damage.fix}`)
  }
}

const NEW_HISTORY = 'comece um histórico novo numa pasta de dados nova'

/**
 * What an operator can do with a damaged month (held: the months, oldest first): restore it; or,
 * for a month before the newest, drop it with the ones before it (the months kept start after it);
 * or start a new history.
 */
export function historyFix(held: string[], month: string | null): string {
  const at = month === null ? -1 : held.indexOf(month)
  const next = at >= 0 ? held[at + 1] : undefined
  return next
    ? `Restaure o arquivo de um backup, descarte ${month} e os meses antes dele ('dadosbr historico cnpj --descartar-antes ${next}') ou ${NEW_HISTORY}.`
    : `Restaure o arquivo de um backup ou ${NEW_HISTORY}.`
}

/** A month file written in another layout of the history than this version reads (not damage: another version). */
export class HistoryFormatError extends Error {}

/** Code tables shared by months whose tables are the same (they rarely change). */
const lookupsByText = new Map<string, Pick<CardView, 'lookups' | 'ibge'>>()
function lookupsOf(r: RotulosJson): Pick<CardView, 'lookups' | 'ibge'> {
  const text = JSON.stringify(r)
  let l = lookupsByText.get(text)
  if (!l) {
    const { [ROTULO_IBGE]: ibge, ...tables } = r
    l = {
      lookups: Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, new Map(rows) as Lookup])) as CardView['lookups'],
      ibge: municipiosIbge(ibge ?? []),
    }
    lookupsByText.set(text, l)
  }
  return l
}

export function parseMeta(rows: { chave: string; valor: string }[]): HistoryMeta {
  const m = Object.fromEntries(rows.map((r) => [r.chave, r.valor]))
  return {
    formato: Number(m.formato),
    referencia: m.referencia!,
    referencia_anterior: !m.referencia_anterior || m.referencia_anterior === 'null' ? null : m.referencia_anterior,
    lacuna: m.lacuna === 'true',
    itens: Number(m.itens ?? 0),
    por_tipo: JSON.parse(m.por_tipo ?? '{}') as Record<string, number>,
  }
}

/** One month file. */
export class HistoryMonth {
  readonly meta: HistoryMeta
  private readonly db: Database
  private readonly feedStmt: Statement
  private readonly cnaeStmt: Statement
  private readonly rootBlockStmt: Statement
  /** The first root key of each root block, in order (a few hundred kB for a national month): found by binary search, not a query. */
  private rootFirsts?: Float64Array
  private feedIndex?: Float64Array
  private cnaeIndex?: Float64Array
  private municipioUfs?: Record<string, string[]>
  private views: (CardView | null)[] = []
  /** The month's changed roots, once built (buildRootFilter); until then every root's block is read. */
  private filter: RootFilter | null = null
  private filterBuild?: Promise<boolean>
  /** The root blocks decoded while the filter was built, kept while the store's budget allows (KEPT_ROOT_BYTES), and their bytes. */
  private rootBlocks?: Map<number, RootBlock>
  private keptBytes = 0
  private closed = false

  /** This month's blocks in its store's cache: its place * 2^44 + kind * 2^42 + block (a root block's key, below 36^8 < 2^42). */
  private readonly cacheBase: number

  constructor(
    private readonly path: string,
    private readonly cache: BlockCache,
    place: number,
    /** Told of a read that failed: the store keeps it for the health and says what to do. */
    private readonly onDamage: (month: string, reason: string) => HistoryDamage,
    /** Build the month's RootFilter on its first root asked (a server's months; not a one-off reader's). */
    private readonly filterOnUse = false,
    /** Bytes of decoded root blocks the store may still keep, shared by its months. */
    private readonly keep: { bytes: number } = { bytes: 0 },
  ) {
    this.cacheBase = place * 2 ** 44
    checkSqliteFile(path)
    this.db = openImmutable(path)
    try {
      this.meta = parseMeta(this.db.query('SELECT chave, valor FROM meta').all() as { chave: string; valor: string }[])
      if (this.meta.formato !== HISTORY_FORMAT) throw new HistoryFormatError(`gravado no formato ${this.meta.formato} do histórico, e esta versão do dadosbr lê o ${HISTORY_FORMAT}`)
      if (!/^\d{4}-\d{2}$/.test(this.meta.referencia ?? '')) throw new Error('sem o mês na tabela meta')
      this.feedStmt = this.db.prepare('SELECT dados FROM fluxo WHERE chave = ?')
      this.cnaeStmt = this.db.prepare('SELECT dados FROM fluxo_cnae WHERE chave = ?')
      this.rootBlockStmt = this.db.prepare('SELECT dados FROM raiz WHERE chave = ?')
    } catch (err) {
      this.db.close()
      throw err
    }
  }

  /**
   * A read of this file: any failure (SQLite's corrupt page or I/O error, a block row missing, a
   * block that does not decode) is the file's damage, answered 503 by the history's routes only.
   */
  private read<T>(what: string, fn: () => T): T {
    try {
      return fn()
    } catch (err) {
      if (err instanceof ApiError) throw err
      throw new HistoryDamagedError(this.onDamage(this.meta.referencia, `${basename(this.path)}: ${what}: ${err instanceof Error ? err.message : String(err)}`))
    }
  }

  /** A row's blob, or a damage error when the row is missing. */
  private blob(stmt: Statement, key: number | string, what: string): Uint8Array {
    const row = stmt.get(key) as { dados: Uint8Array } | null
    if (!row) throw new Error(`${what} ${key} ausente`)
    return row.dados
  }

  get referencia() {
    return this.meta.referencia
  }

  /** How a card of this month (ROTULOS_MES) or of the month it was compared with (ROTULOS_ANTERIOR) is rendered. */
  view(which: typeof ROTULOS_MES | typeof ROTULOS_ANTERIOR): CardView {
    let v = this.views[which]
    if (v === undefined) {
      v = this.read('tabelas de códigos', () => {
        const row = this.db.query('SELECT dados FROM rotulos WHERE chave = ?').get(which) as { dados: Uint8Array } | null
        const referencia = which === ROTULOS_MES ? this.meta.referencia : this.meta.referencia_anterior
        return row && referencia ? { ...lookupsOf(decodeJson<RotulosJson>(row.dados)), referencia } : null
      })
      this.views[which] = v
    }
    if (!v) throw new HistoryDamagedError(this.onDamage(this.meta.referencia, `${basename(this.path)}: sem as tabelas de códigos ${which === ROTULOS_MES ? 'do mês' : 'do mês anterior'}`))
    return v
  }

  private feedBlock(n: number): FeedBlock {
    return this.cache.get(this.cacheBase + n, () => this.read('bloco do fluxo', () => decodeFeedBlock(this.blob(this.feedStmt, n, 'bloco'))))
  }

  private cnaeBlock(n: number): CnaeBlock {
    return this.cache.get(this.cacheBase + 2 ** 42 + n, () => this.read('bloco do fluxo por CNAE', () => decodeCnaeBlock(this.blob(this.cnaeStmt, n, 'bloco'))))
  }

  private index(which: typeof INDEX_FEED | typeof INDEX_CNAE): Float64Array {
    const read = () => this.read('índice', () => decodeFloats(this.blob(this.db.query('SELECT dados FROM indice WHERE chave = ?'), which, 'índice')))
    return which === INDEX_FEED ? (this.feedIndex ??= read()) : (this.cnaeIndex ??= read())
  }

  /**
   * The UFs a município code has among this month's changes (a filter by município alone): one in a
   * clean dump (the Receita's codes are national), more where rows disagree.
   */
  ufsOfMunicipio(code: string): string[] {
    this.municipioUfs ??= this.read('municípios', () => decodeJson<Record<string, string[]>>(this.blob(this.db.query('SELECT dados FROM extra WHERE chave = ?'), 'municipios', 'extra')))
    return this.municipioUfs[code] ?? []
  }

  /** The item at a feed position. */
  item(position: number): Item {
    const block = this.feedBlock(Math.floor(position / FEED_BLOCK))
    const slot = position % FEED_BLOCK
    // Parsed once per decoded block: a hot page's items are read again and again.
    block.items ??= new Array(block.keys.length)
    return (block.items[slot] ??= this.read('item do fluxo', () => itemOf(feedLine(block, slot), block.keys[slot]!)))
  }

  /** The feed position of a CNAE-ordering position. */
  feedPosition(cnaePosition: number): number {
    return this.cnaeBlock(Math.floor(cnaePosition / CNAE_BLOCK)).positions[cnaePosition % CNAE_BLOCK]!
  }

  /**
   * The first position of an ordering whose key is >= key: the last block whose first key is
   * below it (binary search over the index), then that block's own keys.
   */
  lowerBound(ordering: 'feed' | 'cnae', key: number): number {
    const firsts = this.index(ordering === 'feed' ? INDEX_FEED : INDEX_CNAE)
    const size = ordering === 'feed' ? FEED_BLOCK : CNAE_BLOCK
    const lo = lowerBound(firsts, key)
    // Blocks before `lo` start below the key; block lo - 1 may end with keys at or above it.
    if (lo === 0) return 0
    const b = lo - 1
    const keys = ordering === 'feed' ? this.feedBlock(b).keys : this.cnaeBlock(b).keys
    let s = 0
    while (s < keys.length && keys[s]! < key) s++
    return b * size + s
  }

  /** The first root key of each root block, in order. */
  private firsts(): Float64Array {
    return (this.rootFirsts ??= this.read('raízes', () => Float64Array.from((this.db.query('SELECT chave FROM raiz ORDER BY chave').values() as [number][]).map(([k]) => Number(k)))))
  }

  private rootBlock(chave: number): RootBlock {
    const kept = this.rootBlocks?.get(chave)
    if (kept) return kept
    return this.cache.get(this.cacheBase + 2 * 2 ** 42 + chave, () => this.read('bloco de raízes', () => decodeRootBlock(this.blob(this.rootBlockStmt, chave, 'bloco'))))
  }

  /** Every item of a root in this month, in feed order: its root block (the last whose first root is at most it), then its items' blocks. */
  itemsOfRoot(rootKey: number): Item[] {
    if (this.filter) {
      if (!this.filter.has(rootKey)) return []
    } else if (this.filterOnUse && this.meta.referencia_anterior !== null) void this.rootFilter()
    const firsts = this.firsts()
    // The last block whose first root is at most rootKey (root keys are integers).
    const a = lowerBound(firsts, rootKey + 1)
    if (a === 0) return []
    const block = this.rootBlock(firsts[a - 1]!)
    const i = lowerBound(block.roots, rootKey)
    return block.roots[i] === rootKey ? [...block.positions.subarray(block.starts[i]!, block.starts[i + 1]!)].map((p) => this.item(p)) : []
  }

  /**
   * The month's RootFilter, built once: started by the month's first root asked (a serving process
   * starts all at open), so a process that never reads the history (consultar's helpers, the
   * Parquet export) builds none.
   */
  rootFilter(): Promise<boolean> {
    return (this.filterBuild ??= this.buildRootFilter())
  }

  /**
   * Builds the month's RootFilter from its root blocks, `slice` blocks a turn, yielding to the
   * requests between (a national month: ~17 k blocks, ~0.3 s of CPU). Resolves true once it is in
   * use; false when the month closed first, or a block did not read (the filter is then left out:
   * a request that reaches that block meets the damage and answers 503 as before).
   */
  async buildRootFilter(slice = FILTER_SLICE): Promise<boolean> {
    // Never inside the store's constructor: the month opens, and its filter follows.
    await new Promise((r) => setImmediate(r))
    let firsts: Float64Array
    try {
      if (this.closed) return false
      firsts = this.firsts()
    } catch {
      return false
    }
    const filter = new RootFilter(firsts.length * ROOT_BLOCK)
    const kept = new Map<number, RootBlock>()
    let keptBytes = 0
    // The bytes taken from the store's budget go back when the filter is given up.
    const giveUp = () => {
      this.keep.bytes += keptBytes
      return false
    }
    for (let k = 0; k < firsts.length; k += slice) {
      if (k) await new Promise((r) => setImmediate(r))
      if (this.closed) return giveUp()
      try {
        for (let j = k; j < Math.min(k + slice, firsts.length); j++) {
          // Read straight, not through the block cache: a whole month's blocks would push out the hot ones.
          const block = decodeRootBlock(this.blob(this.rootBlockStmt, firsts[j]!, 'bloco'))
          for (const root of block.roots) filter.add(root)
          // Kept decoded while the budget lasts: a changed root's answer then skips its block's SQLite read and zstd.
          const size = block.roots.buffer.byteLength
          if (this.keep.bytes >= size) {
            kept.set(firsts[j]!, block)
            keptBytes += size
            this.keep.bytes -= size
          }
        }
      } catch {
        return giveUp()
      }
    }
    if (this.closed) return giveUp()
    this.rootBlocks = kept
    this.keptBytes = keptBytes
    this.filter = filter
    return true
  }

  close() {
    this.closed = true
    this.keep.bytes += this.keptBytes
    this.keptBytes = 0
    this.rootBlocks = undefined
    for (const s of [this.feedStmt, this.cnaeStmt, this.rootBlockStmt]) s.finalize()
    this.db.close()
  }
}

/** A build's history: its months, oldest first. */
export class HistoryStore {
  private readonly cache = new BlockCache()
  /** Decoded root blocks its months may keep (KEPT_ROOT_BYTES), newest month first when built by rootFilters(). */
  private readonly keep = { bytes: KEPT_ROOT_BYTES }
  readonly months: HistoryMonth[] = []
  /** Why the history cannot answer (a month file that did not open, a hole in the chain, another layout), or null. */
  readonly damage: HistoryDamage | null = null
  /** The last read that failed while serving (a damaged page or block), for the health. */
  private readFault: string | null = null

  /** `referencia`: the month of the build's registry, which the newest month held must be (null: not checked). */
  constructor(buildDir: string, referencia: string | null = null) {
    const dir = join(buildDir, HISTORY_DIR)
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => HISTORY_FILE.test(f)).sort() : []
    const held = files.map((f) => HISTORY_FILE.exec(f)![1]!)
    const onDamage = (month: string, reason: string): HistoryDamage => {
      this.readFault = reason
      return { kind: 'dano', reason, fix: historyFix(held, month) }
    }
    for (const f of files) {
      try {
        this.months.push(new HistoryMonth(join(dir, f), this.cache, this.months.length, onDamage, true, this.keep))
      } catch (err) {
        const reason = `${f}: ${err instanceof Error ? err.message.replace(`${join(dir, f)}: `, '') : String(err)}`
        this.damage ??=
          err instanceof HistoryFormatError
            ? { kind: 'formato', reason, fix: `Use a versão do dadosbr que gravou o histórico, ou ${NEW_HISTORY}.` }
            : { kind: 'dano', reason, fix: historyFix(held, HISTORY_FILE.exec(f)![1]!) }
      }
    }
    // Each month after the first was compared with the one held before it: a month that was not
    // (a file copied from another history) would make a past card skip that month's changes.
    for (let k = 1; k < this.months.length && !this.damage; k++) {
      const m = this.months[k]!
      if (m.meta.referencia_anterior !== this.months[k - 1]!.referencia)
        this.damage = {
          kind: 'dano',
          reason: `${historyFile(m.referencia)} foi comparado com ${m.meta.referencia_anterior ?? 'nenhum mês'}, mas o mês guardado antes dele é ${this.months[k - 1]!.referencia}`,
          fix: historyFix(held, this.months[k - 1]!.referencia),
        }
    }
    // The newest month held is the registry's own: without it (its file lost), a past card would skip that month's changes.
    const newest = this.months.at(-1)
    if (!this.damage && referencia !== null && newest && newest.referencia !== referencia)
      this.damage = { kind: 'dano', reason: `o histórico termina em ${newest.referencia}, mas a base é de ${referencia} (o arquivo ${historyFile(referencia)} sumiu)`, fix: historyFix([], null) }
  }

  /** Builds every compared month's RootFilter now (each is otherwise started by its first root asked); resolves with how many were built. */
  async rootFilters(): Promise<number> {
    // The first month held was compared with nothing: it has no items, and no filter to build.
    // Newest first, one after another: the newest months are read by every history answer, so they get the kept blocks.
    let built = 0
    for (const m of [...this.months].reverse()) if (m.meta.referencia_anterior !== null && (await m.rootFilter())) built++
    return built
  }

  /** What the health reports: the history's damage found at open, or the last read that failed. */
  get fault(): string | null {
    return this.damage?.reason ?? this.readFault
  }

  /** Throws the history's 503 when it cannot answer. */
  sound(): this {
    if (this.damage) throw new HistoryDamagedError(this.damage)
    return this
  }

  /** Months held, oldest first. */
  get held(): string[] {
    return this.months.map((m) => m.referencia)
  }

  month(referencia: string): HistoryMonth | undefined {
    return this.months.find((m) => m.referencia === referencia)
  }

  close() {
    for (const m of this.months) m.close()
    this.months.length = 0
    this.cache.clear()
  }
}
