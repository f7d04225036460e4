// Upstream bodies are read as text first, so a garbage answer (an HTML error page with status 200,
// a cut body) fails with a message that says what came instead of a bare JSON.parse error.
export async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch {
    const start = text.slice(0, 60).replace(/\s+/g, ' ').trim()
    throw new Error(`${what}: resposta não é JSON${start ? ` (começa com "${start}")` : ' (corpo vazio)'}`)
  }
}

/** A number from an upstream field that may come as a number or as a decimal string with a dot ("13.75"). */
export function decimal(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value.trim())) return null
  return Number(value.trim())
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
