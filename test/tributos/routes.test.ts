// The tax-reform routes over the bundled sample: the NCM lookup (dotted or not, a year, codes of
// every length, a code not in the table, malformed input), the annex search, the calendar and the
// free sample; and which routes answer without the NCM table.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildTributos } from '../../ingest/tributos/load'
import { tributosIngest } from '../../ingest/tributos/command'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type TributosManifest } from '../../src/datasets/tributos/layout'
import { NcmResultado } from '../../src/datasets/tributos/model'
import { anoPadrao, calendario, calendarioJson, consultarNcm, consultarNcmJson } from '../../src/datasets/tributos/service'
import { openTributosFiles } from '../../src/datasets/tributos/store'
import { get, tempDir, testApp } from '../helpers'
import { amostraFromSample, AMOSTRA_FILE, committedAmostra } from './amostra'

const dataDir = tempDir('dadosbr-tributos-app-')
await tributosIngest.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
const { app } = await testApp({ dataDir })
const { app: vazio } = await testApp({ dataDir: tempDir('dadosbr-vazio-') })
afterAll(async () => {
  await app.close()
  await vazio.close()
})

const fund = (b: any) => b.fundamentos.map((f: any) => `${f.anexo}/${f.item}:${f.regime.codigo}:${f.cobre}${f.principal ? '*' : ''}`)
const tributo = (b: any, codigo: string) => b.transicao.tributos.find((t: any) => t.codigo === codigo)

describe('/v1/tributos/ncm/{codigo}', () => {
  test('1006.30.21 (rice): Annex I item 1, zero rate, with the wording, the alternatives and what ressalva it', async () => {
    const r = await get(app, '/v1/tributos/ncm/1006.30.21?ano=2026')
    expect(r.status).toBe(200)
    const b = r.body
    expect(Object.keys(b)).toEqual(['ncm', 'ano', 'regime', 'fundamentos', 'exclusoes', 'desdobramento', 'imposto_seletivo', 'transicao', 'observacoes', 'fonte'])
    expect(b.ncm).toEqual({
      codigo: '10063021',
      formatado: '1006.30.21',
      nivel: 'subitem',
      existe: true,
      descricao: 'Polido ou brunido',
      hierarquia: [
        { codigo: '10', formatado: '10', nivel: 'capitulo', descricao: 'Cereais.' },
        { codigo: '1006', formatado: '10.06', nivel: 'posicao', descricao: 'Arroz.' },
        { codigo: '100630', formatado: '1006.30', nivel: 'subposicao', descricao: 'Arroz semibranqueado ou branqueado, mesmo polido ou brunido (glaciado*)' },
        { codigo: '1006302', formatado: '1006.30.2', nivel: 'item', descricao: 'Não parboilizado' },
      ],
      vigencia: { inicio: '2022-04-01', fim: null, ato: 'Res Camex 272/2021' },
    })
    expect(b.regime).toEqual({
      codigo: 'aliquota_zero',
      descricao: 'Alíquotas do IBS e da CBS reduzidas a zero',
      reducao_percentual: 100,
      dispositivo: 'LC 214/2025, art. 125, Anexo I, item 1',
      depende_do_produto: true,
      condicoes: ['produtos destinados à alimentação humana (art. 125)'],
    })
    expect(fund(b)).toEqual(['I/1:aliquota_zero:todo*', 'IX/10:reducao_60:todo', 'IX/19:reducao_60:todo'])
    expect(b.fundamentos[0]).toMatchObject({ texto: 'Arroz das subposições 1006.20 e 1006.30 e do código 1006.40.00 da NCM/SH', referencia: { texto: '1006.30', codigo: '100630', nivel: 'subposicao', exceto: false, alinea: null }, verificado: true })
    expect(b.exclusoes).toEqual([{ anexo: 'VII', item: '15', dispositivo: 'LC 214/2025, art. 135, Anexo VII, item 15', motivo: 'remissao', por: 'Anexo I', texto: 'Cereais do capítulo 10 e sementes e frutos oleaginosos classificados no capítulo 12, ambos da NCM/SH, ressalvados os produtos relacionados no Anexo I' }])
    expect([b.desdobramento, b.imposto_seletivo]).toEqual([null, { incide: 'nao', fundamentos: [], observacao: null }])
    expect(b.fonte).toEqual({ base: 'LC 214/2025', lei: 'Lei Complementar nº 214, de 16 de janeiro de 2025, com as alterações da LC 227/2026', anexos_versao: '2026-11-24', texto_conferido_em: '2026-11-24', tabela_ncm: { vigencia: 'Vigente em 13/05/2025', referencia: '2025-05-13', ato: 'Resolução Camex nº 641/2024', completa: false } })
  })

  test('with or without dots, the same answer; ano defaults to the current year (2026 to 2033)', async () => {
    const forms = ['1006.30.21', '10063021', '1006.3021', '100630.21']
    const answers = await Promise.all(forms.map((f) => get(app, `/v1/tributos/ncm/${f}`)))
    for (const a of answers) expect([a.status, a.body]).toEqual([200, answers[0]!.body])
    expect(answers[0]!.body.ano).toBe(anoPadrao())
    expect([anoPadrao(new Date('2025-06-01T12:00:00Z')), anoPadrao(new Date('2027-01-01T02:00:00Z')), anoPadrao(new Date('2040-01-01T12:00:00Z'))]).toEqual([2026, 2026, 2033])
  })

  test('the transition context follows the year and the regime: test rates with the reduction (art. 348, III, a; art. 344)', async () => {
    const arroz26 = (await get(app, '/v1/tributos/ncm/10063021?ano=2026')).body
    expect([tributo(arroz26, 'cbs').aliquota_percentual, tributo(arroz26, 'cbs').aliquota_aplicavel_percentual, tributo(arroz26, 'ibs_estadual').aliquota_aplicavel_percentual]).toEqual([0.9, 0, 0])
    const pao26 = (await get(app, '/v1/tributos/ncm/1905.90.10?ano=2026')).body
    expect([pao26.regime.codigo, pao26.regime.dispositivo]).toEqual(['reducao_60', 'LC 214/2025, art. 135, Anexo VII, item 12'])
    expect([tributo(pao26, 'cbs').aliquota_aplicavel_percentual, tributo(pao26, 'ibs_estadual').aliquota_aplicavel_percentual]).toEqual([0.36, 0.04])
    const pao27 = (await get(app, '/v1/tributos/ncm/1905.90.10?ano=2027')).body
    expect([pao27.transicao.fase, tributo(pao27, 'cbs').aliquota_aplicavel_percentual, tributo(pao27, 'ibs_estadual').aliquota_aplicavel_percentual, tributo(pao27, 'ibs_municipal').aliquota_aplicavel_percentual]).toEqual(['cbs_e_imposto_seletivo', null, 0.02, 0.02])
    expect(tributo(pao27, 'pis_cofins').situacao).toBe('extinto')
    const y2031 = (await get(app, '/v1/tributos/ncm/1905.90.10?ano=2031')).body
    expect([tributo(y2031, 'icms').situacao, tributo(y2031, 'icms').reducao_da_aliquota_percentual]).toEqual(['reduzido', 30])
    const y2033 = (await get(app, '/v1/tributos/ncm/1905.90.10?ano=2033')).body
    expect([tributo(y2033, 'icms').situacao, tributo(y2033, 'iss').situacao]).toEqual(['extinto', 'extinto'])
  })

  test('an "exceto" takes the code out: foie gras 0207.43.00 keeps the standard rates', async () => {
    const b = (await get(app, '/v1/tributos/ncm/0207.43.00')).body
    expect([b.ncm.descricao, b.regime.codigo, b.regime.dispositivo, b.fundamentos]).toEqual(['Fígados gordos (foies gras), frescos ou refrigerados', 'aliquota_padrao', null, []])
    expect(b.exclusoes).toEqual([{ anexo: 'I', item: '19', dispositivo: 'LC 214/2025, art. 125, Anexo I, item 19', motivo: 'exceto', por: '0207.43.00', texto: expect.stringContaining('exceto os produtos dos códigos 0207.43.00 e 0207.53.00') }])
  })

  test('a shorter code covering subitems with different regimes lists them (desdobramento)', async () => {
    const aves = (await get(app, '/v1/tributos/ncm/02.07')).body
    expect([aves.ncm.nivel, aves.regime.codigo, aves.regime.reducao_percentual]).toEqual(['posicao', 'varia_por_subitem', null])
    expect(fund(aves)).toEqual(['I/19:aliquota_zero:parte'])
    expect(aves.desdobramento.map((d: any) => [d.regime.codigo, d.subitens, d.dispositivos])).toEqual([
      ['aliquota_zero', 31, ['LC 214/2025, art. 125, Anexo I, item 19']],
      ['aliquota_padrao', 2, []],
    ])
    expect(aves.desdobramento[1].codigos).toEqual(['0207.43.00', '0207.53.00'])
    const arroz = (await get(app, '/v1/tributos/ncm/1006')).body
    expect(fund(arroz)).toEqual(['VII/15:reducao_60:parte', 'IX/10:reducao_60:todo', 'IX/19:reducao_60:todo', 'I/1:aliquota_zero:parte'])
    expect(arroz.desdobramento.map((d: any) => [d.regime.codigo, d.codigos])).toEqual([
      ['aliquota_zero', ['1006.20.10', '1006.20.20', '1006.30.11', '1006.30.19', '1006.30.21', '1006.30.29', '1006.40.00']],
      ['reducao_60', ['1006.10.10', '1006.10.91', '1006.10.92']],
    ])
    // All subitems under one regime: that regime.
    const ovos = (await get(app, '/v1/tributos/ncm/0407.2')).body
    expect([ovos.regime.codigo, ovos.regime.dispositivo, ovos.desdobramento.length]).toEqual(['aliquota_zero', 'LC 214/2025, art. 148, Anexo XV, item 1', 1])
  })

  test('the same code in several items with different regimes: the principal and the alternatives (2106.90.90)', async () => {
    const b = (await get(app, '/v1/tributos/ncm/2106.90.90?ano=2027')).body
    expect([b.regime.codigo, b.regime.dispositivo, b.regime.depende_do_produto]).toEqual(['aliquota_zero', 'LC 214/2025, art. 125, Anexo I, item 4', true])
    expect(fund(b)).toEqual(['I/4:aliquota_zero:todo*', 'I/26:aliquota_zero:todo', ...[39, 40, 41, 42, 43, 44, 45, 46].map((i) => `VI/${i}:reducao_60:todo`)])
    expect(b.fundamentos[2].regime_alternativo).toEqual({ codigo: 'aliquota_zero', descricao: 'Alíquotas do IBS e da CBS reduzidas a zero', dispositivo: 'LC 214/2025, art. 146, § 2º', condicao: 'adquiridas pelos órgãos e entidades mencionados nos incisos do § 1º do art. 146' })
  })

  test('Imposto Seletivo apart from the IBS/CBS regime: beer, sugary drinks (part of 22.02), cars', async () => {
    const cerveja = (await get(app, '/v1/tributos/ncm/2203.00.00?ano=2027')).body
    expect([cerveja.regime.codigo, cerveja.imposto_seletivo.incide, cerveja.imposto_seletivo.fundamentos.map((f: any) => [f.item, f.texto, f.referencia.texto])]).toEqual(['aliquota_padrao', 'sim', [['IV', 'Bebidas alcóolicas', '2203']]])
    expect(cerveja.imposto_seletivo.observacao).toContain('embalagem primária destinada ao consumidor final (art. 409, § 2º)')
    expect(tributo(cerveja, 'is').situacao).toBe('em_vigor')
    const aguas = (await get(app, '/v1/tributos/ncm/22.02')).body
    expect([aguas.imposto_seletivo.incide, aguas.imposto_seletivo.observacao]).toEqual(['em_parte', '1 de 3 subitens deste código estão no Anexo XVII.'])
    const carro = (await get(app, '/v1/tributos/ncm/8703.23.10?ano=2026')).body
    expect([carro.imposto_seletivo.incide, carro.observacoes[0]]).toEqual(['sim', 'O Imposto Seletivo só é cobrado a partir de 2027.'])
  })

  test('a code only Annex XI reduces: 2106.90.30 (rações operacionais), 60% with the grounds and the buyer or seller conditions of art. 142', async () => {
    const b = (await get(app, '/v1/tributos/ncm/2106.90.30?ano=2026')).body
    expect([b.ncm.existe, b.ncm.descricao]).toEqual([true, 'Suplementos alimentares'])
    expect(b.regime).toMatchObject({ codigo: 'reducao_60', reducao_percentual: 60, dispositivo: 'LC 214/2025, art. 142, Anexo XI, item 2.10', depende_do_produto: false })
    expect(b.regime.condicoes).toEqual([
      'fornecimento à administração pública direta, autarquias e fundações púbicas dos serviços e dos bens relativos à soberania e à segurança nacional, à segurança da informação e à segurança cibernética relacionados no Anexo XI (art. 142, I)',
      'ou fornecimento de serviços de segurança da informação e segurança cibernética desenvolvidos por sociedade que tenha sócio brasileiro com o mínimo de 20% (vinte por cento) do seu capital social (art. 142, II, redação da LC 227/2026)',
    ])
    expect(fund(b)).toEqual(['XI/2.10:reducao_60:todo*'])
    expect(b.fundamentos[0]).toMatchObject({
      texto: 'Rações operacionais',
      grupo: 'BENS RELACIONADOS À SOBERANIA E À SEGURANÇA NACIONAL, À SEGURANÇA DA INFORMAÇÃO E À SEGURANÇA CIBERNÉTICA',
      codigos_texto: '2106.90.30',
      assunto: 'Soberania e segurança nacional, segurança da informação e segurança cibernética',
      verificado: true,
      referencia: { texto: '2106.90.30', codigo: '21069030', nivel: 'subitem', exceto: false, alinea: null },
    })
    expect(b.observacoes).toContain('A redução do Anexo XI (art. 142) não vale para qualquer venda: só no fornecimento à administração pública direta, autarquias e fundações públicas (inciso I) ou, nos serviços de segurança da informação e cibernética, quando desenvolvidos por sociedade com sócio brasileiro de ao menos 20% do capital (inciso II, que não alcança bens). Fora disso, valem as alíquotas-padrão.')
    expect([tributo(b, 'cbs').aliquota_aplicavel_percentual, tributo(b, 'ibs_estadual').aliquota_aplicavel_percentual]).toEqual([0.36, 0.04])
    // Its position: now three regimes below 21.06.
    const p = (await get(app, '/v1/tributos/ncm/21.06')).body
    expect(p.desdobramento.map((d: any) => [d.regime.codigo, d.dispositivos])).toEqual([
      ['aliquota_zero', ['LC 214/2025, art. 125, Anexo I, item 4']],
      ['reducao_60', ['LC 214/2025, art. 142, Anexo XI, item 2.10']],
      ['aliquota_padrao', []],
    ])
  })

  test('a well-formed code not in the table: 200 saying so, with the nearest level that exists, and what the annexes say of it', async () => {
    const r = await get(app, '/v1/tributos/ncm/1006.30.99')
    expect([r.status, r.body.ncm.existe, r.body.ncm.descricao, r.body.desdobramento]).toEqual([200, false, null, null])
    expect(r.body.observacoes[0]).toBe('O código 1006.30.99 não consta da tabela NCM carregada (Vigente em 13/05/2025, um trecho da tabela vigente: o código pode existir fora dele). Confira o código: a tabela só tem códigos de 2, 4, 5, 6, 7 e 8 dígitos que existem; o nível mais próximo que existe nela é 1006.30.')
    expect(r.body.ncm.hierarquia.map((h: any) => h.formatado)).toEqual(['10', '10.06', '1006.30'])
    // Annex I item 1 cites the whole subposition 1006.30: whatever is classified under it is zero-rated.
    expect([r.body.regime.codigo, r.body.regime.dispositivo, fund(r.body)]).toEqual(['aliquota_zero', 'LC 214/2025, art. 125, Anexo I, item 1', 'I/1:aliquota_zero:todo*,IX/10:reducao_60:todo,IX/19:reducao_60:todo'.split(',')])
    expect((await get(app, '/v1/tributos/ncm/99999999')).body.observacoes[0]).toContain('nem o capítulo existe nela')
  })

  // #29.1: the annexes are matched on the code as written, whatever the table holds; what they cannot
  // settle without the table is "indeterminado", never a firm "nao". The bundled table is an excerpt
  // without chapter 24 (cigarettes), as a user running `make run` has it.
  const INDETERMINADO = { codigo: 'indeterminado', descricao: 'Regime indeterminado: sem os subitens deste código na tabela NCM carregada, os Anexos não bastam para dizê-lo (veja observacoes)', reducao_percentual: null, dispositivo: null, depende_do_produto: false, condicoes: [] }
  const NENHUM_ITEM = 'Nenhum item dos Anexos cita este código, nem um nível acima ou abaixo dele: se ele existir, IBS e CBS às alíquotas-padrão.'
  const FUMIGENOS = 'Produtos fumígenos e bebidas alcoólicas estão sujeitos ao Imposto Seletivo quando acondicionados em embalagem primária destinada ao consumidor final (art. 409, § 2º).'
  const NOMENCLATURA = 'Os códigos dos Anexos seguem a NCM aprovada pela Resolução Gecex nº 272/2021; reclassificações posteriores não mudam o tratamento dado pela lei (LC 214/2025, art. 492, § 2º).'

  test('cigarettes (2402.20.00, 24.02) outside the loaded table: Imposto Seletivo by Annex XVII item III, as the search cites it; the IBS/CBS regime unknown', async () => {
    for (const [codigo, formatado] of [['2402.20.00', '2402.20.00'], ['2402', '24.02']] as const) {
      const b = (await get(app, `/v1/tributos/ncm/${codigo}?ano=2026`)).body
      expect([b.ncm.existe, b.ncm.hierarquia, b.regime, b.fundamentos, b.exclusoes, b.desdobramento]).toEqual([false, [], INDETERMINADO, [], [], null])
      expect(b.imposto_seletivo.incide).toBe('sim')
      expect(b.imposto_seletivo.observacao).toBe(FUMIGENOS)
      expect(b.imposto_seletivo.fundamentos.map((f: any) => [f.anexo, f.item, f.dispositivo, f.texto, f.codigos_texto, f.referencia, f.cobre, f.principal])).toEqual([
        ['XVII', 'III', 'LC 214/2025, art. 409, § 1º, Anexo XVII, item III', 'Produtos fumígenos', '2401; 2402; 2403; 2404', { texto: '2402', codigo: '2402', nivel: 'posicao', exceto: false, alinea: null }, 'todo', false],
      ])
      expect(b.observacoes).toEqual([
        `O código ${formatado} não consta da tabela NCM carregada (Vigente em 13/05/2025, um trecho da tabela vigente: o código pode existir fora dele). Confira o código: a tabela só tem códigos de 2, 4, 5, 6, 7 e 8 dígitos que existem; nem o capítulo existe nela.`,
        NENHUM_ITEM,
        'O Imposto Seletivo só é cobrado a partir de 2027.',
        NOMENCLATURA,
      ])
      expect(b.transicao.tributos.find((t: any) => t.codigo === 'cbs').aliquota_aplicavel_percentual).toBeNull()
    }
    // The search cites the same item for the same code.
    const busca = (await get(app, '/v1/tributos/busca?termo=2402')).body
    expect(busca.resultados.map((x: any) => `${x.anexo}/${x.item}`)).toEqual(['XVII/III'])
  })

  test('an unknown code (99.99): both regimes indeterminado, saying what would hold if it existed', async () => {
    const b = (await get(app, '/v1/tributos/ncm/9999?ano=2027')).body
    expect([b.ncm.existe, b.regime, b.fundamentos, b.desdobramento]).toEqual([false, INDETERMINADO, [], null])
    expect(b.imposto_seletivo).toEqual({
      incide: 'indeterminado',
      fundamentos: [],
      observacao: 'O código não consta da tabela NCM carregada e nenhum item do Anexo XVII o cita, nem um nível acima ou abaixo dele: se ele existir, o Imposto Seletivo não incide; confira o código.',
    })
    expect(b.observacoes.slice(1)).toEqual([NENHUM_ITEM, NOMENCLATURA])
  })

  test('a short code outside the table that annex items reach only in part (88.02): em_parte and indeterminado, with the items', async () => {
    const b = (await get(app, '/v1/tributos/ncm/88.02?ano=2026')).body
    expect([b.ncm.existe, b.regime.codigo, fund(b)]).toEqual([false, 'indeterminado', ['XI/2.14:reducao_60:todo', 'XI/2.15:reducao_60:parte']])
    expect(b.imposto_seletivo.incide).toBe('em_parte')
    // Annex XVII item II: "8802, exceto o código 8802.60.00": it reaches the position, less one code.
    expect(b.imposto_seletivo.fundamentos.map((f: any) => [f.item, f.referencia.texto, f.cobre])).toEqual([['II', '8802', 'parte']])
    expect(b.imposto_seletivo.observacao).toBe('Itens do Anexo XVII alcançam só parte deste código e a tabela NCM carregada não tem os subitens dele: consulte o código de 8 dígitos do produto.')
    expect(b.observacoes[1]).toBe('Itens dos Anexos alcançam só parte deste código (veja fundamentos, cobre "parte") e a tabela NCM carregada não tem os subitens dele: consulte o código de 8 dígitos do produto.')
    // The excepted code itself: out of item II (in exclusoes), and with no table to say it exists, not a firm "nao".
    const heli = (await get(app, '/v1/tributos/ncm/8802.60.00')).body
    expect([heli.imposto_seletivo.incide, heli.exclusoes.map((e: any) => [e.anexo, e.item, e.motivo, e.por])]).toEqual(['indeterminado', [['XVII', 'II', 'exceto', '8802.60.00']]])
  })

  test('every code an annex cites, asked whether in the table or not: never a firm "nao" or standard rates where the annexes say otherwise', async () => {
    const { ANEXOS } = await import('../../src/datasets/tributos/anexos')
    const files = openTributosFiles(join(dataDir, DATASET, 'current'), currentManifest<TributosManifest>(dataDir, DATASET)!)
    let fora = 0
    for (const a of ANEXOS.anexos) {
      if (a.situacao !== 'vigente' || !a.regime) continue
      for (const it of a.itens)
        for (const ref of it.ncm) {
          if (ref.exceto || ref.codigo.length < 4) continue
          const b = consultarNcm(files, ref.codigo, 2027)
          if (!b.ncm.existe) fora++
          const cita = (f: { anexo: string; item: string }) => f.anexo === a.anexo && f.item === it.item
          if (a.regime === 'imposto_seletivo') {
            expect([ref.texto, b.imposto_seletivo.incide === 'sim' || b.imposto_seletivo.incide === 'em_parte', b.imposto_seletivo.fundamentos.some(cita)]).toEqual([ref.texto, true, true])
          } else {
            expect([`${a.anexo}/${it.item} ${ref.texto}`, b.regime.codigo !== 'aliquota_padrao', b.fundamentos.some(cita) || b.exclusoes.some(cita)]).toEqual([`${a.anexo}/${it.item} ${ref.texto}`, true, true])
          }
          if (!b.ncm.existe) expect(b.imposto_seletivo.incide).not.toBe('nao')
        }
    }
    // Most cited codes are outside the excerpt: the rule above ran on them, not only on the table's.
    expect(fora).toBeGreaterThan(300)
  })

  test('a code the table has without its subitems (a table cut at 87.03 and 02.07): judged by the annexes alone', async () => {
    // The sample's own rows, less the 8-digit ones under 22.03 and 02.07.
    const src = JSON.parse(readFileSync(join(import.meta.dir, 'fixtures/tributos-amostra/Tabela_NCM_Vigente_20250513.json'), 'utf8'))
    src.Nomenclaturas = src.Nomenclaturas.filter((n: any) => !/^(8703|0207)\.\d\d\.\d\d$/.test(n.Codigo))
    const dir = tempDir('dadosbr-tributos-cortada-src-')
    writeFileSync(join(dir, 'Tabela_NCM_Vigente_20250513.json'), JSON.stringify(src))
    const cutDir = tempDir('dadosbr-tributos-cortada-')
    await buildTributos({ dir, dataDir: cutDir, minSubitens: 1 })
    const files = openTributosFiles(join(cutDir, DATASET, 'current'), currentManifest<TributosManifest>(cutDir, DATASET)!)
    // 87.03 exists and no IBS/CBS item cites it, above or below: standard rates, firm; Annex XVII item I reaches all of it.
    const cerveja = consultarNcm(files, '8703', 2027)
    expect([cerveja.ncm.existe, cerveja.regime.codigo, cerveja.imposto_seletivo.incide, cerveja.desdobramento]).toEqual([true, 'aliquota_padrao', 'sim', null])
    expect(cerveja.observacoes[0]).toBe('A tabela NCM carregada não tem subitens de 8 dígitos abaixo de 87.03 (é um trecho da tabela vigente): o regime vem só dos Anexos.')
    // 02.07: Annex I item 19 reaches it less two codes: without the subitems, not a regime for all of it.
    const aves = consultarNcm(files, '0207', 2027)
    expect([aves.ncm.existe, aves.regime.codigo, aves.fundamentos.map((f) => `${f.anexo}/${f.item}:${f.cobre}`), aves.imposto_seletivo.incide]).toEqual([true, 'indeterminado', ['I/19:parte'], 'nao'])
  })

  test('malformed codes: 400 ncm_invalido saying what is accepted, nothing charged; bad ano: 400', async () => {
    for (const bad of ['123', '123456789', 'abc', '1006-30-21', '10..06', '.1006', '1006.', '%20', '1006%2030', 'l006'])
      expect([bad, (await get(app, `/v1/tributos/ncm/${bad}`)).body.erro?.codigo]).toEqual([bad, 'ncm_invalido'])
    expect((await get(app, '/v1/tributos/ncm/123')).body.erro.mensagem).toBe("parâmetro de caminho 'codigo': use um código NCM de 4 a 8 dígitos, com ou sem pontos (ex. 1006.30.21, 10063021, 10.06 ou 1006)")
    for (const ano of ['2025', '2034', '26', 'x', ''])
      expect([ano, (await get(app, `/v1/tributos/ncm/10063021?ano=${ano}`)).body.erro?.mensagem]).toEqual([ano, "parâmetro de consulta 'ano': deve ser um número inteiro de 2026 a 2033"])
  })

  test('without the NCM table: 503 saying how to build it', async () => {
    const r = await get(vazio, '/v1/tributos/ncm/10063021')
    expect([r.status, r.body.erro.codigo]).toEqual([503, 'dados_indisponiveis'])
    expect(r.body.erro.mensagem).toContain("dadosbr ingest tributos")
  })
})

describe('/v1/tributos/busca', () => {
  const busca = async (q: string, a = app) => (await get(a, `/v1/tributos/busca?${q}`)).body
  const ids = (b: any) => b.resultados.map((x: any) => `${x.anexo}/${x.item}`)

  test('accent-, case- and plural-insensitive words; each word must begin a word of the item', async () => {
    for (const termo of ['feijão', 'FEIJAO', 'feijões', 'Feij'])
      expect([termo, ids(await busca(`termo=${encodeURIComponent(termo)}`))]).toEqual([termo, ['I/7']])
    const leite = await busca('termo=leite%20em%20p%C3%B3')
    expect([leite.palavras, ids(leite)]).toEqual([['leite', 'po'], ['I/3', 'I/2']])
    const r = (await busca('termo=arroz')).resultados[0]
    expect(r).toMatchObject({ anexo: 'I', item: '1', dispositivo: 'LC 214/2025, art. 125, Anexo I, item 1', regime: { codigo: 'aliquota_zero', reducao_percentual: 100 }, texto: 'Arroz das subposições 1006.20 e 1006.30 e do código 1006.40.00 da NCM/SH', encontrado_em: 'redacao', exceto_anexos: [] })
    expect(r.ncm_citados.map((c: any) => c.texto)).toEqual(['1006.20', '1006.30', '1006.40.00'])
  })

  test('wording first, then the descriptions of the codes cited, then the Annex subject', async () => {
    const cerveja = await busca('termo=cerveja')
    expect([ids(cerveja), cerveja.resultados[0].encontrado_em, cerveja.resultados[0].regime.codigo]).toEqual([['XVII/IV'], 'descricao_ncm', 'imposto_seletivo'])
    const cesta = await busca('termo=cesta%20b%C3%A1sica&limite=3')
    expect([cesta.total, ids(cesta), cesta.resultados[0].encontrado_em]).toEqual([26, ['I/1', 'I/2', 'I/3'], 'assunto_do_anexo'])
    const bebidas = await busca('termo=bebidas')
    expect(ids(bebidas)).toEqual(['VII/2', 'XVII/IV', 'XVII/V'])
  })

  test('a code: NCM items citing it, a level above or below; NBS when it is one', async () => {
    const ncm = await busca('termo=1006')
    expect([ncm.tipo, ids(ncm)]).toEqual(['codigo_ncm', ['I/1', 'VII/15', 'IX/10', 'IX/19']])
    expect(ids(await busca('termo=0207.43.00'))).toEqual(['I/19'])
    const nbs = await busca('termo=1.2201.20.00')
    expect([nbs.tipo, ids(nbs)]).toEqual(['codigo_nbs', ['II/2']])
  })

  test('Annexes X and XI: their items by words and by NBS or NCM code, with the 60% regime and the codes as written', async () => {
    const cinema = await busca('termo=cinematogr%C3%A1ficas')
    expect(ids(cinema)).toEqual(['X/3', 'X/10', 'X/17'])
    expect(cinema.resultados[0]).toMatchObject({ dispositivo: 'LC 214/2025, art. 139, Anexo X, item 3', regime: { codigo: 'reducao_60', reducao_percentual: 60 }, texto: 'Licenciamento de direitos de autor de obras cinematográficas', codigos_texto: '1.1103.31.00', ncm_citados: [] })
    expect(cinema.resultados[0].nbs_citados).toEqual([{ texto: '1.1103.31.00', codigo: '111033100', nivel: 'subitem', exceto: false, alinea: null }])
    expect(cinema.resultados[0].condicoes).toContain('o fornecimento de obras de arte contempla apenas aqueles produzidos por artistas brasileiros (art. 139, § 3º)')
    const firewall = await busca('termo=firewalls')
    expect([ids(firewall), firewall.resultados[0].ncm_citados.map((c: any) => c.texto)]).toEqual([['XI/2.26'], ['8517.62.59', '8471.49.00']])
    const nbs = await busca('termo=1.1103')
    expect([nbs.tipo, ids(nbs)]).toEqual(['codigo_nbs', ['X/1', 'X/2', 'X/3', 'X/4', 'X/5', 'X/6', 'X/7', 'X/8', 'X/46']])
    expect(ids(await busca('termo=1.2001.35.00'))).toEqual(['XI/1.13'])
    expect(ids(await busca('termo=8710.00.00'))).toEqual(['XI/2.2'])
    expect(ids(await busca('termo=9306'))).toEqual(['XI/2.8', 'XI/2.11', 'XI/2.12', 'XI/2.13'])
    // Rows without a code are found by their wording; the vetoed rows are not law and are not searched.
    const teatro = await busca('termo=obras%20teatrais')
    expect([ids(teatro), teatro.resultados[0].nbs_citados, teatro.resultados[0].nota]).toEqual([['X/49', 'X/50', 'X/51', 'X/52', 'X/53', 'X/54'], [], 'Item sem código NBS nem NCM na lei (célula vazia no Anexo).'])
    expect((await busca('termo=vetado')).total).toBe(0)
    expect(ids(await busca('termo=onion'))).toEqual(['XI/1.10'])
  })

  test('limite (default 10, at most 30) and total', async () => {
    const b = await busca('termo=servi%C3%A7os')
    expect([b.limite, b.resultados.length, b.total > 30]).toEqual([10, 10, true])
    expect((await busca('termo=servi%C3%A7os&limite=30')).resultados.length).toBe(30)
  })

  test('bad input: 400 with what is allowed', async () => {
    for (const [q, msg] of [
      ['termo=ab', "parâmetro de consulta 'termo': deve ter ao menos 3 caracteres (além de espaços)"],
      ['termo=%20%20ab%20%20', "parâmetro de consulta 'termo': deve ter ao menos 3 caracteres (além de espaços)"],
      ['', "parâmetro de consulta 'termo': é obrigatório"],
      ['termo=arroz&limite=31', "parâmetro de consulta 'limite': deve ser um número inteiro de 1 a 30"],
      ['termo=arroz&limite=0', "parâmetro de consulta 'limite': deve ser um número inteiro de 1 a 30"],
    ])
      expect([q, (await get(app, `/v1/tributos/busca?${q}`)).body.erro?.mensagem]).toEqual([q, msg])
    // Only articles and prepositions: a valid term that finds nothing.
    expect(await busca('termo=das%20e%20de')).toMatchObject({ palavras: [], total: 0, resultados: [] })
  })

  test('answers without the NCM table (wording only; fonte says no table)', async () => {
    const b = await busca('termo=arroz', vazio)
    expect([ids(b), b.fonte.tabela_ncm]).toEqual([['I/1'], null])
    expect((await busca('termo=cerveja', vazio)).total).toBe(0)
  })
})

describe('/v1/tributos/calendario', () => {
  test('2026 to 2033, each tax with its situation, the rates the law fixes and the articles', async () => {
    const r = await get(vazio, '/v1/tributos/calendario')
    expect(r.status).toBe(200)
    const b = r.body
    expect(b.anos.map((a: any) => [a.ano, a.fase])).toEqual([
      [2026, 'teste'], [2027, 'cbs_e_imposto_seletivo'], [2028, 'cbs_e_imposto_seletivo'],
      [2029, 'transicao_icms_iss'], [2030, 'transicao_icms_iss'], [2031, 'transicao_icms_iss'], [2032, 'transicao_icms_iss'], [2033, 'regime_pleno'],
    ])
    const t = (ano: number, codigo: string) => b.anos.find((a: any) => a.ano === ano).tributos.find((x: any) => x.codigo === codigo)
    for (const a of b.anos) expect(a.tributos.map((x: any) => x.codigo)).toEqual(['cbs', 'ibs_estadual', 'ibs_municipal', 'is', 'pis_cofins', 'ipi', 'icms', 'iss'])
    expect([t(2026, 'cbs').aliquota_percentual, t(2026, 'ibs_estadual').aliquota_percentual, t(2026, 'ibs_municipal').situacao, t(2026, 'is').situacao]).toEqual([0.9, 0.1, 'nao_cobrado', 'nao_cobrado'])
    expect(t(2026, 'cbs').fundamentos).toEqual([{ dispositivo: 'LC 214/2025, art. 346', conferido: true }, { dispositivo: 'LC 214/2025, art. 348', conferido: true }, { dispositivo: 'ADCT (EC 132/2023), art. 125', conferido: true }])
    expect([t(2027, 'ibs_estadual').aliquota_percentual, t(2027, 'ibs_municipal').aliquota_percentual, t(2027, 'cbs').aliquota_percentual, t(2027, 'pis_cofins').situacao, t(2027, 'ipi').situacao]).toEqual([0.05, 0.05, null, 'extinto', 'aliquota_zero'])
    expect([2029, 2030, 2031, 2032].map((y) => [t(y, 'icms').reducao_da_aliquota_percentual, t(y, 'iss').reducao_da_aliquota_percentual])).toEqual([[10, 10], [20, 20], [30, 30], [40, 40]])
    expect(t(2029, 'icms').fundamentos[0]).toEqual({ dispositivo: 'LC 214/2025, art. 501 (art. 31-A da LC 87/1996)', conferido: true })
    expect(t(2030, 'ibs_estadual').fundamentos).toEqual([{ dispositivo: 'LC 214/2025, art. 349, II', conferido: true }, { dispositivo: 'LC 214/2025, art. 362', conferido: true }])
    expect([t(2033, 'icms').situacao, t(2033, 'iss').situacao]).toEqual(['extinto', 'extinto'])
    expect(b.extincoes.map((e: any) => [e.codigo, e.evento, e.a_partir_de])).toEqual([['pis_cofins', 'extincao', '2027-01-01'], ['ipi', 'aliquota_zero', '2027-01-01'], ['icms', 'extincao', '2033-01-01'], ['iss', 'extincao', '2033-01-01']])
  })

  test('every ADCT article cited is one of arts. 125 to 129, read literally in two transcriptions (conferido); nothing is left unchecked', async () => {
    const b = (await get(vazio, '/v1/tributos/calendario')).body
    const todos = [...b.anos.flatMap((a: any) => a.tributos.flatMap((x: any) => x.fundamentos)), ...b.extincoes.flatMap((e: any) => e.fundamentos), ...b.regras.flatMap((r: any) => r.fundamentos)]
    const adct = todos.filter((f: any) => f.dispositivo.startsWith('ADCT'))
    expect([...new Set(adct.map((f: any) => f.dispositivo))].sort()).toEqual(['art. 125', 'art. 126, I', 'art. 126, II', 'art. 126, III', 'art. 127', 'art. 128', 'art. 129'].map((a) => `ADCT (EC 132/2023), ${a}`))
    expect(todos.filter((f: any) => !f.conferido)).toEqual([])
  })
})

describe('/v1/tributos/amostra', () => {
  test('the bundled copy is what the bundled sample builds today (rewrite it with `bun test/tributos/amostra.ts`)', async () => {
    expect(AMOSTRA_FILE).toEndWith(join('src', 'datasets', 'tributos', 'amostra.json'))
    expect(committedAmostra()).toBe(await amostraFromSample())
  })

  test('rice in 2026, flagged; from the copy when no data is loaded', async () => {
    const r = await get(app, '/v1/tributos/amostra')
    expect([r.status, r.body.amostra, r.body.ncm.formatado, r.body.ano, r.body.regime.codigo]).toEqual([200, true, '1006.30.21', 2026, 'aliquota_zero'])
    expect((await get(vazio, '/v1/tributos/amostra')).body).toEqual(r.body)
    const { amostra: _, ...semFlag } = r.body
    expect(semFlag).toEqual((await get(app, '/v1/tributos/ncm/1006.30.21?ano=2026')).body)
  })
})

describe('the answers as sent (JSON text spliced from shared parts)', () => {
  test('the same answer as the object, in the schema order, for every kind of code and year', async () => {
    const files = openTributosFiles(join(dataDir, DATASET, 'current'), currentManifest<TributosManifest>(dataDir, DATASET)!)
    for (const codigo of ['10063021', '02071400', '0207', '100630', '1006302', '22030000', '99999999', '9999'])
      for (const ano of [2026, 2027, 2029, 2033]) {
        const text = consultarNcmJson(files, codigo, ano)
        const objeto = consultarNcm(files, codigo, ano)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(objeto)))
        expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(NcmResultado.shape))
      }
    expect(JSON.parse(calendarioJson(files))).toEqual(JSON.parse(JSON.stringify(calendario(files))))
    expect(calendarioJson(files)).toBe(calendarioJson(files))
  })
})
