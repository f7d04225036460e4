// The annex data kept in the repository (src/datasets/tributos/data/anexos.json): its shape, the
// counts of each Annex, a sample of items pinned against the law's wording, and the consistency of
// every reference with the wording it was read from.
import { describe, expect, test } from 'bun:test'
import { ANEXOS, type AnexoDados, type ItemDados } from '../../src/datasets/tributos/anexos'
import { nivelNcm } from '../../src/datasets/tributos/codigos'

const anexo = (id: string) => ANEXOS.anexos.find((a) => a.anexo === id)!
const item = (a: string, i: string) => anexo(a).itens.find((x) => x.item === i)!
const refs = (a: string, i: string) => item(a, i).ncm.map((r) => (r.exceto ? `!${r.texto}` : r.texto) + (r.alinea ? `(${r.alinea})` : ''))

describe('annex catalogue', () => {
  test('every Annex of LC 214/2025 from I to XVII, with its article, regime and status', () => {
    expect(ANEXOS.anexos.map((a) => a.anexo)).toEqual(['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII', 'XIII', 'XIV', 'XV', 'XVI', 'XVII'])
    const resumo = Object.fromEntries(ANEXOS.anexos.map((a) => [a.anexo, [a.artigo, a.regime, a.situacao, a.cobertura, a.itens.length]]))
    expect(resumo).toEqual({
      I: ['art. 125', 'aliquota_zero', 'vigente', 'completa', 26],
      II: ['art. 129', 'reducao_60', 'vigente', 'completa', 9],
      III: ['art. 130', 'reducao_60', 'vigente', 'completa', 30],
      IV: ['art. 131', 'reducao_60', 'vigente', 'completa', 105],
      V: ['art. 132', 'reducao_60', 'vigente', 'completa', 29],
      VI: ['art. 133, § 1º', 'reducao_60', 'vigente', 'completa', 81],
      VII: ['art. 135', 'reducao_60', 'vigente', 'completa', 17],
      VIII: ['art. 136', 'reducao_60', 'vigente', 'completa', 7],
      IX: ['art. 138', 'reducao_60', 'vigente', 'completa', 35],
      X: ['art. 139', 'reducao_60', 'vigente', 'completa', 57],
      XI: ['art. 142', 'reducao_60', 'vigente', 'completa', 46],
      XII: ['art. 144, I', 'aliquota_zero', 'vigente', 'completa', 20],
      XIII: ['art. 145, I', 'aliquota_zero', 'vigente', 'completa', 8],
      XIV: ['art. 146', 'aliquota_zero', 'revogado', 'nao_se_aplica', 0],
      XV: ['art. 148', 'aliquota_zero', 'vigente', 'completa', 6],
      XVI: ['art. 371', null, 'vigente', 'nao_se_aplica', 0],
      XVII: ['art. 409, § 1º', 'imposto_seletivo', 'vigente', 'completa', 7],
    })
  })

  test('the amendment by LC 227/2026 is applied: Annex XIV revoked, the vetoed change to Annex VII not', () => {
    expect(anexo('XIV').nota).toContain('Revogado pela Lei Complementar nº 227/2026')
    const lc227 = ANEXOS.alteracoes.filter((a) => a.norma.startsWith('Lei Complementar nº 227/2026'))
    expect(lc227.map((a) => [a.anexos, a.aplicada])).toEqual([[['XIV'], true], [['VII'], true], [['XX', 'XXI'], false], [[], true]])
    expect(lc227[1]!.efeito).toContain('vetada')
  })

  test('literal titles (Planalto text)', () => {
    expect(anexo('I').titulo).toBe('PRODUTOS DESTINADOS À ALIMENTAÇÃO HUMANA SUBMETIDOS À REDUÇÃO A ZERO DAS ALÍQUOTAS DO IBS E DA CBS (EXCLUSIVE PRODUTOS HORTÍCOLAS, FRUTAS E OVOS, RELACIONADOS NO ANEXO XV)')
    expect(anexo('XV').titulo).toBe('PRODUTOS HORTÍCOLAS, FRUTAS E OVOS SUBMETIDOS À REDUÇÃO DE 100% (CEM POR CENTO) DAS ALÍQUOTAS DO IBS E DA CBS')
    expect(anexo('XVII').titulo).toBe('BENS E SERVIÇOS SUJEITOS AO IMPOSTO SELETIVO')
  })

  test('conditional zero rate of the medical and accessibility annexes (arts. 144, 145, 146)', () => {
    expect([anexo('IV'), anexo('V'), anexo('VI')].map((a) => a.regime_alternativo && [a.regime_alternativo.regime, a.regime_alternativo.artigo])).toEqual([
      ['aliquota_zero', 'art. 144, II'],
      ['aliquota_zero', 'art. 145, II'],
      ['aliquota_zero', 'art. 146, § 2º'],
    ])
  })
})

describe('Annex I (cesta básica), pinned against the law', () => {
  test('every item number 1 to 26, all checked in two transcriptions', () => {
    expect(anexo('I').itens.map((i) => i.item)).toEqual(Array.from({ length: 26 }, (_, i) => String(i + 1)))
    expect(anexo('I').itens.every((i) => i.verificado)).toBe(true)
  })

  test('wording, item by item (a sample)', () => {
    expect(item('I', '1').texto).toBe('Arroz das subposições 1006.20 e 1006.30 e do código 1006.40.00 da NCM/SH')
    expect(item('I', '8').texto).toBe('Café da posição 09.01 e da subposição 2101.1, ambos da NCM/SH')
    expect(item('I', '11').texto).toBe('Farinha, grumos e sêmolas, de milho, dos códigos 1102.20.00 e 1103.13.00 da NCM')
    expect(item('I', '16').texto).toBe(
      'Pão comumente denominado pão francês, de formato cilíndrico e alongado, com miolo branco creme e macio, e casca dourada e crocante, elaborado a partir da mistura ou pré-mistura de farinha de trigo, fermento biológico, água, sal, açúcar, aditivos alimentares e produtos de fortificação de farinhas, em conformidade com a legislação vigente, classificado no código 1905.90.90 da NCM/SH e a pré-mistura ou massa, para preparação do pão comumente denominado pão francês, dos códigos 1901.20.10 e 1901.20.90 da NCM/SH',
    )
    expect(item('I', '19').texto).toBe(
      'Carnes bovina, suína, ovina, caprina e de aves e produtos de origem animal (exceto foies gras) dos seguintes códigos, subposições e posições da NCM/SH: a) 02.01, 02.02, 0206.10.00, 0206.2 e 0210.20.00; b) 02.03, 0206.30.00, 0206.4, 0209.10 e 0210.1; c) 02.04 e 0210.99.20, carne caprina classificada no código 0210.99.90 e miudezas comestíveis de ovinos e caprinos classificadas nos códigos 0206.80.00 e 0206.90.00; d) 02.07, 0209.90.00 e 0210.99.1, exceto os produtos dos códigos 0207.43.00 e 0207.53.00',
    )
    expect(item('I', '22').texto).toBe(
      'Sal em conformidade com os requisitos da legislação específica relativos ao teor de iodo enquadrado nos limites próprios para consumo humano classificado nos códigos 2501.00.20 e 2501.00.90 da NCM/SH',
    )
    // The official text writes this code without its dots.
    expect(item('I', '26').texto).toBe('Fórmulas Dietoterápicas para Erros Inatos do Metabolismo da NCM 2106.9090')
  })

  test('references exactly as written, with levels, alíneas and exceptions', () => {
    expect(item('I', '1').ncm).toEqual([
      { texto: '1006.20', codigo: '100620', nivel: 'subposicao' },
      { texto: '1006.30', codigo: '100630', nivel: 'subposicao' },
      { texto: '1006.40.00', codigo: '10064000', nivel: 'subitem' },
    ])
    expect(item('I', '8').ncm.map((r) => [r.texto, r.codigo, r.nivel])).toEqual([
      ['09.01', '0901', 'posicao'],
      ['2101.1', '21011', 'subposicao'],
    ])
    expect(refs('I', '19')).toEqual(['02.01(a)', '02.02(a)', '0206.10.00(a)', '0206.2(a)', '0210.20.00(a)', '02.03(b)', '0206.30.00(b)', '0206.4(b)', '0209.10(b)', '0210.1(b)', '02.04(c)', '0210.99.20(c)', '0210.99.90(c)', '0206.80.00(c)', '0206.90.00(c)', '02.07(d)', '0209.90.00(d)', '0210.99.1(d)', '!0207.43.00(d)', '!0207.53.00(d)'])
    expect(refs('I', '20')).toEqual(['03.02(a)', '!0302.1(a)', '!0302.3(a)', '!0302.51.00(a)', '!0302.52.00(a)', '!0302.53.00(a)', '!0302.9(a)', '03.03(b)', '!0303.1(b)', '!0303.4(b)', '!0303.63.00(b)', '!0303.64.00(b)', '!0303.65.00(b)', '!0303.9(b)', '03.04(c)', '!0304.4(c)', '!0304.5(c)', '!0304.7(c)', '!0304.8(c)', '!0304.9(c)'])
    expect(item('I', '26').ncm).toEqual([{ texto: '2106.9090', codigo: '21069090', nivel: 'subitem' }])
    expect(item('I', '19').condicoes).toEqual(['exceto foies gras'])
    expect(item('I', '2').condicoes).toEqual(['em conformidade com os requisitos da legislação específica relativos ao consumo direto pela população'])
  })
})

describe('other annexes, pinned (a sample)', () => {
  test('Annex VII: exceptions, remissions to Annexes I and XV, chapters as the law writes them', () => {
    expect(item('VII', '14').texto).toBe(
      'Frutas, produtos hortícolas e demais produtos vegetais, sem adição de açúcar ou de outros edulcorantes, classificados nos capítulos 7 e 8 da NCM/SH, ressalvados as frutas de casca rija não regionais e os produtos relacionados nos Anexos I e XV e excetuadas as posições 07.11, 08.12 e 0814.00.00',
    )
    expect(refs('VII', '14')).toEqual(['7', '8', '!07.11', '!08.12', '!0814.00.00'])
    expect(item('VII', '14').ncm.slice(0, 2).map((r) => [r.codigo, r.nivel])).toEqual([['07', 'capitulo'], ['08', 'capitulo']])
    expect(item('VII', '14').exceto_anexos).toEqual(['I', 'XV'])
    expect(item('VII', '15').exceto_anexos).toEqual(['I'])
    expect(refs('VII', '1')).toEqual(['0306.1(a)', '0306.3(a)', '!0306.11(a)', '!0306.15.00(a)', '!0306.31.00(a)', '!0306.34.00(a)', '!0306.39.10(a)', '0307.31.00(b)', '0307.32.00(b)', '0307.42.00(b)', '0307.43(b)', '0307.51.00(b)', '0307.52.00(b)', '0307.91.00(b)', '0307.92.00(b)'])
  })

  test('three-column annexes keep their code cell; headers have no code', () => {
    expect(item('XII', '5')).toMatchObject({ texto: 'Artigos e aparelhos de prótese, exceto os dentários e os produtos classificados nos códigos 9021.39.91 e 9021.39.99', codigos_texto: '9021.3', condicoes: ['exceto os dentários'] })
    expect(refs('XII', '5')).toEqual(['9021.3', '!9021.39.91', '!9021.39.99'])
    expect(refs('XII', '7')).toEqual(['9022.13', '9022.14', '9022.19', '!9022.19.91'])
    expect(item('XII', '1')).toMatchObject({ cabecalho: true, ncm: [] })
    expect(item('V', '1.11')).toMatchObject({ texto: 'Plataforma de elevação para cadeira de rodas, manual, eletro-hidráulica ou eletromecânica', codigos_texto: '8428.90.90' })
    expect(item('IX', '2').codigos_texto).toBe('Capítulo 31; 3824.99.77; 3824.99.79; 3824.99.89')
    expect(item('IX', '22').nbs).toEqual([{ texto: '1.1410.90.00', codigo: '114109000', nivel: 'subitem' }])
    expect(item('VI', '40').texto).toBe('Fórmula para dieta isenta demetionina') // sic, as published
  })

  test('Annex XVII (Imposto Seletivo) as the table writes it', () => {
    expect(anexo('XVII').itens.map((i) => [i.item, i.texto, i.codigos_texto])).toEqual([
      ['I', 'Veículos', '87.03; 8704.21 (exceto os caminhões); 8704.31 (exceto os caminhões); 8704.41.00 (exceto os caminhões); 8704.51.00 (exceto os caminhões); 8704.60.00 (exceto os caminhões); 8704.90.00 (exceto os caminhões); ressalvados os veículos com características técnicas específicas para uso operacional das Forças Armadas ou dos órgãos de Segurança Pública'],
      ['II', 'Aeronaves e Embarcações', '8802, exceto o código 8802.60.00; e embarcações com motor classificadas na posição 8903; ressalvadas as aeronaves e embarcações com características técnicas específicas para uso operacional das Forças Armadas ou dos órgãos de Segurança Pública'],
      ['III', 'Produtos fumígenos', '2401; 2402; 2403; 2404'],
      ['IV', 'Bebidas alcóolicas', '2203; 2204; 2205; 2206; 2208'],
      ['V', 'Bebidas açucaradas', '2202.10.00'],
      ['VI', 'Bens minerais', '2601; 2709.00.10; 2711.11.00; 2711.21.00'],
      ['VII', 'Concursos de prognósticos e Fantasy sport', null],
    ])
    expect(refs('XVII', 'II')).toEqual(['8802', '!8802.60.00', '8903'])
  })

  test('Annexes II and III (services, by NBS)', () => {
    expect(item('III', '29')).toMatchObject({ texto: 'Serviços de esterilização', codigos_texto: '1.2301.99.0' })
    expect(item('II', '9')).toMatchObject({
      texto: 'Educação especial destinada a pessoas com deficiência, transtornos globais do desenvolvimento e altas habilidades ou superdotação, de modo isolado ou agregado a qualquer das etapas de educação tratadas neste Anexo',
      codigos_texto: null,
      nbs: [],
      verificado: true,
    })
  })
})

const nbs = (a: string, i: string) => item(a, i).nbs.map((r) => `${r.texto}=${r.nivel}`)

describe('Annex X (produções artísticas, culturais, jornalísticas e audiovisuais, art. 139), pinned against the law', () => {
  test('title, items 1 to 57, and the conditions of art. 139 (incisos, §§ 1º to 3º)', () => {
    expect(anexo('X').titulo).toBe('PRODUÇÕES NACIONAIS ARTÍSTICAS, CULTURAIS, DE EVENTOS, JORNALÍSTICAS E AUDIOVISUAIS SUBMETIDAS À REDUÇÃO DE 60% (SESSENTA POR CENTO) DAS ALÍQUOTAS DO IBS E DA CBS')
    expect(anexo('X').itens.map((i) => i.item)).toEqual(Array.from({ length: 57 }, (_, n) => String(n + 1)))
    expect(anexo('X').itens.every((i) => i.verificado)).toBe(true)
    const c = anexo('X').condicoes!
    expect(c.map((x) => x.slice(x.lastIndexOf('(')))).toEqual(['(art. 139, I a VIII)', '(art. 139, § 1º)', '(art. 139, § 2º)', '(art. 139, § 3º)'])
    expect(c[1]).toContain('somente produções realizadas no País que contenham majoritariamente obras artísticas, musicais, literárias ou jornalísticas de autores brasileiros ou interpretadas majoritariamente por artistas brasileiros')
    expect(c[3]).toBe('o fornecimento de obras de arte contempla apenas aqueles produzidos por artistas brasileiros (art. 139, § 3º)')
  })

  test('services by NBS, at every level the law writes (position, subposition, one digit of it, full code)', () => {
    expect(item('X', '1')).toMatchObject({ texto: 'Licenciamento de direitos de autor e de direitos conexos', codigos_texto: '1.1103', ncm: [] })
    expect(nbs('X', '1')).toEqual(['1.1103=posicao'])
    expect(nbs('X', '7')).toEqual(['1.1103.36=subposicao'])
    expect(nbs('X', '8')).toEqual(['1.1103.4=subposicao'])
    expect(nbs('X', '3')).toEqual(['1.1103.31.00=subitem'])
    expect(item('X', '37')).toMatchObject({ texto: 'Serviços de produção e apresentação de atuações artísticas ao vivo, inclusive os ingressos relativos a estes serviços', codigos_texto: '1.2502.20.00' })
    expect(item('X', '56')).toMatchObject({
      texto: 'Serviços de locação, montagem e desmontagem de palcos, destinados às produções de que trata o art. 139 desta Lei Complementar',
      codigos_texto: '1.0105.70.00',
      condicoes: ['destinados às produções de que trata o art. 139 desta Lei Complementar'],
    })
    expect(item('X', '31').condicoes).toEqual(['destinados diretamente às produções nacionais artísticas, culturais e audiovisuais'])
    // The code of item 21 is split by a link in the published page; the reconstituted code.
    expect([item('X', '21').codigos_texto, nbs('X', '21')]).toEqual(['1.1704.20.00', ['1.1704.20.00=subitem']])
  })

  test('works of art by NCM (items 42 to 45); the theatre rights without a code (49 to 54)', () => {
    expect(['42', '43', '44', '45'].map((i) => [item('X', i).texto, refs('X', i)])).toEqual([
      ['Fotografias artísticas originais', ['4911.91.00']],
      ['Quadros, pinturas e desenhos, artísticos originais', ['9701.91.00']],
      ['Gravuras, estampas e litografias, artísticas originais', ['9702.90.00']],
      ['Produções originais de arte estatutária ou de escultura', ['9703.90.00']],
    ])
    for (const i of ['49', '50', '51', '52', '53', '54']) expect(item('X', i)).toMatchObject({ codigos_texto: null, ncm: [], nbs: [], nota: 'Item sem código NBS nem NCM na lei (célula vazia no Anexo).' })
    expect(item('X', '54').texto).toBe('Cessão temporária de direitos conexos de produtores intérpretes ou executantes em obras teatrais')
  })
})

describe('Annex XI (soberania e segurança nacional, segurança da informação e cibernética, art. 142), pinned against the law', () => {
  test('title, two groups (1 services, 2 goods), and the two hypotheses of art. 142', () => {
    expect(anexo('XI').titulo).toBe('BENS E SERVIÇOS RELACIONADOS À SOBERANIA E À SEGURANÇA NACIONAL, À SEGURANÇA DA INFORMAÇÃO E À SEGURANÇA CIBERNÉTICA SUBMETIDOS À REDUÇÃO DE 60% (SESSENTA POR CENTO) DAS ALÍQUOTAS DO IBS E DA CBS')
    expect(anexo('XI').itens.map((i) => i.item)).toEqual(['1', ...Array.from({ length: 14 }, (_, n) => `1.${n + 1}`), '2', ...Array.from({ length: 30 }, (_, n) => `2.${n + 1}`)])
    expect(anexo('XI').itens.filter((i) => i.cabecalho).map((i) => [i.item, i.texto])).toEqual([
      ['1', 'SERVIÇOS RELACIONADOS À SOBERANIA E À SEGURANÇA NACIONAL, À SEGURANÇA DA INFORMAÇÃO E À SEGURANÇA CIBERNÉTICA'],
      ['2', 'BENS RELACIONADOS À SOBERANIA E À SEGURANÇA NACIONAL, À SEGURANÇA DA INFORMAÇÃO E À SEGURANÇA CIBERNÉTICA'],
    ])
    const [i, ii] = anexo('XI').condicoes!
    expect(i).toBe('fornecimento à administração pública direta, autarquias e fundações púbicas dos serviços e dos bens relativos à soberania e à segurança nacional, à segurança da informação e à segurança cibernética relacionados no Anexo XI (art. 142, I)')
    expect(ii).toContain('sócio brasileiro com o mínimo de 20% (vinte por cento) do seu capital social (art. 142, II, redação da LC 227/2026)')
  })

  test('services: NBS codes; the vetoed rows and the ones "pendente de classificação" give no code', () => {
    expect(['1.1', '1.2', '1.3', '1.13', '1.14'].map((i) => nbs('XI', i)[0])).toEqual(['1.1501.20.00=subitem', '1.1502.90.00=subitem', '1.1510.00.00=subitem', '1.2001.35.00=subitem', '1.2001.83.00=subitem'])
    expect(item('XI', '1.2').texto).toBe('Serviços de projeto e desenvolvimento de aplicativos e programas em Tecnologia da Informação (TI) não classificados em subposições anteriores')
    expect(['1.4', '1.5', '1.8', '1.9'].map((i) => [item('XI', i).texto, item('XI', i).codigos_texto, item('XI', i).nbs.length])).toEqual([
      ['(VETADO)', '1.1802.90.00', 0],
      ['(VETADO)', '1.1802.30.00', 0],
      ['(VETADO)', 'pendente de classificação', 0],
      ['(VETADO)', 'pendente de classificação', 0],
    ])
    expect(['1.6', '1.7', '1.10', '1.11', '1.12'].every((i) => item('XI', i).codigos_texto === 'pendente de classificação' && item('XI', i).nbs.length === 0)).toBe(true)
    expect(item('XI', '1.10').texto).toBe('Serviço de monitoramento de uso de dados pessoais e corporativos em redes do tipo onion')
  })

  test('goods: NCM references as written (positions, subpositions, items, full codes; two codes in a cell)', () => {
    expect(['2.1', '2.2', '2.5', '2.8', '2.12', '2.14', '2.20', '2.24', '2.27', '2.28', '2.29'].map((i) => [i, item('XI', i).ncm.map((r) => `${r.texto}=${r.nivel}`)])).toEqual([
      ['2.1', ['8709=posicao']],
      ['2.2', ['8710.00.00=subitem']],
      ['2.5', ['8701=posicao']],
      ['2.8', ['3602.00.00=subitem', '9306=posicao']],
      ['2.12', ['9306.2=subposicao']],
      ['2.14', ['8802=posicao', '8806=posicao']],
      ['2.20', ['9014.20=subposicao']],
      ['2.24', ['8523.52=subposicao', '8471.90.14=subitem']],
      ['2.27', ['8517.62.34=subitem', '8517.62.4=item']],
      ['2.28', ['8517.62.7=item']],
      ['2.29', ['8523.51=subposicao']],
    ])
    expect(item('XI', '2.12')).toMatchObject({
      texto: 'Cartuchos de munição naval e de artilharia e seus componentes (projétil, estojo, estopilha, espoleta, traçador, pólvora e alto-explosivo), de calibre igual ou superior a 40 mm de diâmetro interno de tubo da arma',
      condicoes: ['de calibre igual ou superior a 40 mm de diâmetro interno de tubo da arma'],
    })
    expect(item('XI', '2.14')).toMatchObject({ texto: 'Aeronaves, inclusive Veículo Aéreo Não Tripulado (VANT) para uso pela segurança nacional e também suas partes e peças', codigos_texto: '8802 e 8806', condicoes: ['para uso pela segurança nacional'] })
    expect(item('XI', '2.10')).toMatchObject({ texto: 'Rações operacionais', codigos_texto: '2106.90.30' })
  })
})

/** Codes written in a wording: 02.01, 0206.2, 0210.99.1, 1006.40.00, 2106.9090. */
const CODIGO = /(?<![\d.])\d{2}\.\d{2}(?:\.\d{2}\.\d{2})?(?![\d.])|(?<![\d.])\d{4}(?:\.\d{1,2}(?:\.\d{1,2})?|\.\d{4})?(?![\d.])/g

describe('every reference agrees with the wording it was read from', () => {
  const all: [AnexoDados, ItemDados][] = ANEXOS.anexos.flatMap((a) => a.itens.map((i) => [a, i] as [AnexoDados, ItemDados]))

  test('digits and level of each reference follow from its written form', () => {
    for (const [a, i] of all)
      for (const r of i.ncm) {
        const d = r.texto.replace(/\D/g, '')
        expect([a.anexo, i.item, r.codigo]).toEqual([a.anexo, i.item, d.length === 1 ? `0${d}` : d])
        expect(nivelNcm(r.codigo)).toBe(r.nivel as never)
      }
  })

  test('in the annexes whose codes are in the wording, the references are exactly the codes written there', () => {
    let checked = 0
    for (const [a, i] of all) {
      if (!a.codigos_no_texto) continue
      const escritos = [...i.texto.matchAll(CODIGO)].map((m) => m[0]).sort()
      const capitulos = i.ncm.filter((r) => r.nivel === 'capitulo').length
      expect([a.anexo, i.item, escritos]).toEqual([a.anexo, i.item, i.ncm.filter((r) => r.nivel !== 'capitulo').map((r) => r.texto).sort()])
      if (capitulos) expect(i.texto.toLowerCase()).toMatch(/cap[íi]tulos? \d/)
      checked++
    }
    expect(checked).toBe(26 + 17 + 7 + 6)
  })

  test('in the three-column annexes, the references are the codes of the code cell (plus the exceptions the wording names)', () => {
    for (const [a, i] of all) {
      if (a.codigos_no_texto || !i.codigos_texto || a.anexo === 'XVII') continue
      const naCelula = [...i.codigos_texto.matchAll(CODIGO)].map((m) => m[0].replace(/\D/g, ''))
      const capitulos = [...i.codigos_texto.matchAll(/Cap[íi]tulos? ([\d, e]+)/g)].flatMap((m) => m[1]!.split(/, | e /).map((c) => c.padStart(2, '0')))
      expect([a.anexo, i.item, i.ncm.filter((r) => !r.exceto).map((r) => r.codigo).sort()]).toEqual([a.anexo, i.item, [...naCelula, ...capitulos].sort()])
      for (const r of i.ncm.filter((x) => x.exceto)) expect(i.texto).toContain(r.texto)
    }
  })

  test('an "exceto" either narrows a code of its own item or is a descriptive one the law writes (listed)', () => {
    const descritivas: string[] = []
    for (const [a, i] of all)
      for (const e of i.ncm.filter((r) => r.exceto))
        if (!i.ncm.some((r) => !r.exceto && e.codigo.startsWith(r.codigo) && (!r.alinea || !e.alinea || r.alinea === e.alinea))) descritivas.push(`${a.anexo}/${i.item}:${e.texto}`)
    expect(descritivas).toEqual([
      'IV/49:30.06',
      'IV/68:9018.31',
      'IV/68:9018.32',
      ...['9018.11.00', '9018.12.10', '9018.12.90', '9018.13.00', '9018.14.10', '9018.14.20', '9018.14.90', '9018.19.10', '9018.19.20'].map((c) => `XII/1.3:${c}`),
      'XII/11:9022.21.10',
      'XII/11:9022.21.20',
    ])
  })

  test('NBS references: the digits as written, the level by their number (5 position, 6-7 subposition, 8 item, 9 full code)', () => {
    const nivelNbs = (d: string) => ({ 5: 'posicao', 6: 'subposicao', 7: 'subposicao', 8: 'item', 9: 'subitem' })[d.length]
    let checked = 0
    for (const [a, i] of all)
      for (const r of i.nbs) {
        expect([a.anexo, i.item, r.codigo, r.nivel]).toEqual([a.anexo, i.item, r.texto.replace(/\D/g, ''), nivelNbs(r.codigo) as never])
        expect(r.texto).toMatch(/^1\.\d{4}/)
        expect(i.codigos_texto).toContain(r.texto)
        checked++
      }
    expect(checked).toBe(8 + 30 + 14 + 47 + 5)
  })

  test('every item is in at least two independent transcriptions (none unverified since Annex II item 9 was found in a second one)', () => {
    expect(all.filter(([, i]) => !i.verificado).map(([a, i]) => `${a.anexo}/${i.item}`)).toEqual([])
  })
})
