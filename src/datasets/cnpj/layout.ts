// Where the registry's files live and how the text index is laid out. Shared by the server
// (which reads) and the ingest (which writes), so both agree on one layout.

/** data/cnpj/current -> data/cnpj/<build>/ ; the link is swapped atomically by a rename. */
export const DATASET_DIR = 'cnpj'
export const CURRENT_LINK = 'current'
export const DUCKDB_FILE = 'cnpj.duckdb'
export const SEARCH_FILE = 'busca.sqlite'
export const MANIFEST_FILE = 'manifest.json'

/** Federative units in index order; 'EX' is abroad. Unknown values take slot 31. */
export const UFS = ['AC', 'AL', 'AM', 'AP', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MG', 'MS', 'MT', 'PA', 'PB', 'PE', 'PI', 'PR', 'RJ', 'RN', 'RO', 'RR', 'RS', 'SC', 'SE', 'SP', 'TO', 'EX'] as const
export const UNKNOWN_UF_SLOT = 31

/** Registration status codes (01 nula, 02 ativa, 03 suspensa, 04 inapta, 08 baixada); others take slot 7. */
export const SITUACOES = ['01', '02', '03', '04', '08'] as const
export const UNKNOWN_SITUACAO_SLOT = 7

/**
 * Text-index rowids carry the filters in their high bits: partition = situacao slot * 32 + uf slot,
 * rowid = partition * 2^32 + rank. A search for one situação (and maybe one UF) is then a rowid
 * range, and rank orders the rows inside it (shorter names first, which is what bm25 would favour
 * for short registry names, at no query cost).
 */
export const RANK_BITS = 2 ** 32

export function partitionOf(situacaoSlot: number, ufSlot: number): number {
  return situacaoSlot * 32 + ufSlot
}

/** Rowid range [lo, hi] for a situação slot and, optionally, a UF slot. */
export function rowidRange(situacaoSlot: number, ufSlot?: number): [number, number] {
  if (ufSlot === undefined) return [partitionOf(situacaoSlot, 0) * RANK_BITS, (partitionOf(situacaoSlot, 31) + 1) * RANK_BITS - 1]
  const p = partitionOf(situacaoSlot, ufSlot)
  return [p * RANK_BITS, (p + 1) * RANK_BITS - 1]
}

/** Words too common to search by: legal forms and connectors (NOTES §1). */
export const STOPWORDS = new Set(['LTDA', 'ME', 'EPP', 'EIRELI', 'SA', 'S', 'A', 'DE', 'DA', 'DO', 'DAS', 'DOS', 'E', 'EM', 'MEI'])
