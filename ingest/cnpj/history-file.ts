// Writes one month file of the history (src/datasets/cnpj/historico-layout.ts): the month's
// changes in feed order, in zstd blocks, with the CNAE ordering, the roots' positions and the
// month's code tables. Written once into the build's temp dir; never changed after.
import { Database } from 'bun:sqlite'
import {
  CNAE_BLOCK, encodeCnaeBlock, encodeFeedBlock, encodeFloats, encodeJson, encodeRootBlock, FEED_BLOCK, ROOT_BLOCK, HISTORY_FORMAT, HISTORY_SCHEMA,
  INDEX_CNAE, INDEX_FEED, ROTULOS_ANTERIOR, ROTULOS_MES, TIPOS, type HistoryMeta, type RotulosJson,
} from '../../src/datasets/cnpj/historico-layout'

/**
 * The items of a month, as parallel arrays (one entry per item): their stored lines, feed and CNAE
 * keys and roots, ~140 bytes an item (an object each would be several times that at national size,
 * ~3.5 M items a month).
 */
export class ItemList {
  lines: string[] = []
  key1: number[] = []
  key2: number[] = []
  root: number[] = []
  campo: number[] = []
  get length() {
    return this.lines.length
  }
  push(line: string, k1: number, k2: number, root: number, campo: number) {
    this.lines.push(line)
    this.key1.push(k1)
    this.key2.push(k2)
    this.root.push(root)
    this.campo.push(campo)
  }
  /** The tipo of item i (the high bits of its feed key: historico-layout.ts key1). */
  tipo(i: number): number {
    return Math.floor(this.key1[i]! / 2 ** 24 / 16384 / 32)
  }
}

export interface MonthFile {
  referencia: string
  referencia_anterior: string | null
  lacuna: boolean
  rotulos: RotulosJson
  rotulosAnterior: RotulosJson | null
  items: ItemList
  /** CNPJs that left the registry in this month. */
  saidas: string[]
  /** The município codes of the items, with their UFs (one in a clean dump: the Receita's codes are national). */
  municipios: Record<string, string[]>
}

/** The CNPJs of two stored lines compared (a line begins with `["` and the 14 characters of its CNPJ), without slicing. */
function compareCnpjs(a: string, b: string): number {
  for (let i = 2; i < 16; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i)
    if (d) return d
  }
  return 0
}

/** Feed order: key1, CNPJ, the field (in CAMPOS order), then the line itself (partners of one company). */
const FEED_ORDER = (items: ItemList) => (a: number, b: number) =>
  items.key1[a]! - items.key1[b]! ||
  compareCnpjs(items.lines[a]!, items.lines[b]!) ||
  items.campo[a]! - items.campo[b]! ||
  (items.lines[a]! < items.lines[b]! ? -1 : items.lines[a]! > items.lines[b]! ? 1 : 0)

/** Writes `path` (a new file) and returns its meta. */
export function writeMonthFile(path: string, month: MonthFile): HistoryMeta {
  const { items } = month
  const porTipo: Record<string, number> = {}
  for (let i = 0; i < items.length; i++) porTipo[TIPOS[items.tipo(i)]!] = (porTipo[TIPOS[items.tipo(i)]!] ?? 0) + 1
  const meta: HistoryMeta = {
    formato: HISTORY_FORMAT, referencia: month.referencia, referencia_anterior: month.referencia_anterior, lacuna: month.lacuna,
    itens: items.length, por_tipo: porTipo,
  }
  const db = new Database(path, { create: true })
  try {
    // 16 KB pages: blocks of ~1.5 KB fill them with little slack (4 KB pages left a quarter of the file empty).
    db.exec('PRAGMA page_size = 16384; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;')
    db.exec(HISTORY_SCHEMA)
    db.exec('BEGIN')
    const putMeta = db.prepare('INSERT INTO meta (chave, valor) VALUES (?, ?)')
    for (const [k, v] of Object.entries(meta)) putMeta.run(k, typeof v === 'string' ? v : JSON.stringify(v))
    const putRotulos = db.prepare('INSERT INTO rotulos (chave, dados) VALUES (?, ?)')
    putRotulos.run(ROTULOS_MES, encodeJson(month.rotulos))
    if (month.rotulosAnterior) putRotulos.run(ROTULOS_ANTERIOR, encodeJson(month.rotulosAnterior))

    // The feed: items in (key1, CNPJ, field) order, FEED_BLOCK per block.
    const order = Array.from({ length: items.length }, (_, i) => i).sort(FEED_ORDER(items))
    const putFeed = db.prepare('INSERT INTO fluxo (chave, dados) VALUES (?, ?)')
    const firstKeys: number[] = []
    for (let b = 0; b * FEED_BLOCK < order.length; b++) {
      const slice = order.slice(b * FEED_BLOCK, (b + 1) * FEED_BLOCK)
      firstKeys.push(items.key1[slice[0]!]!)
      putFeed.run(b, encodeFeedBlock(slice.map((i) => items.key1[i]!), slice.map((i) => items.lines[i]!)))
    }
    // The CNAE ordering: feed positions by (key2, position); within one CNAE it keeps the feed's order.
    const byCnae = Array.from({ length: order.length }, (_, p) => p).sort((p, q) => items.key2[order[p]!]! - items.key2[order[q]!]! || p - q)
    const putCnae = db.prepare('INSERT INTO fluxo_cnae (chave, dados) VALUES (?, ?)')
    const firstKeys2: number[] = []
    for (let b = 0; b * CNAE_BLOCK < byCnae.length; b++) {
      const slice = byCnae.slice(b * CNAE_BLOCK, (b + 1) * CNAE_BLOCK)
      const keys = slice.map((p) => items.key2[order[p]!]!)
      firstKeys2.push(keys[0]!)
      putCnae.run(b, encodeCnaeBlock(keys, slice))
    }
    const putIndex = db.prepare('INSERT INTO indice (chave, dados) VALUES (?, ?)')
    putIndex.run(INDEX_FEED, encodeFloats(firstKeys))
    putIndex.run(INDEX_CNAE, encodeFloats(firstKeys2))

    // Each root's feed positions.
    const byRoot = new Map<number, number[]>()
    for (let p = 0; p < order.length; p++) {
      const root = items.root[order[p]!]!
      const list = byRoot.get(root)
      if (list) list.push(p)
      else byRoot.set(root, [p])
    }
    // Each root's feed positions, ROOT_BLOCK roots a block, keyed by the block's first root.
    const roots = [...byRoot.keys()].sort((a, b) => a - b)
    const putRoot = db.prepare('INSERT INTO raiz (chave, dados) VALUES (?, ?)')
    for (let b = 0; b < roots.length; b += ROOT_BLOCK) {
      const slice = roots.slice(b, b + ROOT_BLOCK)
      putRoot.run(slice[0]!, encodeRootBlock(slice, slice.map((r) => byRoot.get(r)!)))
    }
    const putExtra = db.prepare('INSERT INTO extra (chave, dados) VALUES (?, ?)')
    putExtra.run('saidas', encodeJson(month.saidas))
    putExtra.run('municipios', encodeJson(month.municipios))
    db.exec('COMMIT')
    for (const s of [putMeta, putRotulos, putFeed, putCnae, putIndex, putRoot, putExtra]) s.finalize()
  } catch (err) {
    db.close()
    throw err
  }
  db.close()
  return meta
}
