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

  test('Annex XI goods (art. 142): codes no other Annex reduces now get 60%; the most specific reference first', () => {
    const racoes = idx.avaliar('21069030')
    expect([regimePrincipal(racoes), itens(racoes.beneficios)]).toEqual(['reducao_60', ['XI/2.10@2106.90.30']])
    expect(itens(idx.avaliar('87100000').beneficios)).toEqual(['XI/2.2@8710.00.00'])
    // Both items citing position 87.09 (military and public-security vehicles) reach 8709.11.00.
    expect(itens(idx.avaliar('87091100').beneficios)).toEqual(['XI/2.1@8709', 'XI/2.3@8709'])
    expect(itens(idx.avaliar('93062110').beneficios)).toEqual(['XI/2.12@9306.2', 'XI/2.8@9306', 'XI/2.11@9306', 'XI/2.13@9306'])
    expect(itens(idx.avaliar('85176259').beneficios)).toEqual(['XI/2.22@8517.62.59', 'XI/2.23@8517.62.59', 'XI/2.26@8517.62.59'])
    expect(itens(idx.avaliar('85176241').beneficios)).toEqual(['XI/2.27@8517.62.4'])
    // Space vehicles: Annex XI item 2.15 by its full code, then the aircraft of 2.14; the Imposto Seletivo excepts the code.
    const satelite = idx.avaliar('88026000')
    expect([itens(satelite.beneficios), satelite.seletivo]).toEqual([['XI/2.15@8802.60.00', 'XI/2.14@8802'], []])
    // Aircraft: 60% of Annex XI item 2.14 (for national security) and, apart, the Imposto Seletivo.
    const aviao = idx.avaliar('88023000')
    expect([itens(aviao.beneficios), aviao.seletivo.map((x) => x.item.item)]).toEqual([['XI/2.14@8802'], ['II']])
  })

  test('Annex X works of art by NCM (art. 139, VIII); its services are NBS and reach no NCM code', () => {
    expect(itens(idx.avaliar('97019100').beneficios)).toEqual(['X/43@9701.91.00'])
    expect(itens(idx.avaliar('49119100').beneficios)).toEqual(['X/42@4911.91.00'])
    expect(itens(idx.avaliar('97019900').beneficios)).toEqual([])
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
