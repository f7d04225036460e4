// A dadosbr server charging on a real local chain (self-settlement with the facilitator key), on a
// real socket: what every end-to-end payment test starts.
import { createApp, type App } from '../../src/app'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { FACILITATOR_KEY, startChain, type Chain } from './chain'

export interface PaidServer {
  chain: Chain
  app: App
  baseUrl: string
  stop(): Promise<void>
}

/** Starts the chain and the server over `dataDir`; `logs` collects the server's log lines (info) when given. */
export async function startPaidServer(dataDir: string, o: { logs?: string[]; checkResponses?: boolean } = {}): Promise<PaidServer> {
  const chain = await startChain()
  const level = o.logs ? 'info' : 'silent'
  const config = loadConfig({ dataDir, payTo: chain.payTo, rpcUrl: chain.rpcUrl, logLevel: level }, { X402_FACILITATOR_PRIVATE_KEY: FACILITATOR_KEY })
  const app = await createApp(config, { log: createLogger(level, o.logs ? (l) => o.logs!.push(l) : undefined), checkResponses: o.checkResponses ?? false })
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.handle, idleTimeout: 120 })
  return {
    chain,
    app,
    baseUrl: `http://127.0.0.1:${server.port}`,
    async stop() {
      server.stop(true)
      await app.close()
      await chain.stop()
    },
  }
}
