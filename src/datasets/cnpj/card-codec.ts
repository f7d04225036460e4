// The card store's compact card text (docs/cnpj.md, "Cartões compactos"). A national month's cards
// did not fit the page cache of a 24 GiB machine beside the name indexes, so lookups of CNPJs never
// asked before went to disk. Each FICHA field keeps its text, with three codings where text repeats:
// - words: the words (or list items) most frequent in the month's cards take one character each,
//   from a dictionary the build writes beside the cards (table `dicionario` of fichas.sqlite). The
//   dump is latin-1, so no card text holds a character from U+0100 up: those are the codes, two
//   UTF-8 bytes for the 1,792 most frequent words, three for the others. Two adjacent codes stand
//   for two words with one separator between them (a space, or the list's comma).
// - dates: YYYY-MM-DD as one character, the day counted from 1900-01-01 (three UTF-8 bytes instead
//   of ten); a date outside 1900-2073 stays as its text.
// - booleans: 'true' as '1', false and null as nothing; decimals lose a trailing '.00'.
// The codes never appear in a field coded as plain text (texto): only letters of the dump.
// The decoder walks the text once, field by field; CardStoreReader (cards.ts) is its only caller.
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
const SEPARATOR = 0x1f

/** Codes: U+0100-U+07FF (two UTF-8 bytes), then U+0800-U+FFFD skipping the surrogates (three). */
const TWO_BYTE_CODES = 0x700
const SURROGATES = 0xd800
const AFTER_SURROGATES = 0xe000
const LAST = 0xfffd
/** How many codes there are: the dictionary's size limit, and the dates' range in days. */
export const MAX_CODES = TWO_BYTE_CODES + (SURROGATES - 0x800) + (LAST + 1 - AFTER_SURROGATES)
export const codeChar = (n: number): number => (n < TWO_BYTE_CODES ? 0x100 + n : n < TWO_BYTE_CODES + SURROGATES - 0x800 ? 0x800 + n - TWO_BYTE_CODES : AFTER_SURROGATES + n - TWO_BYTE_CODES - (SURROGATES - 0x800))
const codeOf = (c: number): number => (c < 0x800 ? c - 0x100 : c < SURROGATES ? TWO_BYTE_CODES + c - 0x800 : TWO_BYTE_CODES + (SURROGATES - 0x800) + c - AFTER_SURROGATES)

/** The UTF-8 bytes a word's code takes (rank n in the dictionary). */
export const codeBytes = (n: number) => (n < TWO_BYTE_CODES ? 2 : 3)

const DAY = 86_400_000
const EPOCH = Date.UTC(1900, 0, 1)
const pad2 = (n: number) => (n < 10 ? '0' + n : String(n))

function encodeDate(text: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!m) return text
  const days = Math.round((Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) - EPOCH) / DAY)
  return days >= 0 && days < MAX_CODES ? String.fromCharCode(codeChar(days)) : text
}

function decodeDate(c: number): string {
  const d = new Date(EPOCH + codeOf(c) * DAY)
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`
}

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

export class CardCodec {
  private readonly codes: Map<string, string>
  constructor(
    /** The dictionary, most frequent first: a word's rank is its code. */
    readonly words: readonly string[],
  ) {
    this.codes = new Map(words.map((w, i) => [w, String.fromCharCode(codeChar(i))]))
  }

  private coded(tokens: string[], separator: string): string {
    let out = ''
    let previousCoded = false
    for (let i = 0; i < tokens.length; i++) {
      const code = this.codes.get(tokens[i]!)
      // Two codes side by side imply the separator between them; anything else keeps it.
      if (i > 0 && !(code !== undefined && previousCoded)) out += separator
      out += code ?? tokens[i]
      previousCoded = code !== undefined
    }
    return out
  }

  /** A card's text (FICHA fields joined by CARD_SEPARATOR, as the build's query gives it) in its compact form. */
  encode(dados: string): string {
    const fields = dados.split('\u001f')
    for (let i = 0; i < fields.length; i++) {
      const v = fields[i]!
      if (!v) continue
      switch (CODECS[i]) {
        case 'palavras': fields[i] = this.coded(v.split(' '), ' '); break
        case 'lista': fields[i] = this.coded(v.split(','), ','); break
        case 'email': {
          const at = v.lastIndexOf('@')
          const code = at > 0 ? this.codes.get(v.slice(at)) : undefined
          if (code) fields[i] = v.slice(0, at) + code
          break
        }
        case 'data': fields[i] = encodeDate(v); break
        case 'booleano': fields[i] = v === 'true' ? '1' : ''; break
        case 'decimal': if (v.endsWith('.00')) fields[i] = v.slice(0, -3); break
      }
    }
    return fields.join('\u001f')
  }

  /**
   * The card's text with every field as the routes read it (the build's text, except that a boolean
   * false and a missing Simples row both read as blank, and a capital may lack its '.00': the
   * routes take neither apart).
   */
  decode(stored: string): string {
    let out = ''
    let field = 0
    let codec = CODECS[0]!
    let previousCoded = false
    let start = 0
    const n = stored.length
    for (let i = 0; i <= n; i++) {
      const c = i < n ? stored.charCodeAt(i) : SEPARATOR
      if (c === SEPARATOR) {
        if (codec === 'booleano') out += stored.charCodeAt(start) === 49 && i === start + 1 ? 'true' : ''
        else out += stored.slice(start, i)
        if (i < n) out += '\u001f'
        codec = CODECS[++field]!
        previousCoded = false
        start = i + 1
      } else if (c < 0x100) previousCoded = false
      else {
        out += stored.slice(start, i)
        start = i + 1
        if (codec === 'data') out += decodeDate(c)
        else {
          if (previousCoded) out += codec === 'lista' ? ',' : ' '
          out += this.words[codeOf(c)]
          previousCoded = true
        }
      }
    }
    return out
  }
}
