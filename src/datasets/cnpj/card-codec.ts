// The card store's compact card text (docs/cnpj.md, "Cartões compactos"). A national month's cards
// did not fit the page cache of a 24 GiB machine beside the name indexes, so lookups of CNPJs never
// asked before went to disk. Each FICHA field keeps its text, with three codings where text repeats:
// - words: the words (or list items) most frequent in the month's cards are each a code, from a
//   dictionary the build writes beside the cards (table `dicionario` of fichas.sqlite): a control
//   character (0x01-0x1C, which the text of a coded field never keeps: see below) and one or two
//   printable ASCII characters, 2 bytes for the 1,344 most frequent words and 3 for the others. Two
//   adjacent codes stand for two words with one separator between them (a space, or the list's comma).
// - dates: YYYY-MM-DD as 0x1D and three ASCII characters, the day counted from 1900-01-01.
// - booleans: 'true' as '1', false and null as nothing; decimals lose a trailing '.00'.
// Codes are ASCII, so a card stays a one-byte-per-character string in the engine (code characters
// above U+00FF made every card, and every field cut from it, a two-byte string: measured 30 % more
// CPU per lookup). A control character in the text of a coded field (a line break inside a quoted
// name: garbage in the dump) is stored as a space. CardStoreReader (cards.ts) is the only reader.
import { FICHA, type FichaField } from './layout'

export type Codec = 'texto' | 'palavras' | 'lista' | 'email' | 'data' | 'booleano' | 'decimal'

/** How each card field is stored (FICHA order). A field added to FICHA picks its coding here. */
export const FICHA_CODEC: Record<FichaField, Codec> = {
  dv: 'texto', matriz_filial: 'texto', nome_fantasia: 'palavras', situacao: 'texto', data_situacao: 'data', motivo: 'texto',
  data_inicio: 'data', cnae_principal: 'palavras', cnaes_secundarios: 'lista', tipo_logradouro: 'palavras', logradouro: 'palavras',
  numero: 'texto', complemento: 'palavras', bairro: 'palavras', municipio: 'palavras', cidade_exterior: 'palavras', uf: 'texto',
  cep: 'texto', ddd1: 'texto', telefone1: 'texto', ddd2: 'texto', telefone2: 'texto', email: 'email', pais: 'texto', ddd_fax: 'texto',
  fax: 'texto', situacao_especial: 'palavras', data_situacao_especial: 'data', razao_social: 'palavras', natureza_juridica: 'palavras',
  porte: 'texto', capital_social: 'decimal', qualificacao_responsavel: 'texto', ente_federativo: 'palavras', opcao_simples: 'booleano',
  opcao_mei: 'booleano', data_opcao_simples: 'data', data_exclusao_simples: 'data', data_opcao_mei: 'data', data_exclusao_mei: 'data',
}
const CODECS = FICHA.map((f) => FICHA_CODEC[f])

/** Codes: a marker (0x01-0x0E short, 0x0F-0x1C long) and one or two characters of 0x20-0x7F. */
const BASE = 96
const PRINTABLE = 0x20
const SHORT_MARKERS = 14
const SHORT = SHORT_MARKERS * BASE
const LONG_MARKER = 0x01 + SHORT_MARKERS
const DATE_MARKER = 0x1d
/** How many words the dictionary may hold. */
export const MAX_CODES = SHORT + SHORT_MARKERS * BASE * BASE
/** The code of the word of rank n. */
export function codeText(n: number): string {
  if (n < SHORT) return String.fromCharCode(0x01 + Math.floor(n / BASE), PRINTABLE + (n % BASE))
  const m = n - SHORT
  return String.fromCharCode(LONG_MARKER + Math.floor(m / (BASE * BASE)), PRINTABLE + (Math.floor(m / BASE) % BASE), PRINTABLE + (m % BASE))
}
/** The UTF-8 bytes a word's code takes (rank n in the dictionary). */
export const codeBytes = (n: number) => (n < SHORT ? 2 : 3)

const DAY = 86_400_000
const EPOCH = Date.UTC(1900, 0, 1)
const pad2 = (n: number) => (n < 10 ? '0' + n : String(n))

/** Days before each month in a common year. */
const MONTH_DAYS = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
const digit = (text: string, i: number) => text.charCodeAt(i) - 48

/** YYYY-MM-DD as its code, by arithmetic on the characters (a date Map or a Date per value cost most of the build's coding). */
function encodeDate(text: string): string {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return text
  const y = digit(text, 0) * 1000 + digit(text, 1) * 100 + digit(text, 2) * 10 + digit(text, 3)
  const m = digit(text, 5) * 10 + digit(text, 6)
  const d = digit(text, 8) * 10 + digit(text, 9)
  if (!(y >= 1900 && m >= 1 && m <= 12 && d >= 1 && d <= 31)) return text
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const before = y - 1901
  const days = (y - 1900) * 365 + Math.floor(before / 4) - Math.floor(before / 100) + Math.floor((before + 300) / 400) + MONTH_DAYS[m - 1]! + (leap && m > 2 ? 1 : 0) + d - 1
  if (days >= BASE ** 3) return text
  return String.fromCharCode(DATE_MARKER, PRINTABLE + Math.floor(days / (BASE * BASE)), PRINTABLE + (Math.floor(days / BASE) % BASE), PRINTABLE + (days % BASE))
}

function decodeDate(days: number): string {
  const d = new Date(EPOCH + days * DAY)
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`
}

/** Control characters a coded field's text never keeps (they are the codes' markers). */
const CONTROL = /[\u0001-\u001d]/g
const CONTROL_CHAR = /[\u0001-\u001d]/

/** Fields whose coded text is remembered by value while the store is built (few distinct values). */
const MEMO_FIELDS = new Set<FichaField>(['tipo_logradouro', 'bairro', 'municipio', 'cnae_principal', 'natureza_juridica', 'situacao_especial', 'ente_federativo', 'cidade_exterior', 'cnaes_secundarios'])
/** Values remembered per field at most (a real month's districts run to hundreds of thousands). */
const MEMO_SIZE = 200_000

/** The words a field's text is split into for the dictionary (and the separator they are joined by). */
export function wordsOf(codec: Codec, text: string): string[] {
  if (codec === 'palavras') return text.split(' ')
  if (codec === 'lista') return text.split(',')
  if (codec === 'email') {
    const at = text.lastIndexOf('@')
    return at > 0 ? [text.slice(at)] : []
  }
  return []
}

/** Every date text, made once each as first met (by its day since 1900-01-01). */
const dateTexts: string[] = []
const dateText = (days: number): string => (dateTexts[days] ??= decodeDate(days))

export class CardCodec {
  private readonly codes: Map<string, string>
  constructor(
    /** The dictionary, most frequent first: a word's rank is its code. */
    readonly words: readonly string[],
  ) {
    this.codes = new Map(words.map((w, i) => [w, codeText(i)]))
  }

  /** A field coded word by word: two codes side by side imply the separator between them; anything else keeps it. */
  private coded(text: string, separator: string): string {
    let out = ''
    let previousCoded = false
    let start = 0
    for (;;) {
      let end = text.indexOf(separator, start)
      if (end < 0) end = text.length
      // The dictionary holds words of 3 bytes or more only.
      const code = end - start > 1 ? this.codes.get(text.slice(start, end)) : undefined
      if (start > 0 && !(code !== undefined && previousCoded)) out += separator
      out += code ?? text.slice(start, end)
      previousCoded = code !== undefined
      if (end === text.length) return out
      start = end + 1
    }
  }

  /**
   * Field texts coded already, for the fields whose values repeat (a municipality's code, a legal
   * nature, a street type, a district...): the card store is built from hundreds of millions of
   * such values, and a lookup costs less than splitting and coding the words again.
   */
  private readonly memo = FICHA.map((f) => (MEMO_FIELDS.has(f) ? new Map<string, string>() : undefined))

  private field(codec: Codec, raw: string, f: number): string {
    const memo = this.memo[f]
    if (memo) {
      let coded = memo.get(raw)
      if (coded === undefined) {
        coded = this.field(codec, raw, -1)
        if (memo.size < MEMO_SIZE) memo.set(raw, coded)
      }
      return coded
    }
    // The markers are never left in a coded field's text (rare garbage: a line break in a name).
    const v = (codec === 'palavras' || codec === 'lista' || codec === 'email') && CONTROL_CHAR.test(raw) ? raw.replace(CONTROL, ' ') : raw
    switch (codec) {
      case 'palavras': return this.coded(v, ' ')
      case 'lista': return this.coded(v, ',')
      case 'email': {
        const at = v.lastIndexOf('@')
        const code = at > 0 ? this.codes.get(v.slice(at)) : undefined
        return code ? v.slice(0, at) + code : v
      }
      case 'data': return encodeDate(v)
      case 'booleano': return v === 'true' ? '1' : ''
      case 'decimal': return v.endsWith('.00') ? v.slice(0, -3) : v
      default: return v
    }
  }

  /** A card's text (FICHA fields joined by CARD_SEPARATOR, as the build's query gives it) in its compact form. */
  encode(dados: string): string {
    let out = ''
    /** Where the text not yet copied starts: plain fields are copied in runs. */
    let copied = 0
    let start = 0
    for (let f = 0; ; f++) {
      let end = dados.indexOf('\u001f', start)
      if (end < 0) end = dados.length
      const codec = CODECS[f]
      if (codec !== 'texto' && end > start) {
        const v = dados.slice(start, end)
        const coded = this.field(codec!, v, f)
        if (coded !== v) {
          out += dados.slice(copied, start) + coded
          copied = end
        }
      }
      if (end === dados.length) return out + dados.slice(copied)
      start = end + 1
    }
  }

  /**
   * A stored card's FICHA fields as the routes read them (blank for null): the build's text, except
   * that a boolean false and a missing Simples row both read as blank and a capital may lack its
   * '.00' (the routes take neither apart).
   */
  fields(stored: string): string[] {
    const fields = stored.split('\u001f')
    for (let i = 0; i < fields.length; i++) {
      const v = fields[i]!
      const codec = CODECS[i]
      if (codec === 'texto' || !v) continue
      if (codec === 'booleano') fields[i] = v === '1' ? 'true' : ''
      else if (codec === 'data') fields[i] = v.charCodeAt(0) === DATE_MARKER ? dateText(((v.charCodeAt(1) - PRINTABLE) * BASE + v.charCodeAt(2) - PRINTABLE) * BASE + v.charCodeAt(3) - PRINTABLE) : v
      else if (codec !== 'decimal') fields[i] = this.expand(v, codec === 'lista' ? ',' : ' ')
    }
    return fields
  }

  /** A field's words back from their codes (no code: the text itself). */
  private expand(v: string, separator: string): string {
    let i = 0
    while (i < v.length && v.charCodeAt(i) >= PRINTABLE) i++
    if (i === v.length) return v
    let out = v.slice(0, i)
    let previousCoded = false
    while (i < v.length) {
      const c = v.charCodeAt(i)
      if (c >= PRINTABLE) {
        let j = i + 1
        while (j < v.length && v.charCodeAt(j) >= PRINTABLE) j++
        out += v.slice(i, j)
        previousCoded = false
        i = j
        continue
      }
      let n: number
      if (c < LONG_MARKER) {
        n = (c - 0x01) * BASE + v.charCodeAt(i + 1) - PRINTABLE
        i += 2
      } else {
        n = SHORT + ((c - LONG_MARKER) * BASE + v.charCodeAt(i + 1) - PRINTABLE) * BASE + v.charCodeAt(i + 2) - PRINTABLE
        i += 3
      }
      if (previousCoded) out += separator
      out += this.words[n]
      previousCoded = true
    }
    return out
  }
}
