import { z } from 'zod'
import { cnpjParam } from '../../core/validate'
import { loteDe } from '../../core/lote'

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable()
const str = z.string().nullable()

export const CnpjPath = z.object({ cnpj: cnpjParam })

/** What every match carries first: which CNPJ the record was filed under, how it matched, and whether it is in force today. */
const Correspondencia = {
  correspondencia: z.enum(['cnpj', 'raiz']).describe('cnpj: o registro está no CNPJ consultado; raiz: em outro estabelecimento da mesma empresa (mesma raiz de 8 caracteres)'),
  cnpj: z.string().describe('CNPJ sob o qual a fonte registrou o apontamento'),
  vigente: z.boolean(),
}

const OrgaoSancionador = z.object({ nome: str, uf: str, esfera: str.describe('FEDERAL, ESTADUAL ou MUNICIPAL, como a fonte escreve') })

const sancaoCampos = {
  ...Correspondencia,
  vigente: z.boolean().describe('sem data final, ou data final ainda não passada (data de hoje em Brasília)'),
  codigo_sancao: str,
  categoria: str.describe('CATEGORIA DA SANÇÃO, ex. Impedimento/proibição de contratar com prazo determinado, Suspensão, Declaração de Inidoneidade'),
  nome_sancionado: str,
  nome_informado_orgao: str,
  razao_social_receita: str,
  nome_fantasia_receita: str,
  data_inicio: date,
  data_fim: date,
  data_publicacao: date,
  data_transito_julgado: date,
  publicacao: str,
  detalhamento_publicacao: str,
  abrangencia: str.describe('ABRANGÊNCIA DA SANÇÃO (a fonte grafa ABRAGÊNCIA)'),
  orgao_sancionador: OrgaoSancionador,
  fundamentacao_legal: str,
  numero_processo: str,
  data_origem_informacao: date,
  origem_informacoes: str,
  observacoes: str,
}

export const ApontamentoCeis = z.object(sancaoCampos)

export const ApontamentoCnep = z.object({ ...sancaoCampos, valor_multa: z.number().nullable().describe('VALOR DA MULTA em reais (a fonte escreve 1.234.567,89)') })

export const ApontamentoCepim = z.object({
  ...Correspondencia,
  vigente: z.boolean().describe('sempre true: a entidade consta da lista de impedidas hoje'),
  nome_entidade: str,
  numero_convenio: str.describe('como a fonte publica, com zeros à esquerda'),
  orgao_concedente: str,
  motivo: str,
})

export const ApontamentoTrabalhoEscravo = z.object({
  ...Correspondencia,
  vigente: z.boolean().describe('sempre true: o empregador consta do cadastro publicado (quem sai é retirado da lista)'),
  id: str.describe('ID da linha no cadastro do MTE'),
  empregador: str,
  estabelecimento: str,
  uf: str,
  ano_acao_fiscal: z.number().int().nullable(),
  trabalhadores_envolvidos: z.number().int().nullable(),
  cnae: str,
  data_decisao: date.describe('decisão administrativa de procedência'),
  data_inclusao: date.describe('inclusão atual no cadastro: a última data da coluna de inclusão'),
  periodos_inclusao: z.array(z.object({ inicio: z.string(), fim: date })).describe('cada período no cadastro; fim null no período atual (quem saiu por decisão judicial e voltou tem mais de um)'),
  nota_rodape: str.describe('marcador de nota de rodapé junto ao nome, ex. *1'),
  observacao: str.describe('texto da nota de rodapé, quando o arquivo o traz'),
})

export const ApontamentoLeniencia = z.object({
  ...Correspondencia,
  vigente: z.boolean().describe('pela situação do acordo: em vigência/em execução = true; cumprido, descumprido ou rescindido = false; outra situação: pela data de fim'),
  id_acordo: str,
  razao_social_receita: str,
  nome_fantasia_receita: str,
  situacao: str.describe('SITUAÇÃO DO ACORDO DE LENIÊNCIA, como a fonte escreve'),
  data_inicio: date,
  data_fim: date,
  data_informacao: date,
  numero_processo: str,
  orgao_responsavel: str,
  termos: str,
  efeitos: z.array(z.object({ efeito: str, complemento: str })).describe('do arquivo _Efeitos do mesmo zip'),
})

export const FonteIntegridade = z.object({
  base: z.literal('CGU/MTE'),
  referencia: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe('data do arquivo mais recente da base'),
  listas: z
    .object({ ceis: z.string(), cnep: z.string(), cepim: z.string(), trabalho_escravo: z.string(), acordos_leniencia: z.string() })
    .describe('data de referência de cada lista (AAAA-MM-DD): o arquivo diário da CGU; para o MTE, a atualização do cadastro'),
})

export const Triagem = z.object({
  cnpj: z.string(),
  total_apontamentos: z.number().int().describe('todos os apontamentos, vigentes ou não'),
  ficha_limpa: z.boolean().describe('true quando nenhum apontamento está vigente'),
  apontamentos: z.object({
    ceis: z.array(ApontamentoCeis),
    cnep: z.array(ApontamentoCnep),
    cepim: z.array(ApontamentoCepim),
    trabalho_escravo: z.array(ApontamentoTrabalhoEscravo),
    acordos_leniencia: z.array(ApontamentoLeniencia),
  }),
  fonte: FonteIntegridade,
})

export const TriagemAmostra = Triagem.extend({ amostra: z.literal(true) })

export type TriagemResultado = z.output<typeof Triagem>

export const TriagemLote = loteDe(
  Triagem,
  'o CNPJ (pela raiz) tem algum apontamento nas cinco listas, vigente ou não (resultado traz a triagem de /v1/integridade/consulta/{cnpj} também quando não tem)',
  FonteIntegridade,
)
