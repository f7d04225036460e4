// Turns raw path and query values into typed inputs with the route's zod schemas, and
// every failure into a 400 envelope (never the framework's 422).
import { z } from 'zod'
import { checkCnpj } from './documents'
import { ApiError, type ErrorCode } from './errors'
import type { RouteDef } from './route'

z.config(z.locales.pt())

/** Zod custom issues may carry params.codigo to pick a specific error code (e.g. cnpj_invalido). */
function apiErrorFrom(error: z.ZodError, where: 'caminho' | 'consulta'): ApiError {
  const issue = error.issues[0]!
  const name = issue.path.length ? String(issue.path[0]) : ''
  const codigo = ((issue as { params?: { codigo?: ErrorCode } }).params?.codigo ?? 'parametro_invalido') as ErrorCode
  const prefix = name ? `parâmetro de ${where} '${name}': ` : ''
  return new ApiError(codigo, `${prefix}${issue.message}`)
}

export function parseParams<P>(route: RouteDef<P>, raw: Record<string, string | null | undefined> = {}): P {
  for (const [name, value] of Object.entries(raw))
    if (value === null || value === undefined) throw new ApiError('parametro_invalido', `parâmetro de caminho '${name}': codificação por cento inválida`)
  if (!route.params) return {} as P
  const parsed = route.params.safeParse(raw)
  if (!parsed.success) throw apiErrorFrom(parsed.error, 'caminho')
  return parsed.data
}

export function parseQuery<Q>(route: RouteDef<unknown, Q>, searchParams: URLSearchParams): Q {
  const allowed = route.query instanceof z.ZodObject ? Object.keys(route.query.shape) : []
  const raw: Record<string, string> = {}
  for (const [name, value] of searchParams) {
    if (!allowed.includes(name))
      throw new ApiError('parametro_desconhecido', `parâmetro de consulta '${name.slice(0, 64)}' não existe nesta rota` + (allowed.length ? `; aceitos: ${allowed.join(', ')}` : '; ela não aceita nenhum'))
    if (name in raw) throw new ApiError('parametro_repetido', `parâmetro de consulta '${name}' aparece mais de uma vez`)
    raw[name] = value
  }
  if (!route.query) return {} as Q
  const parsed = route.query.safeParse(raw)
  if (!parsed.success) throw apiErrorFrom(parsed.error, 'consulta')
  return parsed.data
}

/** A page number: positive integer, bounded so OFFSET arithmetic never overflows. */
export const pagina = z.coerce.number().int().min(1).max(1_000_000).default(1)
/** Items per page: 1 to 50, default 20 (SPEC §8). */
export const porPagina = z.coerce.number().int().min(1).max(50).default(20)

/** A CNPJ path parameter: 14 characters with or without punctuation, alphanumeric allowed, check digits verified. */
export const cnpjParam = z.string().transform((value, ctx) => {
  const check = checkCnpj(value)
  if (check.valido) return check.cnpj
  ctx.addIssue({
    code: 'custom',
    params: { codigo: 'cnpj_invalido' },
    message:
      check.motivo === 'formato_invalido'
        ? 'CNPJ com formato inválido: use 14 caracteres (números ou letras A-Z, os dois últimos números), com ou sem pontuação'
        : 'CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)',
  })
  return z.NEVER
})
