// How a bulk request's list of CNPJs is read (src/core/lote.ts): the price (units) and the answer
// read it through the same function, so they always agree.
import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/core/errors'
import { CNPJ_DIGITO_INVALIDO, CNPJ_FORMATO_INVALIDO, lerLote, unidadesDoLote } from '../../src/core/lote'

const q = (cnpjs: string) => new URLSearchParams({ cnpjs })
const refused = (query: URLSearchParams) => {
  try {
    lerLote(query)
  } catch (err) {
    if (err instanceof ApiError) return [err.status, err.codigo, err.message]
    throw err
  }
  return null
}

describe('lerLote', () => {
  test('commas, with or without spaces; punctuated or not; the order given; each CNPJ once', () => {
    const lote = lerLote(q('33683111000280, 33.683.111/0002-80,12.abc.345/01de-35 ,123,33683111000107,123'))
    expect(lote.itens).toEqual([
      { entrada: '33683111000280', cnpj: '33683111000280' },
      { entrada: '12.abc.345/01de-35', cnpj: '12ABC34501DE35' },
      { entrada: '123', cnpj: null, erro: { codigo: 'cnpj_invalido', mensagem: CNPJ_FORMATO_INVALIDO } },
      { entrada: '33683111000107', cnpj: '33683111000107' },
    ])
    expect(lote.validos).toEqual(['33683111000280', '12ABC34501DE35', '33683111000107'])
    expect(unidadesDoLote({ query: q('33683111000280, 33.683.111/0002-80,12.abc.345/01de-35 ,123,33683111000107,123') })).toBe(3)
    // A wrong check digit is the single route's other message; empty items (a trailing comma) are skipped.
    expect(lerLote(q('33683111000281,33683111000280,')).itens[0]).toEqual({ entrada: '33683111000281', cnpj: null, erro: { codigo: 'cnpj_invalido', mensagem: CNPJ_DIGITO_INVALIDO } })
    // Spaces inside one CNPJ are punctuation, as on the single routes.
    expect(lerLote(q('33 683 111 0002 80')).validos).toEqual(['33683111000280'])
  })

  test('100 items at most, counted as given (duplicates and invalid ones included)', () => {
    expect(lerLote(q(Array(100).fill('33683111000280').join(','))).validos).toEqual(['33683111000280'])
    expect(refused(q(Array(101).fill('33683111000280').join(',')))).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'cnpjs': no máximo 100 CNPJs por pedido (vieram 101); divida a lista em pedidos de até 100"])
  })

  test('the documented 400s: empty, other separators, no valid CNPJ, repeated parameter', () => {
    const empty = [400, 'parametro_invalido', "parâmetro de consulta 'cnpjs': informe de 1 a 100 CNPJs separados por vírgula (ex. cnpjs=33683111000280,33.683.111/0002-80)"]
    expect(refused(new URLSearchParams())).toEqual(empty)
    expect(refused(q(''))).toEqual(empty)
    expect(refused(q(' , ,'))).toEqual(empty)
    const separator = [400, 'parametro_invalido', "parâmetro de consulta 'cnpjs': separe os CNPJs por vírgula (ex. cnpjs=33683111000280,33.683.111/0002-80); ponto e vírgula, barra vertical, tabulação e quebra de linha não separam"]
    for (const sep of [';', '|', '\t', '\n', '\r\n']) expect(refused(q(`33683111000280${sep}12ABC34501DE35`))).toEqual(separator)
    expect(refused(q('33683111000280 12ABC34501DE35'))).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'cnpjs': separe os CNPJs por vírgula (ex. cnpjs=33683111000280,33.683.111/0002-80); espaço não separa"])
    expect(refused(q('123,abc,33683111000281'))).toEqual([400, 'parametro_invalido', "parâmetro de consulta 'cnpjs': nenhum CNPJ válido na lista; confira cada um em /v1/ferramentas/cnpj/{valor} (grátis). Nada foi cobrado"])
    expect(refused(new URLSearchParams('cnpjs=33683111000280&cnpjs=12ABC34501DE35'))).toEqual([400, 'parametro_repetido', "parâmetro de consulta 'cnpjs' aparece mais de uma vez; junte os CNPJs num só, separados por vírgula"])
  })
})
