// Calendar arithmetic of the chains, in Brasília (fixed UTC-3 since 2019): days, months, and the
// instant a dated value was known at the latest (the end of its day or month).
import { addDays, isoDateBrasilia, round } from '../commodities/tempo'
import { validIso } from '../mercado/tempo'

export { addDays, isoDateBrasilia, round, validIso }

const DAY_MS = 86_400_000

/** YYYY-MM of an instant, in Brasília. */
export const isoMonthBrasilia = (ms: number) => isoDateBrasilia(ms).slice(0, 7)

/** YYYY-MM plus `months` (negative: before). */
export function addMonths(month: string, months: number): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + months
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`
}

/** Whole months from `from` to `to` (YYYY-MM each). */
export const monthsBetween = (from: string, to: string) => Number(to.slice(0, 4)) * 12 + Number(to.slice(5, 7)) - (Number(from.slice(0, 4)) * 12 + Number(from.slice(5, 7)))

/** Calendar days from `from` to `to` (YYYY-MM-DD each). */
export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS)

export const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/
export const ISO_MONTH = /^\d{4}-(0[1-9]|1[0-2])$/
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/

/**
 * The latest instant at which a dated value can have been known, for the chain's reference time:
 * an instant is itself; a day (Brasília) ends at 23:59:59.999 -03:00; a month at the end of its last day.
 */
export function instantOf(date: string): number | null {
  if (ISO_INSTANT.test(date)) {
    const t = Date.parse(date)
    return Number.isFinite(t) ? t : null
  }
  if (ISO_DAY.test(date) && validIso(date)) return Date.parse(`${date}T23:59:59.999-03:00`)
  if (ISO_MONTH.test(date)) return Date.parse(`${addMonths(date, 1)}-01T00:00:00-03:00`) - 1
  return null
}
