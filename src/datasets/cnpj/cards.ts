// Reads the card store (fichas.sqlite): each partition's statements are prepared once, on first
// use. Looking a statement up by its SQL text (bun:sqlite's db.query cache) cost ~6 µs of a ~20 µs
// lookup (measured at 1.1 M establishments); an array indexed by partition costs nothing.
import type { Database, Statement } from 'bun:sqlite'
import { openImmutable } from '../../core/stores/sqlite'
import { CardCodec } from './card-codec'
import { CARD_SEPARATOR, cardKey, cnpjOfCardKey, DICTIONARY_TABLE, PARTITIONS, partitionOfRoot, rootCardKeys, rootKey } from './layout'
import { CARD } from './queries'

type Query = keyof typeof CARD

export class CardStoreReader {
  private readonly db: Database
  private readonly statements = new Map<Query, (Statement | undefined)[]>()
  /** The month's card coding (card-codec.ts): every card read leaves through it. */
  private readonly codec: CardCodec

  constructor(
    /** The card store's file (a long list reads it whole first: dadosbr consultar). */
    readonly path: string,
  ) {
    this.db = openImmutable(path)
    // A lookup walks 3-4 pages, and the interior ones are shared by every lookup of a partition
    // (nationally ~100 MB over the 17.5 GB file): kept in SQLite's cache, a lookup whose leaf is in
    // the OS page cache costs one read instead of four. The default cache is 2 MB.
    this.db.exec('PRAGMA cache_size = -131072')
    this.codec = new CardCodec((this.db.query(`SELECT palavra FROM ${DICTIONARY_TABLE} ORDER BY codigo`).values() as [string][]).map(([w]) => w))
  }

  private statement(query: Query, root: string): Statement {
    let byPartition = this.statements.get(query)
    if (!byPartition) this.statements.set(query, (byPartition = new Array(PARTITIONS)))
    const p = partitionOfRoot(root)
    return (byPartition[p] ??= this.db.prepare(CARD[query](root)))
  }

  /**
   * One establishment's card, its FICHA fields in order (blank for null), or null. The key leaves out
   * the check digits: a card whose own (its first field, stored as it is) differ is not this CNPJ's.
   */
  card(cnpj: string): string[] | null {
    const dados = this.stored(cnpj)
    return dados === null ? null : this.codec.fields(dados)
  }

  /** Whether the month has this CNPJ's card (read, not decoded). */
  hasCard(cnpj: string): boolean {
    return this.stored(cnpj) !== null
  }

  /** A CNPJ's stored card, still coded; null when the key holds another CNPJ's card (check digits) or none. */
  private stored(cnpj: string): string | null {
    const dados = (this.statement('one', cnpj.slice(0, 8)).values(cardKey(cnpj))[0]?.[0] as string | undefined) ?? null
    return dados !== null && dados.startsWith(cnpj.slice(12) + CARD_SEPARATOR) ? dados : null
  }

  /** Every card of a root, in CNPJ order. */
  cardsOfRoot(root: string): { cnpj: string; campos: string[] }[] {
    return (this.statement('ofRoot', root).values(...rootCardKeys(root)) as [string, string][]).map(([key, dados]) => ({ cnpj: withCheckDigits(key, dados), campos: this.codec.fields(dados) }))
  }

  /** Any one card of a root, or null. */
  anyCardOfRoot(root: string): { cnpj: string; campos: string[] } | null {
    const row = this.statement('anyOfRoot', root).values(...rootCardKeys(root))[0] as [string, string] | undefined
    return row ? { cnpj: withCheckDigits(row[0], row[1]), campos: this.codec.fields(row[1]) } : null
  }

  /** Every partner of a root in one value, or null. */
  partners(root: string): string | null {
    return (this.statement('socios', root).values(rootKey(root))[0]?.[0] as string | undefined) ?? null
  }

  /** The legal name of a company with no establishment, or null. */
  companyWithoutEstablishment(root: string): string | null {
    return (this.statement('empresaSemEstab', root).values(rootKey(root))[0]?.[0] as string | undefined) || null
  }

  close(): void {
    for (const list of this.statements.values()) for (const s of list) s?.finalize()
    this.db.close()
  }
}

/** The CNPJ of a card: the key's 12 characters and the card's first field (its check digits). */
const withCheckDigits = (key: string, dados: string) => cnpjOfCardKey(key) + dados.slice(0, 2)
