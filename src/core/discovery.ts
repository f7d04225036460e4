// Documents for people and agents: /openapi.json, /openapi.yaml, /docs (offline Swagger UI),
// /llms.txt, /termos and /.well-known/x402, all generated from the one route table.
import { stringify } from 'yaml'
// Embedded as text so the compiled binary serves the docs UI with no CDN and no node_modules.
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' }
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' }
import type { Config } from './config'
import type { Dataset } from './dataset'
import { buildOpenApi } from './openapi'
import type { RouteDef } from './route'
import type { StaticRoute } from './server'

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
  const other = routes.filter((r) => !r.planned && !datasets.some((d) => d.name === r.dataset))
  if (other.length) lines.push('', '### Serviço', ...other.map((r) => `- GET ${r.path} — ${price(r)} — ${r.summary}`))
  const planned = routes.filter((r) => r.planned)
  if (planned.length) {
    lines.push('', '## Ainda não servidas por esta versão', 'Estas rotas fazem parte da interface e respondem 501 nao_implementado (sem cobrar) até a base delas ser publicada:')
    for (const name of new Set(planned.map((r) => r.dataset)))
      lines.push(`- ${name}: ${planned.filter((r) => r.dataset === name).map((r) => `${r.path} (${r.planned!.price === null ? 'grátis' : `US$ ${r.planned!.price}`})`).join(', ')}`)
  }
  lines.push('', '## Documentos', '- /openapi.json e /openapi.yaml: OpenAPI 3.1 com preços (x-preco-usd) e respostas 402', '- /docs: referência interativa', '- /.well-known/x402: recursos pagos', '- /termos: termos de uso', '')
  return lines.join('\n')
}

export function wellKnownX402(routes: RouteDef[]) {
  return {
    version: 1,
    resources: routes.filter((r) => r.price !== null).map((r) => `GET ${r.path}`),
    precos_usd: Object.fromEntries(routes.filter((r) => r.price !== null).map((r) => [r.path, r.price])),
    instructions: 'Chame com GET; sem pagamento a rota responde 402 com PAYMENT-REQUIRED (x402 v2, exact, USDC na Base). Guia: /llms.txt. Esquema: /openapi.json.',
  }
}

export function termos(datasets: Dataset[], routes: RouteDef[]): string {
  const planned = [...new Set(routes.filter((r) => r.planned).map((r) => r.dataset))]
  return `${TERMOS}
## Bases desta versão

Servidas: ${datasets.map((d) => `${d.name} (${d.titulo})`).join('; ')}.
${planned.length ? `\nAinda não servidas (as rotas respondem 501 nao_implementado e nada cobram): ${planned.join(', ')}.\n` : ''}`
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
  // Built once: the route table does not change while the server runs.
  const openapi = buildOpenApi(routes, datasets, config)
  const json = JSON.stringify(openapi, null, 2)
  const yaml = stringify(openapi)
  const llms = llmsTxt(routes, datasets)
  const wellKnown = JSON.stringify(wellKnownX402(routes), null, 2)
  const terms = termos(datasets, routes)
  return [
    { path: '/openapi.json', contentType: 'application/json; charset=utf-8', body: () => json },
    { path: '/openapi.yaml', contentType: 'application/yaml; charset=utf-8', body: () => yaml },
    { path: '/llms.txt', contentType: 'text/plain; charset=utf-8', body: () => llms },
    { path: '/.well-known/x402', contentType: 'application/json; charset=utf-8', body: () => wellKnown },
    { path: '/termos', contentType: 'text/markdown; charset=utf-8', body: () => terms },
    { path: '/docs', contentType: 'text/html; charset=utf-8', body: () => DOCS_HTML },
    { path: '/docs/swagger-ui.css', contentType: 'text/css; charset=utf-8', body: () => swaggerCss },
    { path: '/docs/swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8', body: () => swaggerBundle },
    { path: '/docs/init.js', contentType: 'text/javascript; charset=utf-8', body: () => DOCS_INIT },
  ]
}
