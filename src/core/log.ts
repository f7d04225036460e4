// One line per event on stderr: "2026-11-22T03:30:00.000Z INFO message key=value", or with
// --log-formato json (DADOSBR_LOG_FORMATO=json) one JSON object per line:
// {"time":"...","level":"info","msg":"message","key":"value"} (time/level/msg as log shippers name them).
// Callers pass route templates and payer addresses, never CPFs, CNPJ paths of the CPF tool,
// or payment signatures (LGPD, and a leaked signature is spendable); as a safety net every text
// written is scrubbed of anything shaped like a CPF, an EIP-3009 signature or a payment header.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
export type LogFormat = 'texto' | 'json'
export const LOG_FORMATS: readonly LogFormat[] = ['texto', 'json']
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  /** Whether debug lines are written: a caller skips building their fields otherwise. */
  debugEnabled: boolean
}

/** 11 digits (punctuated or not) standing alone: a CPF, masked as the Receita publishes it (***456789**). */
const CPF = /(?<![0-9A-Za-z])(\d{3})\.?(\d{3})\.?(\d{3})-?(\d{2})(?![0-9A-Za-z])/g
/** A 65-byte ECDSA signature in hex (EIP-3009 authorizations): whoever holds it can spend it. */
const SIGNATURE = /0x[0-9a-fA-F]{130}/g
/** A base64 x402 payment header ({"x402Version":... encoded) carries the signature too. */
const PAYMENT_HEADER = /eyJ4NDAyVmVyc2lvbi[A-Za-z0-9+/=_-]*/g
const SUSPECT = /\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2}|0x[0-9a-fA-F]{130}|eyJ4NDAyVmVyc2lvbi/

/** The text with CPFs masked and signatures and payment headers removed. */
export function scrub(text: string): string {
  // One test first: almost no line has anything to scrub.
  if (!SUSPECT.test(text)) return text
  return text
    .replace(SIGNATURE, '0x[assinatura omitida]')
    .replace(PAYMENT_HEADER, '[pagamento omitido]')
    .replace(CPF, (_m, _a, b: string, c: string) => `***${b}${c.slice(0, 3)}**`)
}

function scrubValue(v: unknown): unknown {
  if (typeof v === 'string') return scrub(v)
  if (v === null || typeof v !== 'object') return v
  return JSON.parse(scrub(JSON.stringify(v)))
}

function formatText(fields?: Record<string, unknown>): string {
  if (!fields) return ''
  let out = ''
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue
    const s = scrub(typeof v === 'string' ? v : JSON.stringify(v))
    out += ` ${k}=${/[\s"]/.test(s) ? JSON.stringify(s) : s}`
  }
  return out
}

function formatJson(lvl: string, msg: string, fields?: Record<string, unknown>, context?: Record<string, unknown>): string {
  const line: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg: scrub(msg) }
  for (const source of [fields, context]) {
    if (!source) continue
    // time/level/msg are the line's own: a field of the same name cannot overwrite them.
    for (const [k, v] of Object.entries(source)) if (v !== undefined && !(k in line)) line[k] = scrubValue(v)
  }
  return JSON.stringify(line)
}

/** `context` ends every line (the serving process's number, when there are several). */
export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  context?: Record<string, unknown>,
  format: LogFormat = 'texto',
): Logger {
  const suffix = formatText(context)
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return
    write(format === 'json' ? formatJson(lvl, msg, fields, context) : `${new Date().toISOString()} ${lvl.toUpperCase()} ${scrub(msg)}${formatText(fields)}${suffix}`)
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), debugEnabled: ORDER.debug >= ORDER[level] }
}

/** The log format a command line asked for: its flag, else DADOSBR_LOG_FORMATO, else texto; anything else is refused. */
export function logFormatFrom(flag: unknown, env: Record<string, string | undefined> = process.env): LogFormat {
  const value = typeof flag === 'string' ? flag : env.DADOSBR_LOG_FORMATO || 'texto'
  if (!(LOG_FORMATS as readonly string[]).includes(value)) throw new Error(`configuração inválida: --log-formato / DADOSBR_LOG_FORMATO: use texto ou json (recebido '${value}')`)
  return value as LogFormat
}

/**
 * The plain one-line messages of the batch commands (ingest, atualizar, exportar): as they are in
 * the text format, or each wrapped as a JSON line ({"time","level","msg","comando"}) in json.
 */
export function lineWriter(command: string, format: LogFormat, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): (line: string, level?: 'info' | 'warn' | 'error') => void {
  if (format === 'texto') return (line) => write(scrub(line))
  return (line, given) => {
    const level = given ?? (/\b(falhou|erro|falha)\b/i.test(line) ? 'error' : /^aviso\b|\baviso:/i.test(line) ? 'warn' : 'info')
    write(JSON.stringify({ time: new Date().toISOString(), level, msg: scrub(line), comando: command }))
  }
}
