// A tiny flag parser: --name value, --name=value and boolean --flag; anything unknown is an error
// with a one-line hint, so a typo never silently falls back to a default.

export interface FlagSpec {
  name: string
  /** Takes a value (true) or is a boolean switch (false). */
  value: boolean
  help: string
  /** Old spellings, still accepted for one release with a warning (docs/decisoes.md, flags). */
  aliases?: string[]
}

export class UsageError extends Error {}

export interface Parsed {
  flags: Record<string, string | boolean>
  positionals: string[]
  help: boolean
  /** One line per old spelling used, to print on stderr. */
  warnings: string[]
}

export function parseArgs(argv: string[], specs: FlagSpec[], maxPositionals = 0): Parsed {
  const flags: Record<string, string | boolean> = {}
  const positionals: string[] = []
  let help = false
  const warnings: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      help = true
      continue
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg)
      continue
    }
    const [given, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined]
    const spec = specs.find((s) => s.name === given || s.aliases?.includes(given))
    if (!spec) throw new UsageError(`opção desconhecida: ${given} (veja --help)`)
    const name = spec.name
    if (given !== name) warnings.push(`aviso: ${given} agora se escreve ${name}; a forma antiga sai na próxima versão`)
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`${name} não leva valor`)
      flags[name] = true
      continue
    }
    const value = inline ?? argv[++i]
    if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`${name} precisa de um valor`)
    flags[name] = value
  }
  if (!help && positionals.length > maxPositionals) throw new UsageError(`argumento inesperado: ${positionals[maxPositionals]} (veja --help)`)
  return { flags, positionals, help, warnings }
}

export function usage(title: string, synopsis: string, specs: FlagSpec[], extra = ''): string {
  const width = Math.max(...specs.map((s) => s.name.length + (s.value ? 4 : 0)), 6)
  const lines = specs.map((s) => `  ${(s.name + (s.value ? ' VAL' : '')).padEnd(width + 2)}${s.help}`)
  return `${title}\n\nUso: ${synopsis}\n\nOpções:\n${lines.join('\n')}\n  ${'--help'.padEnd(width + 2)}mostra esta ajuda\n${extra ? '\n' + extra + '\n' : ''}`
}
