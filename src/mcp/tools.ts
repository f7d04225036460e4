// The MCP tools, generated from the one route table: each served route becomes a tool with its
// summary and description, its price, and one input schema that joins the route's path and query
// parameters (JSON Schema from its zod schemas). A route added later becomes a tool with no code here.
import { z } from 'zod'
import type { JSONValue } from '@modelcontextprotocol/server'
import type { RouteDef } from '../core/route'

export interface ToolDef {
  /** cnpj_situacao for /v1/cnpj/situacao/{cnpj}: the path's words, without /v1 and parameters. */
  name: string
  title: string
  description: string
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false }
  /** USD per call; null for a free route. */
  price: number | null
  route: RouteDef
  /** Names of the path parameters (the rest go in the query string). */
  pathParams: string[]
}

type Json = Record<string, unknown>

function objectSchema(schema: z.ZodType | undefined): { properties: Record<string, Json>; required: string[] } {
  if (!schema) return { properties: {}, required: [] }
  const { properties = {}, required = [] } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json>; required?: string[] }
  return { properties, required }
}

export function toolName(path: string): string {
  return path
    .split('/')
    .filter((s) => s && s !== 'v1' && !s.startsWith('{'))
    .join('_')
    .replace(/[^A-Za-z0-9_-]/g, '_')
}

export function priceText(price: number | null): string {
  return price === null ? 'Grátis.' : `Preço: US$ ${price} por chamada, pago em USDC com x402 (nada é cobrado por um erro 4xx).`
}

/** Every route as a tool, in the route table's order. */
export function toolsFrom(routes: RouteDef[]): ToolDef[] {
  const tools: ToolDef[] = []
  const taken = new Set<string>()
  for (const route of routes) {
    let name = toolName(route.path)
    // Two paths with the same words (none today): the later one gets a number, so no route is left out.
    for (let n = 2; taken.has(name); n++) name = `${toolName(route.path)}_${n}`
    taken.add(name)
    const path = objectSchema(route.params)
    const query = objectSchema(route.query)
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    const required = [...new Set([...pathParams, ...query.required.filter((q) => !(q in path.properties))])]
    tools.push({
      name,
      title: route.summary,
      description: [route.summary + '.', route.description, `GET ${route.path}.`, priceText(route.price)].filter(Boolean).join(' '),
      inputSchema: { type: 'object', properties: { ...query.properties, ...path.properties }, ...(required.length ? { required } : {}), additionalProperties: false },
      price: route.price,
      route,
      pathParams,
    })
  }
  return tools
}

/** A tool as tools/list shows it (stdio and HTTP alike). */
export function listedTool(t: ToolDef) {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    // JSON from zod's converter: JSON values all the way down, typed loosely there.
    inputSchema: t.inputSchema as { type: 'object'; properties?: Record<string, JSONValue> },
    annotations: { title: t.title, readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    _meta: { 'dadosbr/rota': t.route.path, 'dadosbr/preco_usd': t.price },
  }
}

/** The URL of one call: path parameters in the path, every other argument in the query string. */
export function callUrl(baseUrl: string, tool: ToolDef, args: Record<string, unknown>): string {
  const missing = tool.pathParams.filter((p) => args[p] === undefined || args[p] === null || args[p] === '')
  if (missing.length) throw new Error(`faltam os parâmetros ${missing.join(', ')}`)
  const path = tool.route.path.replace(/\{(\w+)\}/g, (_m, p: string) => encodeURIComponent(String(args[p])))
  const query = new URLSearchParams()
  for (const [k, v] of Object.entries(args)) {
    if (tool.pathParams.includes(k) || v === undefined || v === null) continue
    query.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v))
  }
  const qs = query.toString()
  return `${baseUrl}${path}${qs ? `?${qs}` : ''}`
}
