// The IBGE municipality code check (src/core/ibge.ts) against the whole IBGE municipality table the
// project holds: every real code passes, and the rule alone fails exactly IBGE's nine known exceptions.
import { describe, expect, test } from 'bun:test'
import TABELA from '../../ingest/desmatamento/microrregioes-ibge.json'
import { checkIbgeMunicipio, digitoIbge, UF_POR_CODIGO } from '../../src/core/ibge'

const reais = Object.keys(TABELA.municipios)

describe('IBGE municipality codes', () => {
  test('every one of the 5,571 real codes passes; the digit rule alone misses exactly nine, the known exceptions', () => {
    expect(reais.length).toBe(5571)
    expect(reais.filter((c) => !checkIbgeMunicipio(c).valido)).toEqual([])
    expect(reais.filter((c) => digitoIbge(c) !== Number(c[6]))).toEqual(['2201919', '2201988', '2202251', '2611533', '3117836', '3152131', '4305871', '5203939', '5203962'])
    // Every state code of the table is one of the 27, and each of the 27 has municipalities.
    expect(new Set(reais.map((c) => c.slice(0, 2)))).toEqual(new Set(Object.keys(UF_POR_CODIGO)))
  })

  test('the rule on known codes: Altamira 1500602, Rio Branco 1200401, São Paulo 3550308, Brasília 5300108', () => {
    expect(['150060', '120040', '355030', '530010'].map(digitoIbge)).toEqual([2, 1, 8, 8])
  })

  test('a changed seventh digit fails, for every real code', () => {
    const aceitos = reais.flatMap((c) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => `${c.slice(0, 6)}${(Number(c[6]) + d) % 10}`)).filter((c) => checkIbgeMunicipio(c).valido)
    // Only where the real code is an exception: its seventh digit by the rule, which no municipality has.
    expect(aceitos).toEqual(['2201911', '2201986', '2202257', '2611531', '3117835', '3152139', '4305876', '5203930', '5203963'])
    expect(aceitos.filter((c) => reais.includes(c))).toEqual([])
  })

  test('what is refused and why', () => {
    expect(['150060', '15006022', '15006O2', ' 1500602', '1500602 ', ''].map((v) => checkIbgeMunicipio(v))).toEqual(Array(6).fill({ valido: false, motivo: 'formato_invalido' }))
    expect(checkIbgeMunicipio('9999999')).toEqual({ valido: false, motivo: 'digito_verificador_invalido' })
    expect(checkIbgeMunicipio('9999996')).toEqual({ valido: false, motivo: 'uf_inexistente' })
    expect(checkIbgeMunicipio('0000000')).toEqual({ valido: false, motivo: 'uf_inexistente' })
    expect(checkIbgeMunicipio('3599990')).toEqual({ valido: true })
  })
})
