// The spending limits of one `dadosbr mcp` session, in USDC base units (6 decimals) so sums are
// exact: a payment above the per-call limit, or one that would take the session past its limit
// (counting the payments still in flight), is refused before anything is signed.
import { NETWORKS } from '../core/config'

export const USDC_DECIMALS = 6

/** "0.01" -> 10000n; a number of USD with at most 6 decimals, >= 0. */
export function usdToAtomic(text: string): bigint {
  const m = /^(\d+)(?:[.,](\d{1,6}))?$/.exec(text.trim())
  if (!m) throw new Error(`valor em dólares inválido: '${text}' (use, por exemplo, 0.05)`)
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(USDC_DECIMALS, '0'))
}

/** 10000n -> "0.01". */
export function atomicToUsd(atomic: bigint): string {
  const whole = atomic / 1_000_000n
  const frac = (atomic % 1_000_000n).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : String(whole)
}

export interface Reservation {
  amount: bigint
  /** The payment settled: it counts for good. */
  commit(): void
  /** Nothing was charged (refused, not settled, a 4xx): the amount is free again. */
  release(): void
}

export class Spending {
  private spent = 0n
  private reserved = 0n

  constructor(
    readonly perCall: bigint,
    readonly perSession: bigint,
  ) {}

  get spentAtomic(): bigint {
    return this.spent
  }

  /**
   * Reserves a payment the server asked for, or says in Portuguese why it is refused. Only USDC of a
   * known network is paid: the limits are in dollars, and another asset's units are not.
   */
  reserve(amountText: string, network: string, asset: string): Reservation | string {
    const known = NETWORKS[network as keyof typeof NETWORKS]
    if (!known) return `rede ${network} desconhecida; só pago em Base (eip155:8453) ou Base Sepolia (eip155:84532)`
    if (asset.toLowerCase() !== known.usdc.toLowerCase()) return `o servidor pediu o ativo ${asset}, que não é o USDC de ${known.name}; nada foi pago`
    if (!/^\d+$/.test(amountText)) return `valor pedido ilegível: ${amountText}`
    const amount = BigInt(amountText)
    if (amount > this.perCall)
      return `a chamada custa US$ ${atomicToUsd(amount)}, acima do limite por chamada de US$ ${atomicToUsd(this.perCall)} (--limite-chamada / DADOSBR_MCP_LIMITE_CHAMADA); nada foi pago`
    if (this.spent + this.reserved + amount > this.perSession)
      return `a chamada custa US$ ${atomicToUsd(amount)} e a sessão já gastou US$ ${atomicToUsd(this.spent)}${this.reserved ? ` (mais US$ ${atomicToUsd(this.reserved)} em andamento)` : ''}, de um limite de US$ ${atomicToUsd(this.perSession)} por sessão (--limite-sessao / DADOSBR_MCP_LIMITE_SESSAO); nada foi pago`
    this.reserved += amount
    let open = true
    const close = (paid: boolean) => {
      if (!open) return
      open = false
      this.reserved -= amount
      if (paid) this.spent += amount
    }
    return { amount, commit: () => close(true), release: () => close(false) }
  }
}
