// The `fonte` of an answer served from a polled source (SPEC §2, open tenders; the same for every
// feed), and the source's record as /v1/health lists it: one record (src/core/feeds/feed.ts, FeedState),
// so a route and /v1/health always say the same about the same source.
import { z } from 'zod'

export const STATUS_FONTE = z
  .enum(['ok', 'cache_servido', 'fonte_indisponivel', 'amostra'])
  .describe(
    'ok: cópia dentro do intervalo prometido; cache_servido: cópia mais velha, porque a atualização falhou ou ainda roda (defasagem_segundos diz quanto); ' +
      'fonte_indisponivel: nenhuma cópia desta consulta foi obtida ainda; amostra: a amostra embutida no programa, gravada na data de consultado_em, ainda não substituída por uma consulta deste servidor',
  )

export const FonteFeed = z.object({
  base: z.string().describe('a fonte consultada'),
  consultado_em: z.string().nullable().describe('quando os dados servidos foram obtidos da fonte (ISO 8601, UTC); de uma fonte derivada de outras cópias, o da mais nova delas'),
  defasagem_segundos: z.number().int().nullable().describe('idade dos dados servidos, em segundos'),
  atualiza_a_cada_minutos: z.number().describe('o intervalo prometido: uma cópia até esta idade é ok (0.25 = 15 s)'),
  cache: z.boolean().describe('true quando a resposta vem de uma cópia local (sempre que há dados: o pedido nunca espera a fonte)'),
  status: STATUS_FONTE,
  tentado_em: z.string().nullable().describe('a última consulta à fonte, com ou sem sucesso (null: nenhuma desde que a cópia foi feita)'),
  ultimo_erro: z.string().nullable().describe('o erro da última consulta, quando ela falhou (a cópia servida é a anterior); null quando deu certo'),
})

/** A source in /v1/health: the same record as the `fonte` of its routes, with its name and failures. */
export const FonteEstado = FonteFeed.extend({
  nome: z.string().describe('o nome da fonte (dadosbr atualizar <nome>)'),
  falhas: z.number().int().describe('consultas seguidas que falharam desde o último sucesso'),
  problema: z.string().nullable().describe('por que esta fonte deixa o serviço degradado (também em motivos); null quando não deixa'),
})
