// The markets dataset's answers (SPEC §2 describes them in words only; docs/mercado.md has the decisions).
import { z } from 'zod'
import { FonteFeed } from '../../core/feeds/model'
import { intParam } from '../../core/validate'
import { SENTIMENTOS, TEMAS } from './classificador/lexico'

// ------------------------------------------------------------ news

export const NoticiasQuery = z.object({
  tema: z.enum(TEMAS).optional().describe('só notícias deste tema'),
  sentimento: z.enum(SENTIMENTOS).optional().describe('só notícias deste sentimento'),
  relevancia_min: intParam(0, 10).optional().describe('relevância mínima, de 0 a 10'),
  por_pagina: intParam(1, 50).default(20).describe('quantas notícias, de 1 a 50 (padrão 20); as mais recentes primeiro'),
})

export const OutraFonte = z.object({ veiculo: z.string(), titulo: z.string(), link: z.string(), publicado_em: z.string().nullable() })

export const Noticia = z.object({
  id: z.string().describe('identificador estável da notícia (do endereço do link)'),
  titulo: z.string(),
  resumo: z.string().nullable().describe('texto do feed sem HTML, até 400 caracteres'),
  link: z.string(),
  veiculo: z.string().describe('o veículo que publicou primeiro'),
  publicado_em: z.string().nullable().describe('ISO 8601 (UTC); null quando o feed não traz data'),
  tema: z.enum(TEMAS),
  sentimento: z.enum(SENTIMENTOS),
  relevancia: z.number().int().min(0).max(10),
  classificador: z.enum(['lexico', 'llm']).describe('quem deu tema, sentimento e relevância: o léxico determinístico ou o LLM configurado'),
  outras_fontes: z.array(OutraFonte).describe('a mesma história em outros veículos'),
})

export const VeiculoEstado = z.object({
  id: z.string(),
  veiculo: z.string(),
  status: z.enum(['ok', 'falhou']).describe('falhou: a última consulta deste feed falhou; seguem os itens da consulta anterior'),
  itens: z.number().int(),
  formato: z.string().nullable(),
  charset: z.string().nullable(),
  atualizado_em: z.string().nullable(),
  erro: z.string().nullable(),
})

export const NoticiasResposta = z.object({
  total: z.number().int().describe('notícias que atendem aos filtros (antes do corte de por_pagina)'),
  por_pagina: z.number().int(),
  noticias: z.array(Noticia),
  veiculos: z.array(VeiculoEstado).describe('cada feed consultado, com o estado da última consulta'),
  classificacao: z.object({ lexico: z.string(), llm_modelo: z.string().nullable(), llm_erros: z.array(z.string()) }),
  fonte: FonteFeed,
})

// ------------------------------------------------------------ indicators

export const Indicador = z.object({
  descricao: z.string(),
  valor: z.number(),
  unidade: z.string(),
  referencia: z.string().describe('período a que o valor se refere: AAAA-MM-DD (dia), AAAA-MM (mês) ou AAAA (ano, no Focus)'),
  data_pesquisa: z.string().nullable().describe('Focus: dia da pesquisa cuja mediana é esta'),
  origem: z.string().describe('a série ou o serviço oficial de onde veio'),
  nota: z.string().nullable(),
})

export const INDICADORES = [
  'selic_meta',
  'ipca_mensal',
  'ipca_12_meses',
  'ptax_compra',
  'ptax_venda',
  'focus_ipca_ano_atual',
  'focus_ipca_ano_seguinte',
  'focus_selic_ano_atual',
  'focus_selic_ano_seguinte',
  'focus_pib_ano_atual',
  'focus_pib_ano_seguinte',
  'focus_cambio_ano_atual',
  'focus_cambio_ano_seguinte',
] as const
export type IndicadorChave = (typeof INDICADORES)[number]

export const Indisponivel = z.object({ item: z.string(), motivo: z.string() })

export const IndicadoresResposta = z.object({
  indicadores: z.object(Object.fromEntries(INDICADORES.map((k) => [k, Indicador.nullable()])) as Record<IndicadorChave, z.ZodNullable<typeof Indicador>>),
  indisponiveis: z.array(Indisponivel).describe('indicadores sem valor nesta resposta, e por quê'),
  fontes: z.object({ sgs: FonteFeed, ptax: FonteFeed, focus: FonteFeed }),
})

// ------------------------------------------------------------ FX

export const Cotacao = z.object({
  fonte: z.string(),
  preco: z.number().describe('último negócio'),
  compra: z.number().nullable().describe('melhor oferta de compra'),
  venda: z.number().nullable().describe('melhor oferta de venda'),
  horario: z.string().nullable().describe('hora do ticker segundo a corretora (ISO 8601), quando ela informa'),
})

export const ParCotado = z.object({ mediana: z.number().describe('mediana dos últimos negócios das fontes'), cotacoes: z.array(Cotacao) })

export const Ptax = z.object({
  compra: z.number(),
  venda: z.number(),
  data: z.string().describe('dia do boletim de fechamento (AAAA-MM-DD)'),
  boletim: z.string().describe('dataHoraCotacao do Banco Central (hora de Brasília)'),
  nota: z.string().nullable().describe('por que a PTAX não é do dia da consulta (fim de semana, feriado, ainda não publicada)'),
  variacao_pct: z.number().nullable().describe('variação da PTAX de venda desde o primeiro boletim da série, em % (a tendência da semana)'),
  variacao_desde: z.string().nullable().describe('dia do primeiro boletim da série'),
  serie: z.array(z.object({ data: z.string(), compra: z.number(), venda: z.number() })).describe('os boletins dos últimos dias úteis, do mais antigo ao mais recente'),
})

export const CambioResposta = z.object({
  ptax: Ptax.nullable(),
  btc_brl: ParCotado.nullable(),
  usdt_brl: ParCotado.nullable(),
  btc_usd: ParCotado.nullable(),
  premios: z.object({
    usdt_sobre_ptax_pct: z.number().nullable().describe('(USDT/BRL ÷ PTAX de venda − 1) × 100'),
    btc_sobre_paridade_pct: z.number().nullable().describe('(BTC/BRL ÷ (BTC/USD × PTAX de venda) − 1) × 100'),
    btc_paridade_brl: z.number().nullable().describe('BTC/USD × PTAX de venda'),
  }),
  falhas: z.array(z.object({ fonte: z.string(), erro: z.string() })).describe('fontes de cotação que falharam na última consulta (quando todas falharam, todas; as cotações servidas são então as da cópia anterior)'),
  indisponiveis: z.array(Indisponivel),
  avisos: z.array(z.string()).describe('cotações mais velhas que o prometido (15 s para as corretoras, 1 h para a cópia da PTAX): de quando são e por quê; vazio quando tudo está em dia'),
  fontes: z.object({ ptax: FonteFeed, cripto: FonteFeed }),
})

// ------------------------------------------------------------ pack and sample

export const PacoteResposta = z.object({
  cambio: CambioResposta.nullable(),
  indicadores: IndicadoresResposta.nullable(),
  noticias: NoticiasResposta.nullable(),
  indisponiveis: z.array(z.enum(['cambio', 'indicadores', 'noticias'])).describe('partes sem nenhum dado ainda (null acima); as outras vêm mesmo assim'),
})

export const AmostraResposta = z.object({
  amostra: z.literal(true),
  aviso: z.string(),
  noticias: z.array(Noticia),
  indicadores: IndicadoresResposta.shape.indicadores,
  fontes: z.object({ noticias: FonteFeed, sgs: FonteFeed, ptax: FonteFeed, focus: FonteFeed }),
})
