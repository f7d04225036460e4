// Pays dadosbr routes as a Node user does, with the x402 project's own clients: @x402/fetch over
// Node's built-in fetch (undici: 16 KiB of response headers at most) or @x402/axios over axios'
// Node HTTP adapter. Run by test/clients/node-clients.chain.test.ts:
//   node test/clients/pay.mjs <fetch|axios> <base URL> <path> [path...]   (payer key in X402_PAYER_KEY)
// Prints one JSON line per path: status, the settlement (PAYMENT-RESPONSE) and the answer's size.
import axios from 'axios'
import { wrapAxiosWithPaymentFromConfig } from '@x402/axios'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { toClientEvmSigner } from '@x402/evm'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'

const [client, baseUrl, ...paths] = process.argv.slice(2)
const account = privateKeyToAccount(process.env.X402_PAYER_KEY)
const scheme = new ExactEvmScheme(toClientEvmSigner(account))

async function viaFetch(url) {
  const pay = wrapFetchWithPayment(fetch, new x402Client().register('eip155:*', scheme))
  const r = await pay(url)
  const body = await r.text()
  const settlement = r.headers.get('payment-response')
  return { status: r.status, settlement: settlement ? decodePaymentResponseHeader(settlement) : null, bytes: body.length, codigo: r.status >= 400 ? safeCode(body) : undefined }
}

async function viaAxios(url) {
  // axios' defaults, as its users have them: a 402 rejects, and that rejection is what the payment interceptor handles.
  const api = wrapAxiosWithPaymentFromConfig(axios.create({ responseType: 'text', transformResponse: (x) => x }), { schemes: [{ network: 'eip155:8453', client: scheme }] })
  let r
  try {
    r = await api.get(url)
  } catch (err) {
    if (!err.response) throw err
    r = err.response
  }
  const settlement = r.headers['payment-response']
  return { status: r.status, settlement: settlement ? decodePaymentResponseHeader(settlement) : null, bytes: String(r.data).length, codigo: r.status >= 400 ? safeCode(String(r.data)) : undefined }
}

function safeCode(text) {
  try {
    return JSON.parse(text).erro?.codigo
  } catch {
    return undefined
  }
}

for (const path of paths) {
  let line
  try {
    line = { path, ...(await (client === 'axios' ? viaAxios : viaFetch)(baseUrl + path)) }
  } catch (err) {
    line = { path, erro: `${err?.name}: ${err?.message} ${err?.cause?.code ?? err?.code ?? ''}`.trim() }
  }
  process.stdout.write(JSON.stringify(line) + '\n')
}
