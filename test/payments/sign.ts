// Hand-made x402 v2 payments, for the cases the reference client refuses to produce
// (tampered, expired, wrong network, wrong recipient).
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PrivateKeyAccount } from 'viem/accounts'

export interface AuthorizationOverrides {
  to?: `0x${string}`
  value?: string
  validAfter?: number
  validBefore?: number
  chainId?: number
}

export async function signPayment(account: PrivateKeyAccount, accepted: PaymentRequirements, o: AuthorizationOverrides = {}): Promise<PaymentPayload> {
  const now = Math.floor(Date.now() / 1000)
  const authorization = {
    from: account.address,
    to: o.to ?? (accepted.payTo as `0x${string}`),
    value: o.value ?? accepted.amount,
    validAfter: String(o.validAfter ?? now - 600),
    validBefore: String(o.validBefore ?? now + 300),
    nonce: `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as `0x${string}`,
  }
  const signature = await account.signTypedData({
    domain: { name: String(accepted.extra?.name), version: String(accepted.extra?.version), chainId: o.chainId ?? 8453, verifyingContract: accepted.asset as `0x${string}` },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
  })
  return { x402Version: 2, accepted, payload: { signature, authorization } } as PaymentPayload
}

export const header = (payload: PaymentPayload) => encodePaymentSignatureHeader(payload)
