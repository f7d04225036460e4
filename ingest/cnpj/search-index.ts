// The registry's text index: SQLite FTS5 beside the DuckDB file (DuckDB's fts extension does
// not install offline). Contentless, detail=none; the text indexed is each name's words as
// searchWords (src/datasets/cnpj/search-text.ts) gives them, the same function the server runs
// over a typed name; rowids carry the situação/UF partition and a static rank (see
// src/datasets/cnpj/layout.ts).
import type { DuckDBConnection } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import { BRANCH_UNIT, capitalBucket, capitalBucketFloor, FIRST_OPENING_YEAR, simplesState, documentKey, PARTNER_RANK_SQL, CNAE_SLOTS, DOC_KEY_UNIT, filterToken, FREQUENT_MIN_SHARE, openingYearSlot, FREQUENT_SAMPLE_ROWS, LENGTH_UNIT, MAX_FREQUENT, pairToken, PARTITIONS, PREFIX_LENGTHS, RANK_BITS, PASS_UNIT, SITUACOES, TERM_MIN_LENGTH, UFS, UNKNOWN_SITUACAO_SLOT, UNKNOWN_UF_SLOT } from '../../src/datasets/cnpj/layout'
import { searchWords } from '../../src/datasets/cnpj/search-text'
import { progress } from '../lib/progress'
import { onePerCnpj, onePerRoot } from './one-row'
import { partitionRelation, type PartitionedTable } from './partitions'
import { releaseResults } from '../lib/release-results'
import { FilterBitmapBuilder } from './filter-bitmaps'
import { filterTokenId, filterTokenOf, SPANS_OF } from '../../src/datasets/cnpj/filter-bitmaps'

const list = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`
/**
 * The text is already split into words by searchWords (letters and digits, separated by spaces),
 * so the tokenizer only has to split on spaces: `ascii` (non-ASCII bytes are word characters),
 * 7 % faster than unicode61 (NOTES §1). The prefix index serves typed words of 2 to 4 characters;
 * `termo`, the vocabulary of longer words, serves the longer ones (PREFIX_LENGTHS in layout.ts).
 */
const FTS_OPTIONS = `content='', detail=none, columnsize=0, tokenize='ascii', prefix='${PREFIX_LENGTHS.join(' ')}'`

/** The two indexes live in two files, each written by a process of its own (see load.ts). */
const SCHEMA = {
  empresas: `
    CREATE VIRTUAL TABLE empresa_fts USING fts5(nome, ${FTS_OPTIONS});
    CREATE TABLE empresa_doc (id INTEGER PRIMARY KEY, cnpj TEXT NOT NULL, abertura INTEGER, capital REAL);
    CREATE TABLE termo (t TEXT PRIMARY KEY) WITHOUT ROWID;
    CREATE TABLE frequente (t TEXT PRIMARY KEY, codigo INTEGER NOT NULL, linhas INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE filtro_cnae (cnae TEXT PRIMARY KEY, slot INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE filtro_linhas (token TEXT PRIMARY KEY, linhas INTEGER NOT NULL) WITHOUT ROWID;`,
  socios: `
    CREATE VIRTUAL TABLE socio_fts USING fts5(nome, ${FTS_OPTIONS});
    CREATE TABLE socio_doc (id INTEGER PRIMARY KEY, cnpj_basico TEXT NOT NULL, nome TEXT, qualificacao TEXT, data_entrada TEXT, documento INTEGER);
    CREATE TABLE termo (t TEXT PRIMARY KEY) WITHOUT ROWID;
    CREATE TABLE frequente (t TEXT PRIMARY KEY, codigo INTEGER NOT NULL, linhas INTEGER NOT NULL) WITHOUT ROWID;`,
}

/**
 * The indexed words of some names, joined by spaces, then one pair token for each unordered pair of
 * distinct frequent words among them (`frequent`: word -> code; pairToken in layout.ts), then the
 * `extra` tokens; the words of TERM_MIN_LENGTH characters or more also go into `vocabulary`
 * (written to `termo` at the end).
 */
function indexedText(names: string[], vocabulary: Set<string>, frequent: Map<string, number>, extra: (string | null)[] = []): string {
  const words: string[] = []
  let codes: number[] | undefined
  for (const name of names)
    if (name)
      for (const w of searchWords(name)) {
        words.push(w)
        if (w.length >= TERM_MIN_LENGTH) vocabulary.add(w)
        const code = frequent.get(w)
        if (code !== undefined) (codes ??= []).push(code)
      }
  if (codes && codes.length > 1) {
    const distinct = [...new Set(codes)].sort((a, b) => a - b)
    for (let i = 0; i < distinct.length; i++) for (let j = i + 1; j < distinct.length; j++) words.push(pairToken(distinct[i]!, distinct[j]!))
  }
  for (const token of extra) if (token) words.push(token)
  return words.join(' ')
}

/**
 * The frequent words of an index (layout.ts, pairToken) and their rows in the sample, most frequent first: counted over the
 * first passes' rows until FREQUENT_SAMPLE_ROWS (a pass is one root partition, a uniform cut of
 * the registry), each word once per row. A word needs FREQUENT_MIN_SHARE of the sample's rows and
 * at least 2 of them; ties in word order, so the same dump gives the same codes.
 */
async function chooseFrequent(rows: (pass: number) => AsyncIterable<string[][]> | null, names: (row: string[]) => string[]): Promise<[string, number][]> {
  const rowsWith = new Map<string, number>()
  let sampled = 0
  for (let pass = 0; pass < PARTITIONS && sampled < FREQUENT_SAMPLE_ROWS; pass++) {
    const partition = rows(pass)
    if (!partition) continue
    for await (const batch of partition)
      for (const row of batch) {
        sampled++
        const seen = new Set<string>()
        for (const name of names(row)) if (name) for (const w of searchWords(name)) seen.add(w)
        for (const w of seen) rowsWith.set(w, (rowsWith.get(w) ?? 0) + 1)
      }
    releaseResults()
  }
  const least = Math.max(2, Math.ceil(sampled * FREQUENT_MIN_SHARE))
  return [...rowsWith]
    .filter(([, n]) => n >= least)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_FREQUENT)
}
export type IndexKind = keyof typeof SCHEMA

/**
 * A new index file, written once: the journal in memory, no fsync (journal_mode OFF is refused by
 * bun's SQLite). Incremental auto-vacuum so the pages the final merge frees can be given back (see
 * writeIndex).
 */
function createIndexFile(path: string, kind: IndexKind): Database {
  const db = new Database(path, { create: true })
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA page_size = 8192; PRAGMA cache_size = -262144; PRAGMA auto_vacuum = INCREMENTAL;')
  db.exec(SCHEMA[kind])
  return db
}

/**
 * Rows per string crossing from DuckDB to JavaScript (see rowsOf). Small enough that a DuckDB
 * chunk of such strings (2048 of them) stays small: with 2048-row batches, a national build peaked
 * at 11 GB across its processes.
 */
const BATCH = 256

/**
 * Streams the query's rows in `orderBy` order, as arrays of text fields ('' for null), a batch at
 * a time. DuckDB packs BATCH rows into one string (fields joined by 0x1F, rows by 0x1E; no indexed
 * value holds either, see ingest/lib/fifo.ts): a string crossing into JavaScript costs ~1 µs, so
 * one per batch instead of one JSON row took the company index from 8.2 to 5.9 s and the
 * partner index from 3.3 to 2.3 s at 1.1 M establishments.
 */
async function* rowsOf(conn: DuckDBConnection, query: string, columns: string[], orderBy: string): AsyncIterable<string[][]> {
  const line = `concat(${columns.map((c) => `${c}::VARCHAR`).join(', chr(31), ')})`
  const result = await conn.stream(`
    SELECT string_agg(${line}, chr(30) ORDER BY ${orderBy}) AS lote
    FROM (SELECT *, (row_number() OVER (ORDER BY ${orderBy}) - 1) // ${BATCH} AS n_lote FROM (${query}))
    GROUP BY n_lote ORDER BY n_lote`)
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) return
    const vector = chunk.getColumnVector(0)
    for (let i = 0; i < chunk.rowCount; i++) yield (vector.getItem(i) as string).split('\x1e').map((row) => row.split('\x1f'))
  }
}

/** The relations of one index pass (one root partition); null when it has no rows of the driving table. */
export type PassRelations<K extends string> = (pass: number) => Record<K, string> | null

/**
 * Writes one text index in one pass per root partition (see DOC_KEY_UNIT in layout.ts). `rows(pass)`
 * yields [rank, ...] in rank order and `text(row)` is what the row indexes; a row's rowid is its
 * rank plus its doc key, and its doc row is keyed by the doc key, so each doc table is written in
 * key order. A row indexes the words of `names(row)`, the pair tokens of its frequent words (chosen
 * first, from a sample: chooseFrequent) and `filters(row)`; its words go to `termo` at the end. FTS5
 * flushes its pending terms whenever a rowid goes back, once per pass; a 64 MB hash (1 MB by
 * default) makes fewer, larger segments. They are not merged on the way (automerge 0, and no
 * crisis merge below 200 segments of a level): the final merge rewrites each posting once, where
 * merging by fours rewrote it at every level; the pages it frees are then given back. Company
 * index, measured at 1.1 M establishments (three alternating runs): 6.9-7.9 → 5.9-6.5 CPU-s, file
 * 75 → 69 MB; nationally (28 GB of CSV) 380 → 353 CPU-s.
 */
async function writeIndex(db: Database, kind: IndexKind, total: number, rows: (pass: number) => AsyncIterable<string[][]> | null, names: (row: string[]) => string[], filters: (row: string[]) => (string | null)[], doc: (row: string[]) => (string | number | bigint | null)[], options: { quiet?: boolean; onPass?: (pass: number) => void }): Promise<number> {
  // The frequent words first (a sample of the passes), so that every row gets its pair tokens.
  const frequentWords = await chooseFrequent(rows, names)
  const frequent = new Map(frequentWords.map(([w], code) => [w, code]))
  db.exec('BEGIN')
  // Word, pair code, rows of the sample holding it (the server pairs the rarer words first).
  const insertFrequent = db.prepare('INSERT INTO frequente VALUES (?, ?, ?)')
  frequentWords.forEach(([w, rowsWith], code) => insertFrequent.run(w, code, rowsWith))
  db.exec('COMMIT')
  const vocabulary = new Set<string>()
  const text = (row: string[]) => indexedText(names(row), vocabulary, frequent, filters(row))
  const bar = progress(kind === 'empresas' ? 'índice de nomes' : 'índice de sócios', total, { unit: 'rows', quiet: options.quiet })
  const fts = kind === 'empresas' ? 'empresa_fts' : 'socio_fts'
  db.exec(`INSERT INTO ${fts}(${fts}, rank) VALUES('hashsize', ${64 * 1024 * 1024})`)
  db.exec(`INSERT INTO ${fts}(${fts}, rank) VALUES('automerge', 0)`)
  db.exec(`INSERT INTO ${fts}(${fts}, rank) VALUES('crisismerge', 200)`)
  const insertFts = db.prepare(`INSERT INTO ${fts} (rowid, nome) VALUES (?, ?)`)
  const insertDoc = db.prepare(kind === 'empresas' ? 'INSERT INTO empresa_doc VALUES (?, ?, ?, ?)' : 'INSERT INTO socio_doc VALUES (?, ?, ?, ?, ?, ?)')
  let done = 0
  for (let pass = 0; pass < PARTITIONS; pass++) {
    const partition = rows(pass)
    if (!partition) continue
    db.exec('BEGIN')
    options.onPass?.(pass)
    let key = pass * PASS_UNIT
    let n = 0
    for await (const batch of partition) {
      for (const row of batch) {
        insertFts.run(Number(row[0]) + key, text(row))
        insertDoc.run(key++, ...doc(row))
      }
      n += batch.length
      bar.add(batch.length)
    }
    db.exec('COMMIT')
    done += n
    releaseResults()
  }
  bar.done()
  db.exec('BEGIN')
  const insertTerm = db.prepare('INSERT INTO termo VALUES (?)')
  for (const term of [...vocabulary].sort()) insertTerm.run(term)
  db.exec('COMMIT')
  vocabulary.clear()
  db.exec(`INSERT INTO ${fts}(${fts}) VALUES('optimize')`)
  db.exec('PRAGMA incremental_vacuum')
  return done
}

const count = async (conn: DuckDBConnection, relation: string) => Number((await conn.runAndReadAll(`SELECT count(*) FROM ${relation}`)).getRows()[0]![0])

/**
 * The company name index (busca.sqlite). Per pass, DuckDB computes each row's rank
 * (situação/UF partition, name length, headquarters first); the indexed text is the words of the
 * legal and trade names (searchWords, in JavaScript: the server runs the same function over a typed
 * name) and the filter words (filterToken in layout.ts). CNAE codes get their slots here, in the
 * order the rows meet them (table filtro_cnae); every filter word's row count goes to
 * filtro_linhas, which the server reads to pick how it checks a range (service.ts).
 */
export async function buildCompanyIndex(conn: DuckDBConnection, from: PassRelations<'estabelecimentos' | 'empresas' | 'simples'>, path: string, options: { quiet?: boolean } = {}): Promise<number> {
  const db = createIndexFile(path, 'empresas')
  let total = 0
  for (let pass = 0; pass < PARTITIONS; pass++) { const r = from(pass); if (r) total += await count(conn, r.estabelecimentos) }
  const particao = `(coalesce(list_position(${list(SITUACOES)}, e.situacao) - 1, ${UNKNOWN_SITUACAO_SLOT}) * 32 + coalesce(list_position(${list(UFS)}, e.uf) - 1, ${UNKNOWN_UF_SLOT}))`
  const tamanho = `least(length(coalesce(m.razao_social, e.nome_fantasia, '')), 255)`
  const columns = ['rank', 'razao_social', 'nome_fantasia', 'cnae_principal', 'municipio', 'porte', 'cnpj', 'abertura', 'cnaes_secundarios', 'natureza_juridica', 'capital_social', 'opcao_simples', 'opcao_mei'] as const
  const at = Object.fromEntries(columns.map((c, i) => [c, i])) as Record<(typeof columns)[number], number>
  const rows = (p: number) => {
    const r = from(p)
    if (!r) return null
    // A root listed twice in Empresas or Simples must not index its establishments twice, nor a CNPJ listed twice; each shows the row the card shows (one-row.ts).
    return rowsOf(conn, `
      SELECT ${particao}::BIGINT * ${RANK_BITS} + ${tamanho}::BIGINT * ${LENGTH_UNIT} + CASE WHEN e.matriz_filial = 2 THEN ${BRANCH_UNIT} ELSE 0 END AS rank,
             m.razao_social, e.nome_fantasia, e.cnae_principal, e.municipio, m.porte,
             e.cnpj, year(e.data_inicio) * 10000 + month(e.data_inicio) * 100 + day(e.data_inicio) AS abertura,
             e.cnaes_secundarios, m.natureza_juridica, m.capital_social, si.opcao_simples, si.opcao_mei
      FROM ${onePerCnpj(r.estabelecimentos)} e LEFT JOIN ${onePerRoot(r.empresas)} m USING (cnpj_basico)
        LEFT JOIN ${onePerRoot(r.simples)} si USING (cnpj_basico)`,
      [...columns], 'rank, cnpj')
  }
  const names = (row: string[]) => [row[at.razao_social]!, row[at.nome_fantasia]!]
  // CNAE slots in the order the rows meet them; a code past the slots gets no filter word (never
  // seen: a real month has ~1,400 codes).
  const cnaeSlots = new Map<string, number>()
  const cnaeSlot = (code: string): number | null => {
    if (!/^\d{7}$/.test(code)) return null
    let slot = cnaeSlots.get(code)
    if (slot === undefined && cnaeSlots.size < CNAE_SLOTS) cnaeSlots.set(code, (slot = cnaeSlots.size))
    return slot ?? null
  }
  const counts = new Map<string, number>()
  const filters = (row: string[]) => {
    const tokens: (string | null)[] = [filterToken.qualquer, filterToken.municipio(row[at.municipio]!), filterToken.porte(row[at.porte]!), filterToken.natureza(row[at.natureza_juridica]!)]
    const main = cnaeSlot(row[at.cnae_principal]!)
    if (main !== null) tokens.push(filterToken.cnae(main))
    // A code listed twice among the secondary activities, or also the main one, is one word.
    const secondary = new Set<string>()
    for (const c of (row[at.cnaes_secundarios] ?? '').split(',')) {
      const slot = c ? cnaeSlot(c.padStart(7, '0')) : null
      if (slot !== null) secondary.add(filterToken.cnaeSecundario(slot))
    }
    tokens.push(...secondary)
    const capital = row[at.capital_social]!
    const bucket = capitalBucket(capital)
    if (bucket === null) tokens.push(filterToken.semCapital)
    else {
      tokens.push(filterToken.capital(bucket))
      if (Math.round(Number(capital) * 100) === Math.round(capitalBucketFloor(bucket) * 100)) tokens.push(filterToken.capitalPiso(bucket))
    }
    const abertura = row[at.abertura]
    if (!abertura) tokens.push(filterToken.semAbertura)
    else {
      const year = Math.floor(Number(abertura) / 10000)
      tokens.push(filterToken.abertura(openingYearSlot(year)))
      if (year >= FIRST_OPENING_YEAR) tokens.push(filterToken.aberturaMes(year, Math.floor(Number(abertura) / 100) % 100))
    }
    tokens.push(filterToken.simples(simplesState(row[at.opcao_simples] === 'true', row[at.opcao_mei] === 'true')))
    for (const t of tokens) if (t) counts.set(t, (counts.get(t) ?? 0) + 1)
    bitmaps.add(Number(row[at.rank]), tokens, row[at.capital_social] ? Number(row[at.capital_social]) : null, row[at.abertura] ? Number(row[at.abertura]) : null)
    return tokens
  }
  // Doc row: CNPJ, opening date as YYYYMMDD, capital in reais (the exact values the range filters check).
  const doc = (row: string[]) => [row[at.cnpj]!, row[at.abertura] ? Number(row[at.abertura]) : null, row[at.capital_social] ? Number(row[at.capital_social]) : null]
  // The filter words again as bitmaps in rowid order, for searches by filters alone (filter-bitmaps.ts).
  const bitmaps = new FilterBitmapBuilder(total)
  try {
    const n = await writeIndex(db, 'empresas', total, rows, names, filters, doc, { ...options, onPass: (pass) => bitmaps.startPass(pass) })
    db.exec('BEGIN')
    const slot = db.prepare('INSERT INTO filtro_cnae VALUES (?, ?)')
    for (const [cnae, n] of [...cnaeSlots].sort()) slot.run(cnae, n)
    const linhas = db.prepare('INSERT INTO filtro_linhas VALUES (?, ?)')
    // The span words' rows (the bitmaps' only, SPANS_OF): the planner uses those an index has.
    for (const [token, n] of [...counts]) for (const id of SPANS_OF[filterTokenId(token)] ?? []) counts.set(filterTokenOf(id), (counts.get(filterTokenOf(id)) ?? 0) + n)
    for (const [token, n] of [...counts].sort()) linhas.run(token, n)
    db.exec('COMMIT')
    // The bitmaps last, at the end of the file: the server's prewarm reads the file up to where
    // they start (filtro_meta), the names' index, and leaves them to the searches that use them.
    const { page_count } = db.query('PRAGMA page_count').get() as { page_count: number }
    const { page_size } = db.query('PRAGMA page_size').get() as { page_size: number }
    db.exec('BEGIN')
    bitmaps.write(db, options)
    db.exec(`CREATE TABLE filtro_meta (chave TEXT PRIMARY KEY, valor INTEGER NOT NULL) WITHOUT ROWID; INSERT INTO filtro_meta VALUES ('inicio_bytes', ${page_count * page_size})`)
    db.exec('COMMIT')
    return n
  } finally {
    db.close()
  }
}

/**
 * The partner name index (busca_socios.sqlite): rank = name length (shorter names first), then
 * within a pass name, root, qualification and entry date (every doc field: the order never depends
 * on the dump's row order).
 */
export async function buildPartnerIndex(conn: DuckDBConnection, from: PassRelations<'socios'>, path: string, options: { quiet?: boolean } = {}): Promise<number> {
  const db = createIndexFile(path, 'socios')
  let total = 0
  for (let pass = 0; pass < PARTITIONS; pass++) { const r = from(pass); if (r) total += await count(conn, `(SELECT 1 FROM ${r.socios} WHERE nome IS NOT NULL)`) }
  const rows = (p: number) => {
    const r = from(p)
    if (!r) return null
    return rowsOf(conn, `
      SELECT least(length(nome), 255)::BIGINT * ${DOC_KEY_UNIT} AS rank, nome, cnpj_basico, qualificacao, data_entrada::VARCHAR AS entrada, cpf_cnpj
      FROM ${r.socios} WHERE nome IS NOT NULL`, ['rank', 'nome', 'cnpj_basico', 'qualificacao', 'entrada', 'cpf_cnpj'], 'rank, nome, cnpj_basico, qualificacao, entrada, cpf_cnpj')
  }
  const names = (row: string[]) => [row[1]!]
  // Doc row: root, name, qualification code, entry date, the partner's document as a number (documentKey).
  const doc = (row: string[]) => [row[2]!, row[1]!, row[3] || null, row[4] || null, documentKey(row[5]!)]
  try {
    const n = await writeIndex(db, 'socios', total, rows, names, () => [], doc, options)
    // A partner's other participations in one read, in the name search's order (shorter names
    // first, then doc key: the order of the FTS rowids).
    db.exec(`CREATE INDEX socio_doc_documento ON socio_doc (documento, ${PARTNER_RANK_SQL}) WHERE documento IS NOT NULL`)
    return n
  } finally {
    db.close()
  }
}

export interface IndexFromPartsOptions {
  quiet?: boolean
  /** DuckDB's memory limit in this process (the build's own DuckDB runs beside it). */
  memoryLimit?: string
  /** Where DuckDB may spill the sort. */
  tempDir: string
  /** DuckDB threads (default 1: the build runs this beside the card store and the other index). */
  threads?: number
}

/**
 * Builds one name index from the build's Parquet partitions (`<partsDir>/<table>/part=N/*.parquet`)
 * with a DuckDB of its own. The build runs each in a child process (`dadosbr _indice-de-nomes`):
 * an index is JavaScript work (FTS5 inserts) that would otherwise share one thread with the card
 * store's inserts (measured at 1.1 M establishments: 10.5 s of the index's 11 s), and nationally the
 * two indexes on one thread were the build's longest task, with the other core idle at the end.
 */
export async function buildIndexFromParts(kind: IndexKind, partsDir: string, path: string, options: IndexFromPartsOptions): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    threads: String(options.threads ?? 1),
    memory_limit: options.memoryLimit ?? '3GB',
    temp_directory: options.tempDir,
  })
  const conn = await instance.connect()
  try {
    // A pass is one root partition (roots never cross them); null when it got no rows.
    const part = (kind: PartitionedTable, pass: number) => partitionRelation(partsDir, kind, pass)
    // A partition with establishments but no company row keeps them (the join is a left join).
    const noCompanies = '(SELECT NULL::VARCHAR AS cnpj_basico, NULL::VARCHAR AS razao_social, NULL::VARCHAR AS porte, NULL::VARCHAR AS natureza_juridica, NULL::DECIMAL(18,2) AS capital_social WHERE false)'
    const noSimples = '(SELECT NULL::VARCHAR AS cnpj_basico, NULL::BOOLEAN AS opcao_simples, NULL::BOOLEAN AS opcao_mei WHERE false)'
    return kind === 'empresas'
      ? await buildCompanyIndex(conn, (p) => {
          const estabelecimentos = part('estabelecimentos', p)
          return estabelecimentos ? { estabelecimentos, empresas: part('empresas', p) ?? noCompanies, simples: part('simples', p) ?? noSimples } : null
        }, path, { quiet: options.quiet })
      : await buildPartnerIndex(conn, (p) => {
          const socios = part('socios', p)
          return socios ? { socios } : null
        }, path, { quiet: options.quiet })
  } finally {
    conn.closeSync()
    instance.closeSync()
  }
}
