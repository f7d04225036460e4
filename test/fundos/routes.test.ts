// Each fund route's output for the bundled sample: exact values, checked against the published
// rows themselves (read here with a plain split, independently of the ingest), and bad input.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { get, testApp } from '../helpers'
import { ANTIGO, FUNDOS, GESTORA, PARTIAL_DAY } from './fixtures/make'
import { buildFixtureData, FIXTURES } from './helpers'

const dataDir = await buildFixtureData()
const { app } = await testApp({ dataDir })
afterAll(() => app.close())

/** A member of a sample zip as lines of fields (latin-1, CRLF), header first. */
async function table(zip: string, member: RegExp): Promise<string[][]> {
  const path = join(FIXTURES, zip)
  const entry = (await listEntries(path)).find((e) => member.test(e.name))!
  const chunks: Uint8Array[] = []
  for await (const c of readEntry(path, entry)) chunks.push(c)
  const text = new TextDecoder('windows-1252').decode(Buffer.concat(chunks))
  return text.split('\r\n').filter(Boolean).map((l) => l.split(';'))
}
const daily = [...(await table('inf_diario_fi_202608.zip', /csv$/)).slice(1), ...(await table('inf_diario_fi_202609.zip', /csv$/)).slice(1)]
const round = (n: number) => Math.round(n * 100) / 100
const byKey = new Map(FUNDOS.flatMap((f) => f.classes.map((c) => [c.key, c])))
const cnpjOf = (key: string) => byKey.get(key)!.cnpj
const FIC = new Set([byKey.get('fic')!.cnpj])
const digits = (s: string) => s.replace(/\D/g, '')
const FONTE = { base: 'CVM/FI', referencia: '2026-09-29', carteira: '2026-07' }

describe('/v1/fundos/fluxos', () => {
  test('the latest consolidated day (2026-09-30 has one class of eight: not consolidated) and its totals, fund-of-funds left out', async () => {
    const r = await get(app, '/v1/fundos/fluxos?dias=5')
    expect(r.status).toBe(200)
    const rows = daily.filter((f) => f[3] === '2026-09-29' && !FIC.has(digits(f[1]!)))
    const cap = round(rows.reduce((n, f) => n + Number(f[7]), 0))
    const res = round(rows.reduce((n, f) => n + Number(f[8]), 0))
    // Eight classes report that day (the macro class through its two subclasses); the FIC is left out: seven.
    expect(r.body.dia).toEqual({ data: '2026-09-29', captacao: cap, resgates: res, liquido: round(cap - res), patrimonio_liquido: round(rows.reduce((n, f) => n + Number(f[6]), 0)), classes: 7 })
    expect(r.body.janela).toEqual({ dias: 5, de: '2026-09-25', ate: '2026-09-29', dias_com_dados: 3 })
    expect(r.body.serie_total.map((p: { data: string }) => p.data)).toEqual(['2026-09-25', '2026-09-28', '2026-09-29'])
    expect(r.body.fonte).toMatchObject(FONTE)
    expect(r.body.serie_total.some((p: { data: string }) => p.data === PARTIAL_DAY)).toBe(false)
  })

  test('per CVM classification: window sums equal the rows of the classes so classified, largest net assets first', async () => {
    const r = await get(app, '/v1/fundos/fluxos?dias=30')
    // The real classes without registry row (2026-09-01 and 02) are 'Sem classificação'; none reported on the last day, so it comes last.
    expect(r.body.classificacoes.map((c: { classificacao: string }) => c.classificacao)).toEqual(['Renda Fixa', 'Ações', 'Multimercado', 'Cambial', 'Sem classificação'])
    const acoes = r.body.classificacoes[1]
    // Ações = the free-standing stock fund and the index fund (the FIC de Ações is left out).
    const inWindow = daily.filter((f) => f[3]! >= '2026-08-31' && f[3]! <= '2026-09-29' && [cnpjOf('acoes'), cnpjOf('indice')].includes(digits(f[1]!)))
    expect(acoes.captacao).toBe(round(inWindow.reduce((n, f) => n + Number(f[7]), 0)))
    expect(acoes.resgates).toBe(round(inWindow.reduce((n, f) => n + Number(f[8]), 0)))
    expect(acoes.serie).toHaveLength(r.body.janela.dias_com_dados)
    expect(acoes.serie[0]).toMatchObject({ data: '2026-08-31', classes: 2 })
    // The macro class reports per subclass: its day is the subclasses' sum.
    const macro = daily.filter((f) => f[3] === '2026-09-29' && digits(f[1]!) === cnpjOf('macro'))
    expect(macro).toHaveLength(2)
    const multi = r.body.classificacoes[2].serie.at(-1)
    const multiB = daily.find((f) => f[3] === '2026-09-29' && digits(f[1]!) === cnpjOf('multi_b'))!
    expect(multi.captacao).toBe(round(macro.reduce((n, f) => n + Number(f[7]), 0) + Number(multiB[7])))
    expect(multi.classes).toBe(2)
  })

  test('dias: 1 to 60, digits only; other values are 400 in the envelope', async () => {
    expect((await get(app, '/v1/fundos/fluxos?dias=1')).body.serie_total).toHaveLength(1)
    expect((await get(app, '/v1/fundos/fluxos')).body.janela.dias).toBe(30)
    for (const bad of ['0', '61', '-1', '1.5', 'abc', '']) {
      const r = await get(app, `/v1/fundos/fluxos?dias=${bad}`)
      expect(r.status).toBe(400)
      expect(r.body.erro).toEqual({ codigo: 'parametro_invalido', mensagem: "parâmetro de consulta 'dias': deve ser um número inteiro de 1 a 60" })
    }
  })
})

describe('/v1/fundos/consulta/{cnpj}', () => {
  test('a class: registry, manager, classifications, and the latest quota, net assets and shareholders with their dates', async () => {
    const c = byKey.get('acoes')!
    const last = daily.filter((f) => digits(f[1]!) === c.cnpj).at(-1)!
    const r = await get(app, `/v1/fundos/consulta/${c.cnpj.slice(0, 2)}.${c.cnpj.slice(2, 5)}.${c.cnpj.slice(5, 8)}%2F${c.cnpj.slice(8, 12)}-${c.cnpj.slice(12)}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      cnpj: c.cnpj, encontrado: true, mensagem: null, tipo: 'classe', nome: c.nome, tipo_fundo: 'Classes de Cotas de Fundos FIF', codigo_cvm: '810001',
      situacao: { descricao: 'Em Funcionamento Normal', data: '2024-10-01' },
      datas: { registro: '2019-03-11', constituicao: '2019-02-21', inicio: '2024-10-01', cancelamento: null },
      gestor: { nome: GESTORA.nome, cnpj: GESTORA.cnpj },
      classificacao: { cvm: 'Ações', anbima: 'Ações Livre' },
      caracteristicas: { forma_condominio: 'Aberto', exclusivo: false, publico_alvo: 'Público Geral', cotas_de_fundos: false, indicador_desempenho: 'Ibovespa', tributacao_longo_prazo: false },
      fundo: { cnpj: c.cnpj, nome: c.nome, tipo_fundo: 'FIF', situacao: 'Em Funcionamento Normal' },
      classes: [], subclasses: [],
      cota: { valor: Number(last[5]), data: last[3] },
      patrimonio_liquido: { valor: Number(last[6]), data: last[3], origem: 'informe_diario' },
      cotistas: { quantidade: Number(last[9]), data: last[3] },
      fonte: FONTE,
    })
    // Bare digits give the same answer.
    expect((await get(app, `/v1/fundos/consulta/${c.cnpj}`)).body).toEqual(r.body)
  })

  test('a class reporting per subclass: no single quota; net assets and shareholders summed; each subclass with its own', async () => {
    const c = byKey.get('macro')!
    const r = await get(app, `/v1/fundos/consulta/${c.cnpj}`)
    const rows = daily.filter((f) => f[3] === '2026-09-29' && digits(f[1]!) === c.cnpj)
    expect(r.body.cota).toBeNull()
    expect(r.body.patrimonio_liquido).toEqual({ valor: rows.reduce((n, f) => n + Number(f[6]), 0), data: '2026-09-29', origem: 'informe_diario' })
    expect(r.body.cotistas).toEqual({ quantidade: rows.reduce((n, f) => n + Number(f[9]), 0), data: '2026-09-29' })
    expect(r.body.subclasses).toEqual(rows.map((f) => ({
      id: f[2], nome: c.subclasses!.find((s) => s.id === f[2])!.nome, situacao: 'Em Funcionamento Normal',
      cota: { valor: Number(f[5]), data: '2026-09-29' }, patrimonio_liquido: { valor: Number(f[6]), data: '2026-09-29' }, cotistas: { quantidade: Number(f[9]), data: '2026-09-29' },
    })))
  })

  test('a fund with classes of other CNPJs lists them; its net assets come from the registry', async () => {
    const f = FUNDOS.find((x) => x.classes.length === 2)!
    const r = await get(app, `/v1/fundos/consulta/${f.cnpj}`)
    expect(r.body.tipo).toBe('fundo')
    expect(r.body.classes).toEqual(f.classes.map((c) => ({ cnpj: c.cnpj, nome: c.nome, situacao: 'Em Funcionamento Normal', classificacao_cvm: c.classificacao })))
    expect(r.body.patrimonio_liquido).toEqual({ valor: round(f.classes.reduce((n, c) => n + c.pl0, 0)), data: '2026-07-31', origem: 'cadastro' })
    expect(r.body.cota).toBeNull()
  })

  test('a cancelled fund only in cad_fi.csv: legacy view, old class name made canonical, person manager without CPF', async () => {
    const r = await get(app, `/v1/fundos/consulta/${ANTIGO.cnpj}`)
    expect(r.body).toMatchObject({
      tipo: 'fundo_legado', nome: ANTIGO.nome, situacao: { descricao: 'CANCELADA', data: '2015-06-30' },
      datas: { cancelamento: '2015-06-30' }, gestor: { nome: ANTIGO.gestor, cnpj: null }, classificacao: { cvm: 'Multimercado', anbima: 'Multimercados Livre' },
    })
    expect(r.text).not.toContain('52998224725')
    expect(r.text).not.toContain('529.982.247-25')
  })

  test('a class of the daily reports without registry row (real rows): the latest report, negative values as published', async () => {
    const a = await get(app, '/v1/fundos/consulta/00.017.024%2F0001-53')
    expect(a.body).toMatchObject({
      tipo: 'sem_cadastro', encontrado: true, nome: null, tipo_fundo: 'CLASSES - FIF',
      cota: { valor: 44.6557555, data: '2026-09-02' }, patrimonio_liquido: { valor: 1215310.59, data: '2026-09-02', origem: 'informe_diario' }, cotistas: { quantidade: 1, data: '2026-09-02' },
    })
    const b = await get(app, '/v1/fundos/consulta/09613232000190')
    expect(b.body).toMatchObject({ cota: { valor: -0.97095208, data: '2026-09-02' }, patrimonio_liquido: { valor: -17504551.68, data: '2026-09-02', origem: 'informe_diario' }, cotistas: { quantidade: 7, data: '2026-09-02' } })
  })

  test('of two registrations of a CNPJ, the one in operation wins over the cancelled one', async () => {
    const r = await get(app, `/v1/fundos/consulta/${cnpjOf('cambial')}`)
    expect(r.body).toMatchObject({ nome: 'FUNDO EXEMPLO CAMBIAL DÓLAR FIF (FICTÍCIO)', situacao: { descricao: 'Em Funcionamento Normal' } })
  })

  test('a valid CNPJ no file names: 200 with encontrado=false (SPEC: 200/400/402 only)', async () => {
    const r = await get(app, '/v1/fundos/consulta/33683111000280')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ cnpj: '33683111000280', encontrado: false, tipo: null, nome: null, cota: null, classes: [], fonte: FONTE })
    expect(r.body.mensagem).toContain('não consta no cadastro de fundos da CVM')
  })

  test('an invalid CNPJ is 400 cnpj_invalido', async () => {
    for (const bad of ['123', '99110002000108', 'abc']) {
      const r = await get(app, `/v1/fundos/consulta/${bad}`)
      expect(r.status).toBe(400)
      expect(r.body.erro.codigo).toBe('cnpj_invalido')
    }
  })
})

describe('/v1/fundos/ranking', () => {
  test('by net assets: classes active in the last 10 days, largest first, with manager, quota and the window flows', async () => {
    const r = await get(app, '/v1/fundos/ranking?limite=50')
    expect(r.status).toBe(200)
    // The real classes last reported on 2026-09-02 (27 days before): not ranked.
    expect(r.body.fundos.map((f: { cnpj: string }) => f.cnpj)).toEqual(['rf', 'indice', 'macro', 'acoes', 'multi_a', 'fic', 'multi_b', 'cambial'].map(cnpjOf))
    const rf = r.body.fundos[0]
    // The rf class also reported alone on 2026-09-30, a day not consolidated: the ranking is as of the window's end,
    // 2026-09-29 (fonte.referencia), for its net assets, quota and shareholders as for its flows (#29.5).
    const rows = daily.filter((f) => digits(f[1]!) === cnpjOf('rf'))
    expect(rows.at(-1)![3]).toBe(PARTIAL_DAY)
    const asOf = rows.filter((f) => f[3]! <= '2026-09-29').at(-1)!
    expect(asOf[3]).toBe('2026-09-29')
    const window = rows.filter((f) => f[3]! >= '2026-08-31' && f[3]! <= '2026-09-29')
    const cap = round(window.reduce((n, f) => n + Number(f[7]), 0))
    const res = round(window.reduce((n, f) => n + Number(f[8]), 0))
    expect(rf).toEqual({
      posicao: 1, cnpj: cnpjOf('rf'), nome: byKey.get('rf')!.nome, fundo: null, gestor: { nome: GESTORA.nome, cnpj: GESTORA.cnpj }, classificacao: 'Renda Fixa',
      cotas_de_fundos: false, data: '2026-09-29', cota: Number(asOf[5]), patrimonio_liquido: Number(asOf[6]), cotistas: Number(asOf[9]),
      captacao: cap, resgates: res, captacao_liquida: round(cap - res),
    })
    expect(r.body.janela).toEqual({ de: '2026-08-31', ate: '2026-09-29', completa: true })
    // No date of the answer is past the window's end or the source's reference, whatever por and dias.
    for (const q of ['limite=50', 'por=cotistas&limite=50', 'por=captacao&dias=1&limite=50', 'por=captacao&dias=365&limite=50']) {
      const b = (await get(app, `/v1/fundos/ranking?${q}`)).body
      expect([q, b.fundos.filter((f: { data: string }) => f.data > b.janela.ate || f.data > b.fonte.referencia).map((f: { cnpj: string; data: string }) => `${f.cnpj} ${f.data}`)]).toEqual([q, []])
    }
    // /consulta of the same class still shows its latest report, with its own date.
    expect((await get(app, `/v1/fundos/consulta/${cnpjOf('rf')}`)).body.patrimonio_liquido).toMatchObject({ valor: Number(rows.at(-1)![6]), data: PARTIAL_DAY })
    // A class of a fund with several classes names its fund.
    expect(r.body.fundos.find((f: { cnpj: string }) => f.cnpj === cnpjOf('multi_a')).fundo).toEqual({ cnpj: FUNDOS[6]!.cnpj, nome: FUNDOS[6]!.nome })
  })

  test('by net inflow over the window: the order is the window sum of subscriptions minus redemptions', async () => {
    const r = await get(app, '/v1/fundos/ranking?por=captacao&dias=15&limite=50')
    const from = '2026-09-15'
    const net = (cnpj: string) => round(daily.filter((f) => digits(f[1]!) === cnpj && f[3]! >= from && f[3]! <= '2026-09-29').reduce((n, f) => n + Number(f[7]) - Number(f[8]), 0))
    const expected = ['rf', 'acoes', 'macro', 'cambial', 'fic', 'indice', 'multi_a', 'multi_b'].map(cnpjOf).sort((a, b) => net(b) - net(a))
    expect(r.body.fundos.map((f: { cnpj: string }) => f.cnpj)).toEqual(expected)
    for (const f of r.body.fundos) expect(f.captacao_liquida).toBe(net(f.cnpj))
    expect(r.body.janela).toEqual({ de: from, ate: '2026-09-29', completa: true })
  })

  test('classificacao filters, accents and case aside; cotistas; a window longer than the loaded months says so', async () => {
    const r = await get(app, '/v1/fundos/ranking?classificacao=ACOES&por=cotistas&dias=365')
    expect(r.body.classificacao).toBe('Ações')
    expect(r.body.fundos.map((f: { cnpj: string }) => f.cnpj)).toEqual(['indice', 'fic', 'acoes'].map(cnpjOf))
    expect(r.body.janela).toEqual({ de: '2026-08-03', ate: '2026-09-29', completa: false })
    expect((await get(app, '/v1/fundos/ranking?classificacao=renda_fixa&limite=1')).body.fundos.map((f: { cnpj: string }) => f.cnpj)).toEqual([cnpjOf('rf')])
  })

  test('bad input: unknown por, unknown classificacao (with the list), limite above 50, dias out of range', async () => {
    const cases: [string, string][] = [
      ['por=nome', "parâmetro de consulta 'por': deve ser um destes valores: patrimonio, captacao, cotistas"],
      ['classificacao=imobiliario', "parâmetro de consulta 'classificacao': 'imobiliario' não existe na base carregada; use uma destas: Ações, Renda Fixa, Multimercado, Cambial (sem distinguir acentos nem caixa)"],
      ['limite=51', "parâmetro de consulta 'limite': deve ser um número inteiro de 1 a 50"],
      ['dias=0', "parâmetro de consulta 'dias': deve ser um número inteiro de 1 a 365"],
      ['ordem=x', "parâmetro de consulta 'ordem' não existe nesta rota; aceitos: por, classificacao, dias, limite"],
    ]
    for (const [q, mensagem] of cases) {
      const r = await get(app, `/v1/fundos/ranking?${q}`)
      expect(r.status).toBe(400)
      expect(r.body.erro.mensagem).toBe(mensagem)
    }
  })
})

describe('/v1/fundos/carteira/{cnpj}', () => {
  test('the latest month the fund disclosed (July, a month still arriving), positions summed across owned and lent rows', async () => {
    const c = byKey.get('acoes')!
    const r = await get(app, `/v1/fundos/carteira/${c.cnpj}`)
    expect(r.status).toBe(200)
    const blc4 = (await table('cda_fi_202607.zip', /BLC_4/)).slice(1).filter((f) => digits(f[1]!) === c.cnpj)
    const pl = Number((await table('cda_fi_202607.zip', /_PL_/)).find((f) => digits(f[1]!) === c.cnpj)![4])
    const vale = blc4.filter((f) => f[16] === 'VALE3')
    expect(vale.map((f) => f[4])).toEqual(['Ações', 'Ações e outros TVM cedidos em empréstimo'])
    expect(r.body).toMatchObject({
      cnpj: c.cnpj, encontrado: true, mensagem: null, nome: c.nome, competencia: '2026-07', data_posicao: '2026-07-31',
      defasagem: { dias: 60 }, patrimonio_liquido: pl, competencias_carregadas: ['2026-06', '2026-07'],
    })
    const valeOut = r.body.ativos.find((a: { ticker: string }) => a.ticker === 'VALE3')
    expect(valeOut).toEqual({
      ticker: 'VALE3', isin: 'BRVALEACNOR0', descricao: 'VALE ON', tipo: 'acao', tipo_ativo: 'Ação ordinária',
      quantidade: vale.reduce((n, f) => n + Number(f[12]), 0), valor_mercado: round(vale.reduce((n, f) => n + Number(f[13]), 0)),
      quantidade_emprestada: Number(vale[1]![12]), percentual_pl: Math.round((vale.reduce((n, f) => n + Number(f[13]), 0) / pl) * 1e6) / 1e4,
      compras: { quantidade: 0, valor: 0 }, vendas: { quantidade: Number(vale[0]![8]), valor: Number(vale[0]![9]) },
    })
    // Options and borrowed shares are not holdings; the BDR is.
    expect(r.body.ativos.map((a: { ticker: string }) => a.ticker)).toEqual(['PETR4', 'ITUB4', 'VALE3', 'WEGE3', 'AAPL34'])
    expect(r.body.ativos.find((a: { ticker: string }) => a.ticker === 'AAPL34').tipo).toBe('bdr')
    expect(r.body.valor_acoes_bdrs).toBe(round(r.body.ativos.reduce((n: number, a: { valor_mercado: number }) => n + a.valor_mercado, 0)))
  })

  test('a fund that filed only June shows June; units are units; the real rows of a fund without PL row', async () => {
    const r = await get(app, '/v1/fundos/carteira/00.102.322%2F0001-41')
    expect(r.body).toMatchObject({ competencia: '2026-06', patrimonio_liquido: null, percentual_pl: null, total_ativos: 1, nome: null })
    expect(r.body.ativos).toEqual([{
      ticker: 'ITUB3', isin: 'BRITUBACNOR4', descricao: 'ITAUUNIBANCO ON N1', tipo: 'acao', tipo_ativo: 'Ação ordinária', quantidade: 186168 + 30914,
      valor_mercado: round(8241657.36 + 22258.08), quantidade_emprestada: 30914, percentual_pl: null, compras: { quantidade: 0, valor: 0 }, vendas: { quantidade: 0, valor: 0 },
    }])
  })

  test('a fund without stocks in its disclosure, a registered fund without disclosure, an unknown CNPJ: 200 saying so', async () => {
    const rf = await get(app, `/v1/fundos/carteira/${cnpjOf('rf')}`)
    expect(rf.body).toMatchObject({ encontrado: true, competencia: '2026-06', total_ativos: 0, ativos: [] })
    expect(rf.body.mensagem).toContain('sem ações')
    const multi = await get(app, `/v1/fundos/carteira/${cnpjOf('multi_a')}`)
    expect(multi.body).toMatchObject({ encontrado: false, competencia: null, nome: byKey.get('multi_a')!.nome, ativos: [] })
    expect(multi.body.mensagem).toBe('o fundo consta no cadastro, mas não divulgou carteira (CDA) nas competências carregadas (2026-06, 2026-07)')
    const unknown = await get(app, '/v1/fundos/carteira/33683111000280')
    expect(unknown.status).toBe(200)
    expect(unknown.body.encontrado).toBe(false)
  })
})

describe('/v1/fundos/movimentacoes', () => {
  test('default: the latest consolidated month (June; July has 2 of 6 filers), per ticker across funds, largest |net| first', async () => {
    const r = await get(app, '/v1/fundos/movimentacoes?limite=50')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      competencia: '2026-06', data_posicao: '2026-06-30', consolidada: true, fundos_informantes: 6, fundos_com_acoes: 3,
      competencias_carregadas: [{ competencia: '2026-06', consolidada: true }, { competencia: '2026-07', consolidada: false }],
    })
    const rows = (await table('cda_fi_202606.zip', /BLC_4/)).slice(1).filter((f) => ['Ações', 'Ações e outros TVM cedidos em empréstimo', 'Brazilian Depository Receipt - BDR', 'Certificado ou recibo de depósito de valores mobiliários'].includes(f[4]!))
    const sum = (ticker: string, i: number) => round(rows.filter((f) => f[16] === ticker).reduce((n, f) => n + (Number(f[i]) || 0), 0))
    const tickers = [...new Set(rows.map((f) => f[16]!))]
    expect(r.body.total_ativos).toBe(tickers.length)
    expect(r.body.ativos.map((a: { ticker: string }) => a.ticker)).toEqual([...tickers].sort((a, b) => Math.abs(sum(b, 11) - sum(b, 9)) - Math.abs(sum(a, 11) - sum(a, 9)) || sum(b, 13) - sum(a, 13)))
    const petr = r.body.ativos.find((a: { ticker: string }) => a.ticker === 'PETR4')
    expect(petr).toMatchObject({
      isin: 'BRPETRACNPR6', tipo: 'acao', compras: { quantidade: 450000, valor: sum('PETR4', 11), fundos: 2 }, vendas: { quantidade: 120000, valor: sum('PETR4', 9), fundos: 1 },
      liquido: round(sum('PETR4', 11) - sum('PETR4', 9)), posicao_final: { quantidade: 11_500_000, valor: sum('PETR4', 13), fundos: 2 },
    })
    expect(r.body.ativos.find((a: { ticker: string }) => a.ticker === 'TAEE11').tipo).toBe('unit')
    expect(r.body.ativos.map((a: { posicao: number }) => a.posicao)).toEqual(tickers.map((_, i) => i + 1))
  })

  test('competencia picks a loaded month; limite cuts the list', async () => {
    const r = await get(app, '/v1/fundos/movimentacoes?competencia=2026-07&limite=2')
    expect(r.body).toMatchObject({ competencia: '2026-07', consolidada: false, fundos_informantes: 2 })
    expect(r.body.ativos).toHaveLength(2)
  })

  test('bad input: a month in another format, a month not loaded (the message lists the loaded ones), limite out of range', async () => {
    const cases: [string, string][] = [
      ['competencia=2026-6', "parâmetro de consulta 'competencia': deve ser um mês no formato AAAA-MM (ex.: 2026-06)"],
      ['competencia=06/2026', "parâmetro de consulta 'competencia': deve ser um mês no formato AAAA-MM (ex.: 2026-06)"],
      ['competencia=2026-13', "parâmetro de consulta 'competencia': deve ser um mês no formato AAAA-MM (ex.: 2026-06)"],
      ['competencia=2026-05', "parâmetro de consulta 'competencia': 2026-05 não está carregada; carregadas: 2026-06, 2026-07 (parcial); sem o parâmetro, vale a mais recente consolidada (2026-06)"],
      ['limite=0', "parâmetro de consulta 'limite': deve ser um número inteiro de 1 a 50"],
      ['limite=51', "parâmetro de consulta 'limite': deve ser um número inteiro de 1 a 50"],
    ]
    for (const [q, mensagem] of cases) {
      const r = await get(app, `/v1/fundos/movimentacoes?${q}`)
      expect(r.status).toBe(400)
      expect(r.body).toEqual({ erro: { codigo: 'parametro_invalido', mensagem } })
    }
  })
})

describe('/v1/fundos/amostra', () => {
  test('free, amostra: true, from the loaded base: the largest fund with stocks, its registry and portfolio', async () => {
    const r = await get(app, '/v1/fundos/amostra')
    expect(r.status).toBe(200)
    expect(r.body.amostra).toBe(true)
    expect(r.body.consulta.cnpj).toBe(cnpjOf('indice'))
    expect(r.body.carteira).toMatchObject({ cnpj: cnpjOf('indice'), competencia: '2026-07', total_ativos: 5 })
    expect(r.body.ranking.fundos).toHaveLength(5)
    expect(r.body.movimentacoes.ativos).toHaveLength(5)
    expect(r.body.fluxos.janela.dias).toBe(7)
  })
})

describe('no file holds a CPF (LGPD)', () => {
  test('the built database has neither the legacy manager CPF nor the registry director', async () => {
    // Booleans, not toContain: a failure must not print a binary file.
    const db = readFileSync(join(dataDir, 'fundos', 'current', 'fundos.sqlite')).toString('utf8')
    expect(['52998224725', '529.982.247-25', '529982247', 'FULANO EXEMPLO DE TAL'].map((s) => db.includes(s))).toEqual([false, false, false, false])
    expect(db.includes(ANTIGO.gestor)).toBe(true)
  })
})
