// The remote-facilitator path: the real HTTPFacilitatorClient against a facilitator served over
// HTTP on 127.0.0.1 (the reference x402Facilitator settling on the local chain), auth headers
// included; and a facilitator that is down at start.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { createApp, type App } from '../../src/app'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { buildFixtureData } from '../cnpj/helpers'
import { HOOK_TIMEOUT_MS, startChain, startFacilitatorServer, type Chain } from './chain'
import { header, signPayment } from './sign'

let chain: Chain
let facilitatorServer: ReturnType<typeof startFacilitatorServer>
const apps: App[] = []

beforeAll(async () => {
  chain = await startChain()
  facilitatorServer = startFacilitatorServer(chain)
}, HOOK_TIMEOUT_MS)

afterAll(async () => {
  for (const app of apps) await app.close()
  facilitatorServer?.stop()
  await chain?.stop()
}, HOOK_TIMEOUT_MS)

async function serve(facilitatorUrl: string) {
  const config = loadConfig({ dataDir: await buildFixtureData(), payTo: chain.payTo, facilitatorUrl, facilitatorHeaders: '{"Authorization":"Bearer segredo"}', logLevel: 'silent' }, {})
  const app = await createApp(config, { log: createLogger('silent') })
  apps.push(app)
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.handle, idleTimeout: 60 })
  return { app, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

test('pays through a remote facilitator, sending its auth headers', async () => {
  const s = await serve(`http://127.0.0.1:${facilitatorServer.port}`)
  try {
    const challenge = await fetch(`${s.url}/v1/cnpj/empresa/33683111000280`)
    expect(challenge.status).toBe(402)
    const req = decodePaymentRequiredHeader(challenge.headers.get('payment-required')!).accepts[0]!
    const before = await chain.balance(chain.payTo)
    const r = await fetch(`${s.url}/v1/cnpj/empresa/33683111000280`, { headers: { 'payment-signature': header(await signPayment(chain.payer, req)) } })
    expect(r.status).toBe(200)
    expect((await chain.balance(chain.payTo)) - before).toBe(5000n)
    expect(facilitatorServer.seenAuth.filter((a) => a === 'Bearer segredo').length).toBeGreaterThanOrEqual(3) // supported, verify, settle
  } finally {
    s.stop()
  }
})

test('facilitator down at start: free routes work, a request without payment still gets the 402 challenge, a payment gets 503; logs in our format', async () => {
  const logs: string[] = []
  const config = loadConfig({ dataDir: await buildFixtureData(), payTo: chain.payTo, facilitatorUrl: 'http://127.0.0.1:9', logLevel: 'info' }, {})
  // The x402 library prints its own English line when /supported fails; none may reach the console.
  const consoleLines: unknown[] = []
  const { warn, error } = console
  console.warn = (...a: unknown[]) => consoleLines.push(a)
  console.error = (...a: unknown[]) => consoleLines.push(a)
  try {
    const app = await createApp(config, { log: createLogger('info', (l) => logs.push(l)) })
    apps.push(app)
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.handle, idleTimeout: 60 })
    const url = `http://127.0.0.1:${server.port}` // nothing listens on the discard port 9
    try {
      expect((await fetch(`${url}/v1/ferramentas/cnpj/33683111000280`)).status).toBe(200)
      expect((await fetch(`${url}/v1/cnpj/amostra`)).status).toBe(200)
      const challenge = await fetch(`${url}/v1/cnpj/situacao/33683111000280`)
      expect(challenge.status).toBe(402)
      const req = decodePaymentRequiredHeader(challenge.headers.get('payment-required')!).accepts[0]!
      expect([req.scheme, req.network, req.amount, req.payTo]).toEqual(['exact', 'eip155:8453', '1000', chain.payTo])
      expect(((await challenge.json()) as any).erro.codigo).toBe('pagamento_exigido')
      const paid = await fetch(`${url}/v1/cnpj/situacao/33683111000280`, { headers: { 'payment-signature': header(await signPayment(chain.payer, req)) } })
      expect(paid.status).toBe(503)
      expect(((await paid.json()) as any).erro.codigo).toBe('pagamento_indisponivel')
      const health = (await (await fetch(`${url}/v1/health`)).json()) as any
      expect([health.status, health.pagamentos]).toEqual(['degradado', 'indisponiveis'])
    } finally {
      server.stop(true)
    }
  } finally {
    console.warn = warn
    console.error = error
  }
  expect(consoleLines).toEqual([])
  const line = logs.find((l) => l.includes('facilitador indisponível'))!
  expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z WARN facilitador indisponível: rotas pagas respondem 402 a quem não pagou e 503 a quem paga, até ele voltar facilitador="remoto http:\/\/127.0.0.1:9" erro=/)
})
