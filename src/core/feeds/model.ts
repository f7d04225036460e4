// The `fonte` of an answer served from a polled source (SPEC §2, open tenders; the same for every feed).
import { z } from 'zod'

export const FonteFeed = z.object({
  base: z.string().describe('a fonte consultada'),
  consultado_em: z.string().nullable().describe('quando a cópia servida foi obtida da fonte (ISO 8601, UTC)'),
  defasagem_segundos: z.number().int().nullable().describe('idade da cópia servida, em segundos'),
  atualiza_a_cada_minutos: z.number().describe('intervalo de atualização da cópia local (0.25 = 15 s)'),
  cache: z.boolean().describe('true quando a resposta vem de uma cópia local (sempre que há dados: o pedido nunca espera a fonte)'),
  status: z
    .enum(['ok', 'cache_servido', 'fonte_indisponivel'])
    .describe('ok: cópia dentro do intervalo; cache_servido: cópia mais velha, porque a atualização falhou ou ainda roda; fonte_indisponivel: nenhuma cópia desta consulta foi obtida ainda (lista vazia)'),
})
