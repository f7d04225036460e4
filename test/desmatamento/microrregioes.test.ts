// The IBGE microregion table kept as data: complete, consistent, and comparable with IBGE's API.
import { describe, expect, test } from 'bun:test'
import { conferir, microrregiaoDe, nomeMicrorregiao, todosMunicipios, UF_POR_CODIGO } from '../../ingest/desmatamento/microrregioes'
import TABELA from '../../ingest/desmatamento/microrregioes-ibge.json'

describe('IBGE microregions', () => {
  test('5,571 municipalities (the 5,570 of the DTB and Boa Esperança do Norte), 558 microregions, each named, each in its state', () => {
    const all = todosMunicipios()
    expect(all.length).toBe(5571)
    expect(new Set(all.map(([, m]) => m)).size).toBe(558)
    expect(Object.keys(TABELA.microrregioes).length).toBe(558)
    for (const [ibge, micro] of all) {
      expect(ibge).toMatch(/^[1-5]\d{6}$/)
      expect(micro.slice(0, 2)).toBe(ibge.slice(0, 2))
      expect(UF_POR_CODIGO[ibge.slice(0, 2)]).toBeDefined()
      expect(nomeMicrorregiao(micro)).not.toBeNull()
    }
  })

  test('known places: Rio Branco, Paragominas, Boa Esperança do Norte with its parents Sorriso and Nova Ubiratã', () => {
    expect([microrregiaoDe('1200401'), nomeMicrorregiao('12004')]).toEqual(['12004', 'RIO BRANCO'])
    expect([microrregiaoDe('1505502'), nomeMicrorregiao('15017')]).toEqual(['15017', 'PARAGOMINAS'])
    expect(['5101837', '5107925', '5106240'].map(microrregiaoDe)).toEqual(['51006', '51006', '51006'])
    expect(microrregiaoDe('9999999')).toBeNull()
  })

  test('compared with an answer of the IBGE localidades API (its published shape)', () => {
    // As servicodados.ibge.gov.br/api/v1/localidades/municipios answers (shape as in its documentation).
    const api = todosMunicipios().map(([id, micro]) => ({ id: Number(id), nome: `m${id}`, microrregiao: { id: Number(micro), nome: nomeMicrorregiao(micro)! } }))
    expect(conferir(api)).toEqual([])
    api[0] = { id: 1100015, nome: "Alta Floresta D'Oeste", microrregiao: { id: 11008, nome: 'Colorado do Oeste' } }
    api.pop()
    expect(conferir(api)).toEqual(["1100015 Alta Floresta D'Oeste: IBGE 11008, tabela 11006", '5300108: na tabela, ausente da resposta do IBGE'])
    // The API's own documented example (Alta Floresta D'Oeste, microregion 11006 Cacoal) agrees.
    expect(conferir([{ id: 1100015, nome: "Alta Floresta D'Oeste", microrregiao: { id: 11006, nome: 'Cacoal' } }]).filter((d) => d.startsWith('1100015') || d.startsWith('microrregião'))).toEqual([])
    // Names compare without case or accents: the table's are the DTB's upper-case ASCII.
    expect(conferir([{ id: 5107925, nome: 'Sorriso', microrregiao: { id: 51006, nome: 'Alto Teles Pires' } }]).filter((d) => d.startsWith('microrregião'))).toEqual([])
  })
})
