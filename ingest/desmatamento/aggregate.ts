// Sums of DETER alerts per municipality, biome, day and class, and everything the server answers
// from them, computed once per build: each municipality's answer (since the cut-off, the 30/90/365
// day windows ending on the reference date, classes, biomes, ranks), each microregion's totals,
// the national totals, and the running sums per day that let a ranking over any window be two
// binary searches per municipality.
import { BIOMAS, CLASSES, JANELAS, PRIMEIRO_DIA, type Bioma, type Grupo } from '../../src/datasets/desmatamento/layout'
import { dayOf, isoDay } from './dbf'

const FIRST = dayOf(PRIMEIRO_DIA)
const DAY_SPAN = 16384
const MAX_CLASSES = 64

export interface Soma {
  alertas: number
  area_km2: number
  alertas_desmatamento: number
  area_desmatamento_km2: number
}

export const round4 = (x: number) => Math.round(x * 1e4) / 1e4
const zero = (): Soma => ({ alertas: 0, area_km2: 0, alertas_desmatamento: 0, area_desmatamento_km2: 0 })
const rounded = (s: Soma): Soma => ({ alertas: s.alertas, area_km2: round4(s.area_km2), alertas_desmatamento: s.alertas_desmatamento, area_desmatamento_km2: round4(s.area_desmatamento_km2) })
function addTo(s: Soma, n: number, area: number, desm: boolean) {
  s.alertas += n
  s.area_km2 += area
  if (desm) {
    s.alertas_desmatamento += n
    s.area_desmatamento_km2 += area
  }
}

export const grupoDe = (classe: string): Grupo => CLASSES[classe]?.grupo ?? 'outros'

/** Where the alerts are kept while the files are read: one cell per municipality, biome, day and class. */
export class Agregador {
  /** IBGE code → its index, and what the alert rows say about it (first row seen). */
  readonly municipios = new Map<number, { i: number; uf: string | null; nome: string | null }>()
  readonly codigos: number[] = []
  readonly classes: string[] = []
  private readonly classIdx = new Map<string, number>()
  private readonly cells = new Map<number, number>()
  private readonly counts: number[] = []
  private readonly areas: number[] = []

  add(bioma: Bioma, ibge: number, uf: string | null, nome: () => string | null, day: number, classe: string, area: number): void {
    let m = this.municipios.get(ibge)
    if (!m) {
      m = { i: this.codigos.length, uf, nome: nome() }
      this.municipios.set(ibge, m)
      this.codigos.push(ibge)
    } else if (m.nome === null) m.nome = nome()
    let c = this.classIdx.get(classe)
    if (c === undefined) {
      c = this.classes.length
      if (c >= MAX_CLASSES) throw new Error(`mais de ${MAX_CLASSES} classes de alerta distintas: o arquivo não parece do DETER`)
      this.classIdx.set(classe, c)
      this.classes.push(classe)
    }
    const offset = day - FIRST
    if (offset < 0 || offset >= DAY_SPAN) throw new Error(`data fora do intervalo: ${isoDay(day)}`)
    const key = ((m.i * 2 + (bioma === 'amazonia' ? 0 : 1)) * DAY_SPAN + offset) * MAX_CLASSES + c
    const at = this.cells.get(key)
    if (at === undefined) {
      this.cells.set(key, this.counts.length)
      this.counts.push(1)
      this.areas.push(area)
    } else {
      this.counts[at]!++
      this.areas[at]! += area
    }
  }

  /** Every cell, decoded. */
  *celulas(): Generator<{ muni: number; bioma: Bioma; offset: number; classe: string; n: number; area: number }> {
    for (const [key, at] of this.cells) {
      const c = key % MAX_CLASSES
      const rest = (key - c) / MAX_CLASSES
      const offset = rest % DAY_SPAN
      const mb = (rest - offset) / DAY_SPAN
      yield { muni: mb >> 1, bioma: BIOMAS[mb & 1]!, offset, classe: this.classes[c]!, n: this.counts[at]!, area: this.areas[at]! }
    }
  }
}

export type Escopo = Bioma | 'todos'
export const ESCOPOS: Escopo[] = ['amazonia', 'cerrado', 'todos']

/** One municipality's sums in one scope (a biome or both). */
export interface MuniEscopo {
  desde: Soma
  janelas: Soma[]
  classes: Map<string, { alertas: number; area: number }>
  /** Per day offset: the four sums of that day. */
  dias: Map<number, Soma>
}

export interface Agregados {
  referencia: number
  /** Reference date as a day offset from the first day counted. */
  refOffset: number
  porMunicipio: Map<number, Map<Escopo, MuniEscopo>>
  /** Ranks (1-based) by cleared area since the cut-off, per scope; absent = not ranked (no cleared area). */
  posicoes: Map<Escopo, Map<number, number>>
  /** How many municipalities are ranked per scope. */
  ranqueados: Record<Escopo, number>
}

/** Window [start, end] (day offsets) of the last `dias` days up to the reference, clipped at the cut-off. */
export function janela(refOffset: number, dias: number): [number, number] {
  return [Math.max(0, refOffset - dias + 1), refOffset]
}

export function agregar(a: Agregador): Agregados {
  let refOffset = -1
  for (const cell of a.celulas()) refOffset = Math.max(refOffset, cell.offset)
  if (refOffset < 0) throw new Error('nenhum alerta desde o corte')
  const windows = JANELAS.map((d) => janela(refOffset, d))
  const porMunicipio = new Map<number, Map<Escopo, MuniEscopo>>()
  for (const cell of a.celulas()) {
    const ibge = a.codigos[cell.muni]!
    let scopes = porMunicipio.get(ibge)
    if (!scopes) porMunicipio.set(ibge, (scopes = new Map()))
    const desm = grupoDe(cell.classe) === 'desmatamento'
    for (const scope of [cell.bioma, 'todos'] as Escopo[]) {
      let s = scopes.get(scope)
      if (!s) scopes.set(scope, (s = { desde: zero(), janelas: JANELAS.map(zero), classes: new Map(), dias: new Map() }))
      addTo(s.desde, cell.n, cell.area, desm)
      windows.forEach(([from, to], i) => {
        if (cell.offset >= from && cell.offset <= to) addTo(s!.janelas[i]!, cell.n, cell.area, desm)
      })
      const k = s.classes.get(cell.classe) ?? { alertas: 0, area: 0 }
      k.alertas += cell.n
      k.area += cell.area
      s.classes.set(cell.classe, k)
      let d = s.dias.get(cell.offset)
      if (!d) s.dias.set(cell.offset, (d = zero()))
      addTo(d, cell.n, cell.area, desm)
    }
  }
  const posicoes = new Map<Escopo, Map<number, number>>()
  const ranqueados = {} as Record<Escopo, number>
  for (const scope of ESCOPOS) {
    const list = [...porMunicipio]
      .map(([ibge, scopes]) => ({ ibge, s: scopes.get(scope)?.desde }))
      .filter((x): x is { ibge: number; s: Soma } => !!x.s && round4(x.s.area_desmatamento_km2) > 0)
      .sort((x, y) => ordem(x.s, y.s) || x.ibge - y.ibge)
    posicoes.set(scope, new Map(list.map((x, i) => [x.ibge, i + 1])))
    ranqueados[scope] = list.length
  }
  return { referencia: FIRST + refOffset, refOffset, porMunicipio, posicoes, ranqueados }
}

/** The ranking order: cleared area, then all alert area, both descending (rounded as shown). */
export function ordem(a: Soma, b: Soma): number {
  return round4(b.area_desmatamento_km2) - round4(a.area_desmatamento_km2) || round4(b.area_km2) - round4(a.area_km2)
}

export function periodo(fromOffset: number, toOffset: number) {
  return { inicio: isoDay(FIRST + fromOffset), fim: isoDay(FIRST + toOffset) }
}

/** `desde_corte` and `janelas` of an answer, from a scope's sums (zeros when absent). */
export function somasJson(s: { desde: Soma; janelas: Soma[] } | undefined, refOffset: number) {
  const janelas: Record<string, unknown> = {}
  JANELAS.forEach((d, i) => {
    const [from, to] = janela(refOffset, d)
    janelas[`ultimos_${d}_dias`] = { ...periodo(from, to), ...rounded(s?.janelas[i] ?? zero()) }
  })
  return { desde_corte: { ...periodo(0, refOffset), ...rounded(s?.desde ?? zero()) }, janelas }
}

export function somaZero(): Soma {
  return zero()
}

export function somar(into: Soma, s: Soma): void {
  into.alertas += s.alertas
  into.area_km2 += s.area_km2
  into.alertas_desmatamento += s.alertas_desmatamento
  into.area_desmatamento_km2 += s.area_desmatamento_km2
}

export { rounded as arredondada }

/** A scope's per-day sums as the series blobs: sorted day offsets (Int32) and running sums (4 Float64 per day). */
export function serie(s: MuniEscopo): { dias: Uint8Array; somas: Uint8Array } {
  const days = [...s.dias.keys()].sort((x, y) => x - y)
  const dias = new Int32Array(days)
  const somas = new Float64Array(days.length * 4)
  const run = zero()
  days.forEach((d, i) => {
    somar(run, s.dias.get(d)!)
    somas.set([run.alertas, run.area_km2, run.alertas_desmatamento, run.area_desmatamento_km2], i * 4)
  })
  return { dias: new Uint8Array(dias.buffer), somas: new Uint8Array(somas.buffer) }
}
