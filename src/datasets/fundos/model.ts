// The fund routes' inputs and answers (SPEC §4 Funds, §8). SPEC names the contents in words only;
// the field names and rules are decided in docs/fundos.md.
import { z } from 'zod'
import { cnpjParam, intParam } from '../../core/validate'
import { BASE } from './layout'

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/)
const month = z.string().regex(/^\d{4}-\d{2}$/)
const str = z.string().nullable()
const money = z.number().describe('reais, como informados à CVM (arredondado ao centavo)')

export const Fonte = z.object({
  base: z.literal(BASE),
  referencia: date.describe('último dia consolidado dos informes diários carregados (AAAA-MM-DD)'),
  carteira: month.nullable().describe('competência mais recente de carteiras (CDA) carregada, AAAA-MM'),
})

export const CnpjPath = z.object({ cnpj: cnpjParam })

// --- /v1/fundos/fluxos -------------------------------------------------------------------------

export const FluxosQuery = z.object({
  dias: intParam(1, 60).default(30).describe('dias corridos da janela, contados para trás a partir do último dia consolidado (1 a 60, padrão 30)'),
})

const FluxoDia = z.object({
  data: date,
  captacao: money,
  resgates: money,
  liquido: money.describe('captacao - resgates'),
  patrimonio_liquido: money,
  classes: z.number().int().describe('classes somadas no dia (as de fundos de cotas, FIC, ficam fora)'),
})

export const Fluxos = z.object({
  dia: FluxoDia.describe('o último dia consolidado, todas as classificações somadas'),
  janela: z.object({
    dias: z.number().int(),
    de: date,
    ate: date,
    dias_com_dados: z.number().int().describe('dias úteis com informes na janela'),
  }),
  classificacoes: z.array(
    z.object({
      classificacao: z.string().describe('classificação CVM da classe (Renda Fixa, Ações, Multimercado, Cambial...)'),
      captacao: money.describe('soma na janela'),
      resgates: money,
      liquido: money,
      serie: z.array(FluxoDia),
    }),
  ).describe('uma série diária por classificação CVM, maior patrimônio no último dia primeiro'),
  serie_total: z.array(FluxoDia),
  nota: z.string(),
  fonte: Fonte,
})

// --- /v1/fundos/consulta/{cnpj} ------------------------------------------------------------------

const Pessoa = z.object({ nome: str, cnpj: str.describe('14 dígitos; null quando é pessoa física (o CPF não é guardado)') })
const ValorData = z.object({ valor: z.number(), data: date })
const CotistasData = z.object({ quantidade: z.number().int(), data: date })

export const TIPOS_CADASTRO = ['classe', 'fundo', 'fundo_legado', 'sem_cadastro'] as const

export const Consulta = z.object({
  cnpj: z.string(),
  encontrado: z.boolean(),
  mensagem: str.describe('por que não foi encontrado, ou o que falta'),
  tipo: z.enum(TIPOS_CADASTRO).nullable().describe(
    'classe: classe de cotas do registro da RCVM 175; fundo: fundo do registro (com suas classes); fundo_legado: só no cad_fi.csv antigo; sem_cadastro: só nos informes diários',
  ),
  nome: str,
  tipo_fundo: str.describe('como a CVM publica: FIF, FIDC, FII, FIP, Classes de Cotas de Fundos FIF...'),
  codigo_cvm: str,
  situacao: z.object({ descricao: str, data: date.nullable() }).nullable(),
  datas: z.object({ registro: date.nullable(), constituicao: date.nullable(), inicio: date.nullable(), cancelamento: date.nullable() }),
  gestor: Pessoa.nullable(),
  administrador: Pessoa.nullable(),
  classificacao: z.object({ cvm: str, anbima: str }),
  caracteristicas: z.object({
    forma_condominio: str,
    exclusivo: z.boolean().nullable(),
    publico_alvo: str,
    cotas_de_fundos: z.boolean().nullable().describe('classe que investe em cotas de outros fundos (FIC)'),
    indicador_desempenho: str,
    tributacao_longo_prazo: z.boolean().nullable(),
  }).nullable(),
  fundo: z.object({ cnpj: z.string(), nome: str, tipo_fundo: str, situacao: str }).nullable().describe('o fundo de que a classe faz parte'),
  classes: z.array(z.object({ cnpj: z.string(), nome: str, situacao: str, classificacao_cvm: str })).describe('as classes do fundo, quando o CNPJ é de um fundo'),
  subclasses: z.array(
    z.object({ id: z.string(), nome: str, situacao: str, cota: ValorData.nullable(), patrimonio_liquido: ValorData.nullable(), cotistas: CotistasData.nullable() }),
  ),
  cota: ValorData.nullable().describe('último valor da cota no informe diário (12 casas, como publicado); null quando a classe só informa por subclasse'),
  patrimonio_liquido: ValorData.extend({ origem: z.enum(['informe_diario', 'cadastro']) }).nullable(),
  cotistas: CotistasData.nullable(),
  fonte: Fonte,
})

// --- /v1/fundos/ranking ----------------------------------------------------------------------------

export const POR = ['patrimonio', 'captacao', 'cotistas'] as const

export const RankingQuery = z.object({
  por: z.enum(POR).default('patrimonio').describe('patrimonio (último patrimônio líquido), captacao (captação líquida na janela) ou cotistas'),
  classificacao: z.string().min(1).max(80).optional().describe('classificação CVM (Renda Fixa, Ações, Multimercado, Cambial...), sem distinguir acentos nem caixa'),
  dias: intParam(1, 365).default(30).describe('janela, em dias corridos até o último dia consolidado, dos fluxos mostrados (e da ordem, com por=captacao)'),
  limite: intParam(1, 50).default(20),
})

export const RankingItem = z.object({
  posicao: z.number().int(),
  cnpj: z.string(),
  nome: str,
  fundo: z.object({ cnpj: z.string(), nome: str }).nullable(),
  gestor: Pessoa.nullable(),
  classificacao: z.string(),
  cotas_de_fundos: z.boolean(),
  data: date.describe('dia do último informe da classe'),
  cota: z.number().nullable(),
  patrimonio_liquido: money.nullable(),
  cotistas: z.number().int().nullable(),
  captacao: money.describe('na janela'),
  resgates: money,
  captacao_liquida: money,
})

export const Ranking = z.object({
  por: z.enum(POR),
  classificacao: str,
  dias: z.number().int(),
  janela: z.object({ de: date, ate: date, completa: z.boolean().describe('false quando a janela pedida começa antes do primeiro dia carregado') }),
  fundos: z.array(RankingItem),
  fonte: Fonte,
})

// --- /v1/fundos/carteira/{cnpj} --------------------------------------------------------------------

const Negociacao = z.object({ quantidade: z.number(), valor: money })

export const AtivoCarteira = z.object({
  ticker: str,
  isin: str,
  descricao: str,
  tipo: z.enum(['acao', 'unit', 'bdr']),
  tipo_ativo: str.describe('como publicado (Ação ordinária, Ação preferencial, ...)'),
  quantidade: z.number().describe('posição final, incluídas as ações cedidas em empréstimo'),
  valor_mercado: money,
  quantidade_emprestada: z.number(),
  percentual_pl: z.number().nullable(),
  compras: Negociacao.describe('compradas no mês'),
  vendas: Negociacao.describe('vendidas no mês'),
})

export const Carteira = z.object({
  cnpj: z.string(),
  encontrado: z.boolean(),
  mensagem: str,
  nome: str,
  competencia: month.nullable(),
  data_posicao: date.nullable(),
  defasagem: z.object({
    dias: z.number().int().nullable().describe('dias entre a data da carteira e o último dia consolidado dos informes diários'),
    nota: z.string(),
  }),
  patrimonio_liquido: money.nullable(),
  valor_acoes_bdrs: money,
  percentual_pl: z.number().nullable(),
  total_ativos: z.number().int(),
  ativos: z.array(AtivoCarteira),
  competencias_carregadas: z.array(month),
  fonte: Fonte,
})

// --- /v1/fundos/movimentacoes ----------------------------------------------------------------------

export const MovimentacoesQuery = z.object({
  competencia: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'deve ser um mês no formato AAAA-MM (ex.: 2026-06)')
    .optional()
    .describe('mês das carteiras, AAAA-MM; padrão: o mais recente consolidado'),
  limite: intParam(1, 50).default(20),
})

const NegociacaoFundos = Negociacao.extend({ fundos: z.number().int() })

export const Movimentacoes = z.object({
  competencia: month,
  data_posicao: date.nullable(),
  consolidada: z.boolean(),
  competencias_carregadas: z.array(z.object({ competencia: month, consolidada: z.boolean() })),
  fundos_informantes: z.number().int(),
  fundos_com_acoes: z.number().int(),
  total_ativos: z.number().int(),
  ativos: z.array(
    z.object({
      posicao: z.number().int(),
      ticker: str,
      isin: str,
      descricao: str,
      tipo: z.enum(['acao', 'unit', 'bdr']),
      compras: NegociacaoFundos,
      vendas: NegociacaoFundos,
      liquido: money.describe('compras.valor - vendas.valor'),
      posicao_final: NegociacaoFundos,
    }),
  ).describe('maior fluxo líquido em valor absoluto primeiro'),
  fonte: Fonte,
})

// --- /v1/fundos/amostra ----------------------------------------------------------------------------

export const Amostra = z.object({
  amostra: z.literal(true),
  descricao: z.string(),
  fluxos: Fluxos,
  ranking: Ranking,
  consulta: Consulta,
  carteira: Carteira,
  movimentacoes: Movimentacoes,
})
