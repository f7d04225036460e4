// Calls a dadosbr server for one tool: a GET, and when the route asks for payment (402) and a
// payer key is set, the x402 payment made by the reference client (@x402/fetch) within the
// session's limits. What comes back is the server's own answer, or its error in its own words.
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import type { PrivateKeyAccount } from 'viem/accounts'
import { atomicToUsd, type Reservation, type Spending } from './spending'

export interface CallResult {
  status: number
  /** The answer's text (JSON from dadosbr). */
  body: string
  /** Set when a payment settled: what it cost and its transaction. */
  paid?: { usd: string; transacao: string | null; rede: string | null }
  /** Set when the payment was refused here, before signing (a limit, an unknown asset). */
  refused?: string
}

export interface CallerOptions {
  account: PrivateKeyAccount | null
  spending: Spending
  timeoutMs?: number
  fetch?: typeof fetch
}

export function createCaller(options: CallerOptions) {
  const baseFetch = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? 120_000

  return async function call(url: string): Promise<CallResult> {
    const signal = AbortSignal.timeout(timeoutMs)
    if (!options.account) {
      const r = await baseFetch(url, { signal })
      return { status: r.status, body: await r.text() }
    }
    // One client per call: the hook below holds this call's reservation.
    let reservation: Reservation | null = null
    let refused: string | undefined
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(options.account)))
    // The library's own cap ($1 per payment on known assets) gives way to the limits the user set.
    client.setSpendControls(false)
    client.onBeforePaymentCreation(async ({ selectedRequirements: req }) => {
      const got = options.spending.reserve(req.amount, req.network, req.asset)
      if (typeof got === 'string') {
        refused = got
        return { abort: true, reason: got }
      }
      reservation = got
    })
    const pay = wrapFetchWithPayment(baseFetch, client)
    let r: Response
    try {
      r = await pay(url, { signal })
    } catch (err) {
      ;(reservation as Reservation | null)?.release()
      if (refused) return { status: 402, body: '', refused }
      throw err
    }
    const body = await r.text()
    const held = reservation as Reservation | null
    if (!held) return { status: r.status, body }
    const header = r.headers.get('payment-response')
    const settlement = header ? safeDecode(header) : null
    if (r.status >= 200 && r.status < 300 && settlement?.success) {
      held.commit()
      return { status: r.status, body, paid: { usd: atomicToUsd(held.amount), transacao: settlement.transaction ?? null, rede: settlement.network ?? null } }
    }
    // A 5xx after a payment was sent may hide a settlement whose outcome the server could not learn
    // (a timeout on chain): it stays counted, so the limits err on the safe side.
    if (r.status >= 500) {
      held.commit()
      return { status: r.status, body }
    }
    // Not settled: a 4xx is never charged, and a refused or failed payment was not taken.
    held.release()
    return { status: r.status, body }
  }
}

function safeDecode(header: string) {
  try {
    return decodePaymentResponseHeader(header)
  } catch {
    return null
  }
}
