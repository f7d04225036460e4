import { z } from 'zod'
import { cnpjParam, ibgeMunicipioParam, intParam } from '../../core/validate'
import { Empresa } from '../cnpj/model'

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/)
const str = z.string().nullable()

/** `ibge` path parameter: the IBGE municipality code, its state code and check digit verified (src/core/ibge.ts). */
export const IbgePath = z.object({ ibge: ibgeMunicipioParam })

export const CnpjPath = z.object({ cnpj: cnpjParam })

export const Soma = z.object({
  alertas: z.number().int().describe('trechos de alerta (um alerta que cruza a divisa conta em cada município)'),
  area_km2: z.number().describe('área de todos os alertas, km² (AREAMUNKM: a parte de cada alerta dentro do município)'),
  alertas_desmatamento: z.number().int(),
  area_desmatamento_km2: z.number().describe('área das classes de desmatamento: corte raso (DESMATAMENTO_CR), com vegetação (DESMATAMENTO_VEG) e mineração'),
})

export const Periodo = Soma.extend({ inicio: date, fim: date })

export const Janelas = z.object({
  ultimos_30_dias: Periodo,
  ultimos_90_dias: Periodo,
  ultimos_365_dias: Periodo,
})

export const Posicao = z.object({
  posicao: z.number().int().nullable().describe('1 = maior área de desmatamento; null sem área de desmatamento nesse escopo'),
  de: z.number().int().describe('municípios com área de desmatamento no escopo'),
})

export const Ranking = z.object({
  criterio: z.string(),
  nacional: Posicao,
  amazonia: Posicao,
  cerrado: Posicao,
})

export const BIOMA = z.enum(['amazonia', 'cerrado'])

export const FonteDeter = z.object({
  base: z.literal('INPE/DETER'),
  referencia: date.describe('data (view_date) do alerta mais recente dos dois projetos: o fim de todas as janelas'),
  corte: z.literal('2020-12-31').describe('corte do regulamento europeu (EUDR): contam os alertas a partir de 2021-01-01'),
  projetos: z.object({
    amazonia: z.object({ arquivo: z.string(), alerta_mais_recente: date }),
    cerrado: z.object({ arquivo: z.string(), alerta_mais_recente: date }),
  }),
})

export const Microrregiao = z.object({ codigo: z.string(), nome: str })

export const MunicipioDesmatamento = z.object({
  ibge: z.string(),
  municipio: str,
  uf: str,
  microrregiao: Microrregiao.nullable(),
  desde_corte: Periodo.describe('de 2021-01-01 até a data de referência'),
  janelas: Janelas.describe('últimos 30, 90 e 365 dias até a data de referência (não até hoje: a resposta é a mesma para a mesma base)'),
  por_classe: z.array(z.object({ classe: z.string(), descricao: str, grupo: z.enum(['desmatamento', 'degradacao', 'outros']), alertas: z.number().int(), area_km2: z.number() })).describe('desde o corte, maior área primeiro'),
  por_bioma: z.array(Soma.extend({ bioma: BIOMA })).describe('desde o corte, por projeto do DETER (um município de divisa pode estar nos dois)'),
  ranking: Ranking,
  nota: str,
  fonte: FonteDeter,
})

export const Regiao = z.object({
  codigo: z.string().describe('microrregião geográfica do IBGE (5 dígitos)'),
  nome: str,
  uf: str,
  municipios: z.number().int(),
  municipios_com_alertas: z.number().int(),
  desde_corte: Periodo,
  janelas: Janelas,
  mais_afetados: z.array(Soma.extend({ ibge: z.string(), municipio: str, uf: str })).describe('até 5, maior área de desmatamento primeiro'),
})

export const Exposicao = z.object({
  ibge: z.string(),
  municipio: str,
  uf: str,
  microrregiao: Microrregiao.nullable(),
  estabelecimentos_ativos: z.number().int(),
  desde_corte: Periodo,
  janelas: Janelas,
  por_bioma: z.array(Soma.extend({ bioma: BIOMA })),
  ranking: Ranking,
})

export const Fornecedor = z.object({
  cnpj: z.string(),
  empresa: Empresa.describe('a ficha do CNPJ consultado no cadastro da Receita'),
  estabelecimentos_ativos: z.number().int().describe('estabelecimentos da raiz com situação ativa'),
  estabelecimentos: z.array(z.object({
    cnpj: z.string(),
    matriz_filial: z.enum(['matriz', 'filial']).nullable(),
    codigo_municipio_rfb: str.describe('código TOM (4 dígitos) do cadastro'),
    ibge: str,
    municipio: str,
    uf: str,
  })).describe('os ativos, por CNPJ; no máximo 1000'),
  municipios: z.array(Exposicao).describe('um por município com estabelecimento ativo, maior área de desmatamento primeiro; no máximo 200 (total_municipios diz quantos há)'),
  total_municipios: z.number().int(),
  regioes: z.array(Regiao).describe('a microrregião de cada município acima, maior área de desmatamento primeiro; no máximo 200'),
  sem_municipio: z.array(z.object({ cnpj: z.string(), codigo_municipio_rfb: str, motivo: z.string() })).describe('estabelecimentos ativos que não se localizam num município (exterior, código fora da tabela)'),
  resumo: z.object({
    municipios_com_alertas: z.number().int(),
    area_desmatamento_km2: z.number().describe('soma, desde o corte, da área de desmatamento dos municípios com estabelecimento ativo'),
    pior_municipio: z.object({ ibge: z.string(), municipio: str, uf: str, area_desmatamento_km2: z.number() }).nullable(),
    regioes_com_alertas: z.number().int(),
  }),
  limitacoes: z.array(z.string()),
  fonte: z.object({
    deter: FonteDeter,
    cadastro: z.object({ base: z.literal('RFB/CNPJ'), referencia: z.string().nullable() }),
    municipios: z.string(),
  }),
})

export const RankingQuery = z.object({
  por: z.enum(['municipio', 'uf']).default('municipio').describe('municipio (padrão) ou uf'),
  dias: intParam(1, 2000).optional().describe('janela em dias até a data de referência (1 a 2000); sem dias, desde o corte (2021-01-01). Uma janela mais longa que o período desde o corte começa no corte'),
  bioma: BIOMA.optional().describe('amazonia ou cerrado; sem bioma, os dois'),
  limite: intParam(1, 50).default(20),
})

export const RankingItem = Soma.extend({
  posicao: z.number().int(),
  ibge: z.string().optional(),
  municipio: str.optional(),
  uf: str,
  municipios_com_alertas: z.number().int().optional().describe('por=uf: municípios da UF com alertas na janela'),
})

export const RankingResposta = z.object({
  por: z.enum(['municipio', 'uf']),
  bioma: BIOMA.nullable(),
  dias: z.number().int().nullable(),
  periodo: z.object({ inicio: date, fim: date }),
  criterio: z.string(),
  total: z.number().int().describe('municípios (ou UFs) com área de desmatamento na janela'),
  ranking: z.array(RankingItem),
  fonte: FonteDeter,
})

export const Amostra = z.object({
  amostra: z.literal(true),
  periodo: z.object({ inicio: date, fim: date }),
  totais: z.object({
    amazonia: Soma.extend({ municipios_com_alertas: z.number().int() }),
    cerrado: Soma.extend({ municipios_com_alertas: z.number().int() }),
    total: Soma.extend({ municipios_com_alertas: z.number().int() }),
  }),
  pior_municipio: Soma.extend({ ibge: z.string(), municipio: str, uf: str, biomas: z.array(BIOMA) }).nullable(),
  fonte: FonteDeter,
})
