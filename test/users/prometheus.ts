// A strict reader of the Prometheus text exposition format (0.0.4), for the tests that scrape
// /metrics: every line must be a HELP, a TYPE or a well-formed sample of a declared metric.

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?(?:[0-9.]+(?:e[+-]?\d+)?|\+Inf|-Inf|NaN))$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y

export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  if (!text.endsWith('\n')) throw new Error('a exposição deve terminar com uma quebra de linha')
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const line of text.slice(0, -1).split('\n')) {
    let m: RegExpExecArray | null
    if ((m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line))) {
      if (types.has(m[1]!)) throw new Error(`TYPE repetido: ${m[1]}`)
      types.set(m[1]!, m[2]!)
      continue
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* \S/.test(line)) continue
    m = SAMPLE.exec(line)
    if (!m) throw new Error(`linha fora do formato: ${line}`)
    const labels: Record<string, string> = {}
    if (m[2]) {
      LABEL.lastIndex = 0
      while (LABEL.lastIndex < m[2].length) {
        const l = LABEL.exec(m[2])
        if (!l) throw new Error(`rótulos fora do formato: ${line}`)
        labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\')
      }
    }
    const name = m[1]!
    const family = name.replace(/_(bucket|sum|count)$/, '')
    if (!types.has(name) && !(types.get(family) === 'histogram')) throw new Error(`amostra sem TYPE: ${name}`)
    samples.push({ name, labels, value: Number(m[3]) })
  }
  return { samples, types }
}

/** The value of the one sample with this name and these labels (0 when absent: counters start there). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} amostras de ${name} ${JSON.stringify(labels)}`)
  return found[0]?.value ?? 0
}
