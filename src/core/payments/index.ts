import type { Config } from '../config'
import type { Dataset } from '../dataset'
import type { Logger } from '../log'
import type { Metrics } from '../metrics'
import type { RouteDef } from '../route'
import { createFacilitator } from './facilitator'
import { createPaymentGate, type PaymentLayer } from './gate'

export type { PaymentLayer }

/** The payment layer from settings (null in --free mode). */
export function createPayments(config: Config, log: Logger, datasets: Dataset[], routes: RouteDef[], metrics: Metrics | null = null): PaymentLayer | null {
  if (config.free) return null
  return createPaymentGate({ config, log, datasets, routes, facilitator: createFacilitator(config), metrics })
}
