// Documents for people and agents: / (a landing that leads to the rest), /openapi.json,
// /openapi.yaml, /docs (offline Swagger UI), /llms.txt, /termos, /.well-known/x402 and
// /.well-known/x402.json, all generated from the one route table.
import { stringify } from 'yaml'
// Embedded as text so the compiled binary serves the docs UI with no CDN and no node_modules.
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' }
import { NETWORKS, type Config } from './config'
import type { Dataset } from './dataset'
import { buildOpenApi } from './openapi'
import { exampleRequestOf, SERVICE_NAME } from './payments/bazaar'
import { priceAtomic, routerPath, type RouteDef } from './route'
import type { StaticRoute } from './server'

/** When this server started: the discovery manifest's lastUpdated (the route table changes only with a restart). */
const STARTED_AT = Math.floor(Date.now() / 1000)

const DOCS_HTML = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>dadosbr — referência da API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`

const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true, validatorUrl: null });`

function price(route: RouteDef): string {
  return route.price === null ? 'grátis' : `US$ ${route.price}`
}

export function llmsTxt(routes: RouteDef[], datasets: Dataset[]): string {
  const lines = [
    '# dadosbr',
    '',
    '> Dados públicos brasileiros (cadastro de CNPJ da Receita Federal e outras bases oficiais) em JSON, por HTTP GET.',
    '> Chaves em português. Sem conta, sem chave de API: rotas pagas cobram por chamada com x402 v2 (esquema exact, USDC na Base).',
    '',
    '## Como pagar',
    '1. Chame a rota paga com GET. Sem pagamento ela responde 402 com o cabeçalho PAYMENT-REQUIRED (JSON em base64: x402Version 2, accepts[] com scheme "exact", network, amount em unidades de 6 casas, asset USDC, payTo).',
    '2. Assine uma autorização EIP-3009 (transferWithAuthorization) para o valor exato e repita o mesmo GET com o cabeçalho PAYMENT-SIGNATURE (X-PAYMENT também é aceito) contendo o PaymentPayload v2 em base64.',
    '3. A resposta 200 traz PAYMENT-RESPONSE com a transação. Clientes x402 prontos (ex. @x402/fetch) fazem os passos 1-3 sozinhos.',
    '- Nada é cobrado quando a resposta não é 2xx: um CNPJ inválido dá 400 e nenhuma transferência. Valide antes com a ferramenta grátis.',
    '- Erros: sempre { "erro": { "codigo", "mensagem" } }. Códigos em /openapi.json (components.schemas.Erro).',
    '',
    '## Ferramentas grátis (sem limite de taxa)',
    ...routes.filter((r) => r.dataset === 'ferramentas').map((r) => `- GET ${r.path}: ${r.summary}`),
    '',
    '## Rotas',
  ]
  for (const ds of datasets) {
    const own = routes.filter((r) => r.dataset === ds.name)
    if (!own.length || ds.name === 'ferramentas') continue
    lines.push('', `### ${ds.titulo} (${ds.name})`, ds.descricao)
    for (const r of own) lines.push(`- GET ${r.path} — ${price(r)} — ${r.summary}`)
  }
  const other = routes.filter((r) => !datasets.some((d) => d.name === r.dataset))
  if (other.length) lines.push('', '### Serviço', ...other.map((r) => `- GET ${r.path} — ${price(r)} — ${r.summary}`))
  lines.push(
    '',
    '## MCP',
    '- POST /mcp (Streamable HTTP, sem sessão): as mesmas rotas como ferramentas. As pagas seguem o x402 para MCP: a chamada sem pagamento volta com isError e o PaymentRequired em structuredContent; repita com o PaymentPayload em _meta["x402/payment"]; a liquidação volta em _meta["x402/payment-response"].',
    '',
    '## Repetir sem pagar de novo',
    '- Extensão payment-identifier do x402: mande um id (16 a 128 caracteres, letras, números, - e _) no PaymentPayload. Se a resposta se perder, repita o mesmo pagamento com o mesmo id: a mesma resposta volta sem nova cobrança. O mesmo id com outro pagamento é recusado (409).',
    '',
    '## Documentos',
    '- /openapi.json e /openapi.yaml: OpenAPI 3.1 com preços (x-payment-info, x-preco-usd) e respostas 402',
    '- /docs: referência interativa',
    '- /.well-known/x402 e /.well-known/x402.json: recursos pagos com endereços absolutos',
    '- /termos: termos de uso',
    '',
  )
  return lines.join('\n')
}

/** A concrete URL of a route: its example's path values and query (values present in the bundled sample). */
function exampleUrl(baseUrl: string, route: RouteDef): string {
  const example = exampleRequestOf(route)
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(example.params[name] ?? name))
  const query = new URLSearchParams(example.query).toString()
  return `${baseUrl}${path}${query ? `?${query}` : ''}`
}

/**
 * /.well-known/x402: every paid resource as an absolute URL a crawler can probe for its 402 (the
 * shape x402scan reads: version, resources, instructions), with the fields of the x402 discovery
 * draft (x402Version, kind, name, description, docs).
 */
export function wellKnownX402(routes: RouteDef[], baseUrl: string) {
  const paid = routes.filter((r) => r.price !== null)
  return {
    version: 1,
    x402Version: 2,
    kind: 'resource-server',
    name: SERVICE_NAME,
    description: 'Dados públicos brasileiros oficiais (cadastro CNPJ, sanções, Banco Central, compras públicas, fundos, mercado, commodities, tributos, desmatamento) em JSON; rotas pagas por chamada com x402 (USDC na Base).',
    resources: paid.map((r) => exampleUrl(baseUrl, r)),
    precos_usd: Object.fromEntries(paid.map((r) => [r.path, r.price])),
    docs: `${baseUrl}/docs`,
    openapi: `${baseUrl}/openapi.json`,
    mcp: `${baseUrl}/mcp`,
    instructions: `Chame com GET; sem pagamento a rota responde 402 com PAYMENT-REQUIRED (x402 v2, exact, USDC na Base). Guia: ${baseUrl}/llms.txt. Esquema: ${baseUrl}/openapi.json.`,
  }
}

/**
 * /.well-known/x402.json: the per-origin manifest of the x402 well-known discovery draft, a
 * projection of the route table (the live 402 stays authoritative): each paid resource with its
 * terms, how to call it (routeTemplate, parameters) and an example of its answer where small.
 */
export function wellKnownManifest(routes: RouteDef[], baseUrl: string, config?: Pick<Config, 'network' | 'payTo'>) {
  const network = config?.network ?? 'eip155:8453'
  const net = NETWORKS[network]
  return {
    x402Version: 2,
    lastUpdated: STARTED_AT,
    items: routes
      .filter((r) => r.price !== null)
      .map((r) => {
        const pathParams = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
        const example = exampleRequestOf(r)
        return {
          resource: { url: `${baseUrl}${r.path.replace(/\{(\w+)\}/g, ':$1')}`, description: r.summary, mimeType: 'application/json', serviceName: SERVICE_NAME },
          type: 'http',
          accepts: config?.payTo
            ? [{ scheme: 'exact', network, amount: priceAtomic(r.price!), asset: net.usdc, payTo: config.payTo, maxTimeoutSeconds: 300, extra: { ...net.eip712 } }]
            : [],
          input: {
            method: 'GET',
            ...(pathParams.length ? { routeTemplate: routerPath(r.path), pathParams: Object.fromEntries(pathParams.map((p) => [p, example.params[p] ?? null])) } : {}),
            ...(Object.keys(example.query).length ? { queryParams: example.query } : {}),
          },
          output: { mimeType: 'application/json' },
          ...(r.units ? { preco: { unidade_usd: r.price, max_unidades: r.maxUnits ?? null } } : {}),
        }
      }),
  }
}

/** GET /: a person is led to /docs, an agent (anything not asking for HTML) to the machine-readable documents. */
export function landing(baseUrl: string, wantsHtml: boolean): { contentType: string; body: string } {
  if (wantsHtml)
    return {
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>dadosbr</title><meta http-equiv="refresh" content="0; url=/docs"></head>
<body><p>dadosbr: dados públicos brasileiros em JSON. <a href="/docs">Referência interativa (/docs)</a> ·
<a href="/llms.txt">guia para agentes (/llms.txt)</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/v1/health">estado</a></p></body></html>`,
    }
  return {
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({
      servico: SERVICE_NAME,
      descricao: 'Dados públicos brasileiros oficiais em JSON, por HTTP GET; rotas pagas com x402 (USDC na Base), grátis sem nada.',
      documentacao: `${baseUrl}/docs`,
      para_agentes: `${baseUrl}/llms.txt`,
      openapi: `${baseUrl}/openapi.json`,
      mcp: `${baseUrl}/mcp`,
      x402: `${baseUrl}/.well-known/x402`,
      saude: `${baseUrl}/v1/health`,
      ferramentas_gratis: `${baseUrl}/v1/ferramentas`,
    }),
  }
}

export function termos(datasets: Dataset[]): string {
  return `${TERMOS}
## Bases desta versão

Servidas: ${datasets.map((d) => `${d.name} (${d.titulo})`).join('; ')}.
`
}

const TERMOS = `# Termos de uso do dadosbr

1. **O que é.** O dadosbr devolve dados públicos oficiais (Receita Federal, CGU, Banco Central e outras fontes
   citadas em cada resposta) como foram publicados, no mês ou dia de referência indicado em \`fonte\`.
2. **Sem garantia.** Os dados são servidos "no estado em que se encontram". O órgão de origem é a fonte oficial;
   confira lá antes de qualquer decisão jurídica, fiscal ou de crédito.
3. **Pagamento.** Rotas pagas cobram o preço publicado por chamada, em USDC, pelo protocolo x402. Só se cobra
   resposta 2xx; pedido inválido (4xx) não é cobrado. Pagamento liquidado não é devolvido.
4. **Privacidade (LGPD).** O serviço não tem contas nem guarda quem consulta o quê além do registro técnico de
   cobrança (rota, preço, carteira pagadora, transação). CPFs nunca são devolvidos por inteiro nem registrados em log;
   os CPFs de sócios chegam mascarados da própria Receita Federal. Use os dados pessoais que receber só para
   finalidade legítima, conforme a Lei 13.709/2018.
5. **Uso.** Não use o serviço para spam, assédio ou discriminação. Respeite o limite do seu pagamento.
6. **Código aberto.** Quem preferir pode rodar o próprio servidor com o mesmo programa (\`dadosbr serve --gratis\`).
`

export function discoveryRoutes(routes: RouteDef[], datasets: Dataset[], config?: Config): StaticRoute[] {
  // Built once: the route table does not change while the server runs. Compact JSON: the indented
  // document was three times the size, and /docs waited seconds for it.
  const openapi = buildOpenApi(routes, datasets, config)
  const json = JSON.stringify(openapi)
  const yaml = stringify(openapi)
  const llms = llmsTxt(routes, datasets)
  const terms = termos(datasets)
  const JSON_TYPE = 'application/json; charset=utf-8'
  return [
    { path: '/', contentType: 'text/html; charset=utf-8', body: (baseUrl, request) => landing(baseUrl, (request.headers.get('accept') ?? '').includes('text/html')) },
    { path: '/openapi.json', contentType: JSON_TYPE, body: () => json },
    { path: '/openapi.yaml', contentType: 'application/yaml; charset=utf-8', body: () => yaml },
    { path: '/llms.txt', contentType: 'text/plain; charset=utf-8', body: () => llms },
    { path: '/.well-known/x402', contentType: JSON_TYPE, body: (baseUrl) => JSON.stringify(wellKnownX402(routes, baseUrl)) },
    { path: '/.well-known/x402.json', contentType: JSON_TYPE, body: (baseUrl) => JSON.stringify(wellKnownManifest(routes, baseUrl, config?.free ? undefined : config)) },
    { path: '/termos', contentType: 'text/markdown; charset=utf-8', body: () => terms },
    { path: '/docs', contentType: 'text/html; charset=utf-8', body: () => DOCS_HTML },
    { path: '/docs/swagger-ui.css', contentType: 'text/css; charset=utf-8', body: () => swaggerCss },
    { path: '/docs/swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8', body: () => swaggerBundle },
    { path: '/docs/init.js', contentType: 'text/javascript; charset=utf-8', body: () => DOCS_INIT },
  ]
}
