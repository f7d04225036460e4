// Progress on stderr with rate and ETA. On a terminal it redraws one line; in CI logs it
// prints a line every 10 s at most, so a month-long log stays readable.

export interface Progress {
  add(n: number): void
  /** Total may become known late (e.g. after a HEAD request). */
  setTotal(total: number): void
  done(message?: string): void
}

function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let i = 0
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++ }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`
}

function duration(s: number): string {
  if (!Number.isFinite(s)) return '?'
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60)
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`
}

export interface ProgressOptions {
  unit?: 'bytes' | 'rows'
  quiet?: boolean
  write?: (s: string) => void
  tty?: boolean
}

export function progress(label: string, total: number | null, options: ProgressOptions = {}): Progress {
  const write = options.write ?? ((s: string) => process.stderr.write(s))
  const tty = options.tty ?? Boolean(process.stderr.isTTY)
  const fmt = options.unit === 'rows' ? (n: number) => n.toLocaleString('pt-BR') : bytes
  const started = performance.now()
  let current = 0
  let lastDraw = 0
  let finished = false
  const line = () => {
    const elapsed = (performance.now() - started) / 1000
    const rate = current / Math.max(elapsed, 1e-3)
    let s = `${label}: ${fmt(current)}`
    if (total) {
      const pct = Math.min(100, (current / total) * 100)
      const width = 24
      const filled = Math.round((pct / 100) * width)
      s = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct.toFixed(1)}% ${fmt(current)}/${fmt(total)}`
      s += ` ${fmt(rate)}/s ETA ${duration((total - current) / rate)}`
    } else s += ` ${fmt(rate)}/s ${duration(elapsed)}`
    return s
  }
  const draw = (force = false) => {
    if (options.quiet || finished) return
    const now = performance.now()
    if (!force && now - lastDraw < (tty ? 200 : 10_000)) return
    lastDraw = now
    write(tty ? `\r${line()}\x1b[K` : `${line()}\n`)
  }
  return {
    add(n) { current += n; draw() },
    setTotal(t) { total = t },
    done(message) {
      if (options.quiet || finished) return
      const elapsed = (performance.now() - started) / 1000
      finished = true
      write(`${tty ? '\r' : ''}${label}: ${message ?? fmt(current)} em ${duration(elapsed)}${tty ? '\x1b[K' : ''}\n`)
    },
  }
}
