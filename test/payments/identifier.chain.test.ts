// Safe retries with the x402 payment-identifier extension, on a real local chain: the same payment
// sent again with the same id gets the same answer and is charged once (also across serving
// processes); the same id with another payment, or for another call, is refused (409); an
// uncharged answer (4xx) leaves the id free.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { buildFixtureData } from '../cnpj/helpers'
import { startServe, until } from '../serve-process'
import { HOOK_TIMEOUT_MS, startFacilitatorServer, type Chain } from './chain'
import { startPaidServer, type PaidServer } from './paid-server'
import { header, signPayment } from './sign'

let chain: Chain
let paid: PaidServer
let baseUrl: string
let dataDir: string
const logs: string[] = []
const SITUACAO = '/v1/cnpj/situacao/33683111000280'
const EMPRESA = '/v1/cnpj/empresa/33683111000280'

beforeAll(async () => {
  dataDir = await buildFixtureData()
  ;({ chain, baseUrl } = paid = await startPaidServer(dataDir, { logs, checkResponses: true }))
}, HOOK_TIMEOUT_MS)

afterAll(() => paid?.stop(), HOOK_TIMEOUT_MS)

let ids = 0
const newId = () => `pay_teste_${Date.now()}_${++ids}_${crypto.randomUUID().replace(/-/g, '')}`
async function requirementsAt(url: string): Promise<PaymentRequirements> {
  return decodePaymentRequiredHeader((await fetch(url)).headers.get('payment-required')!).accepts[0]!
}
/** A signed payment carrying a payment identifier, as a client echoes the server's extension with its id. */
async function paymentWithId(url: string, id: string): Promise<string> {
  const payload: PaymentPayload = await signPayment(chain.payer, await requirementsAt(url))
  payload.extensions = { 'payment-identifier': { info: { required: false, id } } }
  return header(payload)
}
const payTo = () => chain.balance(chain.payTo)

describe('payment-identifier', () => {
  test('a retry with the same payment and id: the same answer, charged once', async () => {
    const id = newId()
    const signed = await paymentWithId(baseUrl + SITUACAO, id)
    const before = await payTo()
    const first = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': signed } })
    expect(first.status).toBe(200)
    const firstBody = await first.text()
    const settlement = decodePaymentResponseHeader(first.headers.get('payment-response')!)
    expect(settlement.success).toBe(true)
    // The answer was "lost": the client sends the very same payment again.
    for (let i = 0; i < 2; i++) {
      const again = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': signed } })
      expect(again.status).toBe(200)
      expect(await again.text()).toBe(firstBody)
      expect(decodePaymentResponseHeader(again.headers.get('payment-response')!)).toEqual(settlement)
    }
    expect((await payTo()) - before).toBe(1000n)
    expect(logs.some((l) => l.includes('resultado=repetido'))).toBe(true)
  })

  test('the same id with another payment: 409 and no charge; the first answer is still there for its own payment', async () => {
    const id = newId()
    const signed = await paymentWithId(baseUrl + SITUACAO, id)
    expect((await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': signed } })).status).toBe(200)
    const before = await payTo()
    const other = await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': await paymentWithId(baseUrl + SITUACAO, id) } })
    expect(other.status).toBe(409)
    expect(((await other.json()) as any).erro.codigo).toBe('pagamento_conflitante')
    expect(other.headers.get('payment-response')).toBeNull()
    // Another call (same price) with the same payment and id: a conflict too.
    const elsewhere = await fetch(`${baseUrl}/v1/cnpj/situacao/33683111000199`, { headers: { 'payment-signature': signed } })
    expect(elsewhere.status).toBe(409)
    expect(await payTo()).toBe(before)
    expect((await fetch(baseUrl + SITUACAO, { headers: { 'payment-signature': signed } })).status).toBe(200)
    expect(await payTo()).toBe(before)
  })

  test('an uncharged answer (404) leaves the id free: the retry runs again and is not charged either', async () => {
    const id = newId()
    const missing = '/v1/cnpj/empresa/33683111000107'
    const signed = await paymentWithId(baseUrl + missing, id)
    const before = await payTo()
    for (let i = 0; i < 2; i++) expect((await fetch(baseUrl + missing, { headers: { 'payment-signature': signed } })).status).toBe(404)
    expect(await payTo()).toBe(before)
  })

  test('the same payment and id sent five times at once: one charge, five equal answers', async () => {
    const signed = await paymentWithId(baseUrl + EMPRESA, newId())
    const before = await payTo()
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => fetch(baseUrl + EMPRESA, { headers: { 'payment-signature': signed } }).then(async (r) => [r.status, await r.text()] as const)))
    expect(answers.map(([s]) => s)).toEqual([200, 200, 200, 200, 200])
    expect(new Set(answers.map(([, t]) => t)).size).toBe(1)
    expect((await payTo()) - before).toBe(5000n)
  })

  test('across two serving processes (--processos 2): one charge, the same answer from either', async () => {
    // Several processes settle through a remote facilitator (self-settlement is one process).
    const facilitator = startFacilitatorServer(chain)
    const served = startServe(['--port', '0', '--processos', '2', '--data', dataDir, '--pay-to', chain.payTo, '--facilitator-url', facilitator.url])
    try {
      const { port } = await served.announced
      await until(() => (served.log.text.includes(`ouvindo na porta ${port} processo=1`) ? true : undefined), 'o segundo processo na porta', 30_000)
      const url = `http://127.0.0.1:${port}${SITUACAO}`
      const signed = await paymentWithId(url, newId())
      const before = await payTo()
      const answers: [number, string][] = []
      // Fresh connections: the kernel spreads them over both processes' sockets (all 12 on one: p = 0.05 %).
      // With ids kept per process, the other process would verify the spent payment again: a 402.
      for (let round = 0; round < 3; round++)
        answers.push(...(await Promise.all([0, 1, 2, 3].map(() => fetch(url, { headers: { 'payment-signature': signed, connection: 'close' } }).then(async (r) => [r.status, await r.text()] as [number, string])))))
      expect(answers.every(([s]) => s === 200)).toBe(true)
      expect(new Set(answers.map(([, t]) => t)).size).toBe(1)
      expect((await payTo()) - before).toBe(1000n)
    } finally {
      served.proc.kill('SIGTERM')
      await served.proc.exited
      facilitator.stop()
    }
  }, 60_000)
})
