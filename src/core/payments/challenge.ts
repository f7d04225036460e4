// The 402 answer: the x402 v2 PaymentRequired (in the PAYMENT-REQUIRED header, at most
// HEADER_BUDGET bytes, so Node clients and reverse proxies read it) with the Bazaar and
// payment-identifier extensions, and the SPEC's Portuguese body, which also carries the
// PaymentRequired fields for body-only clients.
import type { PaymentRequired, PaymentRequirements, ResourceInfo } from '@x402/core/types'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import type { x402ResourceServer } from '@x402/core/server'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import { NETWORKS, type Config } from '../config'
import type { Dataset } from '../dataset'
import { jsonResponse } from '../errors'
import type { RouteDef } from '../route'
import { declareBazaar, DETAIL_LEVELS, enrichBazaar, exampleRequestOf, HEADER_BUDGET, type Json } from './bazaar'

export interface Challenge {
  paymentRequired: PaymentRequired
  /** The PAYMENT-REQUIRED header value (base64 JSON), within HEADER_BUDGET whenever the request's own URL allows. */
  header: string
}

/**
 * Builds PaymentRequired objects for the routes of a route table. Each route's Bazaar declaration
 * is made once per level of detail. A route's baseline level is the richest whose header fits the
 * budget for the route's own example request (learnt on its first 402); a request whose URL is
 * longer than the example's goes down from there until it fits.
 */
export function createChallenges(log: { warn(msg: string, fields?: Record<string, unknown>): void }) {
  const declarations = new Map<string, Json[]>()
  const baseline = new Map<string, number>()
  const paymentIdentifier = declarePaymentIdentifierExtension(false) as unknown as Json

  const declarationsOf = (route: RouteDef): Json[] => {
    let list = declarations.get(route.path)
    if (!list) declarations.set(route.path, (list = DETAIL_LEVELS.map((level) => declareBazaar(route, level))))
    return list
  }

  /** The first level, from `from`, whose header fits; past the last level: the payment terms alone. */
  const fit = async (server: x402ResourceServer, route: RouteDef, accepts: PaymentRequirements[], resource: ResourceInfo, canonicalPath: string, from: number, error?: string) => {
    const list = declarationsOf(route)
    for (let level = from; ; level++) {
      const extensions = level < list.length ? { bazaar: enrichBazaar(list[level]!, route, canonicalPath), [PAYMENT_IDENTIFIER]: paymentIdentifier } : undefined
      const paymentRequired = await server.createPaymentRequiredResponse(accepts, resource, error, extensions)
      const header = encodePaymentRequiredHeader(paymentRequired)
      if (header.length <= HEADER_BUDGET || level >= list.length) return { level, challenge: { paymentRequired, header } }
    }
  }

  return {
    async build(server: x402ResourceServer, route: RouteDef, accepts: PaymentRequirements[], resource: ResourceInfo, canonicalPath: string, error?: string): Promise<Challenge> {
      let from = baseline.get(route.path)
      if (from === undefined) {
        const example = exampleRequestOf(route)
        const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(example.params[name] ?? name))
        const query = new URLSearchParams(example.query).toString()
        const exampleResource = { ...resource, url: `${new URL(resource.url).origin}${path}${query ? `?${query}` : ''}` }
        from = (await fit(server, route, accepts, exampleResource, path, 0)).level
        baseline.set(route.path, from)
      }
      const { level, challenge } = await fit(server, route, accepts, resource, canonicalPath, from, error)
      if (level >= DETAIL_LEVELS.length) log.warn('402 sem extensões: o endereço pedido sozinho passa do limite do cabeçalho', { rota: route.path, bytes: challenge.header.length })
      return challenge
    },
    /** The level of detail each route's header starts from (for make bench and the docs). */
    levels: (): Record<string, string> => Object.fromEntries([...baseline].map(([path, level]) => [path, DETAIL_LEVELS[level] ?? 'sem_extensoes'])),
  }
}

export type Challenges = ReturnType<typeof createChallenges>

export function paymentRequiredResponse(options: {
  route: RouteDef
  challenge: Challenge
  priceUsd: number
  mensagem: string
  baseUrl: string
  config: Config
  datasets: Dataset[]
  extraHeaders?: Record<string, string>
}): Response {
  const { route, challenge, baseUrl, config } = options
  const { paymentRequired } = challenge
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
    preco_usd: options.priceUsd,
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
    'payment-required': challenge.header,
    'cache-control': 'no-store',
    ...options.extraHeaders,
  })
}
