// The registry's history (docs/historico.md): what a change is, which card field it is about, and
// how a month of changes is laid out on disk. Shared by the server (reads) and the ingest (writes).
//
// Each build holds `historico/<AAAA-MM>.sqlite`, one immutable file per month held: the changes the
// month's dump showed against the month before it (none for the first month held, the baseline),
// and the month's code tables. A new build hard-links the files of the build in use and adds its
// own, so the history is swapped atomically with the month, only what changed is stored, and a
// failed build (its temp dir removed) changes nothing.
import { FICHA, SOCIO, UFS, UNKNOWN_UF_SLOT, type FichaField } from './layout'
import type { Ficha } from './service'
import { FIELD_JSON, type CardPath, type CardView } from './card-json'

/** Folder of the history inside a build. */
export const HISTORY_DIR = 'historico'
/** A month's file name. */
export const historyFile = (month: string) => `${month}.sqlite`
export const HISTORY_FILE = /^(\d{4}-(?:0[1-9]|1[0-2]))\.sqlite$/
/** Layout version of the month files (meta `formato`); a server reads only its own. */
export const HISTORY_FORMAT = 1

/** Kinds of change, in the order the change feed lists them (the API's enum). */
export const TIPOS = [
  'abertura', 'situacao_cadastral', 'razao_social', 'nome_fantasia', 'endereco', 'cnae_principal', 'cnae_secundarios',
  'natureza_juridica', 'capital_social', 'porte', 'contato', 'simples', 'mei', 'socio_entrada', 'socio_saida',
  'socio_alteracao', 'saiu_do_cadastro', 'voltou_ao_cadastro',
] as const
export type Tipo = (typeof TIPOS)[number]
export const tipoCode = (t: Tipo) => TIPOS.indexOf(t)

/**
 * Every field the card shows, as a path of the card's JSON (card-json.ts: FIELD_JSON writes each),
 * with the kind of change it is and the raw card fields (FICHA, the card store's values) it is
 * rendered from. A change of a field is recorded with the raw values of its `brutos` before and
 * after, and shown by rendering them through the card's own code (with the code tables of the
 * month), so `antes` and `depois` are what the card of each month showed. A field of the card
 * joins the history by adding its row here: test/cnpj/historico-campos.test.ts fails while a card
 * path or a FICHA field has no row, or a row's `brutos` miss a value its rendering reads.
 *
 * `nivel`: `empresa` fields (from the company and Simples rows) are the same on every card of a
 * root: their change is recorded once per company, listed in the feed under its headquarters.
 * The start date, the headquarters/branch flag, the special situation and the responsible's
 * qualification have no kind of their own in the API's enum: they are registration facts, recorded
 * as `situacao_cadastral`; the federative entity responsible (public bodies only) goes with the
 * legal nature it completes, as `natureza_juridica`.
 */
export const CAMPOS = [
  { campo: 'situacao_cadastral', tipo: 'situacao_cadastral', brutos: ['situacao', 'data_situacao', 'motivo'] },
  { campo: 'matriz_filial', tipo: 'situacao_cadastral', brutos: ['matriz_filial'] },
  { campo: 'situacao_especial', tipo: 'situacao_cadastral', brutos: ['situacao_especial', 'data_situacao_especial'] },
  { campo: 'data_inicio_atividade', tipo: 'situacao_cadastral', brutos: ['data_inicio'] },
  { campo: 'razao_social', tipo: 'razao_social', brutos: ['razao_social'] },
  { campo: 'nome_fantasia', tipo: 'nome_fantasia', brutos: ['nome_fantasia'] },
  { campo: 'endereco.logradouro', tipo: 'endereco', brutos: ['tipo_logradouro', 'logradouro'] },
  { campo: 'endereco.numero', tipo: 'endereco', brutos: ['numero'] },
  { campo: 'endereco.complemento', tipo: 'endereco', brutos: ['complemento'] },
  { campo: 'endereco.bairro', tipo: 'endereco', brutos: ['bairro'] },
  { campo: 'endereco.municipio', tipo: 'endereco', brutos: ['municipio', 'uf', 'cidade_exterior'] },
  { campo: 'endereco.uf', tipo: 'endereco', brutos: ['uf'] },
  { campo: 'endereco.cep', tipo: 'endereco', brutos: ['cep'] },
  { campo: 'endereco.codigo_municipio_ibge', tipo: 'endereco', brutos: ['municipio', 'uf'] },
  { campo: 'endereco.pais', tipo: 'endereco', brutos: ['pais'] },
  { campo: 'cnae_principal', tipo: 'cnae_principal', brutos: ['cnae_principal'] },
  { campo: 'cnae_secundarios', tipo: 'cnae_secundarios', brutos: ['cnaes_secundarios'] },
  { campo: 'natureza_juridica', tipo: 'natureza_juridica', brutos: ['natureza_juridica'] },
  { campo: 'ente_federativo_responsavel', tipo: 'natureza_juridica', brutos: ['ente_federativo'] },
  { campo: 'qualificacao_responsavel', tipo: 'situacao_cadastral', brutos: ['qualificacao_responsavel'] },
  { campo: 'capital_social', tipo: 'capital_social', brutos: ['capital_social'] },
  { campo: 'porte', tipo: 'porte', brutos: ['porte'] },
  { campo: 'contato.email', tipo: 'contato', brutos: ['email'] },
  { campo: 'contato.telefone', tipo: 'contato', brutos: ['ddd1', 'telefone1', 'ddd2', 'telefone2'] },
  { campo: 'contato.telefone_2', tipo: 'contato', brutos: ['ddd1', 'telefone1', 'ddd2', 'telefone2'] },
  { campo: 'contato.fax', tipo: 'contato', brutos: ['ddd_fax', 'fax'] },
  { campo: 'simples.optante', tipo: 'simples', brutos: ['opcao_simples'] },
  { campo: 'simples.data_opcao', tipo: 'simples', brutos: ['data_opcao_simples'] },
  { campo: 'simples.data_exclusao', tipo: 'simples', brutos: ['data_exclusao_simples'] },
  { campo: 'simples.mei', tipo: 'mei', brutos: ['opcao_mei'] },
  { campo: 'simples.mei_data_opcao', tipo: 'mei', brutos: ['data_opcao_mei'] },
  { campo: 'simples.mei_data_exclusao', tipo: 'mei', brutos: ['data_exclusao_mei'] },
] as const satisfies readonly { campo: CardPath; tipo: Tipo; brutos: readonly FichaField[] }[]
export type Campo = (typeof CAMPOS)[number]

/**
 * Each campo's value as the card shows it (JSON), from a card record (or one with only the campo's
 * raw values set): the card's own writer of that field (card-json.ts FIELD_JSON), so the history
 * compares and shows a field without rendering the whole card.
 */
export const CAMPO_JSON: readonly ((view: CardView, record: Registro) => string)[] = CAMPOS.map((c) => FIELD_JSON[c.campo])

/**
 * The card fields of the company and its Simples row, the same on every card of a root: the
 * FICHA fields from `razao_social` on (the card store joins them after the establishment's own,
 * ingest/cnpj/card-store.ts).
 */
export const COMPANY_FIELDS: ReadonlySet<FichaField> = new Set(FICHA.slice(FICHA.indexOf('razao_social')))
/** A field's level: `empresa` when every raw value it is rendered from is the company's. */
export const nivelOf = (c: Campo): 'empresa' | 'estabelecimento' => (c.brutos.every((b) => COMPANY_FIELDS.has(b)) ? 'empresa' : 'estabelecimento')
/** Each FICHA field's place in a card record (the card store's `dados`, split). */
export const FICHA_INDEX = Object.fromEntries(FICHA.map((f, i) => [f, i])) as Record<FichaField, number>
/** Each campo's raw values as indexes into a card record. */
export const CAMPO_BRUTOS: readonly (readonly number[])[] = CAMPOS.map((c) => c.brutos.map((b) => FICHA_INDEX[b]))
export const CAMPO_EMPRESA: readonly boolean[] = CAMPOS.map((c) => nivelOf(c) === 'empresa')

/** `campo` codes of the items that are not a card field: a presence change (abertura, saiu, voltou) and a partner's. */
export const CAMPO_PRESENCA = -1
export const CAMPO_SOCIOS = -2

/** A card record: the FICHA values, null for blank (the card store's `dados` split). */
export type Registro = (string | null)[]
/** A partner record: the SOCIO values. */
export type RegistroSocio = (string | null)[]

/**
 * One change (the feed's order keys hold its tipo, UF, município and CNAE: see storedLine):
 * - cnpj: the establishment's; for a company-level field or a partner, the CNPJ of the company's
 *   headquarters (else its first establishment) in that month.
 * - tipo: index in TIPOS; campo: index in CAMPOS, CAMPO_PRESENCA or CAMPO_SOCIOS.
 * - antes, depois: a field's raw values (its `brutos`, in order); a partner's record (SOCIO);
 *   saiu_do_cadastro's antes is the whole card record of the month before; otherwise null.
 * - uf, municipio (4-digit code of the Receita), exterior (the foreign city, for UF EX), cnae
 *   (main activity), razao: of the establishment in the month of the change (saiu_do_cadastro:
 *   the month before), for the feed's filters and items.
 */
export type Item = [
  cnpj: string, tipo: number, campo: number, antes: (string | null)[] | null, depois: (string | null)[] | null,
  uf: string | null, municipio: string | null, exterior: string | null, cnae: string | null, razao: string | null,
]
export const I = { cnpj: 0, tipo: 1, campo: 2, antes: 3, depois: 4, uf: 5, municipio: 6, exterior: 7, cnae: 8, razao: 9 } as const

/**
 * Feed order keys. The feed lists a month's changes by (tipo, UF, município, CNAE), then CNPJ and
 * field: `key1` packs the four into one exact float (48 bits). A second ordering by (CNAE, tipo,
 * UF, município), `key2`, serves the filters on CNAE without município. Every filter of
 * /v1/cnpj/mudancas is then at most one contiguous range of one ordering per tipo (docs/historico.md):
 * counted and paged by position, never by scanning.
 */
const MUNICIPIO_NONE = 16383
const CNAE_NONE = 2 ** 24 - 1
export const ufSlotOf = (uf: string | null) => {
  const i = uf === null ? -1 : UFS.indexOf(uf as (typeof UFS)[number])
  return i < 0 ? UNKNOWN_UF_SLOT : i
}
export const municipioCodeOf = (m: string | null) => (m !== null && /^\d{4}$/.test(m) ? Number(m) : MUNICIPIO_NONE)
export const cnaeCodeOf = (c: string | null) => (c !== null && /^\d{7}$/.test(c) ? Number(c) : CNAE_NONE)
export const key1 = (tipo: number, uf: number, municipio: number, cnae: number) => ((tipo * 32 + uf) * 16384 + municipio) * 2 ** 24 + cnae
export const key2 = (cnae: number, tipo: number, uf: number, municipio: number) => ((cnae * 32 + tipo) * 32 + uf) * 16384 + municipio
/**
 * An item as stored: a JSON line without what its key1 already holds (tipo, UF, município, CNAE:
 * ~15 % of a block's bytes), unless one of them is not a value the key can hold (a UF outside the
 * list, a município or CNAE of another shape), then kept as written.
 */
export function storedLine(it: Item): string {
  const exact =
    (it[5] === null || UFS.includes(it[5] as (typeof UFS)[number])) &&
    (it[6] === null || /^\d{4}$/.test(it[6])) && (it[8] === null || /^\d{7}$/.test(it[8])) &&
    // Nulls and the slot's own values are told apart: a null is kept as written.
    it[5] !== null && it[6] !== null && it[8] !== null
  const line: unknown[] = [it[0], it[2], it[3], it[4], it[7], it[9]]
  if (!exact) line.push([it[5], it[6], it[8]])
  return JSON.stringify(line)
}

/** An item from its stored line and key1 (storedLine's inverse). */
export function itemOf(line: string, key: number): Item {
  const v = JSON.parse(line) as [string, number, (string | null)[] | null, (string | null)[] | null, string | null, string | null, (string | null)[]?]
  const cnae = key % 2 ** 24
  const rest = Math.floor(key / 2 ** 24)
  const municipio = rest % 16384
  const tipo = Math.floor(rest / 16384 / 32)
  const uf = Math.floor(rest / 16384) % 32
  const raw = v[6]
  return [
    v[0], tipo, v[1], v[2], v[3],
    raw ? raw[0]! : (UFS[uf] ?? null), raw ? raw[1]! : String(municipio).padStart(4, '0'), v[4], raw ? raw[2]! : String(cnae).padStart(7, '0'), v[5],
  ]
}

/** key2 of the same (tipo, UF, município, CNAE) as a key1. */
export function key2OfKey1(k: number): number {
  const cnae = k % 2 ** 24
  const rest = Math.floor(k / 2 ** 24)
  const municipio = rest % 16384
  const uf = Math.floor(rest / 16384) % 32
  const tipo = Math.floor(rest / 16384 / 32)
  return key2(cnae, tipo, uf, municipio)
}

export const itemKey1 = (it: Item) => key1(it[I.tipo], ufSlotOf(it[I.uf]), municipioCodeOf(it[I.municipio]), cnaeCodeOf(it[I.cnae]))
export const itemKey2 = (it: Item) => key2(cnaeCodeOf(it[I.cnae]), it[I.tipo], ufSlotOf(it[I.uf]), municipioCodeOf(it[I.municipio]))
/** The largest município and CNAE codes, for the upper end of a prefix range. */
export const MAX = { municipio: MUNICIPIO_NONE, cnae: CNAE_NONE, uf: 31, tipo: TIPOS.length - 1 } as const

/**
 * Items per block of the feed (`fluxo`), entries per block of the CNAE ordering (`fluxo_cnae`),
 * roots per block of the root index (`raiz`). Small feed blocks: a page filtered by CNAE reads
 * its items from as many blocks, and a block of 32 decodes in ~10 µs (64: ~25 µs) for 15 % more
 * bytes (measured on 55 k items of a synthetic month: 40 B an item at 32, 35 at 64, zstd 9).
 */
export const FEED_BLOCK = 32
export const CNAE_BLOCK = 512
export const ROOT_BLOCK = 128

/**
 * Tables of a month file. Blocks are zstd: a feed block holds its items' key1 (as runs: the feed
 * is sorted by it) and their JSON lines; a CNAE block its entries' key2 and feed positions; a root
 * block its roots (rootKey) and each one's feed positions, keyed by its first root (the block of a
 * root: the last one whose key is at most it). `indice` holds the first key of every block of each
 * ordering (rows INDEX_FEED and INDEX_CNAE), read once per month to find a range's blocks.
 * `rotulos` holds the code tables of the month (ROTULOS_MES) and of the month before
 * (ROTULOS_ANTERIOR), as JSON: a change's `antes` is shown with the tables of the month that
 * showed it. `extra` holds `saidas`, the CNPJs that left the registry in this month (a later return
 * is voltou_ao_cadastro, not abertura), and `municipios`, each município code of the items with its UF.
 */
export const HISTORY_SCHEMA = `
  CREATE TABLE meta (chave TEXT PRIMARY KEY, valor TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE rotulos (chave INTEGER PRIMARY KEY, dados BLOB NOT NULL);
  CREATE TABLE fluxo (chave INTEGER PRIMARY KEY, dados BLOB NOT NULL);
  CREATE TABLE fluxo_cnae (chave INTEGER PRIMARY KEY, dados BLOB NOT NULL);
  CREATE TABLE indice (chave INTEGER PRIMARY KEY, dados BLOB NOT NULL);
  CREATE TABLE raiz (chave INTEGER PRIMARY KEY, dados BLOB NOT NULL);
  CREATE TABLE extra (chave TEXT PRIMARY KEY, dados BLOB NOT NULL) WITHOUT ROWID;
`
export const ROTULOS_MES = 0
export const ROTULOS_ANTERIOR = 1
export const INDEX_FEED = 0
export const INDEX_CNAE = 1

/** The code tables a card is rendered with (store.ts LOOKUP_TABLES), as stored: table -> [codigo, descricao][]. */
export type RotulosJson = Record<string, [string, string | null][]>
/** The rotulos entry holding the month's TOM ↔ IBGE pairs (the card's endereco.codigo_municipio_ibge). */
export const ROTULO_IBGE = 'municipios_ibge'

/** What `meta` says of a month. */
export interface HistoryMeta {
  formato: number
  referencia: string
  /** The month it was compared with; null for the first month held (no changes). */
  referencia_anterior: string | null
  /** True when months between referencia_anterior and referencia were not loaded: its changes are "between A and B". */
  lacuna: boolean
  itens: number
  /** Items by tipo. */
  por_tipo: Record<string, number>
}

/** Months between two AAAA-MM (exclusive), for gap detection. */
export function monthsBetween(a: string, b: string): number {
  const n = (m: string) => Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1
  return n(b) - n(a) - 1
}

/** "2026-05 a 2026-08, 2026-10": months, runs of consecutive ones joined (messages and the CLI name the months held this way). */
export function monthRanges(months: string[]): string {
  const runs: string[][] = []
  for (const m of months) {
    const last = runs.at(-1)
    if (last && monthsBetween(last.at(-1)!, m) === 0) last.push(m)
    else runs.push([m])
  }
  return runs.map((r) => (r.length === 1 ? r[0]! : `${r[0]} a ${r.at(-1)}`)).join(', ')
}

// ---- block codecs (zstd) ----

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * zstd level of the month file's blocks. On a national month's 121 k feed blocks (399 MB before
 * compression), level 9 took 10.6 s of CPU for 139.8 MB, level 3 2.5 s for 145.0 MB (+3.7 %); the
 * CNAE and root blocks came out the same size at both. Decoding costs the same at any level.
 */
export const BLOCK_ZSTD_LEVEL = 3
const compressBlock = (raw: Uint8Array) => Bun.zstdCompressSync(raw, { level: BLOCK_ZSTD_LEVEL })

/** A feed block, compressed (decodeFeedBlock). */
export const encodeFeedBlock = (keys: number[], lines: string[]): Uint8Array => compressBlock(feedBlockRaw(keys, lines))

/**
 * A feed block before compression (the month file compresses it off the main thread,
 * ingest/cnpj/history-file.ts): item count and run count, the runs of key1 (Float64 key, Uint16
 * length: sorted keys repeat), then the items' JSON lines.
 */
export function feedBlockRaw(keys: ArrayLike<number>, lines: string[]): Uint8Array {
  const runKeys: number[] = []
  const runLengths: number[] = []
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!
    if (runKeys.length && runKeys.at(-1) === k) runLengths[runLengths.length - 1]!++
    else {
      runKeys.push(k)
      runLengths.push(1)
    }
  }
  const text = encoder.encode(lines.join('\n'))
  const head = 8 + runKeys.length * 10
  const raw = new Uint8Array(head + text.length)
  const view = new DataView(raw.buffer)
  view.setUint32(0, keys.length, true)
  view.setUint32(4, runKeys.length, true)
  runKeys.forEach((k, i) => view.setFloat64(8 + i * 8, k, true))
  runLengths.forEach((n, i) => view.setUint16(8 + runKeys.length * 8 + i * 2, n, true))
  raw.set(text, head)
  return raw
}

export interface FeedBlock {
  keys: Float64Array
  /** The items' JSON lines, as UTF-8 joined by newlines: a line is decoded only when its item is asked. */
  text: Uint8Array
  /** Where each line starts in `text` (and, last, its end), found on the block's first line asked. */
  starts?: Uint32Array
  /** The items parsed so far (the reader fills it on use). */
  items?: Item[]
}

export function decodeFeedBlock(blob: Uint8Array): FeedBlock {
  const raw = Bun.zstdDecompressSync(blob)
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
  const count = view.getUint32(0, true)
  const runs = view.getUint32(4, true)
  const keys = new Float64Array(count)
  for (let r = 0, at = 0; r < runs; r++) {
    const k = view.getFloat64(8 + r * 8, true)
    const n = view.getUint16(8 + runs * 8 + r * 2, true)
    keys.fill(k, at, at + n)
    at += n
  }
  return { keys, text: raw.subarray(8 + runs * 10) }
}

/**
 * The JSON line of a block's slot. A block read for one item (a CNPJ's history: its items sit in
 * as many blocks) decodes that line only: decoding the whole block's text was as costly as its zstd.
 */
export function feedLine(block: FeedBlock, slot: number): string {
  let starts = block.starts
  if (!starts) {
    starts = new Uint32Array(block.keys.length + 1)
    const text = block.text
    for (let k = 1, at = 0; k < block.keys.length; k++) {
      at = text.indexOf(10, at) + 1
      // A block cut short (its zstd frame has no checksum): the read's damage, not another slot's line.
      if (at === 0) throw new Error('bloco do fluxo com menos linhas que itens')
      starts[k] = at
    }
    starts[block.keys.length] = text.length + 1
    block.starts = starts
  }
  return decoder.decode(block.text.subarray(starts[slot]!, starts[slot + 1]! - 1))
}

/** A CNAE block, compressed (decodeCnaeBlock). */
export const encodeCnaeBlock = (keys: number[], positions: number[]): Uint8Array => compressBlock(cnaeBlockRaw(keys, positions))

/** A CNAE block before compression: count, then key2 of each entry (Float64), then its feed position (Uint32). */
export function cnaeBlockRaw(keys: ArrayLike<number>, positions: ArrayLike<number>): Uint8Array {
  const raw = new Uint8Array(8 + keys.length * 12)
  new DataView(raw.buffer).setUint32(0, keys.length, true)
  new Float64Array(raw.buffer, 8, keys.length).set(keys)
  new Uint32Array(raw.buffer, 8 + keys.length * 8, keys.length).set(positions)
  return raw
}

export interface CnaeBlock {
  keys: Float64Array
  positions: Uint32Array
}

export function decodeCnaeBlock(blob: Uint8Array): CnaeBlock {
  const raw = Bun.zstdDecompressSync(blob)
  const base = raw.byteOffset
  const count = new DataView(raw.buffer, base).getUint32(0, true)
  return {
    keys: new Float64Array(raw.buffer.slice(base + 8, base + 8 + count * 8)),
    positions: new Uint32Array(raw.buffer.slice(base + 8 + count * 8, base + 8 + count * 12)),
  }
}

/** An array of doubles (a block index) as zstd, and back. */
export const encodeFloats = (values: number[] | Float64Array) => Bun.zstdCompressSync(new Uint8Array(Float64Array.from(values).buffer), { level: 9 })
export function decodeFloats(blob: Uint8Array): Float64Array {
  const raw = Bun.zstdDecompressSync(blob)
  return new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength))
}
/** A root block, compressed (decodeRootBlock). */
export const encodeRootBlock = (roots: number[], positions: number[][]): Uint8Array => compressBlock(rootBlockRaw(roots, positions))

/** A root block before compression: root count, the roots (rootKey, Float64), where each one's positions start (Uint32, count + 1), the feed positions (Uint32). */
export function rootBlockRaw(roots: number[], positions: number[][]): Uint8Array {
  const total = positions.reduce((n, p) => n + p.length, 0)
  const raw = new Uint8Array(8 + roots.length * 8 + (roots.length + 1) * 4 + total * 4)
  const view = new DataView(raw.buffer)
  view.setUint32(0, roots.length, true)
  roots.forEach((r, i) => view.setFloat64(8 + i * 8, r, true))
  let at = 0
  const starts = 8 + roots.length * 8
  const list = starts + (roots.length + 1) * 4
  positions.forEach((ps, i) => {
    view.setUint32(starts + i * 4, at, true)
    for (const p of ps) view.setUint32(list + at++ * 4, p, true)
  })
  view.setUint32(starts + roots.length * 4, at, true)
  return raw
}

export interface RootBlock {
  roots: Float64Array
  /** The feed positions of roots[i]: positions.subarray(starts[i], starts[i + 1]). */
  starts: Uint32Array
  positions: Uint32Array
}

export function decodeRootBlock(blob: Uint8Array): RootBlock {
  const raw = Bun.zstdDecompressSync(blob)
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)
  const n = new DataView(buf).getUint32(0, true)
  const starts = new Uint32Array(buf, 8 + n * 8, n + 1)
  return { roots: new Float64Array(buf, 8, n), starts, positions: new Uint32Array(buf, 8 + n * 8 + (n + 1) * 4, starts[n]!) }
}

export const encodeJson = (value: unknown) => Bun.zstdCompressSync(encoder.encode(JSON.stringify(value)), { level: 9 })
export const decodeJson = <T>(blob: Uint8Array): T => JSON.parse(decoder.decode(Bun.zstdDecompressSync(blob))) as T

/** /socios order of partner records (the card store's ORDER BY: entry date with nulls last, name, document, qualification, kind, age bracket, representative). */
const SOCIO_ORDER = (['data_entrada', 'nome', 'cpf_cnpj', 'qualificacao', 'identificador', 'faixa_etaria', 'representante_nome'] as const).map((f) => SOCIO.indexOf(f))
export function compareSocios(a: RegistroSocio, b: RegistroSocio): number {
  for (const i of SOCIO_ORDER) {
    const x = a[i] ?? null
    const y = b[i] ?? null
    if (x === y) continue
    // Nulls last (DuckDB's default for ascending order).
    if (x === null) return 1
    if (y === null) return -1
    return x < y ? -1 : 1
  }
  return 0
}

/**
 * A card record as the card renderer's named fields. Built by a function generated once from FICHA
 * (one object literal of a fixed shape): the loop assigning 29 names one by one was a sixth of a
 * feed page's CPU (profiled at 1 M companies).
 */
export const ficha: (cnpj: string, values: readonly (string | null)[]) => Ficha = new Function(
  'cnpj',
  'v',
  `return { cnpj, ${FICHA.map((f, i) => `${JSON.stringify(f)}: v[${i}] ?? null`).join(', ')} }`,
) as (cnpj: string, values: readonly (string | null)[]) => Ficha

/** The value at a card path ('endereco.uf'); null where the path ends early. */
export function valueAt(card: Record<string, unknown>, path: string): unknown {
  let v: unknown = card
  for (const k of path.split('.')) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[k]
  return v === undefined ? null : v
}
