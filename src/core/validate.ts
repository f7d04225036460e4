// Turns raw path and query values into typed inputs with the route's zod schemas, and
// every failure into a 400 envelope (never the framework's 422).
import { z } from 'zod'
import { checkCnpj } from './documents'
import { ApiError, type ErrorCode } from './errors'
import type { RouteDef } from './route'

/**
 * One Brazilian Portuguese message per rule, saying what is allowed, never JavaScript words or
 * limits (no "undefined", "NaN", 9007199254740991). A schema's own message, when it gives one,
 * wins (regexes say the shape they want). The parameter's name is prefixed by apiErrorFrom.
 */
function messageFor(issue: z.core.$ZodRawIssue): string | undefined {
  const list = (values: readonly unknown[]) => values.map((v) => String(v)).join(', ')
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'é obrigatório'
      return issue.expected === 'number' ? 'deve ser um número' : `valor inválido (esperado: ${issue.expected === 'string' ? 'texto' : issue.expected})`
    case 'too_small':
      if (issue.origin === 'string') return `deve ter ao menos ${issue.minimum} caractere${Number(issue.minimum) === 1 ? '' : 's'}`
      return `deve ser no mínimo ${issue.minimum}`
    case 'too_big':
      if (issue.origin === 'string') return `deve ter no máximo ${issue.maximum} caracteres`
      return `deve ser no máximo ${issue.maximum}`
    case 'invalid_value':
      return `deve ser um destes valores: ${list(issue.values)}`
    case 'invalid_format':
      return issue.format === 'date' ? 'deve ser uma data válida no formato AAAA-MM-DD' : 'formato inválido'
    default:
      return 'valor inválido'
  }
}
z.config({ customError: messageFor })

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

/** A `%` not followed by two hex digits: URLSearchParams would keep it as text, the path router refuses it. */
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/

/** The raw query string of an absolute URL ('' when none). */
function rawQuery(url: string): string {
  const q = url.indexOf('?')
  if (q < 0) return ''
  const hash = url.indexOf('#', q)
  return url.slice(q + 1, hash < 0 ? undefined : hash)
}

/** Refuses a query whose percent-escapes are malformed, as the path's are (400, not a silent literal '%'). */
export function checkQueryEncoding(url: string): void {
  const query = rawQuery(url)
  if (query && BAD_PERCENT.test(query)) throw new ApiError('parametro_invalido', 'a consulta tem uma codificação por cento inválida (% seguido de algo que não são dois dígitos hexadecimais)')
}

export function parseQuery<Q>(route: RouteDef<unknown, Q>, searchParams: URLSearchParams): Q {
  if (route.acceptsAnyQuery) return {} as Q
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

/**
 * An integer query parameter: decimal digits only (no `0x10`, `1e1`, ` 10`, `+5`), between min and
 * max, one message for every way it can be wrong. Huge values are refused by the range, with no
 * JavaScript limit in the message.
 */
export function intParam(min: number, max: number) {
  const message = `deve ser um número inteiro de ${min} a ${max}`
  return z
    .string()
    .regex(/^\d{1,12}$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message))
}

/** A page number: positive integer, bounded so OFFSET arithmetic never overflows. */
export const pagina = intParam(1, 1_000_000).default(1)
/** Items per page: 1 to 50, default 20 (SPEC §8). */
export const porPagina = intParam(1, 50).default(20)

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
