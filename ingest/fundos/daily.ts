// The daily reports (inf_diario_fi_YYYYMM.csv): one row per class (or subclass) and day with its
// quota, net assets, subscriptions, redemptions and shareholders. Read month by month, oldest
// first, into what the routes need and nothing more (about 8 M rows a year; no row is kept):
//  - per trading day and CVM classification: flows, net assets, classes reporting;
//  - per class: its latest report, and its flows on the days they were not zero;
//  - per trading day: how many classes reported (which day is consolidated).
// A class reports either as a whole (ID_SUBCLASSE blank) or per subclass; on a day with both, the
// class's own row counts and its subclass rows are not added again (docs/fundos.md).
import { columnIndex, HeaderError, type ColumnSpec } from '../../src/core/text/header'
import { cnpjDigits, SourceError } from './files'

const DAILY_COLUMNS = {
  tipo: ['TP_FUNDO_CLASSE', 'TP_FUNDO'],
  cnpj: ['CNPJ_FUNDO_CLASSE', 'CNPJ_FUNDO'],
  subclasse: 'ID_SUBCLASSE',
  data: 'DT_COMPTC',
  total: 'VL_TOTAL',
  cota: 'VL_QUOTA',
  pl: 'VL_PATRIM_LIQ',
  captacao: 'CAPTC_DIA',
  resgate: 'RESG_DIA',
  cotistas: 'NR_COTST',
} satisfies ColumnSpec
/** Files before 2021 lack TP_FUNDO; before RCVM 175, ID_SUBCLASSE. */
const DAILY_OPTIONAL = ['tipo', 'subclasse', 'total'] as const

export type DailyLayout = 'rcvm175' | 'legado'

/** Which header a daily file has: RCVM 175 (TP_FUNDO_CLASSE, CNPJ_FUNDO_CLASSE, ID_SUBCLASSE) or the one before. */
export function dailyLayout(header: string[]): { layout: DailyLayout; index: Record<keyof typeof DAILY_COLUMNS, number> } {
  let index
  try {
    index = columnIndex(header, DAILY_COLUMNS, DAILY_OPTIONAL)
  } catch (err) {
    throw new SourceError(`cabeçalho do informe diário não reconhecido (${err instanceof HeaderError ? err.message : err}); o layout mudou? confira SOURCES.md §5`)
  }
  const upper = header.map((h) => h.trim().toUpperCase())
  return { layout: upper.includes('CNPJ_FUNDO_CLASSE') ? 'rcvm175' : 'legado', index }
}

/** What the aggregator needs to know of a class from the registry. */
export interface ClassTraits {
  classificacao: string
  cotasDeFundos: boolean
}

export interface Latest {
  /** Index into DailyResult.dates of the latest report. */
  day: number
  cota: number | null
  pl: number | null
  cotistas: number | null
}

export interface ClassDaily {
  cnpj: string
  /** TP_FUNDO_CLASSE / TP_FUNDO as last published (FI, CLASSES - FIF, FUNDO DE INDICE...). */
  tipo: string | null
  traits: ClassTraits
  latest: Latest | null
  /** The latest report on or before the consolidated day (the rankings' cut: every value of a window as of its end). */
  consolidado: Latest | null
  subclasses: { id: string; latest: Latest | null }[]
  /** Trading-day indexes with a non-zero flow, and the flows (class-level, subclasses folded in). */
  flowDays: number[]
  captacao: number[]
  resgates: number[]
}

export interface DailyResult {
  /** Trading days (days any class reported), oldest first. */
  dates: string[]
  /** Classes reporting on each trading day. */
  reporting: number[]
  /** Classification labels; group index = position. */
  groups: string[]
  /** Per trading day, per group: [pl, captacao, resgates, classes] (fund-of-funds classes left out: layout.ts). */
  byGroup: Float64Array[]
  classes: ClassDaily[]
}

export interface Reject {
  arquivo: string
  linha: number
  motivo: string
}

/** NaN for a blank or malformed number: CVM numbers are dot-decimal and never text (`Sem informação` does not occur here). */
const num = (s: string | undefined) => (s === undefined || s === '' ? NaN : +s)
const orNull = (n: number) => (Number.isNaN(n) ? null : n)
const orZero = (n: number) => (Number.isNaN(n) ? 0 : n)

const DAY_FIELDS = 5 // pl, captacao, resgates, cota, cotistas

interface Entity {
  cls: number
  sub: string | null
  latestDay: number
  cota: number
  pl: number
  cotistas: number
  /** The latest report before this month (trading-day index, -1 none), kept when the month's first row arrives. */
  before: { day: number; cota: number; pl: number; cotistas: number }
  /** The latest report on or before the last consolidated day seen so far (trading-day index, -1 none). */
  asOf: { day: number; cota: number; pl: number; cotistas: number }
  /** This month's days reported (bit d-1) and values. */
  present: number
  cells: Float64Array | null
}

/**
 * Folds the months of daily reports, oldest first. `traits` is asked once per class (its CVM
 * classification and whether it is a fund of funds); `excludeFic` leaves fund-of-funds classes
 * out of the per-classification sums.
 */
export class DailyAggregator {
  private readonly entities: Entity[] = []
  private readonly entityByKey = new Map<string, number>()
  private readonly classByCnpj = new Map<string, number>()
  private readonly classes: (ClassDaily & { own: number; subs: number[] })[] = []
  private readonly groupIndex = new Map<string, number>()
  readonly groups: string[] = []
  readonly dates: string[] = []
  readonly reporting: number[] = []
  readonly byGroup: Float64Array[] = []
  private touched: number[] = []
  private month = ''
  private monthDays = 0
  /** Trading-day index of each day of the month (-1 when nobody reported). */
  private lastMonth = ''
  rejects: Reject[] = []
  rejected = 0

  constructor(
    private readonly traits: (cnpj: string) => ClassTraits,
    private readonly excludeFic: boolean,
  ) {}

  private group(label: string): number {
    let g = this.groupIndex.get(label)
    if (g === undefined) {
      g = this.groups.length
      this.groups.push(label)
      this.groupIndex.set(label, g)
    }
    return g
  }

  private reject(arquivo: string, linha: number, motivo: string) {
    this.rejected++
    if (this.rejects.length < 20) this.rejects.push({ arquivo, linha, motivo })
  }

  private classOf(cnpj: string, tipo: string | null): number {
    let c = this.classByCnpj.get(cnpj)
    if (c === undefined) {
      c = this.classes.length
      const traits = this.traits(cnpj)
      this.group(traits.classificacao)
      this.classes.push({ cnpj, tipo, traits, latest: null, consolidado: null, subclasses: [], flowDays: [], captacao: [], resgates: [], own: -1, subs: [] })
      this.classByCnpj.set(cnpj, c)
    } else if (tipo) this.classes[c]!.tipo = tipo
    return c
  }

  private entityOf(cnpjRaw: string, sub: string, tipo: string): number {
    const key = sub ? `${cnpjRaw}\u0001${sub}` : cnpjRaw
    let e = this.entityByKey.get(key)
    if (e !== undefined) return e
    const digits = cnpjDigits(cnpjRaw)
    if (!digits) return -1
    const cls = this.classOf(digits, tipo || null)
    e = this.entities.length
    const none = () => ({ day: -1, cota: NaN, pl: NaN, cotistas: NaN })
    this.entities.push({ cls, sub: sub || null, latestDay: -1, cota: NaN, pl: NaN, cotistas: NaN, before: none(), asOf: none(), present: 0, cells: null })
    const owner = this.classes[cls]!
    if (sub) owner.subs.push(e)
    else owner.own = e
    this.entityByKey.set(key, e)
    return e
  }

  /** Reads one month's rows (header first). `month` is the file's YYYY-MM; rows of other months are rejected. */
  async addMonth(month: string, file: string, rows: AsyncIterable<string[]>): Promise<{ layout: DailyLayout; kept: number; dropped: number }> {
    if (this.lastMonth && month <= this.lastMonth) throw new Error(`meses fora de ordem: ${month} depois de ${this.lastMonth}`)
    this.lastMonth = month
    this.month = month
    this.monthDays = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate()
    const prefix = `${month}-`
    const iterator = rows[Symbol.asyncIterator]()
    const first = await iterator.next()
    if (first.done) throw new SourceError(`${file} está vazio`)
    const { layout, index } = dailyLayout(first.value)
    const { tipo: iTipo, cnpj: iCnpj, subclasse: iSub, data: iData, cota: iCota, pl: iPl, captacao: iCap, resgate: iRes, cotistas: iCot } = index
    let kept = 0
    let dropped = 0
    let line = 1
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
      line++
      const row = r.value
      const e = this.entityOf(row[iCnpj] ?? '', iSub >= 0 ? (row[iSub] ?? '').trim() : '', iTipo >= 0 ? (row[iTipo] ?? '').trim() : '')
      if (e < 0) {
        dropped++
        this.reject(file, line, `CNPJ inválido: ${JSON.stringify((row[iCnpj] ?? '').slice(0, 30))}`)
        continue
      }
      const date = row[iData] ?? ''
      const d = date.length === 10 && date.startsWith(prefix) ? Number(date.slice(8)) : NaN
      if (!(d >= 1 && d <= this.monthDays)) {
        dropped++
        this.reject(file, line, `DT_COMPTC ${JSON.stringify(date.slice(0, 20))} fora de ${month}`)
        continue
      }
      const ent = this.entities[e]!
      if (ent.present === 0) {
        ent.cells ??= new Float64Array(31 * DAY_FIELDS)
        this.touched.push(e)
        // Before this month's rows, latestDay is an earlier month's (encoded -2 - t) or none.
        ent.before = { day: ent.latestDay <= -2 ? -2 - ent.latestDay : -1, cota: ent.cota, pl: ent.pl, cotistas: ent.cotistas }
      }
      ent.present |= 1 << (d - 1)
      const at = (d - 1) * DAY_FIELDS
      const cells = ent.cells!
      const pl = num(row[iPl])
      const cota = num(row[iCota])
      const cotistas = num(row[iCot])
      cells[at] = pl
      cells[at + 1] = num(row[iCap])
      cells[at + 2] = num(row[iRes])
      cells[at + 3] = cota
      cells[at + 4] = cotistas
      // The day number within the whole run orders "latest" across months.
      const dayKey = this.dates.length * 64 + d
      if (dayKey >= ent.latestDay) {
        ent.latestDay = dayKey
        ent.cota = cota
        ent.pl = pl
        ent.cotistas = cotistas
      }
      kept++
    }
    this.closeMonth()
    return { layout, kept, dropped }
  }

  /** The month's days, in order, become trading days; each class's day is its own row or its subclasses' sum. */
  private closeMonth() {
    const firstIndex = this.dates.length
    const dayIndex = new Int32Array(32).fill(-1)
    let present = 0
    for (const e of this.touched) present |= this.entities[e]!.present
    for (let d = 1; d <= this.monthDays; d++) {
      if (!(present & (1 << (d - 1)))) continue
      dayIndex[d] = this.dates.length
      this.dates.push(`${this.month}-${String(d).padStart(2, '0')}`)
      this.reporting.push(0)
      this.byGroup.push(new Float64Array(0))
    }
    const classesTouched = new Set<number>()
    for (const e of this.touched) classesTouched.add(this.entities[e]!.cls)
    const width = () => this.groups.length * 4
    for (let t = firstIndex; t < this.dates.length; t++) this.byGroup[t] = new Float64Array(width())
    for (const c of classesTouched) {
      const cls = this.classes[c]!
      const own = cls.own >= 0 ? this.entities[cls.own]! : null
      const g = this.groupIndex.get(cls.traits.classificacao)!
      const counted = !(this.excludeFic && cls.traits.cotasDeFundos)
      for (let d = 1; d <= this.monthDays; d++) {
        const t = dayIndex[d]!
        if (t < 0) continue
        const bit = 1 << (d - 1)
        const at = (d - 1) * DAY_FIELDS
        let pl = 0
        let cap = 0
        let res = 0
        let reported = false
        if (own && own.present & bit) {
          reported = true
          pl = orZero(own.cells![at]!)
          cap = orZero(own.cells![at + 1]!)
          res = orZero(own.cells![at + 2]!)
        } else {
          for (const s of cls.subs) {
            const sub = this.entities[s]!
            if (!(sub.present & bit)) continue
            reported = true
            pl += orZero(sub.cells![at]!)
            cap += orZero(sub.cells![at + 1]!)
            res += orZero(sub.cells![at + 2]!)
          }
        }
        if (!reported) continue
        this.reporting[t] = this.reporting[t]! + 1
        if (counted) {
          const row = this.byGroup[t]!
          row[g * 4] = row[g * 4]! + pl
          row[g * 4 + 1] = row[g * 4 + 1]! + cap
          row[g * 4 + 2] = row[g * 4 + 2]! + res
          row[g * 4 + 3] = row[g * 4 + 3]! + 1
        }
        if (cap !== 0 || res !== 0) {
          cls.flowDays.push(t)
          cls.captacao.push(cap)
          cls.resgates.push(res)
        }
      }
    }
    // Whether a day is consolidated depends only on the days before it, so it is settled now: the
    // month's last consolidated day moves every entity's report "as of the consolidated day" to the
    // latest one on or before it (a later, partial day's report never becomes a ranking's value).
    let q = -1
    for (let t = this.dates.length - 1; t >= firstIndex && q < 0; t--) if (isConsolidated(this.reporting, t)) q = t
    if (q >= 0) {
      const touched = new Set(this.touched)
      this.entities.forEach((ent, e) => {
        if (!touched.has(e)) {
          if (ent.latestDay <= -2) ent.asOf = { day: -2 - ent.latestDay, cota: ent.cota, pl: ent.pl, cotistas: ent.cotistas }
          return
        }
        for (let d = this.monthDays; d >= 1; d--) {
          const t = dayIndex[d]!
          if (!(ent.present & (1 << (d - 1))) || t > q) continue
          const at = (d - 1) * DAY_FIELDS
          ent.asOf = { day: t, cota: ent.cells![at + 3]!, pl: ent.cells![at]!, cotistas: ent.cells![at + 4]! }
          return
        }
        ent.asOf = { ...ent.before }
      })
    }
    // Latest day keys become trading-day indexes; month cells are released.
    for (const e of this.touched) {
      const ent = this.entities[e]!
      if (ent.latestDay >= firstIndex * 64) ent.latestDay = -2 - dayIndex[ent.latestDay % 64]! // encoded: -2 - t
      ent.present = 0
    }
    this.touched = []
  }

  result(): DailyResult {
    const latestOf = (ent: Entity): Latest | null => {
      if (ent.latestDay > -2) return null
      return { day: -2 - ent.latestDay, cota: orNull(ent.cota), pl: orNull(ent.pl), cotistas: orNull(ent.cotistas) }
    }
    const asOfOf = (ent: Entity): Latest | null => (ent.asOf.day < 0 ? null : { day: ent.asOf.day, cota: orNull(ent.asOf.cota), pl: orNull(ent.asOf.pl), cotistas: orNull(ent.asOf.cotistas) })
    // Widths grew as groups appeared in later months: pad the earlier days.
    const width = this.groups.length * 4
    const byGroup = this.byGroup.map((row) => {
      if (row.length === width) return row
      const wide = new Float64Array(width)
      wide.set(row)
      return wide
    })
    const classes: ClassDaily[] = this.classes.map((cls) => {
      const subclasses = cls.subs.map((s) => ({ id: this.entities[s]!.sub!, latest: latestOf(this.entities[s]!) }))
      const ofClass = (of: (ent: Entity) => Latest | null) => classReport(cls.own >= 0 ? of(this.entities[cls.own]!) : null, cls.subs.map((s) => of(this.entities[s]!)))
      return {
        cnpj: cls.cnpj, tipo: cls.tipo, traits: cls.traits, latest: ofClass(latestOf), consolidado: ofClass(asOfOf), subclasses,
        flowDays: cls.flowDays, captacao: cls.captacao, resgates: cls.resgates,
      }
    })
    return { dates: this.dates, reporting: this.reporting, groups: this.groups, byGroup, classes }
  }
}

/**
 * A class's report on a day from its own row and its subclasses': a class that reports only per
 * subclass has its subclasses' latest day, with their net assets and shareholders summed, and no
 * single quota.
 */
function classReport(own: Latest | null, subs: (Latest | null)[]): Latest | null {
  const subDay = Math.max(-1, ...subs.map((s) => s?.day ?? -1))
  if (subDay <= (own?.day ?? -1)) return own
  const onDay = subs.filter((s): s is Latest => s?.day === subDay)
  const sum = (f: 'pl' | 'cotistas') => (onDay.some((l) => l[f] !== null) ? onDay.reduce((n, l) => n + (l[f] ?? 0), 0) : null)
  return { day: subDay, cota: null, pl: sum('pl'), cotistas: sum('cotistas') }
}

/**
 * Whether trading day t is consolidated: at least 80 % of the usual number of classes (the median
 * of the 20 trading days before it) reported; the first day is. It depends only on the days before.
 */
export function isConsolidated(reporting: number[], t: number): boolean {
  const before = reporting.slice(Math.max(0, t - 20), t)
  if (before.length === 0) return true
  const sorted = [...before].sort((a, b) => a - b)
  return reporting[t]! >= 0.8 * sorted[Math.floor(sorted.length / 2)]!
}

/**
 * The latest consolidated trading day. The CVM rewrites the current month's file as late reports
 * arrive, so its last days hold only part of the industry.
 */
export function consolidatedDay(reporting: number[]): number {
  for (let t = reporting.length - 1; t >= 0; t--) if (isConsolidated(reporting, t)) return t
  return reporting.length - 1
}
