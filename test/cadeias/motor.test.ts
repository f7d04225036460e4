// The engine on hand-made answers (no sample): bands and periods, ages in days, months and hours,
// dependencies, values outside the bands, the reference time; and the rule checks that stop a
// malformed rule file at start.
import { describe, expect, test } from 'bun:test'
import { resolver } from '../../src/datasets/cadeias/caminho'
import type { Lida } from '../../src/datasets/cadeias/fontes'
import { avaliarComEntradas, defasagem, descreverFaixa, faixaDe } from '../../src/datasets/cadeias/motor'
import { carregarRegra, REGRAS, type Regra } from '../../src/datasets/cadeias/regras'
import { recalcular } from './recalculo'

const T = (iso: string) => Date.parse(iso)
const fonteFeed = (consultado: string, status = 'ok') => ({ base: 'teste', consultado_em: consultado, defasagem_segundos: 0, atualiza_a_cada_minutos: 60, cache: true, status })
const clima = (consultado: string, referencia: string, belts: Record<string, object>): Lida => ({
  corpo: { referencia, cinturoes: Object.entries(belts).map(([id, v]) => ({ id, ...v })), fonte: fonteFeed(consultado) },
  motivo: null,
  instante: T(consultado),
})

/** The answer as the route builds it, for the independent recomputation. */
const comoResposta = (regra: Regra, a: ReturnType<typeof avaliarComEntradas>) => {
  const { titulo: _t, descricao: _d, limites: _l, ...aplicada } = regra
  return { ...a, regra: aplicada }
}

describe('cafe_kc on hand-made weather: seasons, frost, ages', () => {
  const cafe = REGRAS.cafe_kc
  const tempo = (consultado: string, referencia: string, secos: number, tmin: number, chuva: number) =>
    avaliarComEntradas(cafe, { lidas: { 'commodities/clima': clima(consultado, referencia, { 'mg-sul': { dias_secos_consecutivos: secos, temp_min_72h_c: tmin, chuva_prevista_7d_mm: chuva }, 'mg-cerrado': { dias_secos_consecutivos: secos, temp_min_72h_c: tmin, chuva_prevista_7d_mm: chuva } }) }, agora: T('2027-01-01T00:00:00Z') })

  test('a 25-day dry spell counts in October (flowering), not in July (harvest); frost at 2.5 °C is high risk in any month', () => {
    const out = tempo('2026-10-15T12:00:00Z', '2026-10-15', 25, 12, 5)
    expect([out.mes_da_regra, out.leitura.nivel.valor, out.leitura.nivel.pontos, out.leitura.direcao.valor, out.leitura.direcao.pontos]).toEqual([10, 'alto', 4, 'piorando', 2])
    const jul = tempo('2026-07-15T12:00:00Z', '2026-07-15', 25, 12, 5)
    expect([jul.mes_da_regra, jul.leitura.nivel.valor, jul.leitura.nivel.pontos, jul.leitura.direcao.valor]).toEqual([7, 'baixo', 0, 'estável'])
    const geada = tempo('2026-07-15T12:00:00Z', '2026-07-15', 0, 2.5, 0)
    expect([geada.leitura.nivel.valor, geada.leitura.nivel.pontos, geada.elos[2]!.faixas.nivel]).toEqual(['alto', 6, '≤ 3'])
    expect(tempo('2026-07-15T12:00:00Z', '2026-07-15', 0, 4.9, 0).leitura.nivel).toMatchObject({ valor: 'moderado', pontos: 2 })
    expect(tempo('2026-07-15T12:00:00Z', '2026-07-15', 0, 5, 0).leitura.nivel).toMatchObject({ valor: 'moderado', pontos: 2 })
    expect(tempo('2026-07-15T12:00:00Z', '2026-07-15', 0, 5.1, 0).leitura.nivel).toMatchObject({ valor: 'baixo', pontos: 0 })
    for (const a of [out, jul, geada]) recalcular(comoResposta(cafe, a))
  })

  test('weather of three days before the copy time is stale (idade máxima 2 dias): shown, not counted', () => {
    const out = tempo('2026-10-15T12:00:00Z', '2026-10-12', 25, 12, 5)
    expect(out.elos.every((e) => e.status === 'defasado' && e.motivo === 'dado de 2026-10-12; a regra aceita até 2 dias antes de 2026-10-15')).toBe(true)
    expect(out.elos[0]!.valor).toBe(25)
    expect(out.leitura.nivel).toMatchObject({ valor: null, pontos_min: 0, pontos_max: 10 })
    recalcular(comoResposta(cafe, out))
  })

  test('a belt missing from the answer: its links absent with the field named, the other belt still counted', () => {
    const out = avaliarComEntradas(cafe, { lidas: { 'commodities/clima': clima('2026-10-15T12:00:00Z', '2026-10-15', { 'mg-sul': { dias_secos_consecutivos: 25, temp_min_72h_c: 12, chuva_prevista_7d_mm: 50 } }) }, agora: T('2027-01-01T00:00:00Z') })
    expect(out.elos.map((e) => [e.id, e.status, e.motivo])).toEqual([
      ['dias_secos_mg_sul', 'ok', null],
      ['dias_secos_mg_cerrado', 'ausente', 'cinturoes[id=mg-cerrado].dias_secos_consecutivos sem valor na resposta'],
      ['temp_min_72h_mg_sul', 'ok', null],
      ['temp_min_72h_mg_cerrado', 'ausente', 'cinturoes[id=mg-cerrado].temp_min_72h_c sem valor na resposta'],
      ['chuva_prevista_7d_mg_sul', 'ok', null],
      ['chuva_prevista_7d_mg_cerrado', 'ausente', 'cinturoes[id=mg-cerrado].chuva_prevista_7d_mm sem valor na resposta'],
    ])
    // 2 from the dry spell; the other belt may add 0-2 (dry days) and 0-3 (frost): high already at 3+.
    expect(out.leitura.nivel).toMatchObject({ valor: null, pontos_min: 2, pontos_max: 7, possiveis: ['moderado', 'alto'] })
    recalcular(comoResposta(cafe, out))
  })
})

describe('capital_br: a link that uses another, ages in hours, the reference time', () => {
  const capital = REGRAS.capital_br
  const cambio = (ptaxData: string, criptoEm: string, premio: number, variacao: number): Lida => ({
    corpo: {
      ptax: { data: ptaxData, venda: 5.2, variacao_pct: variacao, variacao_desde: '2026-03-02' },
      usdt_brl: { mediana: 5.3 },
      premios: { usdt_sobre_ptax_pct: premio },
      fontes: { ptax: fonteFeed('2026-03-09T16:00:00Z'), cripto: fonteFeed(criptoEm) },
    },
    motivo: null,
    instante: Math.max(T('2026-03-09T16:00:00Z'), T(criptoEm)),
  })
  const agora = T('2026-03-09T18:00:00Z')

  test('fresh premium over a fresh PTAX: counted; over a PTAX a week old: the premium goes stale with it', () => {
    const ok = avaliarComEntradas(capital, { lidas: { 'mercado/cambio': cambio('2026-03-09', '2026-03-09T17:59:00Z', 2.1, 3.4) }, agora })
    expect(ok.elos.slice(0, 2).map((e) => [e.id, e.status, e.pontos.nivel, e.pontos.direcao])).toEqual([
      ['premio_usdt_ptax', 'ok', 2, null],
      ['ptax_variacao', 'ok', 2, 1],
    ])
    expect(ok.elos[2]).toMatchObject({ id: 'fluxo_fundos_30d', status: 'ausente', motivo: 'nenhuma resposta de /v1/fundos/fluxos' })
    // 4 from the two, the flows add 0-2: high either way.
    expect([ok.leitura.nivel.valor, ok.leitura.direcao.valor, ok.avaliada_em]).toEqual(['alta', 'em alta', '2026-03-09T17:59:00.000Z'])
    const velha = avaliarComEntradas(capital, { lidas: { 'mercado/cambio': cambio('2026-03-02', '2026-03-09T17:59:00Z', 2.1, 3.4) }, agora })
    expect(velha.elos.slice(0, 2).map((e) => [e.id, e.status, e.motivo])).toEqual([
      ['premio_usdt_ptax', 'defasado', 'depende de ptax_variacao, que está defasado'],
      ['ptax_variacao', 'defasado', 'dado de 2026-03-02; a regra aceita até 5 dias antes de 2026-03-09'],
    ])
    for (const a of [ok, velha]) recalcular(comoResposta(capital, a))
  })

  test('a premium quoted 3 hours before the newest copy is stale (2 h); a copy dated in the future never moves the reading past now', () => {
    const tres = avaliarComEntradas(capital, { lidas: { 'mercado/cambio': { ...cambio('2026-03-09', '2026-03-09T13:00:00Z', 0.3, 0.1), instante: T('2026-03-09T16:00:00Z') } }, agora })
    expect(tres.elos[0]).toMatchObject({ status: 'defasado', motivo: 'dado de 2026-03-09T13:00Z; a regra aceita até 2 h antes de avaliada_em' })
    const futuro = avaliarComEntradas(capital, { lidas: { 'mercado/cambio': { ...cambio('2026-03-09', '2026-03-09T17:00:00Z', 0.3, 0.1), instante: T('2031-01-01T00:00:00Z') } }, agora })
    expect(futuro.avaliada_em).toBe('2026-03-09T18:00:00.000Z')
    expect(futuro.fonte.defasagem_segundos).toBe(0)
  })
})

describe('energia_br: a flag the rule has no band for', () => {
  test('the value is shown, the link absent', () => {
    const lida: Lida = { corpo: { fonte: fonteFeed('2026-03-09T16:00:00Z') }, motivo: null, instante: T('2026-03-09T16:00:00Z'), vista: () => ({ vigente: { competencia: '2026-03', bandeira: 'Roxa' }, variacao_patamar: 0, fonte: fonteFeed('2026-03-09T16:00:00Z') }) }
    const out = avaliarComEntradas(REGRAS.energia_br, { lidas: { 'cadeias/bandeira': lida }, agora: T('2026-03-10T00:00:00Z') })
    expect(out.elos.find((e) => e.id === 'bandeira')).toMatchObject({ valor: 'Roxa', status: 'ausente', motivo: 'o valor Roxa não cai em nenhuma faixa da regra' })
    expect(out.elos.find((e) => e.id === 'bandeira_variacao')).toMatchObject({ valor: 0, status: 'ok', pontos: { direcao: 0 } })
    recalcular(comoResposta(REGRAS.energia_br, out))
  })
})

describe('bands, ages and paths', () => {
  test('bands: < is strict, ≤ inclusive, text exact, the rest last', () => {
    const f = [{ abaixo_de: 40, pontos: 2 }, { ate: 60, pontos: 1 }, { demais: true as const, pontos: 0 }]
    expect([39.99, 40, 60, 60.01].map((v) => faixaDe(f, v)!.pontos)).toEqual([2, 1, 1, 0])
    expect(faixaDe([{ igual: 'Verde', pontos: 0 }], 'verde')).toBeNull()
    expect(faixaDe(f, 'Verde')).toBeNull()
    expect(f.map(descreverFaixa)).toEqual(['< 40', '≤ 60', 'demais valores'])
    expect(descreverFaixa({ abaixo_de: -0.5, pontos: 1 })).toBe('< -0,5')
  })

  test('ages by calendar day and month in Brasília, and by the hour', () => {
    const at = T('2026-02-01T02:00:00Z') // 31 January, 23:00 in Brasília
    expect(defasagem('2026-01-29', { dias: 2 }, at)).toBeNull()
    expect(defasagem('2026-01-28', { dias: 2 }, at)).toBe('dado de 2026-01-28; a regra aceita até 2 dias antes de 2026-01-31')
    expect(defasagem('2026-01', { meses: 0 }, at)).toBeNull()
    expect(defasagem('2025-12', { meses: 0 }, at)).toBe('dado de 2025-12; a regra pede o mês de avaliada_em (2026-01)')
    expect(defasagem('2025-11', { meses: 2 }, at)).toBeNull()
    expect(defasagem('2025-10', { meses: 2 }, at)).toBe('dado de 2025-10; a regra aceita até 2 meses antes de 2026-01')
    expect(defasagem('2026-02-01T00:30:00.000Z', { horas: 2 }, at)).toBeNull()
    expect(defasagem('2026-01-31T23:59:00.000Z', { horas: 2 }, at)).toBe('dado de 2026-01-31T23:59Z; a regra aceita até 2 h antes de avaliada_em')
    expect(defasagem('ontem', { dias: 2 }, at)).toBe('data "ontem" sem o dia')
  })

  test('paths: keys, id selectors, every element, the last one; nowhere is undefined', () => {
    const body = { a: { b: 1 }, l: [{ id: 'x', v: 1 }, { id: 'y', v: 2 }] }
    expect([resolver(body, 'a.b'), resolver(body, 'l[id=y].v'), resolver(body, 'l[].v'), resolver(body, 'l[-1].id'), resolver(body, 'l[0].v')]).toEqual([1, 2, [1, 2], 'y', 1])
    expect([resolver(body, 'a.c'), resolver(body, 'l[id=z].v'), resolver(body, 'a[id=x]'), resolver(null, 'a')]).toEqual([undefined, undefined, undefined, undefined])
  })
})

describe('rule files are checked when loaded', () => {
  const base = () => JSON.parse(JSON.stringify({ ...REGRAS.cafe_kc, elos: REGRAS.cafe_kc.elos.slice(0, 3) }))
  const falha = (mudar: (r: any) => void) => {
    const r = base()
    mudar(r)
    return () => carregarRegra(r, 'cafe_kc')
  }

  test('the four shipped rules load, each link counting somewhere, every path well formed', () => {
    expect(Object.keys(REGRAS)).toEqual(['energia_br', 'cafe_kc', 'soja_zs', 'capital_br'])
    expect(carregarRegra(base(), 'cafe_kc').elos).toHaveLength(3)
  })

  test('malformed rules stop with what is wrong', () => {
    expect(falha((r) => (r.elos[2].nivel.faixas = [{ ate: 5, pontos: 1 }, { ate: 3, pontos: 3 }, { demais: true, pontos: 0 }]))).toThrow('regra cafe_kc: elo temp_min_72h_mg_sul, nível: limites das faixas fora de ordem crescente')
    expect(falha((r) => (r.elos[2].nivel.faixas = [{ ate: 3, pontos: 3 }]))).toThrow('a última faixa numérica deve ser { "demais": true }')
    expect(falha((r) => (r.elos[2].nivel.faixas = [{ demais: true, pontos: 0 }, { ate: 3, pontos: 3 }]))).toThrow('"demais" só na última faixa')
    expect(falha((r) => (r.elos[0].nivel.por_periodo[1].meses = [4, 5, 6, 7]))).toThrow('os períodos devem cobrir cada mês do ano uma vez')
    expect(falha((r) => (r.elos[0].depende_de = ['nenhum']))).toThrow('elo dias_secos_mg_sul depende de nenhum, que não é outro elo da regra')
    expect(falha((r) => (r.elos[1].id = r.elos[0].id))).toThrow('elo dias_secos_mg_sul repetido')
    expect(falha((r) => delete r.elos[2].nivel)).toThrow('elo temp_min_72h_mg_sul não conta no nível nem na direção')
    expect(falha((r) => (r.elos[2].origem.campo = 'cinturoes[id=mg-sul.temp'))).toThrow('caminho malformado')
    expect(falha((r) => (r.elos[2].origem.media_de = ['a']))).toThrow('origem: exatamente um de campo, media_de ou razao_pct')
    expect(falha((r) => (r.elos[2].origem.fonte = 'cnpj/busca'))).toThrow('regra cafe_kc inválida: elos.2.origem.fonte')
    expect(falha((r) => (r.nivel.faixas = [{ ate: 2, valor: 'a' }, { ate: 1, valor: 'b' }, { demais: true, valor: 'c' }]))).toThrow('escala "risco para a produtividade do arábica": limites fora de ordem crescente')
    expect(falha((r) => (r.extra = 1))).toThrow('regra cafe_kc inválida')
    expect(() => carregarRegra(base(), 'soja_zs')).toThrow('regra soja_zs: o arquivo diz cadeia "cafe_kc"')
  })
})
