import { z } from 'zod'
import { FonteFeed } from '../../core/feeds/model'
import { cnpjParam, pagina, porPagina, ufParam } from '../../core/validate'
import { MODALIDADES } from './pncp'

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable()
const str = z.string().nullable()

export const Orgao = z.object({
  cnpj: str.describe('CNPJ do órgão ou entidade contratante'),
  razao_social: str,
  esfera: z.enum(['federal', 'estadual', 'municipal', 'distrital', 'nao_se_aplica']).nullable(),
  poder: z.enum(['legislativo', 'executivo', 'judiciario', 'nao_se_aplica']).nullable(),
})

export const Unidade = z.object({ nome: str, municipio: str, uf: str })

export const Contrato = z.object({
  numero_controle_pncp: z.string().describe('número de controle do contrato no PNCP (<cnpj do órgão>-2-<sequencial>/<ano>)'),
  cnpj_fornecedor: z.string().describe('o estabelecimento que assinou o contrato (14 caracteres)'),
  orgao: Orgao,
  unidade: Unidade,
  objeto: str,
  valor_inicial: z.number().nullable(),
  valor_global: z.number().nullable().describe('valor global com os aditivos publicados'),
  data_assinatura: date,
  vigencia_inicio: date,
  vigencia_fim: date,
  tipo: str.describe('tipo do contrato no PNCP: Contrato (termo inicial), Empenho, Carta-contrato...'),
  link: str.describe('página do contrato em pncp.gov.br'),
})

export const FonteContratos = z.object({
  base: z.literal('PNCP/contratos'),
  referencia: date.describe('dia até o qual os contratos publicados no PNCP estão sincronizados, sem falhas (AAAA-MM-DD)'),
  desde: date.describe('primeiro dia de publicação lido'),
  atualizado_em: z.string().nullable().describe('fim da última sincronização (ISO 8601)'),
})

export const Fornecedor = z.object({
  cnpj: z.string(),
  resumo: z.object({
    total_contratos: z.number().int().describe('contratos de todos os estabelecimentos da raiz'),
    valor_total: z.number().describe('soma dos valores globais (o inicial quando falta o global), em reais'),
    orgaos_distintos: z.number().int(),
  }),
  contratos: z.array(Contrato).describe('os 100 mais recentes por data de assinatura'),
  fonte: FonteContratos,
})

export const FornecedorAmostra = Fornecedor.extend({ amostra: z.literal(true) })

export const CnpjPath = z.object({ cnpj: cnpjParam })

const MODALIDADE_MESSAGE = `deve ser um código de modalidade do PNCP de 1 a 13 (6 = pregão eletrônico)`

export const AbertasQuery = z.object({
  uf: ufParam.optional(),
  modalidade: z
    .string()
    .regex(/^\d{1,2}$/, MODALIDADE_MESSAGE)
    .transform((v) => String(Number(v)))
    .refine((v) => v in MODALIDADES, MODALIDADE_MESSAGE)
    .default('6'),
  pagina,
  por_pagina: porPagina,
})

export const Oportunidade = z.object({
  numero_controle_pncp: z.string(),
  objeto: str,
  valor_estimado: z.number().nullable().describe('null quando o orçamento é sigiloso ou não foi informado (o PNCP manda 0)'),
  orgao: Orgao,
  unidade: Unidade,
  modalidade: z.object({ codigo: str, nome: str }),
  data_abertura_proposta: str.describe('ISO 8601 com o fuso de Brasília'),
  data_encerramento_proposta: str.describe('ISO 8601 com o fuso de Brasília'),
  link: str.describe('o sistema onde a licitação corre; sem ele, a página da contratação no PNCP'),
})

export const Abertas = z.object({
  total: z.number().int().describe('licitações ainda abertas em abertas_em que atendem aos filtros'),
  pagina: z.number().int(),
  oportunidades: z.array(Oportunidade),
  abertas_em: z.string().describe('o instante contra o qual o prazo de propostas é conferido (ISO 8601, UTC): agora; na amostra embutida (fonte.status amostra), o instante em que ela foi gravada'),
  encerradas_omitidas: z.number().int().describe('licitações da cópia (e da uf pedida) cujo prazo de propostas já passou em abertas_em: omitidas'),
  aviso: z.string().nullable().describe('quando a cópia é mais velha que o intervalo prometido (ou é a amostra): de quando ela é e por quê; null quando está em dia'),
  fonte: FonteFeed,
})
