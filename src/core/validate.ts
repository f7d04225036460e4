// Turns raw path and query values into typed inputs with the route's zod schemas, and
// every failure into a 400 envelope (never the framework's 422).
import { z } from 'zod'
import { checkCnpj } from './documents'
import { checkIbgeMunicipio, UF_POR_CODIGO } from './ibge'
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
  for (const name in raw) {
    const value = raw[name]
    if (value === null || value === undefined) throw new ApiError('parametro_invalido', `parâmetro de caminho '${name}': codificação por cento inválida`)
  }
  if (!route.params) return {} as P
  const direct = directPlanOf(route.params)
  if (direct) return parseDirect(direct, raw as Record<string, string>) as P
  const parsed = route.params.safeParse(raw)
  if (!parsed.success) throw apiErrorFrom(parsed.error, 'caminho')
  return parsed.data
}

/** What a path parameter's check says: the value it becomes, or the error code and message. */
export type ParamCheck<T> = { ok: true; value: T } | { ok: false; codigo: ErrorCode; mensagem: string }

/** The checks of the parameters made by checkedParam, by schema. */
const checks = new WeakMap<z.ZodType, (value: string) => ParamCheck<unknown>>()

/**
 * A path parameter checked by one plain function. Zod describes it (OpenAPI) and runs it like any
 * schema; parseParams calls the function directly when every parameter of a route is made this
 * way. Zod's object, pipe and issue machinery was 0.8 µs of a 5 µs screening (profiled); the
 * function is the same, so both ways give the same value or the same error (test/core/checked-params.test.ts).
 */
export function checkedParam<T>(check: (value: string) => ParamCheck<T>): z.ZodType<T, string> {
  const schema = z.string().transform((value, ctx) => {
    const r = check(value)
    if (r.ok) return r.value
    ctx.addIssue({ code: 'custom', params: { codigo: r.codigo }, message: r.mensagem })
    return z.NEVER
  })
  checks.set(schema, check)
  return schema
}

type DirectPlan = [name: string, check: (value: string) => ParamCheck<unknown>][]
const plans = new WeakMap<z.ZodType, DirectPlan | null>()

/** The direct checks of a params object whose every field is a checkedParam, or null. */
function directPlanOf(schema: z.ZodType): DirectPlan | null {
  let plan = plans.get(schema)
  if (plan !== undefined) return plan
  plan = null
  if (schema instanceof z.ZodObject) {
    const fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => [name, checks.get(field)] as const)
    if (fields.length && fields.every(([, c]) => c)) plan = fields as DirectPlan
  }
  plans.set(schema, plan)
  return plan
}

/** Whether parseParams checks this params schema directly (every field a checkedParam). */
export const checkedDirectly = (schema: z.ZodType): boolean => directPlanOf(schema) !== null

function parseDirect(plan: DirectPlan, raw: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, check] of plan) {
    const value = raw[name]
    // Zod's own message for a missing field, should a route ever be called without its parameter.
    if (value === undefined) throw new ApiError('parametro_invalido', `parâmetro de caminho '${name}': é obrigatório`)
    const r = check(value)
    if (!r.ok) throw new ApiError(r.codigo, `parâmetro de caminho '${name}': ${r.mensagem}`)
    out[name] = r.value
  }
  return out
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
 *
 * The value arrives as text and becomes a number through a pipe; a JSON Schema of the input side
 * (OpenAPI, the MCP tools, the 402's Bazaar input schema) describes the text (its digits pattern)
 * and would lose the range the number enforces: the metadata keeps it there as minimum and maximum.
 */
export function intParam(min: number, max: number) {
  const message = `deve ser um número inteiro de ${min} a ${max}`
  return z
    .string()
    .regex(/^\d{1,12}$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message))
    .meta({ minimum: min, maximum: max })
}

/** A page number: positive integer, bounded so OFFSET arithmetic never overflows. */
export const pagina = intParam(1, 1_000_000).default(1)
/** Items per page: 1 to 50, default 20 (SPEC §8). */
export const porPagina = intParam(1, 50).default(20)

/** A CNPJ path parameter: 14 characters with or without punctuation, alphanumeric allowed, check digits verified. */
export const cnpjParam = checkedParam((value) => {
  const check = checkCnpj(value)
  if (check.valido) return { ok: true, value: check.cnpj }
  return {
    ok: false,
    codigo: 'cnpj_invalido',
    mensagem:
      check.motivo === 'formato_invalido'
        ? 'CNPJ com formato inválido: use 14 caracteres (números ou letras A-Z, os dois últimos números), com ou sem pontuação'
        : 'CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)',
  }
})

/** The 27 federative units (26 states and the Federal District). */
export const UFS = Object.values(UF_POR_CODIGO).sort() as readonly string[]

function ufQuery(exterior: boolean) {
  const aceitas = exterior ? [...UFS, 'EX'] : UFS
  const message = `deve ser a sigla de uma das 27 UFs (duas letras: ${UFS.join(', ')})${exterior ? ' ou EX (estabelecimento no exterior)' : ''}`
  return z
    .string()
    .transform((v) => v.toUpperCase())
    .refine((v) => aceitas.includes(v), message)
    .meta({ type: 'string', enum: [...aceitas] })
}

/**
 * A `uf` query parameter, on every route that takes one: one of the 27 UFs, upper or lower case;
 * anything else (XX, a state's name) is a 400, never a filter that silently matches nothing.
 */
export const ufParam = ufQuery(false)
/** The same, for the registry, whose UF field also holds EX (establishments abroad, as the Receita writes them). */
export const ufOuExteriorParam = ufQuery(true)

/**
 * An IBGE municipality code path parameter: 7 digits, a state's code first, the check digit right
 * (src/core/ibge.ts). A code that passes but no municipality has is the route's 404.
 */
export const ibgeMunicipioParam = checkedParam((value) => {
  const check = checkIbgeMunicipio(value)
  if (check.valido) return { ok: true, value }
  const mensagem =
    check.motivo === 'formato_invalido'
      ? 'use o código IBGE do município, 7 dígitos (ex. 1500602, Altamira/PA)'
      : check.motivo === 'uf_inexistente'
        ? `código IBGE que não começa pelo código de uma UF (${value.slice(0, 2)}; as UFs vão de 11, RO, a 53, DF): confira o código (ex. 1500602, Altamira/PA)`
        : 'código IBGE com dígito verificador inválido (o 7º dígito não confere com os seis primeiros): confira o código (ex. 1500602, Altamira/PA)'
  return { ok: false, codigo: 'parametro_invalido', mensagem }
})
