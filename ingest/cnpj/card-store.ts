// The card store (fichas.sqlite, see CARD_SEPARATOR in src/datasets/cnpj/layout.ts): three SQLite
// tables per root partition, each filled once, in key order, from DuckDB queries over the
// partition's Parquet files.
import type { DuckDBConnection } from '@duckdb/node-api'
import { Database } from 'bun:sqlite'
import type { PartitionedTable } from './partitions'
import { onePerCnpj, onePerRoot } from './one-row'
import { CardCodec, FICHA_CODEC, MAX_CODES, wordsOf } from '../../src/datasets/cnpj/card-codec'
import { releaseResults } from '../lib/release-results'
import { CARD_SEPARATOR, CARD_TABLES, cardKey, cardTable, DICTIONARY_TABLE, FICHA, KEYABLE_CNPJ, KEYABLE_ROOT, PARTITIONS, PARTNER_SEPARATOR, rootKey, SOCIO, type FichaField, type SocioField } from '../../src/datasets/cnpj/layout'

/**
 * SQL of each card field (FICHA order). The establishment's own fields, up to ESTABLISHMENT_FIELDS,
 * are over the establishments table (the split joins them into the partitions' `ficha` column,
 * see partitions.ts); the rest over m = company and si = Simples. A DATE cast to text is
 * YYYY-MM-DD (years are 1800-2100, see parse.ts), 40 % cheaper than strftime.
 */
const FICHA_SQL: Record<FichaField, string> = {
  dv: 'substr(cnpj, 13, 2)', matriz_filial: 'matriz_filial::VARCHAR', nome_fantasia: 'nome_fantasia', situacao: 'situacao',
  data_situacao: 'data_situacao::VARCHAR', motivo: 'motivo', data_inicio: 'data_inicio::VARCHAR',
  cnae_principal: 'cnae_principal', cnaes_secundarios: 'cnaes_secundarios', tipo_logradouro: 'tipo_logradouro',
  logradouro: 'logradouro', numero: 'numero', complemento: 'complemento', bairro: 'bairro', municipio: 'municipio',
  cidade_exterior: 'cidade_exterior', uf: 'uf', cep: 'cep', ddd1: 'ddd1', telefone1: 'telefone1', ddd2: 'ddd2',
  telefone2: 'telefone2', email: 'email', pais: 'pais', ddd_fax: 'ddd_fax', fax: 'fax', situacao_especial: 'situacao_especial',
  data_situacao_especial: 'data_situacao_especial::VARCHAR',
  razao_social: 'm.razao_social', natureza_juridica: 'm.natureza_juridica', porte: 'm.porte', capital_social: 'm.capital_social::VARCHAR',
  qualificacao_responsavel: 'm.qualificacao_responsavel', ente_federativo: 'm.ente_federativo',
  opcao_simples: 'si.opcao_simples::VARCHAR', opcao_mei: 'si.opcao_mei::VARCHAR', data_opcao_simples: 'si.data_opcao::VARCHAR',
  data_exclusao_simples: 'si.data_exclusao::VARCHAR', data_opcao_mei: 'si.data_opcao_mei::VARCHAR', data_exclusao_mei: 'si.data_exclusao_mei::VARCHAR',
}
/** The card's fields that come from the establishment row itself: the FICHA fields before the company's. */
const ESTABLISHMENT_FIELDS = FICHA.slice(0, FICHA.indexOf('razao_social'))

/** SQL of each partner field (SOCIO order) over s = partner row. */
const SOCIO_SQL: Record<SocioField, string> = {
  identificador: 's.identificador::VARCHAR', nome: 's.nome', cpf_cnpj: 's.cpf_cnpj', qualificacao: 's.qualificacao',
  data_entrada: 's.data_entrada::VARCHAR', representante_nome: 's.representante_nome', faixa_etaria: 's.faixa_etaria::VARCHAR',
}

/**
 * Fields joined by the unit separator, null as blank (`concat` skips nulls, and one call builds the
 * string in one allocation: measured 3x faster than a chain of `||` over 28 fields). No value holds
 * a separator: the load turns bytes 0x1E and 0x1F into spaces (ingest/lib/fifo.ts), which is free
 * there, where a replace() per field here cost 40 % of the card query. Text fields are trimmed to
 * null at load, so blank = null.
 */
const joined = (fields: string[]) => `concat(${fields.join(', chr(31), ')})`

/** Rows per string crossing from DuckDB to JavaScript (see batched); a chunk holds 2048 such strings. */
const BATCH = 256

/**
 * The establishment's part of its card, over the establishments table: computed once by the split
 * into the partitions (partitions.ts), so the card query joins one column instead of 23 (measured
 * at 1.1 M establishments: card query 3.4-4.3 → 2.2-2.3 s; the split itself no slower).
 */
export const ESTABLISHMENT_CARD_SQL = joined(ESTABLISHMENT_FIELDS.map((f) => FICHA_SQL[f]))
/** The company's part of a card (its fields and its Simples row's, over m and si), as the card store joins it after `ficha`. */
export const COMPANY_CARD_SQL = joined(FICHA.slice(ESTABLISHMENT_FIELDS.length).map((f) => FICHA_SQL[f]))
/** A partner's record (SOCIO fields over s), as the card store writes it. */
export const PARTNER_CARD_SQL = joined(SOCIO.map((f) => SOCIO_SQL[f]))
/** The card store's order of a root's partners (/socios order), over s. */
export const PARTNER_ORDER_SQL = 's.data_entrada NULLS LAST, s.nome, s.cpf_cnpj, s.qualificacao, s.identificador, s.faixa_etaria, s.representante_nome'

/**
 * The rows `chave, dados` of `from` in `orderBy` order, as batches of BATCH rows in that order,
 * each one string `chave 0x1F dados 0x1E chave 0x1F dados ...`: a string crossing costs ~1 µs, so
 * one per batch instead of two per row took the establishment cards from 5.6 to 4.6 s and the
 * partner cards from 1.4-1.7 to 1.0-1.3 s at 1.1 M establishments.
 */
const batched = (columns: string, from: string, orderBy: string) => `
  SELECT string_agg(concat(chave, chr(31), dados), chr(30) ORDER BY n) AS lote FROM (
    SELECT ${columns}, row_number() OVER (ORDER BY ${orderBy}) AS n FROM ${from})
  GROUP BY (n - 1) // ${BATCH} ORDER BY (n - 1) // ${BATCH}`

/**
 * The query of each table of partition p, from the partition's relations, batched (see batched)
 * in key order. write() turns CNPJs and roots into the store's integer keys (layout.ts).
 */
export function cardQueries(from: Record<PartitionedTable, string>) {
  // A root listed twice in Empresas or Simples must not duplicate its establishments, and a CNPJ
  // listed twice shows the same row as the search and the history (one-row.ts).
  return {
    estabelecimentos: batched(
      `e.cnpj AS chave, ${joined(['e.ficha', ...FICHA.slice(ESTABLISHMENT_FIELDS.length).map((f) => FICHA_SQL[f])])} AS dados`,
      `${onePerCnpj(from.estabelecimentos)} e LEFT JOIN ${onePerRoot(from.empresas)} m USING (cnpj_basico) LEFT JOIN ${onePerRoot(from.simples)} si USING (cnpj_basico)`,
      'e.cnpj',
    ),
    // Every partner row in the order /socios lists them (entry date, name, CPF; then the other
    // fields, so that rows tied on those do not come out in the dump's order, which varies with
    // how the load was scheduled); write() joins a root's rows into one.
    // (string_agg(... ORDER BY ...) per root cost 1.6x more, measured at 1.1 M establishments.)
    socios: batched(`s.cnpj_basico AS chave, ${PARTNER_CARD_SQL} AS dados`, `${from.socios} s`, `s.cnpj_basico, ${PARTNER_ORDER_SQL}`),
    empresas_sem_estab: batched(
      `m.cnpj_basico AS chave, coalesce(m.razao_social, '') AS dados`,
      `${onePerRoot(from.empresas)} m WHERE NOT EXISTS (SELECT 1 FROM ${from.estabelecimentos} e WHERE e.cnpj_basico = m.cnpj_basico)`,
      'm.cnpj_basico',
    ),
  }
}

/**
 * Cards read to choose the dictionary: the first root partitions (a uniform cut of the registry)
 * until this many, all of them in a smaller month. Counting costs ~10 µs a card (a million: ~10 s
 * of CPU, one and a half partitions of a national month) on top of reading them a second time.
 */
const DICTIONARY_SAMPLE_CARDS = 1_000_000
/** A word enters the dictionary when the sample holds it this many times at least. */
const DICTIONARY_MIN_COUNT = 3

/**
 * The words of the card store's dictionary (card-codec.ts), most frequent first: counted over the
 * cards of the first partitions (the queries `estabelecimentos(p)` give), in the fields the codec
 * codes by word, and kept when a code saves bytes (count × (bytes − 2) > 0), at most MAX_CODES.
 * Ties in word order, so the same dump gives the same dictionary.
 */
/**
 * Each `chave, dados` row of a batched card query (cardQueries: rows joined by PARTNER_SEPARATOR,
 * key and value by CARD_SEPARATOR, BATCH rows a string), in order.
 */
async function forEachRow(conn: DuckDBConnection, query: string, fn: (chave: string, dados: string) => void): Promise<void> {
  const result = await conn.stream(query)
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) break
    const batches = chunk.getColumnVector(0)
    for (let i = 0; i < chunk.rowCount; i++)
      for (const line of (batches.getItem(i) as string).split(PARTNER_SEPARATOR)) {
        const cut = line.indexOf(CARD_SEPARATOR)
        fn(line.slice(0, cut), line.slice(cut + 1))
      }
  }
}

export async function chooseDictionary(conn: DuckDBConnection, estabelecimentos: (partition: number) => string): Promise<string[]> {
  const counts = new Map<string, number>()
  const wordFields = FICHA.map((f, i) => [i, FICHA_CODEC[f]] as const).filter(([, c]) => c === 'palavras' || c === 'lista' || c === 'email')
  let sampled = 0
  for (let p = 0; p < PARTITIONS && sampled < DICTIONARY_SAMPLE_CARDS; p++) {
    await forEachRow(conn, estabelecimentos(p), (_, dados) => {
      sampled++
      const fields = dados.split(CARD_SEPARATOR)
      for (const [at, codec] of wordFields) {
        const v = fields[at]
        if (v) for (const w of wordsOf(codec, v)) if (w.length > 1) counts.set(w, (counts.get(w) ?? 0) + 1)
      }
    })
    releaseResults()
  }
  const bytes = (w: string) => Buffer.byteLength(w, 'utf8')
  return [...counts]
    .filter(([w, n]) => n >= DICTIONARY_MIN_COUNT && bytes(w) > 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_CODES)
    .map(([w]) => w)
}

export interface CardStore {
  /**
   * Streams one of cardQueries' queries into its table of partition p; returns rows written. A
   * key listed twice in the dump keeps its first row, except in `socios`, where the rows of one
   * root are joined into one by PARTNER_SEPARATOR.
   */
  write(conn: DuckDBConnection, table: (typeof CARD_TABLES)[number], partition: number, query: string): Promise<number>
  /** Stores the dictionary (card-codec.ts) the establishment cards are written with: before the first of them. */
  useDictionary(words: string[]): void
  close(): void
}

export function createCardStore(path: string): CardStore {
  const db = new Database(path, { create: true })
  let codec = new CardCodec([])
  // Built once into a temporary directory and never updated: the journal in memory, no fsync per
  // commit. (journal_mode = OFF is refused by bun's SQLite: it stays 'delete'.)
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536;')
  for (let p = 0; p < PARTITIONS; p++)
    for (const table of CARD_TABLES) db.exec(`CREATE TABLE ${cardTable(table, p)} (chave INTEGER PRIMARY KEY, dados TEXT NOT NULL)`)
  db.exec(`CREATE TABLE ${DICTIONARY_TABLE} (codigo INTEGER PRIMARY KEY, palavra TEXT NOT NULL)`)
  return {
    useDictionary(words) {
      db.exec('BEGIN')
      const insert = db.prepare(`INSERT INTO ${DICTIONARY_TABLE} VALUES (?, ?)`)
      words.forEach((w, i) => insert.run(i, w))
      insert.finalize()
      db.exec('COMMIT')
      codec = new CardCodec(words)
    },
    async write(conn, table, partition, query) {
      const insert = db.prepare(`INSERT OR IGNORE INTO ${cardTable(table, partition)} (chave, dados) VALUES (?, ?)`)
      // A CNPJ or root with characters outside [0-9A-Z] gets no key, so no card: no request can name it.
      let rows = 0
      const putRoot = (root: string, dados: string) => {
        if (KEYABLE_ROOT.test(root)) rows += insert.run(rootKey(root), dados).changes
      }
      let key: string | null = null
      let value = ''
      db.exec('BEGIN')
      try {
        await forEachRow(conn, query, (k, dados) => {
          if (table === 'estabelecimentos') {
            if (KEYABLE_CNPJ.test(k)) rows += insert.run(cardKey(k), codec.encode(dados)).changes
          } else if (table === 'empresas_sem_estab') putRoot(k, dados)
          else if (k === key) value += PARTNER_SEPARATOR + dados
          else {
            if (key !== null) putRoot(key, value)
            key = k
            value = dados
          }
        })
        if (key !== null) putRoot(key, value)
        db.exec('COMMIT')
      } catch (err) {
        // SQLite rolls back by itself on some errors (a full disk): a second ROLLBACK would hide the first error.
        if (db.inTransaction) db.exec('ROLLBACK')
        throw err
      } finally {
        insert.finalize()
      }
      return rows
    },
    close: () => db.close(),
  }
}
