// Where the registry's files live and how the text index is laid out. Shared by the server
// (which reads) and the ingest (which writes), so both agree on one layout.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkCnpj } from '../../core/documents'

/** data/cnpj/current -> data/cnpj/<build>/ ; the link is swapped atomically by a rename. */
export const DATASET_DIR = 'cnpj'
export const CURRENT_LINK = 'current'
export const DUCKDB_FILE = 'cnpj.duckdb'
export const SEARCH_FILE = 'busca.sqlite'
/** The partner name index, written beside the company one by a process of its own. */
export const PARTNER_SEARCH_FILE = 'busca_socios.sqlite'
/** The card store: one row per establishment, keyed by CNPJ, for point lookups (see FICHA). */
export const CARDS_FILE = 'fichas.sqlite'
export const MANIFEST_FILE = 'manifest.json'
/** The files a build serves (besides its manifest). */
export const SERVED_FILES = [DUCKDB_FILE, CARDS_FILE, SEARCH_FILE, PARTNER_SEARCH_FILE] as const

/** What a build's manifest says of it: its month and the layout version that wrote it (1 before `formato` existed). */
export function buildHead(dir: string): { referencia: string; formato: number } {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { referencia: string; formato?: number }
  return { referencia: manifest.referencia, formato: manifest.formato ?? 1 }
}
/**
 * Layout version of the served files, written in the manifest (`formato`): a server opens only
 * builds of its own version. 2: doc keys in the low bits of the index rowids, 28 card fields.
 * 3: card store keyed by integers (cardKey, rootKey), check digits in the card.
 * 4: same files, but a legal name ending in a CPF is masked (parse.ts legalName): a build of 3 may
 * hold full CPFs, so it is neither served nor kept by `ingest --se-preciso`.
 * 5: name indexes of normalized words (search-text.ts) with the ascii tokenizer, a prefix index
 * (PREFIX_LENGTHS), a vocabulary table, and filters as private-use characters (filterToken).
 * Still 5 with the pair tokens (pairToken): a build without its `frequente` table answers the same
 * searches the plain way, so an older build of 5 is served as it is (slower on common words).
 * 6: cards with the fields minha-receita users rely on (country, fax, special situation, Simples and
 * MEI dates, responsible's qualification, federative entity), stored coded (card-codec.ts) with the
 * month's dictionary in fichas.sqlite; the municipalities table with the IBGE code; the name
 * index's filters for legal nature, secondary activities, capital, opening date and Simples/MEI;
 * the partner index with the partners' documents.
 */
export const FORMAT = 6

/** Federative units in index order; 'EX' is abroad. Unknown values take slot 31. */
export const UFS = ['AC', 'AL', 'AM', 'AP', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MG', 'MS', 'MT', 'PA', 'PB', 'PE', 'PI', 'PR', 'RJ', 'RN', 'RO', 'RR', 'RS', 'SC', 'SE', 'SP', 'TO', 'EX'] as const
export const UNKNOWN_UF_SLOT = 31

/** Registration status codes (01 nula, 02 ativa, 03 suspensa, 04 inapta, 08 baixada); others take slot 7. */
export const SITUACOES = ['01', '02', '03', '04', '08'] as const
export const UNKNOWN_SITUACAO_SLOT = 7

/**
 * Text-index rowids carry the filters and the order. rowid = partition * 2^45 + rank, where
 * partition = situação slot * 32 + UF slot, so a search for one situação and one UF is one rowid
 * range, and rank = name length * 2^37 + (branch ? 2^36 : 0) + doc key: shorter names first
 * (what bm25 favours for short registry names, at no query cost), headquarters before branches.
 * Ranks compare across partitions, so a search over every UF merges the partitions' first pages.
 *
 * The doc key (the low 36 bits) = index pass * 2^28 + the row's place in that pass, in (rank,
 * CNPJ) order. The build writes the index in passes, one per root partition (see PARTITIONS),
 * so the rows it sorts fit in memory (a global sort of every establishment cost a quarter of the
 * national index build; passes of 5 partitions spilled to disk) and the doc tables, keyed by doc
 * key, are written in key order. Equal ranks therefore come in pass order, then CNPJ order:
 * stable from page to page.
 */
export const RANK_BITS = 2 ** 45
export const LENGTH_UNIT = 2 ** 37
export const BRANCH_UNIT = 2 ** 36
export const DOC_KEY_UNIT = 2 ** 36
export const PASS_UNIT = 2 ** 28

/** The key of a text-index rowid in its doc table (empresa_doc, socio_doc). */
export const docKey = (rowid: number) => rowid % DOC_KEY_UNIT

export function partitionOf(situacaoSlot: number, ufSlot: number): number {
  return situacaoSlot * 32 + ufSlot
}

/** Rowid range [lo, hi] of one partition. */
export function rowidRange(situacaoSlot: number, ufSlot: number): [number, number] {
  const p = partitionOf(situacaoSlot, ufSlot)
  return [p * RANK_BITS, (p + 1) * RANK_BITS - 1]
}

/** Every UF slot a partition can have, for searches over all UFs. */
export const ALL_UF_SLOTS = [...UFS.keys(), UNKNOWN_UF_SLOT]

/** Searches page at most this deep (offset + page size), like the 10000 cap of the total. */
export const MAX_RESULT_WINDOW = 10_000

/**
 * Filters indexed as words beside the names, so a search by activity, city, legal nature, capital,
 * opening year or Simples (with or without a name, and with each other) reads FTS doclists in rank
 * order instead of scanning the registry (docs/busca.md, "Filtros"). Each is one character of
 * Unicode's private use area (plane 15): no typed name can hold one (the name normalization,
 * search-text.ts, keeps letters and digits only), and a one-character word gets no entry in the
 * prefix index (PREFIX_LENGTHS start at 2), where a longer one repeats its rows. null for a value
 * of another shape (no such filter can be asked for). Every row holds `qualquer`, which a search by
 * UF or dates alone reads.
 *
 * CNAEs (7 digits, ~1,400 in use) take a slot each, numbered by the build in the order it meets
 * them and kept in the index's table `filtro_cnae` (cnae, slot): CNAE_SLOTS slots for the main
 * activity, as many for the secondary ones. The capital is a bucket (capitalBucket), and a capital
 * that is exactly a bucket's floor (a round value) also has that floor's word; the opening date is
 * a year (openingYearSlot) and, from FIRST_OPENING_YEAR on, a month: a range is the OR of its
 * buckets, years and months (or `qualquer` NOT the others, with the rows that have no value),
 * and the rows of a bucket or month only partly inside it are checked against the exact value in
 * `empresa_doc` (search-filters.ts). Simples and MEI are one word of four per row (simplesState).
 */
const code = (text: string, digits: number): number | null => (text.length === digits && /^\d+$/.test(text) ? Number(text) : null)
const PRIVATE_USE = 0xf0000
const at = (offset: number) => String.fromCodePoint(PRIVATE_USE + offset)
/** Slots of each CNAE family (main, secondary). */
export const CNAE_SLOTS = 0x3ffe
/** Capital buckets and opening-year slots in use (see capitalBucket, openingYearSlot). */
export const CAPITAL_BUCKETS = 64
export const OPENING_YEAR_SLOTS = 152
/** Levels of the span words (filterToken.capitalFaixa, aberturaFaixa): blocks of up to 32 buckets, 128 year slots. */
export const CAPITAL_SPAN_LEVELS = 5
export const OPENING_SPAN_LEVELS = 7
export const filterToken = {
  qualquer: at(0),
  /** The row's Simples/MEI state (simplesState): every row holds one of the four. */
  simples: (state: number) => at(0x10 + state),
  /** A row with no opening date (in no year), with no capital (in no bucket). */
  semAbertura: at(0x20),
  semCapital: at(0x21),
  porte: (text: string) => { const n = code(text, 2); return n === null ? null : at(0x100 + n) },
  capital: (bucket: number) => at(0x300 + bucket),
  /** A capital exactly at the floor of this bucket (1 000 000.00, 50 000.00...). */
  capitalPiso: (bucket: number) => at(0x340 + bucket),
  abertura: (slot: number) => at(0x400 + slot),
  /** The opening month (1-12) of a year from FIRST_OPENING_YEAR on. */
  aberturaMes: (year: number, month: number) => at(0x600 + (year - FIRST_OPENING_YEAR) * 12 + month - 1),
  /**
   * Spans, in the filter bitmaps only (not in the FTS index): the rows of 2^level consecutive capital
   * buckets (level 1-CAPITAL_SPAN_LEVELS) or opening-year slots (level 1-OPENING_SPAN_LEVELS), block
   * `index` of its level, numbered as the nodes of a binary tree over the buckets or slots. A range
   * of 50 years is then ~5 words instead of 50 (search-filters.ts, withSpans).
   */
  capitalFaixa: (level: number, index: number) => at(0x200 + (64 >> level) + index),
  aberturaFaixa: (level: number, index: number) => at(0xe00 + (256 >> level) + index),
  municipio: (text: string) => { const n = code(text, 4); return n === null ? null : at(0x1000 + n) },
  natureza: (text: string) => { const n = code(text, 4); return n === null ? null : at(0x5000 + n) },
  cnae: (slot: number) => at(0x8000 + slot),
  cnaeSecundario: (slot: number) => at(0xc000 + slot),
}

/**
 * The capital bucket of a value in reais (as DuckDB writes a DECIMAL: digits, a point, the cents):
 * 0 for zero, 1 below one real, then three per power of ten, 1-2-5 (2: [1, 2), 3: [2, 5),
 * 4: [5, 10), 5: [10, 20)...): round values, which people type as bounds, start a bucket. Worked
 * out on the digits, never through a float. null for text of another shape.
 */
export function capitalBucket(text: string): number | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text)
  if (!m) return null
  const whole = m[1]!.replace(/^0+/, '')
  if (!whole) return /[1-9]/.test(m[2] ?? '') ? 1 : 0
  const lead = whole.charCodeAt(0) - 48
  return Math.min(CAPITAL_BUCKETS - 1, 2 + 3 * (whole.length - 1) + (lead < 2 ? 0 : lead < 5 ? 1 : 2))
}

/** The lower bound, in reais, of a capital bucket (bucket 0: zero; 1: one cent). */
export function capitalBucketFloor(bucket: number): number {
  if (bucket <= 0) return 0
  if (bucket === 1) return 0.01
  const d = Math.floor((bucket - 2) / 3)
  return [1, 2, 5][(bucket - 2) % 3]! * 10 ** d
}

/** Simples/MEI state of a row: bit 1 optant of the Simples Nacional, bit 2 of the MEI. */
export const simplesState = (simples: boolean, mei: boolean) => (simples ? 1 : 0) + (mei ? 2 : 0)

/** Opening years from FIRST_OPENING_YEAR have a slot each (and months); earlier ones share slot 0. */
export const FIRST_OPENING_YEAR = 1950
export function openingYearSlot(year: number): number {
  return year < FIRST_OPENING_YEAR ? 0 : Math.min(OPENING_YEAR_SLOTS - 1, year - FIRST_OPENING_YEAR + 1)
}

/**
 * Name indexes: FTS5 with the `ascii` tokenizer over text already normalized by searchWords
 * (search-text.ts: words of letters and digits, upper case, separated by spaces), and a prefix
 * index of these lengths, so a typed word of 2 to 4 characters reads one doclist of every word it
 * begins. A longer typed word is looked up in the index's own vocabulary (table `termo`: every
 * indexed word of VOCABULARY_MIN_LENGTH characters or more) and searched as the OR of the words it
 * begins: FTS5 serves any other prefix by merging every matching word's whole doclist first.
 */
export const PREFIX_LENGTHS = [2, 3, 4] as const
export const VOCABULARY_MIN_LENGTH = 5
/** A typed word that begins more indexed words than this is searched by FTS5's own prefix query (correct, slower). */
export const MAX_PREFIX_EXPANSION = 64
/**
 * Words of this length or more go into `termo` (since the pair tokens: before, VOCABULARY_MIN_LENGTH).
 * A typed word of 2 to 4 characters is still read through the prefix index; `termo` lists what it
 * begins only so that its frequent words can be paired (pairToken).
 */
export const TERM_MIN_LENGTH = 2

/**
 * Pairs of frequent words (docs/busca.md). A name made of common words (JOAO SILVA SANTOS) is the
 * AND of long doclists that FTS5 walks inside the rowid range: nationally, most of a search's
 * cost. Each row also indexes one token per unordered pair of its frequent words, so the AND of two
 * frequent words reads one short doclist (their pair's) instead of leapfrogging two long ones.
 * Frequent: a word in at least FREQUENT_MIN_SHARE of the rows of a sample (the first root
 * partitions, FREQUENT_SAMPLE_ROWS rows at least: partitions are a uniform cut of the roots), the
 * MAX_FREQUENT most frequent at most; the build stores them in `frequente` (word, code), which the
 * server reads. A build without that table (before the pairs) is searched as before.
 * A pair token is one character of Unicode's private use plane 16: no typed name holds one (the
 * normalization keeps letters and digits) and a one-character token has no prefix-index entry.
 */
export const MAX_FREQUENT = 256
export const FREQUENT_MIN_SHARE = 0.001
export const FREQUENT_SAMPLE_ROWS = 200_000
export const pairToken = (a: number, b: number) => String.fromCodePoint(0x100000 + Math.min(a, b) * MAX_FREQUENT + Math.max(a, b))
/** A query's pair of typed words becomes the OR of at most this many pair tokens (frequent words each begins, multiplied); more: searched as before. */
export const MAX_PAIR_ALTERNATIVES = 32

/**
 * The per-root tables (estabelecimentos, empresas, socios, simples) are split at ingest into
 * PARTITIONS parts by the last two characters of the root (balanced: roots are handed out in
 * sequence), so each part's joins fit in memory; the card store keeps one table per part.
 */
export const PARTITIONS = 100
export const PARTITIONED_TABLES = ['estabelecimentos', 'empresas', 'socios', 'simples'] as const

/** Partition of a root: its last two characters as a two-digit number (letters count past 9). */
export function partitionOfRoot(root: string): number {
  return Math.abs((root.charCodeAt(6) - 48) * 10 + (root.charCodeAt(7) - 48)) % PARTITIONS
}

/** The same function in SQL over a root column, for the ingest. */
export const partitionSql = (column: string) =>
  `(abs((ascii(substr(${column}, 7, 1)) - 48) * 10 + (ascii(substr(${column}, 8, 1)) - 48)) % ${PARTITIONS})::UTINYINT`

/**
 * Point lookups do not go to DuckDB. A DuckDB point query costs ~0.6-2 ms of CPU however the file
 * is laid out (measured: zone maps over sorted 4096-row groups, a prebuilt JSON card column, 100
 * root partitions), which caps two cores at ~1 500 new cards a second. The card store is a row
 * store beside the DuckDB file, built from the same month and swapped with it: SQLite rowid
 * tables (chave INTEGER PRIMARY KEY, dados TEXT), three per root partition, each written once in
 * key order:
 * - `estabelecimentos_pNN`: key = cardKey(CNPJ), value = the establishment's whole card (its
 *   check digits, its own columns, its company's and its Simples option), FICHA fields. A root's
 *   establishments are one key range (rootCardKeys).
 * - `socios_pNN`: key = rootKey(root), value = every partner of the company in /socios order,
 *   SOCIO fields, partners separated by PARTNER_SEPARATOR.
 * - `empresas_sem_estab_pNN`: key = rootKey(root), value = legal name, for a company that has no
 *   establishment (partner search shows its name; every other company's is on its cards).
 * Fields are joined by CARD_SEPARATOR; blank = null. DuckDB keeps the registry itself, typed.
 *
 * Integer keys, not the CNPJ text: a WITHOUT ROWID table keeps whole rows in its interior pages,
 * and with ~270-byte cards those pages held ~18 children each. Nationally the interior pages were
 * 920 MB and a lookup walked 4-5 pages; a rowid table's interior cells are a key and a pointer.
 */
export const CARD_TABLES = ['estabelecimentos', 'socios', 'empresas_sem_estab'] as const
/** The words the establishment cards are coded with (card-codec.ts): codigo (rank), palavra. */
export const DICTIONARY_TABLE = 'dicionario'
export const CARD_SEPARATOR = '\u001f'
export const PARTNER_SEPARATOR = '\u001e'

/**
 * The card fields in `dados` order (the key holds the CNPJ's first 12 characters, `dv` its check
 * digits): every field a route shows, in one list, so that what reads a card field by field (the
 * routes, the history of changes between months) takes a new field by its row here. The
 * establishment's own fields come first (up to razao_social), then its company's, then its Simples
 * option; card-store.ts says where each comes from.
 */
export const FICHA = [
  'dv', 'matriz_filial', 'nome_fantasia', 'situacao', 'data_situacao', 'motivo', 'data_inicio', 'cnae_principal',
  'cnaes_secundarios', 'tipo_logradouro', 'logradouro', 'numero', 'complemento', 'bairro', 'municipio', 'cidade_exterior',
  'uf', 'cep', 'ddd1', 'telefone1', 'ddd2', 'telefone2', 'email', 'pais', 'ddd_fax', 'fax', 'situacao_especial',
  'data_situacao_especial',
  'razao_social', 'natureza_juridica', 'porte', 'capital_social', 'qualificacao_responsavel', 'ente_federativo',
  'opcao_simples', 'opcao_mei', 'data_opcao_simples', 'data_exclusao_simples', 'data_opcao_mei', 'data_exclusao_mei',
] as const
export type FichaField = (typeof FICHA)[number]

/** A partner's fields in `dados` order. */
export const SOCIO = ['identificador', 'nome', 'cpf_cnpj', 'qualificacao', 'data_entrada', 'representante_nome', 'faixa_etaria'] as const
export type SocioField = (typeof SOCIO)[number]

/** One table of the card store. */
export const cardTable = (table: (typeof CARD_TABLES)[number], partition: number) => `${table}_p${String(partition).padStart(2, '0')}`

/** Base 36 of text[from, to): '0'-'9' are 0-9, 'A'-'Z' 10-35 (callers pass only those; see KEYABLE_CNPJ). */
const base36 = (text: string, from: number, to: number) => {
  let n = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    n = n * 36 + (c < 65 ? c - 48 : c - 55)
  }
  return n
}
const SIX_DIGITS = BigInt(36 ** 6)

/** What the keys can represent: a CNPJ of [0-9A-Z]{12}[0-9]{2} (any other cannot be asked for), a root of [0-9A-Z]{8}. */
export const KEYABLE_CNPJ = /^[0-9A-Z]{12}[0-9]{2}$/
export const KEYABLE_ROOT = /^[0-9A-Z]{8}$/

/**
 * An establishment's key: its first 12 characters (root and order) read in base 36, up to
 * 36^12 ≈ 4.7e18, so a BigInt (SQLite's 64-bit integer). The check digits are in the card.
 * (Computed in JavaScript at ingest: the same arithmetic in DuckDB SQL doubled the card query.)
 */
export const cardKey = (cnpj: string): bigint => BigInt(base36(cnpj, 0, 6)) * SIX_DIGITS + BigInt(base36(cnpj, 6, 12))

/** The first and last establishment keys a root can have (orders 0000 to ZZZZ). */
export const rootCardKeys = (root: string): [bigint, bigint] => [cardKey(`${root}0000`), cardKey(`${root}ZZZZ`)]

/** The 12 characters of an establishment key (cardKey's inverse). */
export const cnpjOfCardKey = (key: bigint | string): string => BigInt(key).toString(36).toUpperCase().padStart(12, '0')

/**
 * A partner's document as the partner index keeps it (socio_doc.documento), a number: a CPF as the
 * Receita publishes it, masked (***456789**), is minus one minus its six digits; a CNPJ is its
 * cardKey (its first 12 characters: the check digits follow from them, and are checked). Anything
 * else (blank, other shapes, wrong check digits) has no key: no search can name it.
 */
export function documentKey(doc: string): bigint | number | null {
  const masked = /^\*{3}(\d{6})\*{2}$/.exec(doc)
  if (masked) return -1 - Number(masked[1])
  return KEYABLE_CNPJ.test(doc) && checkCnpj(doc).valido ? cardKey(doc) : null
}

/** A partner row's rank in the partner index as SQL over socio_doc (the name's length, as the build ranks it in DuckDB). */
export const PARTNER_RANK_SQL = 'min(length(nome), 255)'

/** A root's key in the partner tables: its 8 characters in base 36 (below 2^53, a plain number). */
export const rootKey = (root: string): number => base36(root, 0, 8)
