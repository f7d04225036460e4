// The 2026-2033 transition of the taxes on consumption, year by year, with each rule's legal basis.
// Only what the law fixes is a number here: rates left to a Senate resolution or an ordinary law are
// null with the article that delegates them. `conferido`: the provision's literal text was read —
// LC 214/2025 in its compiled text (Planalto, with LC 227/2026); ADCT arts. 125 to 129 (EC 132/2023)
// in two transcriptions that agree letter for letter, the compiled Constitution and the amendment's
// own text, checked 2026-11-24 (docs/tributos.md, "Calendário"). An ADCT article outside that set
// would be false: cited from secondary sources only.

export type CodigoTributo = 'cbs' | 'ibs_estadual' | 'ibs_municipal' | 'is' | 'pis_cofins' | 'ipi' | 'icms' | 'iss'
export type Situacao = 'teste' | 'em_vigor' | 'reduzido' | 'aliquota_zero' | 'nao_cobrado' | 'extinto'

export interface Fundamento {
  dispositivo: string
  conferido: boolean
}

export interface TributoNoAno {
  codigo: CodigoTributo
  tributo: string
  situacao: Situacao
  /** The rate the law fixes for the year, in percent (0.9 = 0,9%); null when another act fixes it. */
  aliquota_percentual: number | null
  /** ICMS and ISS 2029-2032: the cut in their own rates (10, 20, 30, 40 %). */
  reducao_da_aliquota_percentual?: number
  descricao: string
  fundamentos: Fundamento[]
}

export interface Ano {
  ano: number
  fase: 'teste' | 'cbs_e_imposto_seletivo' | 'transicao_icms_iss' | 'regime_pleno'
  resumo: string
  tributos: TributoNoAno[]
}

const LC = (art: string): Fundamento => ({ dispositivo: `LC 214/2025, ${art}`, conferido: true })
/** ADCT articles whose literal text was compared in two transcriptions (docs/tributos.md, "Calendário"). */
const ADCT_CONFERIDOS = new Set([125, 126, 127, 128, 129])
const ADCT = (art: string): Fundamento => ({ dispositivo: `ADCT (EC 132/2023), ${art}`, conferido: ADCT_CONFERIDOS.has(Number(/^art\. (\d+)/.exec(art)?.[1])) })

const NOMES: Record<CodigoTributo, string> = {
  cbs: 'CBS',
  ibs_estadual: 'IBS (parcela estadual)',
  ibs_municipal: 'IBS (parcela municipal)',
  is: 'Imposto Seletivo',
  pis_cofins: 'PIS/Pasep e Cofins',
  ipi: 'IPI',
  icms: 'ICMS',
  iss: 'ISS',
}

function t(codigo: CodigoTributo, situacao: Situacao, aliquota_percentual: number | null, descricao: string, fundamentos: Fundamento[], extra: Partial<TributoNoAno> = {}): TributoNoAno {
  return { codigo, tributo: NOMES[codigo], situacao, aliquota_percentual, ...extra, descricao, fundamentos }
}

const IS_EM_VIGOR = t('is', 'em_vigor', null, 'Cobrado sobre os bens e serviços do Anexo XVII; alíquotas fixadas em lei ordinária.', [ADCT('art. 126, I'), LC('art. 409'), LC('arts. 419, 421 e 422')])
const PIS_COFINS_EXTINTOS = t('pis_cofins', 'extinto', null, 'Extintos a partir de 2027; o fato gerador passa a ser da CBS.', [ADCT('art. 126, II'), LC('art. 408, § 1º')])
const IPI_ZERO = t('ipi', 'aliquota_zero', null, 'Alíquotas reduzidas a zero, exceto as dos produtos com industrialização incentivada na Zona Franca de Manaus.', [ADCT('art. 126, III')])
const CBS_REFERENCIA = t('cbs', 'em_vigor', null, 'Alíquota de referência fixada por resolução do Senado Federal (cálculo nos arts. 353 a 359); não é um número da lei.', [LC('art. 349, I'), LC('arts. 353 a 359')])

function ibsReferencia(ano: number, artigo: string): TributoNoAno[] {
  const d = `Alíquota de referência de ${ano} fixada por resolução do Senado Federal (cálculo no ${artigo}); cada ente pode fixar a sua (art. 14).`
  return [t('ibs_estadual', 'em_vigor', null, d, [LC('art. 349, II'), LC(artigo)]), t('ibs_municipal', 'em_vigor', null, d, [LC('art. 349, II'), LC(artigo)])]
}

function icmsIss(reducao: number, ano: number): TributoNoAno[] {
  const fr = `${10 - reducao / 10}/10`
  return [
    t('icms', 'reduzido', null, `Alíquotas reduzidas em ${reducao}% das previstas nas legislações estaduais vigentes em 31/12/2028 (${fr} delas em ${ano}); benefícios fiscais reduzidos na mesma proporção.`, [LC('art. 501 (art. 31-A da LC 87/1996)'), ADCT('art. 128')], { reducao_da_aliquota_percentual: reducao }),
    t('iss', 'reduzido', null, `Alíquotas reduzidas em ${reducao}% das previstas nas legislações municipais vigentes em 31/12/2028 (${fr} delas em ${ano}); benefícios fiscais reduzidos na mesma proporção.`, [LC('art. 508 (art. 8º-B da LC 116/2003)'), ADCT('art. 128')], { reducao_da_aliquota_percentual: reducao }),
  ]
}

const ANO_2026: Ano = {
  ano: 2026,
  fase: 'teste',
  resumo: 'Ano de teste: CBS a 0,9% e IBS estadual a 0,1%, compensáveis com PIS/Cofins; os demais tributos seguem como estão.',
  tributos: [
    t('cbs', 'teste', 0.9, 'Cobrada à alíquota de 0,9%; o valor pago é compensado com PIS/Cofins do mesmo período (ou com outro tributo federal, ou ressarcido em até 60 dias); recolhimento dispensado para quem cumprir as obrigações acessórias; não se aplica aos optantes pelo Simples Nacional.', [LC('art. 346'), LC('art. 348'), ADCT('art. 125')]),
    t('ibs_estadual', 'teste', 0.1, 'Cobrado à alíquota estadual de 0,1%, com as mesmas compensação, dispensa e exclusão do Simples Nacional da CBS; a arrecadação financia o Comitê Gestor do IBS e o fundo de compensação de benefícios do ICMS.', [LC('art. 343'), LC('art. 348'), ADCT('art. 125')]),
    t('ibs_municipal', 'nao_cobrado', null, 'Em 2026 o IBS tem só a alíquota estadual.', [LC('art. 343')]),
    t('is', 'nao_cobrado', null, 'Cobrado a partir de 2027.', [ADCT('art. 126, I')]),
    t('pis_cofins', 'em_vigor', null, 'Devidos integralmente (também por quem foi dispensado de recolher IBS e CBS); o IBS e a CBS pagos em 2026 são compensados com eles.', [LC('art. 348, I e § 2º')]),
    t('ipi', 'em_vigor', null, 'Alíquotas da TIPI em vigor; reduzidas a zero a partir de 2027, salvo Zona Franca de Manaus.', [ADCT('art. 126, III')]),
    t('icms', 'em_vigor', null, 'Alíquotas das legislações estaduais.', []),
    t('iss', 'em_vigor', null, 'Alíquotas das legislações municipais.', []),
  ],
}

function ano2027ou2028(ano: number): Ano {
  return {
    ano,
    fase: 'cbs_e_imposto_seletivo',
    resumo: 'CBS e Imposto Seletivo cobrados; PIS/Cofins extintos; IPI a zero (salvo Zona Franca de Manaus); IBS a 0,05% estadual e 0,05% municipal; ICMS e ISS como estão.',
    tributos: [
      t('cbs', 'em_vigor', null, 'Alíquota de referência fixada por resolução do Senado Federal, reduzida em 0,1 ponto percentual (exceto combustíveis do regime específico); a redução é proporcional nas operações com alíquota reduzida.', [LC('art. 347'), LC('art. 349, I'), ADCT('art. 127')]),
      t('ibs_estadual', 'teste', 0.05, 'Alíquota estadual de 0,05%, aplicada com a respectiva redução nas operações com alíquota reduzida.', [LC('art. 344'), ADCT('art. 127')]),
      t('ibs_municipal', 'teste', 0.05, 'Alíquota municipal de 0,05%, aplicada com a respectiva redução nas operações com alíquota reduzida.', [LC('art. 344'), ADCT('art. 127')]),
      IS_EM_VIGOR,
      PIS_COFINS_EXTINTOS,
      IPI_ZERO,
      t('icms', 'em_vigor', null, 'Alíquotas das legislações estaduais.', []),
      t('iss', 'em_vigor', null, 'Alíquotas das legislações municipais.', []),
    ],
  }
}

function transicao(ano: number, reducao: number, artigoIbs: string): Ano {
  return {
    ano,
    fase: 'transicao_icms_iss',
    resumo: `ICMS e ISS com alíquotas reduzidas em ${reducao}%; IBS às alíquotas de referência de ${ano}; CBS e Imposto Seletivo cobrados; PIS/Cofins extintos; IPI a zero (salvo Zona Franca de Manaus).`,
    tributos: [CBS_REFERENCIA, ...ibsReferencia(ano, artigoIbs), IS_EM_VIGOR, PIS_COFINS_EXTINTOS, IPI_ZERO, ...icmsIss(reducao, ano)],
  }
}

const EXTINTOS_2033 = 'Extinto a partir de 2033; fatos geradores cujo elemento temporal não se aperfeiçoou até 31/12/2032 pagam só o IBS.'

export const CALENDARIO: Ano[] = [
  ANO_2026,
  ano2027ou2028(2027),
  ano2027ou2028(2028),
  transicao(2029, 10, 'art. 361'),
  transicao(2030, 20, 'art. 362'),
  transicao(2031, 30, 'art. 363'),
  transicao(2032, 40, 'art. 364'),
  {
    ano: 2033,
    fase: 'regime_pleno',
    resumo: 'ICMS e ISS extintos; IBS e CBS plenos às alíquotas de referência; Imposto Seletivo cobrado; IPI a zero (salvo Zona Franca de Manaus).',
    tributos: [
      CBS_REFERENCIA,
      ...ibsReferencia(2033, 'art. 365'),
      IS_EM_VIGOR,
      PIS_COFINS_EXTINTOS,
      IPI_ZERO,
      t('icms', 'extinto', null, EXTINTOS_2033, [ADCT('art. 129'), LC('art. 408, § 4º')]),
      t('iss', 'extinto', null, EXTINTOS_2033, [ADCT('art. 129'), LC('art. 408, § 4º')]),
    ],
  },
]

export interface Extincao {
  codigo: CodigoTributo
  tributo: string
  evento: 'extincao' | 'aliquota_zero'
  a_partir_de: string
  descricao: string
  fundamentos: Fundamento[]
}

export const EXTINCOES: Extincao[] = [
  { codigo: 'pis_cofins', tributo: NOMES.pis_cofins, evento: 'extincao', a_partir_de: '2027-01-01', descricao: 'Extintos; substituídos pela CBS.', fundamentos: [ADCT('art. 126, II'), LC('art. 408, § 1º')] },
  { codigo: 'ipi', tributo: NOMES.ipi, evento: 'aliquota_zero', a_partir_de: '2027-01-01', descricao: 'Não é extinto: alíquotas reduzidas a zero, exceto as dos produtos com industrialização incentivada na Zona Franca de Manaus.', fundamentos: [ADCT('art. 126, III')] },
  { codigo: 'icms', tributo: NOMES.icms, evento: 'extincao', a_partir_de: '2033-01-01', descricao: 'Extinto; substituído pelo IBS. Alíquotas reduzidas de 2029 a 2032.', fundamentos: [ADCT('art. 129'), LC('art. 501'), LC('art. 408, § 4º')] },
  { codigo: 'iss', tributo: NOMES.iss, evento: 'extincao', a_partir_de: '2033-01-01', descricao: 'Extinto; substituído pelo IBS. Alíquotas reduzidas de 2029 a 2032.', fundamentos: [ADCT('art. 129'), LC('art. 508'), LC('art. 408, § 4º')] },
]

/** Rules that hold across years, quoted by the NCM answer's transition context. */
export const REGRAS: { regra: string; fundamentos: Fundamento[] }[] = [
  { regra: 'Em 2026, as alíquotas de teste do IBS e da CBS são aplicadas com a respectiva redução nas operações sujeitas a alíquota reduzida (inclusive a zero) dos regimes diferenciados.', fundamentos: [LC('art. 348, III, a')] },
  { regra: 'Em 2027 e 2028, a alíquota do IBS (0,05% + 0,05%) e a redução de 0,1 ponto da CBS são aplicadas com a respectiva redução nas operações com alíquota reduzida.', fundamentos: [LC('art. 344, parágrafo único, I'), LC('art. 347, § 1º, I')] },
  { regra: 'As alíquotas de referência da CBS (2027 a 2033) e do IBS (2029 a 2033) são fixadas por resolução do Senado Federal no ano anterior, com cálculos do Tribunal de Contas da União.', fundamentos: [LC('art. 349')] },
]
