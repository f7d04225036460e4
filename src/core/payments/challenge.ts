// The 402 answer: the x402 v2 PAYMENT-REQUIRED header (with the Bazaar discovery extension) and
// the SPEC's Portuguese body, which also carries the PaymentRequired fields for body-only clients.
import type { PaymentRequired } from '@x402/core/types'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { z } from 'zod'
import { NETWORKS, type Config } from '../config'
import type { Dataset } from '../dataset'
import { jsonResponse } from '../errors'
import { EXAMPLES } from '../examples'
import type { RouteDef } from '../route'

/** Bazaar discovery: what the route takes and returns, so agents can call it without the docs. */
export function bazaarExtension(route: RouteDef): Record<string, unknown> {
  const props = (schema: z.ZodType | undefined) =>
    schema instanceof z.ZodObject ? ((z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> }).properties ?? {}) : {}
  const input: Record<string, unknown> = { type: 'http', method: 'GET' }
  if (route.params) input.pathParams = props(route.params)
  if (route.query) input.queryParams = props(route.query)
  const { $schema: _drop, ...output } = z.toJSONSchema(route.response, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>
  const example = route.example ?? EXAMPLES[route.path]?.output
  return { bazaar: { info: { input, output: { type: 'json', ...(example !== undefined ? { example } : {}) } }, schema: { output } } }
}

export function paymentRequiredResponse(options: {
  route: RouteDef
  paymentRequired: PaymentRequired
  mensagem: string
  baseUrl: string
  config: Config
  datasets: Dataset[]
  extraHeaders?: Record<string, string>
}): Response {
  const { route, paymentRequired, baseUrl, config } = options
  const accept = paymentRequired.accepts[0]
  const dataset = options.datasets.find((d) => d.name === route.dataset)
  const gratis = [
    ...(dataset?.amostra ? [{ url: baseUrl + dataset.amostra, descricao: `Amostra grátis de ${dataset.titulo}` }] : []),
    { url: `${baseUrl}/v1/ferramentas/cnpj/33683111000280`, descricao: 'Validação grátis de CNPJ: confira o número antes de pagar' },
    { url: `${baseUrl}/v1/ferramentas/cpf/52998224725`, descricao: 'Validação grátis de CPF (devolve só a forma mascarada)' },
    { url: `${baseUrl}/v1/ferramentas`, descricao: 'Índice das ferramentas grátis' },
  ]
  const body = {
    erro: { codigo: 'pagamento_exigido' as const, mensagem: options.mensagem },
    preco_usd: route.price,
    como_pagar: {
      protocolo: 'x402' as const,
      requisitos: `x402 v2, esquema exact: ${accept?.amount ?? '?'} unidades (6 casas) de USDC (${accept?.asset ?? NETWORKS[config.network].usdc}) na rede ${NETWORKS[config.network].name} (${config.network}) para ${accept?.payTo ?? config.payTo}. Repita o GET com o cabeçalho PAYMENT-SIGNATURE (ou X-PAYMENT).`,
      instrucoes: `${baseUrl}/llms.txt`,
    },
    gratis_agora: gratis,
    catalogo: `${baseUrl}/openapi.json`,
    ...paymentRequired,
  }
  return jsonResponse(body, 402, {
    'payment-required': encodePaymentRequiredHeader(paymentRequired),
    'cache-control': 'no-store',
    ...options.extraHeaders,
  })
}
