// Dates as the Banco Central writes them, and "today" in Brasília. Brazil has had no daylight
// saving time since 2019, so Brasília is a fixed UTC-3: no time-zone database needed.
const BRASILIA_OFFSET_MS = -3 * 3600_000
const DAY_MS = 86_400_000

/** Calendar fields of an instant in Brasília. */
export function brasilia(ms: number): { ano: number; mes: number; dia: number; hora: number; minuto: number; diaSemana: number } {
  const d = new Date(ms + BRASILIA_OFFSET_MS)
  return { ano: d.getUTCFullYear(), mes: d.getUTCMonth() + 1, dia: d.getUTCDate(), hora: d.getUTCHours(), minuto: d.getUTCMinutes(), diaSemana: d.getUTCDay() }
}

const p2 = (n: number) => String(n).padStart(2, '0')

/** YYYY-MM-DD of an instant, in Brasília. */
export function isoDateBrasilia(ms: number): string {
  const b = brasilia(ms)
  return `${b.ano}-${p2(b.mes)}-${p2(b.dia)}`
}

/** The same instant `days` calendar days earlier (for query windows). */
export function daysBefore(ms: number, days: number): number {
  return ms - days * DAY_MS
}

/** dd/mm/aaaa, as the SGS API takes its window. */
export function sgsDate(ms: number): string {
  const b = brasilia(ms)
  return `${p2(b.dia)}/${p2(b.mes)}/${b.ano}`
}

/** 'MM-DD-YYYY' in single quotes, as the Olinda OData services take dates. */
export function odataDate(ms: number): string {
  const b = brasilia(ms)
  return `'${p2(b.mes)}-${p2(b.dia)}-${b.ano}'`
}

/** dd/mm/yyyy (SGS `data`) to YYYY-MM-DD; null when it is not a real date. */
export function fromBrDate(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value.trim())
  if (!m) return null
  const iso = `${m[3]}-${m[2]}-${m[1]}`
  return validIso(iso) ? iso : null
}

/** Whether YYYY-MM-DD names a real calendar day (no 31/02). */
export function validIso(iso: string): boolean {
  const t = Date.parse(`${iso}T00:00:00Z`)
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === iso
}

const WEEKDAYS = ['domingo', 'segunda-feira', 'terça-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado']

/** The weekday name of a YYYY-MM-DD. */
export function weekday(iso: string): string {
  return WEEKDAYS[new Date(`${iso}T12:00:00Z`).getUTCDay()]!
}

/** dd/mm/aaaa of a YYYY-MM-DD, for messages. */
export function brDate(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`
}
