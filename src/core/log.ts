// One line per event on stderr: "2026-11-22T03:30:00.000Z INFO message key=value".
// Callers pass route templates and payer addresses, never CPFs, CNPJ paths of the CPF tool,
// or payment signatures (LGPD, and a leaked signature is spendable).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
  /** Whether debug lines are written: a caller skips building their fields otherwise. */
  debugEnabled: boolean
}

function format(fields?: Record<string, unknown>): string {
  if (!fields) return ''
  let out = ''
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue
    const s = typeof v === 'string' ? v : JSON.stringify(v)
    out += ` ${k}=${/[\s"]/.test(s) ? JSON.stringify(s) : s}`
  }
  return out
}

/** `context` ends every line (the serving process's number, when there are several). */
export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l + '\n'), context?: Record<string, unknown>): Logger {
  const suffix = format(context)
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return
    write(`${new Date().toISOString()} ${lvl.toUpperCase()} ${msg}${format(fields)}${suffix}`)
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), debugEnabled: ORDER.debug >= ORDER[level] }
}
