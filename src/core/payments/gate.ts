// Charges paid routes with x402 v2, for every transport (HTTP headers here, MCP `_meta` in
// src/mcp/http.ts): without payment the terms (402, no facilitator needed); with one, verify, run
// the handler, and settle only a 2xx answer, whose body leaves only after the settlement succeeded.
// A payment (payer + nonce) is served at most once; with a payment identifier, its retry gets the
// same answer without a second charge.
import { createHash } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements, ResourceInfo, SettleResponse } from '@x402/core/types'
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server'
import { isPaymentPayload } from '@x402/core/schemas'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { bazaarResourceServerExtension } from '@x402/extensions/bazaar'
import { extractAndValidatePaymentIdentifier, paymentIdentifierResourceServerExtension } from '@x402/extensions/payment-identifier'
import { NETWORKS, type Config } from '../config'
import type { Dataset } from '../dataset'
import { ApiError, errorResponse } from '../errors'
import type { Logger } from '../log'
import type { Metrics, PaymentResult } from '../metrics'
import { priceAtomic, type RouteDef } from '../route'
import type { PaymentGate } from '../server'
import { parseParams } from '../validate'
import { SERVICE_NAME, tagsOf } from './bazaar'
import { createChallenges, paymentRequiredResponse, type Challenges } from './challenge'
import type { Facilitator } from './facilitator'
import { openIdentifierStore, type IdentifierStore } from './identifier'

/** What one call costs and where: the same terms for the 402 and for the paid retry. */
export interface PaymentTerms {
  route: RouteDef
  /** Billable units (1, or the items of a bulk request). */
  units: number
  /** Price of the call in USD (route price x units). */
  priceUsd: number
  /** The x402 payment options of this call (amount = unit amount x units). */
  accepts: PaymentRequirements[]
  resource: ResourceInfo
}

/** What the payment processing decided, for the transport to answer. */
export type PaymentOutcome =
  /** Ask for payment (again): the transport builds its PaymentRequired. */
  | { kind: 'challenge'; mensagem: string; error?: string; settlement?: SettleResponse }
  /** Refused without a charge: 400 (malformed identifier), 409 (identifier conflict), 503 (facilitator). */
  | { kind: 'refused'; error: ApiError }
  /** The handler's answer; with a settlement when it was charged (or repeated from a charged one). */
  | { kind: 'served'; response: Response; settlement?: SettleResponse; repeated?: boolean }

export interface PaymentLayer extends PaymentGate {
  /** Whether the facilitator answered the last time it was asked. */
  available(): Promise<boolean>
  /** The terms of a call of a paid route (throws the route's 4xx when a per-item request has no item). */
  terms(route: RouteDef, resourceUrl: string, input: { params: Record<string, string>; query: URLSearchParams }): Promise<PaymentTerms>
  /** Verifies, serves and settles one call (payload null: none presented; 'ilegivel': unreadable). */
  process(terms: PaymentTerms, payload: PaymentPayload | null | 'ilegivel', serve: () => Promise<Response>): Promise<PaymentOutcome>
  /** The resource server that builds PaymentRequired objects (terms and extensions from the x402 library). */
  resourceServer(): x402ResourceServer
  challenges: Challenges
  close(): void
}

const RETRY_INIT_MS = 3000
const MAX_TIMEOUT_SECONDS = 300
const SETTLED_MEMORY = 100_000
const SLOW_VERIFY_MS = 2000
/** How long a retry waits for the first request with its payment identifier to finish. */
const PENDING_WAIT_MS = 15_000

/** The path of a call with its parameters as the route reads them (a punctuated CNPJ as 14 characters), for the resource URL. */
export function canonicalPath(route: RouteDef, rawParams: Record<string, string>): string {
  let values: Record<string, unknown> = rawParams
  try {
    values = parseParams(route, rawParams) as Record<string, unknown>
  } catch {}
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name] ?? rawParams[name] ?? '')))
}

/** The same payment for the same call: what a retry with one payment identifier must repeat. */
function fingerprint(terms: PaymentTerms, payload: PaymentPayload): string {
  return createHash('sha256').update(JSON.stringify([terms.resource.url, payload.accepted, payload.payload])).digest('hex')
}

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
  const withExtensions = (s: x402ResourceServer) => s.registerExtension(bazaarResourceServerExtension).registerExtension(paymentIdentifierResourceServerExtension)
  const server = withExtensions(new x402ResourceServer(client).register(network, new ExactEvmScheme()))
  /**
   * Asking for payment needs no facilitator: the 402 challenge of the exact scheme is fixed by the
   * route's price, the asset and payTo. A second resource server over a static description of what
   * any x402 facilitator of this network supports builds it, so a 402 is answered even while the
   * real facilitator is unreachable; verifying and settling a payment do need it (503 until then).
   */
  const offline = withExtensions(new x402ResourceServer({
    verify: () => Promise.reject(new Error('sem facilitador')),
    settle: () => Promise.reject(new Error('sem facilitador')),
    getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: {} }),
  }).register(network, new ExactEvmScheme()))
  const offlineRequirements = new Map<string, PaymentRequirements[]>()
  const requirements = new Map<string, PaymentRequirements[]>()
  const challenges = createChallenges(log)
  const identifiers: IdentifierStore = openIdentifierStore(config.dataDir, (m, f) => log.warn(m, f))
  const inFlight = new Set<string>()
  const settled = new Set<string>()
  let ready = false
  let lastAttempt = 0
  let initializing: Promise<boolean> | null = null
  const datasetOf = new Map(deps.datasets.map((d) => [d.name, d]))

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
        log.info('pagamentos prontos', { facilitador: facilitator.describe, rede: network, identificadores: identifiers.where })
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

  const unavailable = () => new ApiError('pagamento_indisponivel', 'O facilitador de pagamentos não responde; nada foi cobrado. Tente de novo em instantes.', { 'retry-after': '5' })

  /** The route's options with this call's amount (unit amount x units). */
  const acceptsFor = (route: RouteDef, units: number): PaymentRequirements[] => {
    const base = requirements.get(route.path) ?? offlineRequirements.get(route.path)!
    if (units === 1) return base
    return base.map((r) => ({ ...r, amount: String(BigInt(r.amount) * BigInt(units)) }))
  }

  const terms: PaymentLayer['terms'] = async (route, resourceUrl, input) => {
    await offlineReady
    const units = route.units ? route.units(input) : 1
    const dataset = datasetOf.get(route.dataset)
    return {
      route,
      units,
      priceUsd: Number((route.price! * units).toFixed(6)),
      accepts: acceptsFor(route, units),
      resource: { url: resourceUrl, description: route.summary, mimeType: 'application/json', serviceName: SERVICE_NAME, tags: tagsOf(dataset?.tags) },
    }
  }

  /** Waits for the first request of a payment identifier to finish; then its answer, or a conflict. */
  const waitForIdentifier = async (id: string, print: string) => {
    const deadline = Date.now() + PENDING_WAIT_MS
    for (;;) {
      const claim = identifiers.claim(id, print)
      if (claim.kind !== 'pending' || Date.now() > deadline) return claim
      await Bun.sleep(50)
    }
  }

  const processPayment: PaymentLayer['process'] = async (t, payload, serve) => {
    const started = performance.now()
    const { route } = t
    const record = (resultado: PaymentResult, fields: Record<string, unknown> = {}) => {
      deps.metrics?.payment(route.path, resultado, t.priceUsd)
      log.info('pagamento', { rota: route.path, preco: t.priceUsd, resultado, ms: (performance.now() - started).toFixed(1), ...fields })
    }
    if (payload === null)
      return { kind: 'challenge', mensagem: t.units === 1 ? `Esta rota custa US$ ${route.price} por chamada, pagos em USDC com x402.` : `Esta chamada custa US$ ${t.priceUsd} (${t.units} itens a US$ ${route.price}), pagos em USDC com x402.` }
    if (payload === 'ilegivel' || !isPaymentPayload(payload)) {
      record('recusado', { motivo: 'cabecalho_ilegivel' })
      return { kind: 'challenge', mensagem: 'O pagamento não é um PaymentPayload x402 v2 em base64 (JSON com x402Version, accepted e payload).', error: 'invalid_payment_header' }
    }
    if (payload.x402Version !== 2) return { kind: 'challenge', mensagem: 'Só x402 versão 2 é aceito.', error: 'unsupported_x402_version' }
    const identified = extractAndValidatePaymentIdentifier(payload)
    if (!identified.validation.valid) {
      record('recusado', { motivo: 'identificador_invalido' })
      return { kind: 'refused', error: new ApiError('pagamento_invalido', `O identificador de pagamento (extensão payment-identifier) não segue a regra: de 16 a 128 caracteres, só letras, números, '-' e '_'. Nada foi cobrado.`) }
    }
    // A payment is presented: verifying and settling it need the facilitator.
    if (!(await ensureReady())) {
      record('facilitador_indisponivel')
      return { kind: 'refused', error: unavailable() }
    }
    const accepts = acceptsFor(route, t.units)
    const matched = server.findMatchingRequirements(accepts, payload)
    if (!matched) {
      record('recusado', { motivo: 'sem_correspondencia' })
      return { kind: 'challenge', mensagem: 'O pagamento não corresponde às opções desta chamada (esquema, rede, ativo, valor ou recebedor).', error: 'no_matching_requirements' }
    }
    const auth = (payload.payload as { authorization?: { from?: string; nonce?: string } }).authorization
    const payer = auth?.from?.toLowerCase()

    const id = identified.id
    const print = id ? fingerprint(t, payload) : ''
    if (id) {
      let claim = identifiers.claim(id, print)
      if (claim.kind === 'pending') claim = await waitForIdentifier(id, print)
      if (claim.kind === 'conflict') {
        record('recusado', { pagador: payer, motivo: 'identificador_em_uso' })
        return { kind: 'refused', error: new ApiError('pagamento_conflitante', 'Este identificador de pagamento já foi usado com outro pagamento ou outra chamada; gere um identificador novo para um pagamento novo. Nada foi cobrado.') }
      }
      if (claim.kind === 'pending') {
        record('recusado', { pagador: payer, motivo: 'identificador_em_andamento' })
        return { kind: 'refused', error: new ApiError('pagamento_conflitante', 'O pedido com este identificador de pagamento ainda está em andamento; repita em alguns segundos para receber a mesma resposta.', { 'retry-after': '2' }) }
      }
      if (claim.kind === 'repeat') {
        record('repetido', { pagador: payer })
        const { status, headers, body } = claim.answer
        return { kind: 'served', response: new Response(body as Uint8Array<ArrayBuffer>, { status, headers }), repeated: true }
      }
    }
    let keepIdentifier = false
    const key = `${payer}:${auth?.nonce}`
    if (inFlight.has(key) || settled.has(key)) {
      if (id) identifiers.release(id)
      record('recusado', { pagador: payer, motivo: 'autorizacao_reutilizada' })
      return { kind: 'challenge', mensagem: 'Esta autorização de pagamento já foi usada; assine uma nova.', error: 'payment_already_used' }
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
          return { kind: 'refused', error: unavailable() }
        }
        verified = await verifying
      } catch (err) {
        record('facilitador_indisponivel', { pagador: payer, erro: err instanceof Error ? err.message : String(err) })
        return { kind: 'refused', error: unavailable() }
      }
      if (!verified.isValid) {
        // Self-facilitation reports an RPC outage as an invalid signature: ask the chain before blaming the payer.
        if (!(await facilitator.reachable())) {
          record('facilitador_indisponivel', { pagador: payer })
          return { kind: 'refused', error: unavailable() }
        }
        record('recusado', { pagador: payer, motivo: verified.invalidReason })
        return { kind: 'challenge', mensagem: `Pagamento recusado: ${verified.invalidReason ?? 'inválido'}.`, error: verified.invalidReason }
      }

      const response = await serve()
      if (response.status < 200 || response.status >= 300) {
        record('nao_cobrado', { pagador: payer, status: response.status })
        return { kind: 'served', response }
      }
      // The paid body is held back until the settlement succeeded.
      const body = new Uint8Array(await response.arrayBuffer())
      let result: SettleResponse
      try {
        result = await server.settlePayment(payload, matched)
      } catch (err) {
        // Indeterminate (timeout or facilitator fault): do not serve, and do not ask to pay again blindly.
        record('liquidacao_indeterminada', { pagador: payer, erro: err instanceof Error ? err.message : String(err) })
        return { kind: 'refused', error: unavailable() }
      }
      if (!result.success) {
        record('falha_liquidacao', { pagador: payer, motivo: result.errorReason })
        return { kind: 'challenge', mensagem: `A liquidação do pagamento falhou: ${result.errorReason ?? 'erro'}.`, error: result.errorReason, settlement: result }
      }
      settled.add(key)
      if (settled.size > SETTLED_MEMORY) settled.delete(settled.values().next().value!)
      record('liquidado', { pagador: payer, transacao: result.transaction })
      const headers = Object.fromEntries(response.headers)
      headers['payment-response'] = encodePaymentResponseHeader(result)
      if (id) {
        identifiers.complete(id, { status: response.status, headers, body })
        keepIdentifier = true
      }
      return { kind: 'served', response: new Response(body, { status: response.status, headers }), settlement: result }
    } finally {
      inFlight.delete(key)
      // Nothing was charged: a retry with the same identifier runs again.
      if (id && !keepIdentifier) identifiers.release(id)
    }
  }

  let probed = { at: 0, ok: false }
  return {
    challenges,
    terms,
    process: processPayment,
    resourceServer: () => (ready ? server : offline),
    close: () => identifiers.close(),
    // Cached for a few seconds: health checks may poll often.
    available: async () => {
      if (Date.now() - probed.at > 5000) probed = { at: Date.now(), ok: (await ensureReady()) && (await facilitator.reachable()) }
      return probed.ok
    },

    /** The HTTP binding: PAYMENT-SIGNATURE (or X-PAYMENT) in, PAYMENT-REQUIRED / PAYMENT-RESPONSE out. */
    async charge(route, request, baseUrl, serve, rawParams) {
      const url = new URL(request.url)
      const path = canonicalPath(route, rawParams)
      let t: PaymentTerms
      try {
        t = await terms(route, `${baseUrl}${path}${url.search}`, { params: rawParams, query: url.searchParams })
      } catch (err) {
        if (err instanceof ApiError) return errorResponse(err)
        throw err
      }
      const header = request.headers.get('payment-signature') ?? request.headers.get('x-payment')
      let payload: PaymentPayload | null | 'ilegivel' = null
      if (header) {
        try {
          payload = decodePaymentSignatureHeader(header) ?? 'ilegivel'
        } catch {
          payload = 'ilegivel'
        }
      }
      const outcome = await processPayment(t, payload, serve)
      if (outcome.kind === 'refused') return errorResponse(outcome.error)
      if (outcome.kind === 'served') return outcome.response
      const challenge = await challenges.build((ready ? server : offline), route, t.accepts, t.resource, path, outcome.error)
      return paymentRequiredResponse({
        route, challenge, priceUsd: t.priceUsd, mensagem: outcome.mensagem, baseUrl, config, datasets: deps.datasets,
        extraHeaders: outcome.settlement ? { 'payment-response': encodePaymentResponseHeader(outcome.settlement) } : undefined,
      })
    },
  }
}
