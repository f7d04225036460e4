// An MCP host's view of dadosbr's /mcp, run by Node with the MCP SDK most hosts ship
// (@modelcontextprotocol/sdk 1.x, Streamable HTTP) and the x402 client of @x402/core: the x402
// MCP transport as its spec describes it (PaymentRequired in the tool error's structuredContent,
// the paid retry with _meta["x402/payment"]). Run by test/users/mcp-http.chain.test.ts:
//   node test/clients/mcp-pay.mjs <base URL>    (payer key in X402_PAYER_KEY)
// Prints one JSON object with what each step saw.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { privateKeyToAccount } from 'viem/accounts'

const [baseUrl] = process.argv.slice(2)
const payments = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(process.env.X402_PAYER_KEY))))
const client = new Client({ name: 'teste-node', version: '1.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)))

/** The spec's client rule: structuredContent when it has x402Version and accepts, else content[0].text. */
function paymentRequiredOf(result) {
  const s = result.structuredContent
  if (s && s.x402Version && Array.isArray(s.accepts)) return s
  try {
    const parsed = JSON.parse(result.content?.[0]?.text ?? '')
    if (parsed.x402Version && Array.isArray(parsed.accepts)) return parsed
  } catch {}
  return null
}
const summary = (r) => ({ isError: r.isError ?? false, text: r.content?.[0]?.text?.slice(0, 400), settlement: r._meta?.['x402/payment-response'] ?? null })

const out = {}
const { tools } = await client.listTools()
out.tools = tools.map((t) => t.name)
out.free = summary(await client.callTool({ name: 'ferramentas_cnpj', arguments: { valor: '33.683.111/0002-80' } }))

const unpaid = await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '33683111000280' } })
const required = paymentRequiredOf(unpaid)
out.unpaid = { isError: unpaid.isError ?? false, required }
const payload = await payments.createPaymentPayload(required)
out.paid = summary(await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '33683111000280' }, _meta: { 'x402/payment': payload } }))

// A payment for a call that ends in a 4xx: not charged.
const required404 = paymentRequiredOf(await client.callTool({ name: 'cnpj_empresa', arguments: { cnpj: '33683111000107' } }))
out.notFound = summary(await client.callTool({ name: 'cnpj_empresa', arguments: { cnpj: '33683111000107' }, _meta: { 'x402/payment': await payments.createPaymentPayload(required404) } }))

// A tampered payment: refused with the terms again, nothing charged.
const tampered = await payments.createPaymentPayload(required)
tampered.payload.authorization.value = '1'
const refused = await client.callTool({ name: 'cnpj_situacao', arguments: { cnpj: '33683111000280' }, _meta: { 'x402/payment': tampered } })
out.refused = { ...summary(refused), required: paymentRequiredOf(refused) }

await client.close()
process.stdout.write(JSON.stringify(out) + '\n')
