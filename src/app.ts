// Composes the server from the core spine and the dataset registry.
import type { Config } from './core/config'
import type { AppContext } from './core/context'
import type { DatasetStore } from './core/dataset'
import { discoveryRoutes } from './core/discovery'
import { FeedRunner } from './core/feeds/feed'
import { healthRoute } from './core/health'
import { createLogger, type Logger } from './core/log'
import { metricLabels, processMetrics } from './core/metrics'
import type { RouteDef } from './core/route'
import { createPayments, type PaymentLayer } from './core/payments'
import { baseUrlOf, createServer, type Server } from './core/server'
import { MCP_PATH, mcpHttpHandler } from './mcp/http'
import { DATASETS } from './datasets/registry'

/** The one route table: drives routing, payments, OpenAPI, MCP tools, llms.txt and /.well-known/x402. */
export const ROUTES: RouteDef[] = [healthRoute, ...DATASETS.flatMap((d) => d.routes)]

export interface App extends Server {
  ctx: AppContext
  close(): Promise<void>
}

export interface AppOptions {
  log?: Logger
  checkResponses?: boolean
  /** Defaults to the layer the settings describe (none with --gratis). */
  payments?: PaymentLayer | null
  /** Refresh the polled sources in the background (serve's first process; off in tests, which refresh explicitly). */
  backgroundFeeds?: boolean
}

/**
 * Opens every dataset's files (a missing one leaves the service degraded, not down); `failures`
 * gets why each one that did not open failed, for /v1/health.
 */
export async function openStores(config: Config, log: Logger, failures = new Map<string, string>()): Promise<Map<string, DatasetStore | null>> {
  const stores = new Map<string, DatasetStore | null>()
  for (const ds of DATASETS) {
    if (!ds.open) continue
    try {
      stores.set(ds.name, await ds.open(config, log))
    } catch (err) {
      const motivo = err instanceof Error ? err.message : String(err)
      log.warn('base indisponível', { base: ds.name, motivo })
      stores.set(ds.name, null)
      failures.set(ds.name, motivo)
    }
  }
  return stores
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel, undefined, undefined, config.logFormat)
  const statics = discoveryRoutes(ROUTES, DATASETS, config)
  const metrics = config.metrics ? processMetrics(metricLabels(ROUTES, [...statics, { path: MCP_PATH }])) : null
  const payments = options.payments !== undefined ? options.payments : createPayments(config, log, DATASETS, ROUTES, metrics)
  const openFailures = new Map<string, string>()
  const ctx: AppContext = {
    config,
    log,
    datasets: DATASETS,
    stores: await openStores(config, log, openFailures),
    openFailures,
    checkResponses: options.checkResponses ?? false,
    payments,
    feeds: new FeedRunner(DATASETS.flatMap((d) => d.feeds ?? []), { dataDir: config.dataDir, log, offline: config.semFontes }),
  }
  if (options.backgroundFeeds) ctx.feeds.startBackground()
  // MCP runs routes through the server it is mounted on: bound once the server exists.
  let server: Server | null = null
  const mcp = mcpHttpHandler({ routes: ROUTES, payments, log, baseUrlOf: (request) => baseUrlOf(ctx, request), run: (...args) => server!.run(...args) })
  server = createServer(ctx, ROUTES, statics, payments, metrics, [mcp])
  return {
    ...server,
    ctx,
    close: async () => {
      metrics?.close()
      await mcp.close()
      payments?.close()
      ctx.feeds.stop()
      for (const store of ctx.stores.values()) await store?.close()
    },
  }
}
