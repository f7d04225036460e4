// Parameters and answers of the tax-reform routes (SPEC §2 "Other payloads", §4, §8). Field names
// and rules where SPEC is silent: docs/tributos.md.
import { z } from 'zod'
import { checkedParam, intParam } from '../../core/validate'
import { lerCodigoNcm } from './codigos'

const str = z.string().nullable()

export const NcmParam = checkedParam((value) => {
  const digits = lerCodigoNcm(value)
  if (digits) return { ok: true, value: digits }
  return { ok: false, codigo: 'ncm_invalido', mensagem: 'use um código NCM de 4 a 8 dígitos, com ou sem pontos (ex. 1006.30.21, 10063021, 10.06 ou 1006)' }
})
export const NcmPath = z.object({ codigo: NcmParam })

export const ANO_MIN = 2026
export const ANO_MAX = 2033
export const NcmQuery = z.object({ ano: intParam(ANO_MIN, ANO_MAX).optional().describe('ano do fato gerador, 2026 a 2033 (padrão: o ano corrente no horário de Brasília, limitado a esse intervalo)') })

export const LIMITE_PADRAO = 10
export const BuscaQuery = z.object({
  termo: z
    .string()
    .trim()
    .min(3, 'deve ter ao menos 3 caracteres (além de espaços)')
    .max(200, 'deve ter no máximo 200 caracteres')
    .describe('palavras do produto ou serviço (sem diferença de acentos e maiúsculas), ou um código NCM/NBS com ou sem pontos'),
  limite: intParam(1, 30).default(LIMITE_PADRAO).describe('itens devolvidos, 1 a 30 (padrão 10)'),
})

export const RegimeCodigo = z.enum(['aliquota_zero', 'reducao_60', 'aliquota_padrao', 'varia_por_subitem', 'indeterminado'])

const RegimeResumo = z.object({
  codigo: z.enum(['aliquota_zero', 'reducao_60', 'imposto_seletivo', 'aliquota_padrao']),
  descricao: z.string(),
  reducao_percentual: z.number().nullable().describe('redução das alíquotas do IBS e da CBS (100 = alíquota zero); null no Imposto Seletivo'),
})

const Referencia = z.object({
  texto: z.string().describe('o código como a lei o escreve'),
  codigo: z.string().describe('só dígitos: prefixo comparado com o código'),
  nivel: z.string().describe('capitulo, posicao, subposicao, item ou subitem'),
  exceto: z.boolean().describe('true: exceção escrita no item ("exceto ...")'),
  alinea: str,
})

const RegimeAlternativo = z
  .object({ codigo: z.literal('aliquota_zero'), descricao: z.string(), dispositivo: z.string(), condicao: z.string() })
  .nullable()
  .describe('o mesmo item tem alíquota zero nesta condição (ex. compras públicas, art. 144, II)')

const ItemBase = z.object({
  anexo: z.string(),
  item: z.string(),
  dispositivo: z.string().describe('ex. LC 214/2025, art. 125, Anexo I, item 1'),
  assunto: z.string(),
  regime: RegimeResumo,
  texto: z.string().describe('redação literal do item'),
  grupo: str.describe('título do grupo a que o subitem pertence (Anexos com itens 1.1, 1.2...)'),
  codigos_texto: str.describe('a coluna de códigos do Anexo, literal, nos Anexos que têm uma'),
  condicoes: z.array(z.string()).describe('trechos da redação (e do artigo) que condicionam o benefício'),
  regime_alternativo: RegimeAlternativo,
  verificado: z.boolean().describe('texto e códigos iguais em duas transcrições independentes da lei'),
  nota: str,
})

export const ItemNcm = ItemBase.extend({
  referencia: Referencia.describe('a referência do item que alcança o código'),
  cobre: z.enum(['todo', 'parte']).describe('todo: a referência alcança o código inteiro; parte: só alguns subitens dele'),
  principal: z.boolean().describe('o item que dá o regime principal'),
})

export const Exclusao = z.object({
  anexo: z.string(),
  item: z.string(),
  dispositivo: z.string(),
  motivo: z.enum(['exceto', 'remissao']),
  por: z.string().describe('o código da exceção, ou o Anexo ressalvado que prevalece'),
  texto: z.string(),
})

const FundamentoLegal = z.object({ dispositivo: z.string(), conferido: z.boolean().describe('texto literal do dispositivo conferido: LC 214/2025 no texto compilado do Planalto; ADCT, arts. 125 a 129 (EC 132/2023), em duas transcrições iguais (Constituição compilada e texto da EC 132/2023); false: só fontes secundárias') })

const TributoNoAno = z.object({
  codigo: z.string(),
  tributo: z.string(),
  situacao: z.enum(['teste', 'em_vigor', 'reduzido', 'aliquota_zero', 'nao_cobrado', 'extinto']),
  aliquota_percentual: z.number().nullable().describe('alíquota fixada pela lei para o ano, em % (0.9 = 0,9%); null quando outro ato a fixa'),
  reducao_da_aliquota_percentual: z.number().optional(),
  descricao: z.string(),
  fundamentos: z.array(FundamentoLegal),
})

const AnoCalendario = z.object({ ano: z.number().int(), fase: z.string(), resumo: z.string(), tributos: z.array(TributoNoAno) })

const TributoNoAnoNcm = TributoNoAno.extend({
  aliquota_aplicavel_percentual: z.number().nullable().describe('a alíquota do ano com a redução do regime principal deste código; null quando a lei não fixa a do ano'),
})

const FonteTributos = z.object({
  base: z.literal('LC 214/2025'),
  lei: z.string(),
  anexos_versao: z.string(),
  texto_conferido_em: z.string(),
  tabela_ncm: z
    .object({ vigencia: z.string(), referencia: z.string(), ato: str, completa: z.boolean().describe('false: a base carregada é um trecho da tabela (a amostra); um código ausente dela pode existir') })
    .nullable(),
})

const NcmNo = z.object({ codigo: z.string(), formatado: z.string(), nivel: z.string(), descricao: z.string() })

export const NcmResultado = z.object({
  ncm: z.object({
    codigo: z.string().describe('só dígitos'),
    formatado: z.string(),
    nivel: z.string(),
    existe: z.boolean().describe('o código consta da tabela NCM carregada'),
    descricao: str,
    hierarquia: z.array(NcmNo).describe('os níveis acima do código, do capítulo para baixo'),
    vigencia: z.object({ inicio: str, fim: str, ato: str }).nullable(),
  }),
  ano: z.number().int(),
  regime: z
    .object({
      codigo: RegimeCodigo,
      descricao: z.string(),
      reducao_percentual: z.number().nullable(),
      dispositivo: str.describe('o fundamento do regime principal'),
      depende_do_produto: z.boolean().describe('outros itens dão outro regime ao mesmo código conforme o que o produto é (veja fundamentos)'),
      condicoes: z.array(z.string()),
    })
    .describe(
      'indeterminado: o código não consta da tabela NCM carregada e nenhum item dos Anexos o alcança inteiro, ou itens alcançam só parte dele sem que a tabela tenha os subitens (observacoes diz o que se sabe)',
    ),
  fundamentos: z.array(ItemNcm),
  exclusoes: z.array(Exclusao).describe('itens que citam o código mas o deixam de fora (exceto, ou ressalva de outro Anexo)'),
  desdobramento: z
    .array(z.object({ regime: RegimeResumo, subitens: z.number().int(), codigos: z.array(z.string()), dispositivos: z.array(z.string()) }))
    .nullable()
    .describe('código com menos de 8 dígitos: os subitens abaixo dele agrupados pelo regime principal de cada um'),
  imposto_seletivo: z.object({
    incide: z
      .enum(['sim', 'nao', 'em_parte', 'indeterminado'])
      .describe('pelos itens do Anexo XVII, que valem para o código escrito ou um nível acima dele, com ou sem a tabela NCM; indeterminado: o código não consta da tabela carregada e nenhum item do Anexo XVII o cita, nem acima nem abaixo dele'),
    fundamentos: z.array(ItemNcm),
    observacao: str,
  }),
  transicao: z.object({ ano: z.number().int(), fase: z.string(), resumo: z.string(), tributos: z.array(TributoNoAnoNcm), regras: z.array(z.object({ regra: z.string(), fundamentos: z.array(FundamentoLegal) })) }),
  observacoes: z.array(z.string()),
  fonte: FonteTributos,
})
export type NcmResultadoT = z.output<typeof NcmResultado>

export const ItemBusca = ItemBase.extend({
  encontrado_em: z.enum(['redacao', 'descricao_ncm', 'assunto_do_anexo', 'codigo']).describe('onde as palavras foram achadas: na redação do item, na descrição oficial dos códigos NCM que ele cita, também no assunto do Anexo; ou pelo código'),
  ncm_citados: z.array(Referencia),
  nbs_citados: z.array(Referencia),
  exceto_anexos: z.array(z.string()).describe('Anexos ressalvados pelo item: o que está neles não entra neste item'),
})

export const BuscaResultado = z.object({
  termo: z.string(),
  tipo: z.enum(['palavras', 'codigo_ncm', 'codigo_nbs']),
  palavras: z.array(z.string()).describe('as palavras procuradas, como a busca as compara (sem acentos, no singular)'),
  total: z.number().int(),
  limite: z.number().int(),
  resultados: z.array(ItemBusca),
  fonte: FonteTributos,
})

export const CalendarioResultado = z.object({
  anos: z.array(AnoCalendario),
  extincoes: z.array(z.object({ codigo: z.string(), tributo: z.string(), evento: z.enum(['extincao', 'aliquota_zero']), a_partir_de: z.string(), descricao: z.string(), fundamentos: z.array(FundamentoLegal) })),
  regras: z.array(z.object({ regra: z.string(), fundamentos: z.array(FundamentoLegal) })),
  fonte: FonteTributos,
})

export const NcmAmostra = NcmResultado.extend({ amostra: z.literal(true) })
