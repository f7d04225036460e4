// The card store's compact coding (src/datasets/cnpj/card-codec.ts): every card reads back as it was
// written, field by field (booleans and capitals as the routes read them), whatever its text.
import { describe, expect, test } from 'bun:test'
import { CardCodec, codeText, FICHA_CODEC, MAX_CODES } from '../../src/datasets/cnpj/card-codec'
import { FICHA } from '../../src/datasets/cnpj/layout'

const card = (values: Partial<Record<(typeof FICHA)[number], string>>) => FICHA.map((f) => values[f] ?? '').join('\u001f')
/** What the routes read: a boolean false and a missing Simples row are both blank, a capital may lose its '.00'. */
const asRead = (text: string) => text.split('\u001f').map((v, i) => (FICHA_CODEC[FICHA[i]!] === 'booleano' ? (v === 'true' ? 'true' : '') : FICHA_CODEC[FICHA[i]!] === 'decimal' ? v.replace(/\.00$/, '') : v)).join('\u001f')

describe('card codec', () => {
  const codec = new CardCodec(['RUA', 'SILVA', 'COMERCIO', '4721103', '5611201', '@GMAIL.COM', 'CENTRO', 'LTDA', '7107'])

  test('words, lists, e-mail domains, dates, booleans and capitals are coded; the text reads back', () => {
    const text = card({
      dv: '35', nome_fantasia: 'COMERCIO SILVA', data_situacao: '2026-07-15', data_inicio: '1967-06-30', cnae_principal: '4721102',
      cnaes_secundarios: '4721103,5611201,9999999', tipo_logradouro: 'RUA', logradouro: 'DAS  ACACIAS SILVA ', bairro: 'CENTRO', municipio: '7107',
      email: 'joao.silva@GMAIL.COM', razao_social: 'SILVA COMERCIO LTDA', capital_social: '150000.50', opcao_simples: 'true', opcao_mei: 'false',
      data_opcao_simples: '2015-03-10',
    })
    const stored = codec.encode(text)
    expect(codec.fields(stored).join('\u001f')).toBe(asRead(text))
    // 'COMERCIO SILVA' is two codes (the space implied), the date one character, 'true' one.
    expect(stored.split('\u001f')[FICHA.indexOf('nome_fantasia')]).toBe(codeText(2) + codeText(1))
    expect(stored.split('\u001f')[FICHA.indexOf('data_inicio')]!.length).toBe(4)
    expect(stored.split('\u001f')[FICHA.indexOf('opcao_simples')]).toBe('1')
    expect(stored.split('\u001f')[FICHA.indexOf('email')]).toBe('joao.silva' + codeText(5))
    // ASCII only: the card stays a one-byte-per-character string.
    expect(/[^\x00-\xff]/.test(stored)).toBe(false)
    expect(Buffer.byteLength(stored)).toBeLessThan(Buffer.byteLength(text) * 0.7)
  })

  test('dates at the edges of the coded range, and outside it, read back', () => {
    for (const d of ['1900-01-01', '1899-12-31', '2026-02-28', '2024-02-29', '2073-02-06', '2099-12-31', '2100-12-31']) {
      const text = card({ dv: '00', data_inicio: d })
      expect(codec.fields(codec.encode(text)).join('\u001f')).toBe(text)
    }
  })

  test('a control character inside a coded field (a line break in a quoted name) reads as a space; in a plain field, as it is', () => {
    const text = card({ dv: '00', razao_social: 'COMERCIO\nSILVA\u0001X', numero: '1\t2' })
    expect(codec.fields(codec.encode(text))).toEqual(asRead(card({ dv: '00', razao_social: 'COMERCIO SILVA X', numero: '1\t2' })).split('\u001f'))
  })

  test('random text over the whole dump alphabet (latin-1, separators of words and lists), with a dictionary of 70 000 words, reads back', () => {
    let seed = 7
    const r = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
    const words = Array.from({ length: MAX_CODES }, (_, i) => `W${i}`)
    const big = new CardCodec(words)
    const alphabet = 'AB ,@.çÃ0123W9 \u007f~'
    const piece = () => (r() < 0.5 ? words[Math.floor(r() * 70_000) % words.length]! : Array.from({ length: Math.floor(r() * 6) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''))
    for (let n = 0; n < 3000; n++) {
      const values: Record<string, string> = {}
      for (const f of FICHA) {
        const codec = FICHA_CODEC[f]
        values[f] = codec === 'data' ? (r() < 0.5 ? '' : `${1890 + Math.floor(r() * 200)}-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`)
          : codec === 'booleano' ? ['true', 'false', ''][Math.floor(r() * 3)]!
          : codec === 'decimal' ? ['', '0.00', '12.50', '1061004829.23'][Math.floor(r() * 4)]!
          : Array.from({ length: Math.floor(r() * 4) }, piece).join(codec === 'lista' ? ',' : codec === 'email' ? '@' : ' ')
      }
      const text = card(values)
      expect(big.fields(big.encode(text)).join('\u001f')).toBe(asRead(text))
    }
  })
})
