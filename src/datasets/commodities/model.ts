// The commodities answers (SPEC §2 describes them in words only; docs/commodities.md has the decisions).
import { z } from 'zod'
import { FonteFeed } from '../../core/feeds/model'

const CULTURA = z.enum(['soja', 'milho_safrinha', 'cafe', 'cana', 'algodao'])

// ------------------------------------------------------------ weather

export const ClimaCinturao = z.object({
  id: z.string().describe('identificador do cinturão (cinturoes.json)'),
  nome: z.string(),
  uf: z.string(),
  municipio: z.string().describe('município-polo cujo ponto representa o cinturão'),
  culturas: z.array(CULTURA),
  latitude: z.number(),
  longitude: z.number(),
  grade: z.object({ latitude: z.number(), longitude: z.number(), elevacao_m: z.number().nullable() }).describe('ponto da grade do modelo que o Open-Meteo respondeu (não é a coordenada pedida)'),
  chuva_observada_7d_mm: z.number().nullable().describe('chuva dos 7 dias até ontem (mm); null sem nenhum dia observado'),
  chuva_observada_30d_mm: z.number().nullable().describe('chuva dos 30 dias até ontem (mm)'),
  dias_observados_30d: z.number().int().describe('dias dos últimos 30 com valor observado (histórico ERA5 ou dias passados da previsão)'),
  chuva_prevista_7d_mm: z.number().nullable().describe('chuva prevista de hoje a 6 dias à frente (mm)'),
  dias_secos_consecutivos: z.number().int().nullable().describe('dias seguidos com menos de 1 mm, contados de ontem para trás'),
  dias_secos_no_limite: z.boolean().describe('true quando a estiagem chega ao início da janela observada (90 dias): é pelo menos esse tamanho'),
  ultima_chuva: z.string().nullable().describe('último dia com 1 mm ou mais (AAAA-MM-DD)'),
  temp_min_72h_c: z.number().nullable().describe('menor temperatura horária do ar a 2 m prevista nas próximas 72 horas (°C)'),
  temp_min_72h_em: z.string().nullable().describe('hora local (America/Sao_Paulo) dessa mínima'),
  geada: z.object({
    alerta: z.boolean().describe('true quando a mínima de 72 h fica no limiar de alguma cultura do cinturão ou abaixo'),
    limiar_c: z.number().describe('o maior limiar entre as culturas do cinturão (a mais sensível)'),
    culturas_em_risco: z.array(CULTURA),
  }),
  previsao: z.array(z.object({ data: z.string(), chuva_mm: z.number().nullable(), temp_min_c: z.number().nullable() })).describe('os 7 dias previstos'),
})

export const ClimaResposta = z.object({
  referencia: z.string().nullable().describe('dia (Brasília) da consulta: a janela observada termina na véspera e a previsão começa nele'),
  cinturoes: z.array(ClimaCinturao),
  criterios: z.object({
    dia_seco_mm: z.number(),
    janela_observada_dias: z.number().int(),
    geada_limiar_c: z.record(z.string(), z.number()).describe('limiar de geada por cultura (°C, mínima do ar a 2 m)'),
  }),
  avisos: z.array(z.string()).describe('o que faltou na última consulta (por exemplo o histórico), e o que isso muda'),
  fonte: FonteFeed,
})

// ------------------------------------------------------------ fire

export const FogoResposta = z.object({
  satelite_referencia: z.string().describe('só os focos deste satélite entram nas séries e no ranking (série comparável do INPE)'),
  periodo: z.object({ inicio: z.string(), fim: z.string() }).nullable(),
  biomas: z.array(
    z.object({
      bioma: z.string(),
      focos_7d: z.number().int(),
      frp_medio_7d_mw: z.number().nullable().describe('média da potência radiativa do fogo (FRP, MW) dos focos com FRP'),
      serie: z.array(z.object({ data: z.string(), focos: z.number().int(), frp_medio_mw: z.number().nullable() })),
    }),
  ),
  estados: z.array(z.object({ estado: z.string().describe('como o INPE escreve'), uf: z.string().nullable(), focos_7d: z.number().int() })).describe('os 10 estados com mais focos em 7 dias'),
  dias_sem_chuva_medio: z.number().nullable().describe('média de numero_dias_sem_chuva nos focos do satélite de referência que trazem o campo'),
  focos_referencia_7d: z.number().int(),
  focos_todos_satelites_7d: z.number().int().describe('linhas dos 7 arquivos, todos os satélites (o mesmo fogo visto por vários conta várias vezes)'),
  fonte: FonteFeed,
})

// ------------------------------------------------------------ exports

export const MesExportado = z.object({
  mes: z.string().describe('AAAA-MM'),
  fob_usd: z.number().describe('valor FOB em dólares'),
  kg_liquido: z.number().describe('peso líquido em kg'),
  fob_usd_ano_anterior: z.number().nullable().describe('o mesmo mês um ano antes; null quando o arquivo daquele ano não foi lido'),
  kg_liquido_ano_anterior: z.number().nullable(),
  variacao_fob_pct: z.number().nullable().describe('variação anual do valor, em %'),
  variacao_kg_pct: z.number().nullable().describe('variação anual do volume, em %'),
})

export const ExportacoesResposta = z.object({
  referencia: z.string().describe('último mês nos arquivos (AAAA-MM)'),
  meses: z.array(z.string()),
  grupos: z.array(
    z.object({
      id: z.string(),
      nome: z.string(),
      en: z.string(),
      ncm_prefixos: z.array(z.string()).describe('prefixos de NCM do grupo (texto, com zeros à esquerda)'),
      serie: z.array(MesExportado).describe('os 13 últimos meses, do mais antigo ao mais recente'),
      ultimo_mes: MesExportado,
    }),
  ),
  fonte: z.object({
    base: z.string(),
    referencia: z.string(),
    arquivos: z.array(z.object({ nome: z.string(), linhas: z.number().int(), sha256: z.string() })).describe('os arquivos EXP lidos, com as linhas e o sha256 de cada um'),
  }),
})

// ------------------------------------------------------------ hydrology

export const EarSubsistema = z.object({
  id: z.string().describe('SE, S, NE, N ou SIN'),
  nome: z.string(),
  ear_percentual: z.number().describe('energia armazenada, % do máximo'),
  ear_mwmes: z.number(),
  ear_max_mwmes: z.number(),
  delta_7d_pp: z.number().nullable().describe('pontos percentuais contra 7 dias antes'),
  ear_percentual_7d_antes: z.number().nullable(),
})

export const HidrologiaResposta = z.object({
  data: z.string().nullable().describe('último dia com os quatro subsistemas'),
  subsistemas: z.array(EarSubsistema),
  sin: EarSubsistema.nullable().describe('total do SIN: Σ MWmês ÷ Σ máximo dos quatro subsistemas'),
  serie_sin: z.array(z.object({ data: z.string(), ear_percentual: z.number() })).describe('os 8 últimos dias do SIN'),
  fonte: FonteFeed,
})

// ------------------------------------------------------------ briefing

const Evidencia = z.object({
  sinal: z.enum(['clima', 'fogo', 'exportacoes', 'hidrologia', 'mercado']).describe('a rota de onde o número vem (mercado = /v1/mercado/cambio)'),
  campo: z.string().describe('o campo da resposta daquela rota que traz o número'),
  valor: z.number(),
  unidade: z.string(),
  efeito: z.union([z.literal(-1), z.literal(0), z.literal(1)]).describe('+1 empurra o preço para cima, -1 para baixo, 0 só contexto'),
})

const Entrada = z.object({ consultado_em: z.string().nullable(), referencia: z.string().nullable() }).nullable()

export const BriefingResposta = z.object({
  data: z.string().nullable(),
  idioma: z.literal('en'),
  dados_de: z.string().nullable().describe('consultado_em da entrada mais nova que o briefing leu: a idade do briefing em fonte é a dela'),
  escrito_por: z.enum(['template', 'llm']).nullable().describe('template: texto do modelo determinístico; llm: prosa reescrita pelo LLM configurado, com os mesmos números (conferidos)'),
  modelo: z.string().nullable(),
  llm_erro: z.string().nullable().describe('por que a reescrita do LLM não foi usada'),
  resumo: z.string().nullable(),
  destaques: z.array(
    z.object({
      id: z.string(),
      commodity: z.string(),
      direcao: z.enum(['up', 'down', 'flat']).describe('para onde os sinais empurram o preço em reais'),
      pontuacao: z.number().int().describe('soma dos efeitos das evidências'),
      texto: z.string(),
      evidencias: z.array(Evidencia),
    }),
  ),
  regra: z.string(),
  entradas: z.object({ clima: Entrada, fogo: Entrada, hidrologia: Entrada, exportacoes: Entrada, mercado_ptax: Entrada }).nullable().describe('a cópia de cada sinal que o briefing leu'),
  fonte: FonteFeed,
})

// ------------------------------------------------------------ pack and sample

export const PARTES = ['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing'] as const

export const PacoteResposta = z.object({
  clima: ClimaResposta.nullable(),
  fogo: FogoResposta.nullable(),
  exportacoes: ExportacoesResposta.nullable(),
  hidrologia: HidrologiaResposta.nullable(),
  briefing: BriefingResposta.nullable(),
  indisponiveis: z.array(z.enum(PARTES)).describe('partes sem nenhum dado ainda (null acima); as outras vêm mesmo assim'),
})

export const AmostraResposta = z.object({
  amostra: z.literal(true),
  aviso: z.string(),
  clima: z.array(ClimaCinturao.omit({ previsao: true })).describe('dois cinturões'),
  hidrologia_sin: EarSubsistema.nullable(),
  exportacoes_soja: MesExportado.nullable().describe('soja em grão, último mês'),
  fogo_biomas: z.array(z.object({ bioma: z.string(), focos_7d: z.number().int() })),
  briefing_resumo: z.string().nullable(),
  fontes: z.object({ clima: FonteFeed, fogo: FonteFeed, hidrologia: FonteFeed, briefing: FonteFeed, exportacoes: z.object({ referencia: z.string() }).nullable().describe('null: nenhuma base de exportações construída') }),
})
