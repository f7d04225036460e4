// The chains' answers (SPEC §2 says "chain links, a deterministic reading, the rule applied, declared
// limits" in words only; the field names and rules are decided in docs/cadeias.md).
import { z } from 'zod'
import { FonteFeed, STATUS_FONTE } from '../../core/feeds/model'
import { FONTES, IdadeMaxima, Regra } from './regras'

const STATUS_FEED = STATUS_FONTE

export const EloResposta = z.object({
  id: z.string(),
  indicador: z.string(),
  unidade: z.string(),
  valor: z.union([z.number(), z.string()]).nullable().describe('o valor lido (mostrado mesmo quando defasado); null quando ausente'),
  data: z.string().nullable().describe('a data do valor como a fonte a dá (dia AAAA-MM-DD, mês AAAA-MM ou instante ISO 8601)'),
  status: z
    .enum(['ok', 'defasado', 'parcial', 'ausente'])
    .describe(
      'ok: valor dentro da idade máxima de avaliada_em, conta na leitura; defasado: mais velho que isso, não conta; parcial: calculado sobre dados incompletos (incompleto_se da regra), conta por todos os valores que ainda pode ter (de valor para cima, quando ele é um mínimo); ausente: sem valor (ou fora das faixas da regra)',
    ),
  motivo: z.string().nullable().describe('por que não está ok'),
  idade_maxima: IdadeMaxima,
  depende_de: z.array(z.string()),
  pontos: z.object({ nivel: z.number().int().nullable(), direcao: z.number().int().nullable() }).describe('os pontos da faixa em que o valor caiu; null quando o elo não conta nessa medida ou não está ok'),
  faixas: z.object({ nivel: z.string().nullable(), direcao: z.string().nullable() }).describe('a faixa em que o valor caiu, como a regra a escreve'),
  detalhe: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).nullable().describe('as parcelas de uma média ou razão e outros campos da mesma resposta, só como contexto'),
  fonte: z.object({
    de: z.enum(FONTES),
    rota: z.string().nullable().describe('a rota cuja resposta traz o valor; null para as fontes próprias das cadeias'),
    campo: z.string().describe('o campo dessa resposta (ou a conta feita com campos dela)'),
    base: z.string().nullable(),
    consultado_em: z.string().nullable(),
    defasagem_segundos: z.number().int().nullable(),
    status: STATUS_FEED.nullable(),
    referencia: z.string().nullable(),
  }),
})

const Medida = z.object({
  nome: z.string(),
  valor: z.string().nullable().describe('a palavra da escala; null quando os elos que faltam poderiam levar a mais de uma'),
  pontos: z.number().int().nullable().describe('a soma dos pontos; null quando depende dos elos que faltam'),
  pontos_min: z.number().int().describe('a soma com cada elo que falta no seu menor valor possível'),
  pontos_max: z.number().int(),
  possiveis: z.array(z.string()).describe('as palavras da escala entre pontos_min e pontos_max'),
})

export const Leitura = z.object({
  nivel: Medida,
  direcao: Medida,
  completa: z.boolean().describe('todos os elos ok'),
  elos_sem_valor_atual: z.array(z.string()).describe('os elos que não estão ok (defasados, parciais, ausentes)'),
  texto: z.string().describe('a leitura em palavras, com o que pesou e o que faltou'),
})

export const RegraAplicada = Regra.omit({ titulo: true, descricao: true, limites: true })

export const CadeiaResposta = z.object({
  cadeia: z.string(),
  titulo: z.string(),
  descricao: z.string(),
  avaliada_em: z.string().nullable().describe('o instante mais recente em que algum dado da cadeia era conhecido (nunca depois de agora): a leitura é desse instante, e a idade de cada elo se mede contra ele'),
  mes_da_regra: z.number().int().min(1).max(12).nullable().describe('o mês de avaliada_em (Brasília), que escolhe as faixas por período'),
  leitura: Leitura,
  elos: z.array(EloResposta),
  regra: RegraAplicada.describe('a regra aplicada, com as faixas e escalas para recalcular a leitura (src/datasets/cadeias/regras/)'),
  limites: z.array(z.string()).describe('o que a leitura não diz'),
  fonte: FonteFeed.describe('a idade da leitura: consultado_em = avaliada_em; status ok só quando todas as cópias lidas estão dentro do intervalo'),
})

export const AmostraResposta = CadeiaResposta.extend({
  amostra: z.literal(true),
  aviso: z.string(),
  outras_cadeias: z.array(z.object({ rota: z.string(), titulo: z.string(), preco: z.number() })),
})
