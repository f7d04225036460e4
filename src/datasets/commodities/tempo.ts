// Calendar days in Brasília (fixed UTC-3 since 2019) as YYYY-MM-DD strings, and day arithmetic.
export { isoDateBrasilia, validIso } from '../mercado/tempo'

const DAY_MS = 86_400_000

/** YYYY-MM-DD plus `days` (negative: before). */
export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/** YYYYMMDD of a YYYY-MM-DD (file names). */
export const compact = (iso: string) => iso.replaceAll('-', '')

export const round = (x: number, digits: number) => {
  const f = 10 ** digits
  return Math.round(x * f) / f
}
