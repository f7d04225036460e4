// Charges paid routes with x402 v2: 402 without payment (no facilitator needed); with one, verify, run the handler, and
// settle only a 2xx answer, whose body leaves only after the settlement succeeded. A payment
// (payer + nonce) is served at most once, even when the same signature arrives twice at once.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { NETWORKS, type Config } from '../config'
import type { Dataset } from '../dataset'
import { ApiError, errorResponse } from '../errors'
import type { Logger } from '../log'
import type { Metrics, PaymentResult } from '../metrics'
import { priceAtomic, type RouteDef } from '../route'
import type { PaymentGate } from '../server'
import { bazaarExtension, paymentRequiredResponse } from './challenge'
import type { Facilitator } from './facilitator'

export interface PaymentLayer extends PaymentGate {
  /** Whether the facilitator answered the last time it was asked. */
  available(): Promise<boolean>
}

const RETRY_INIT_MS = 3000
const MAX_TIMEOUT_SECONDS = 300
const SETTLED_MEMORY = 100_000
const SLOW_VERIFY_MS = 2000

export function createPaymentGate(deps: { config: Config; log: Logger; datasets: Dataset[]; routes: RouteDef[]; facilitator: Facilitator; metrics?: Metrics | null }): PaymentLayer {
  const { config, log, facilitator } = deps
  const network = config.network
  const usdc = NETWORKS[network]
  // The library asks the facilitator's /supported inside initialize() and prints its own English
  // line when that fails; asking first, here, lets the failure be logged in this log's format.
  let supported: Awaited<ReturnType<FacilitatorClient['getSupported']>> | null = null
  const client: FacilitatorClient = {
    verify: (p, r) => facilitator.client.verify(p, r),
    settle: (p, r) => facilitator.client.settle(p, r),
    getSupported: async () => supported ?? facilitator.client.getSupported(),
  }
  const server = new x402ResourceServer(client).register(network, new ExactEvmScheme())
  /**
   * Asking for payment needs no facilitator: the 402 challenge of the exact scheme is fixed by the
   * route's price, the asset and payTo. A second resource server over a static description of what
   * any x402 facilitator of this network supports builds it, so a 402 is answered even while the
   * real facilitator is unreachable; verifying and settling a payment do need it (503 until then).
   */
  const offline = new x402ResourceServer({
    verify: () => Promise.reject(new Error('sem facilitador')),
    settle: () => Promise.reject(new Error('sem facilitador')),
    getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: {} }),
  }).register(network, new ExactEvmScheme())
  const offlineRequirements = new Map<string, PaymentRequirements[]>()
  const requirements = new Map<string, PaymentRequirements[]>()
  const extensions = new Map(deps.routes.filter((r) => r.price !== null).map((r) => [r.path, bazaarExtension(r)]))
  const inFlight = new Set<string>()
  const settled = new Set<string>()
  let ready = false
  let lastAttempt = 0
  let initializing: Promise<boolean> | null = null

  const buildRequirements = async (target: x402ResourceServer, into: Map<string, PaymentRequirements[]>) => {
    for (const route of deps.routes) {
      if (route.price === null) continue
      into.set(route.path, await target.buildPaymentRequirements({
        scheme: 'exact',
        network,
        payTo: config.payTo!,
        // Explicit asset and EIP-712 domain: the price never depends on a library's defaults.
        price: { amount: priceAtomic(route.price), asset: usdc.usdc, extra: { ...usdc.eip712 } },
        maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      }))
    }
  }
  const offlineReady = (async () => {
    await offline.initialize()
    await buildRequirements(offline, offlineRequirements)
  })()

  /** Asks the facilitator what it supports and builds each paid route's requirements; retried lazily. */
  const ensureReady = async (): Promise<boolean> => {
    if (ready) return true
    if (initializing) return initializing
    if (Date.now() - lastAttempt < RETRY_INIT_MS) return false
    lastAttempt = Date.now()
    initializing = (async () => {
      try {
        supported = await facilitator.client.getSupported()
        await server.initialize()
        await buildRequirements(server, requirements)
        ready = true
        log.info('pagamentos prontos', { facilitador: facilitator.describe, rede: network })
        return true
      } catch (err) {
        supported = null
        log.warn('facilitador indisponível: rotas pagas respondem 402 a quem não pagou e 503 a quem paga, até ele voltar', { facilitador: facilitator.describe, erro: err instanceof Error ? err.message : String(err) })
        return false
      } finally {
        initializing = null
      }
    })()
    return initializing
  }
  void ensureReady()

  const unavailable = () => errorResponse(new ApiError('pagamento_indisponivel', 'O facilitador de pagamentos não responde; nada foi cobrado. Tente de novo em instantes.', { 'retry-after': '5' }))

  let probed = { at: 0, ok: false }
  return {
    // Cached for a few seconds: health checks may poll often.
    available: async () => {
      if (Date.now() - probed.at > 5000) probed = { at: Date.now(), ok: (await ensureReady()) && (await facilitator.reachable()) }
      return probed.ok
    },

    async charge(route, request, baseUrl, serve) {
      const started = performance.now()
      const record = (resultado: PaymentResult, fields: Record<string, unknown> = {}) => {
        deps.metrics?.payment(route.path, resultado, route.price)
        log.info('pagamento', { rota: route.path, preco: route.price, resultado, ms: (performance.now() - started).toFixed(1), ...fields })
      }
      await offlineReady
      // The facilitator's own requirements once it answered; the offline ones (the same terms) before.
      let accepts = requirements.get(route.path) ?? offlineRequirements.get(route.path)!
      const url = new URL(request.url)
      const resource = { url: `${baseUrl}${url.pathname}${url.search}`, description: route.summary, mimeType: 'application/json' }
      const challenge = async (mensagem: string, error?: string, extraHeaders?: Record<string, string>) => {
        const paymentRequired = await (ready ? server : offline).createPaymentRequiredResponse(accepts, resource, error, extensions.get(route.path))
        return paymentRequiredResponse({ route, paymentRequired, mensagem, baseUrl, config, datasets: deps.datasets, extraHeaders })
      }

      const header = request.headers.get('payment-signature') ?? request.headers.get('x-payment')
      if (!header) return challenge(`Esta rota custa US$ ${route.price} por chamada, pagos em USDC com x402.`)
      let payload: PaymentPayload
      try {
        payload = decodePaymentSignatureHeader(header)
      } catch {
        record('recusado', { motivo: 'cabecalho_ilegivel' })
        return challenge('O cabeçalho de pagamento não é um PaymentPayload x402 v2 em base64.', 'invalid_payment_header')
      }
      if (payload.x402Version !== 2) return challenge('Só x402 versão 2 é aceito.', 'unsupported_x402_version')
      // A payment is presented: verifying and settling it need the facilitator.
      if (!(await ensureReady())) {
        record('facilitador_indisponivel')
        return unavailable()
      }
      accepts = requirements.get(route.path)!
      const matched = server.findMatchingRequirements(accepts, payload)
      if (!matched) {
        record('recusado', { motivo: 'sem_correspondencia' })
        return challenge('O pagamento não corresponde às opções desta rota (esquema, rede, ativo, valor ou recebedor).', 'no_matching_requirements')
      }
      const auth = (payload.payload as { authorization?: { from?: string; nonce?: string } }).authorization
      const payer = auth?.from?.toLowerCase()
      const key = `${payer}:${auth?.nonce}`
      if (inFlight.has(key) || settled.has(key)) {
        record('recusado', { pagador: payer, motivo: 'autorizacao_reutilizada' })
        return challenge('Esta autorização de pagamento já foi usada; assine uma nova.', 'payment_already_used')
      }
      inFlight.add(key)
      try {
        let verified
        try {
          const verifying = server.verifyPayment(payload, matched)
          verifying.catch(() => {}) // may be abandoned below
          // A dead RPC makes verification hang on timeouts; if it is slow, ask the facilitator directly.
          let timer: ReturnType<typeof setTimeout> | undefined
          const slow = await Promise.race([
            verifying.then(() => false),
            new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), SLOW_VERIFY_MS))),
          ]).finally(() => clearTimeout(timer))
          if (slow && !(await facilitator.reachable())) {
            record('facilitador_indisponivel', { pagador: payer })
            return unavailable()
          }
          verified = await verifying
        } catch (err) {
          record('facilitador_indisponivel', { pagador: payer, erro: err instanceof Error ? err.message : String(err) })
          return unavailable()
        }
        if (!verified.isValid) {
          // Self-facilitation reports an RPC outage as an invalid signature: ask the chain before blaming the payer.
          if (!(await facilitator.reachable())) {
            record('facilitador_indisponivel', { pagador: payer })
            return unavailable()
          }
          record('recusado', { pagador: payer, motivo: verified.invalidReason })
          return challenge(`Pagamento recusado: ${verified.invalidReason ?? 'inválido'}.`, verified.invalidReason)
        }

        const response = await serve()
        if (response.status < 200 || response.status >= 300) {
          record('nao_cobrado', { pagador: payer, status: response.status })
          return response
        }
        // The paid body is held back until the settlement succeeded.
        const body = await response.arrayBuffer()
        let result
        try {
          result = await server.settlePayment(payload, matched)
        } catch (err) {
          // Indeterminate (timeout or facilitator fault): do not serve, and do not ask to pay again blindly.
          record('liquidacao_indeterminada', { pagador: payer, erro: err instanceof Error ? err.message : String(err) })
          return unavailable()
        }
        if (!result.success) {
          record('falha_liquidacao', { pagador: payer, motivo: result.errorReason })
          return challenge(`A liquidação do pagamento falhou: ${result.errorReason ?? 'erro'}.`, result.errorReason, { 'payment-response': encodePaymentResponseHeader(result) })
        }
        settled.add(key)
        if (settled.size > SETTLED_MEMORY) settled.delete(settled.values().next().value!)
        record('liquidado', { pagador: payer, transacao: result.transaction })
        response.headers.set('payment-response', encodePaymentResponseHeader(result))
        return new Response(body, { status: response.status, headers: response.headers })
      } finally {
        inFlight.delete(key)
      }
    },
  }
}
