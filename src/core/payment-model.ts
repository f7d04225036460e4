// The SPEC's 402 body, shared by the payment layer and the OpenAPI document.
import { z } from 'zod'

export const PaymentRequiredBody = z.object({
  erro: z.object({ codigo: z.literal('pagamento_exigido'), mensagem: z.string() }),
  preco_usd: z.number().nullable(),
  como_pagar: z.object({
    protocolo: z.literal('x402'),
    requisitos: z.string(),
    instrucoes: z.url(),
  }),
  gratis_agora: z.array(z.object({ url: z.url(), descricao: z.string() })),
  catalogo: z.url(),
  x402Version: z.literal(2).describe('campos do PaymentRequired do x402, para clientes que só leem o corpo'),
  resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }),
  accepts: z.array(z.record(z.string(), z.unknown())),
  error: z.string().optional(),
})
