// How a code finds its regime in the annexes (src/datasets/tributos/regimes.ts), on the real annex
// data: prefixes of every level, "exceto", remissions between Annexes, the order of the items, and
// the Imposto Seletivo apart.
import { describe, expect, test } from 'bun:test'
import { IndiceAnexos, regimePrincipal, type Avaliacao } from '../../src/datasets/tributos/regimes'

const idx = new IndiceAnexos()
const itens = (a: Avaliacao['beneficios']) => a.map((x) => `${x.anexo.anexo}/${x.item.item}@${x.ref.texto}`)
const fora = (a: Avaliacao) => a.exclusoes.map((e) => `${e.anexo.anexo}/${e.item.item}:${e.motivo}:${e.por}`)

describe('IndiceAnexos.avaliar', () => {
  test('rice 1006.30.21: Annex I item 1 through its subposition, before the chapter-wide 60% items; Annex VII item 15 ressalva Annex I', () => {
    const a = idx.avaliar('10063021')
    expect(regimePrincipal(a)).toBe('aliquota_zero')
    expect(itens(a.beneficios)).toEqual(['I/1@1006.30', 'IX/10@10', 'IX/19@10'])
    expect(fora(a)).toEqual(['VII/15:remissao:Anexo I'])
    expect(a.seletivo).toEqual([])
  })

  test('paddy rice 1006.10.90 is not in Annex I: Annex VII item 15 (cereals of chapter 10) applies', () => {
    const a = idx.avaliar('10061090')
    expect(regimePrincipal(a)).toBe('reducao_60')
    expect(itens(a.beneficios)).toEqual(['VII/15@10', 'IX/10@10', 'IX/19@10'])
  })

  test('foie gras 0207.43.00: taken out of Annex I item 19 by its "exceto"; no other item: standard rates', () => {
    const a = idx.avaliar('02074300')
    expect(regimePrincipal(a)).toBe('aliquota_padrao')
    expect(fora(a)).toEqual(['I/19:exceto:0207.43.00'])
    expect(itens(idx.avaliar('02074100').beneficios)).toEqual(['I/19@02.07'])
  })

  test('an exception applies only inside its alínea (Annex I item 20: salmonids excepted in a) and b))', () => {
    expect(fora(idx.avaliar('03021100'))).toEqual(['I/20:exceto:0302.1'])
    expect(itens(idx.avaliar('03028100').beneficios)).toEqual(['I/20@03.02'])
  })

  test('mushrooms 0709.51.00: Annex XV item 2 excepts them, so Annex VII item 14 (chapter 7, ressalva of XV) applies', () => {
    const a = idx.avaliar('07095100')
    expect(itens(a.beneficios)).toEqual(['VII/14@7', 'IX/10@7'])
    expect(fora(a)).toEqual(['XV/2:exceto:0709.5'])
    const batata = idx.avaliar('07011000')
    expect(itens(batata.beneficios)).toEqual(['XV/2@07.01', 'IX/10@7'])
    expect(fora(batata)).toEqual(['VII/14:remissao:Anexo XV'])
  })

  test('2106.90.90: the same full code in Annex I (items 4 and 26) and Annex VI (items 39 to 46); zero comes first', () => {
    const a = idx.avaliar('21069090')
    expect(itens(a.beneficios)).toEqual(['I/4@2106.90.90', 'I/26@2106.9090', ...[39, 40, 41, 42, 43, 44, 45, 46].map((i) => `VI/${i}@2106.90.90`)])
  })

  test('the more specific reference wins over a larger reduction (Annex V 9025.19.90 before Annex XII 90.25)', () => {
    expect(itens(idx.avaliar('90251990').beneficios)).toEqual(['V/2.3@9025.19.90', 'XII/12@90.25'])
  })

  test('Imposto Seletivo apart from the IBS/CBS regimes; its exception 8802.60.00', () => {
    expect(idx.avaliar('22030000').seletivo.map((s) => s.item.item)).toEqual(['IV'])
    expect(idx.avaliar('22021000').seletivo.map((s) => s.item.item)).toEqual(['V'])
    expect(idx.avaliar('88021100').seletivo.map((s) => s.item.item)).toEqual(['II'])
    const satelite = idx.avaliar('88026000')
    expect([satelite.seletivo, fora(satelite)]).toEqual([[], ['XVII/II:exceto:8802.60.00']])
    expect(regimePrincipal(idx.avaliar('87032310'))).toBe('aliquota_padrao')
  })

  test('a code no annex cites: standard rates, nothing excluded', () => {
    const a = idx.avaliar('84713012')
    expect([regimePrincipal(a), a.beneficios, a.seletivo, a.exclusoes]).toEqual(['aliquota_padrao', [], [], []])
  })

  test('abaixo: the references under a short code', () => {
    expect(idx.abaixo('1006').map((a) => `${a.anexo.anexo}/${a.item.item}@${a.ref.texto}`)).toEqual(['I/1@1006.20', 'I/1@1006.30', 'I/1@1006.40.00'])
    expect(idx.abaixo('10063021')).toEqual([])
  })
})
