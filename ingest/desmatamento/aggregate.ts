// Sums of DETER alerts per municipality, biome, day and class, and everything the server answers
// from them, computed once per build: each municipality's answer (since the cut-off, the 30/90/365
// day windows ending on the reference date, classes, biomes, ranks), each microregion's totals,
// the national totals, and every ranking the route can be asked (any window of 1 to 2000 days).
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

/** A stored ranking: its size and its best rows (see layout.ts RANKING_* for the row layouts). */
export interface RankingPronto {
  grupo: Escopo
  por: 'municipio' | 'uf'
  /** Window in days up to the reference; 0 = since the cut-off. */
  dias: number
  total: number
  itens: Float64Array
}

/**
 * Every ranking the route can be asked, computed once: per scope, for each window of 1 to `maxDias`
 * days (and since the cut-off), the municipalities and the states by cleared area. The windows are
 * grown a day at a time (each step adds that day's sums), so the whole set costs about one pass
 * over the municipalities per window.
 */
export function* rankingsProntos(ag: Agregados, ufDe: (ibge: number) => number, maxDias: number, k: number): Generator<RankingPronto> {
  for (const grupo of ESCOPOS) {
    const munis = [...ag.porMunicipio].filter(([, s]) => s.has(grupo)).map(([ibge]) => ibge).sort((a, b) => a - b)
    const n = munis.length
    const ufOf = Int32Array.from(munis, ufDe)
    const porDia = new Map<number, { m: number; s: Soma }[]>()
    munis.forEach((ibge, m) => {
      for (const [day, s] of ag.porMunicipio.get(ibge)!.get(grupo)!.dias) {
        const list = porDia.get(day) ?? []
        list.push({ m, s })
        porDia.set(day, list)
      }
    })
    const sums = new Float64Array(n * 4)
    const ufSums = new Float64Array(256 * 4)
    const ufMunis = new Int32Array(256)
    const addDay = (day: number) => {
      for (const { m, s } of porDia.get(day) ?? []) {
        if (sums[m * 4] === 0 && s.alertas > 0) ufMunis[ufOf[m]!]!++
        const add = [s.alertas, s.area_km2, s.alertas_desmatamento, s.area_desmatamento_km2]
        for (let j = 0; j < 4; j++) {
          sums[m * 4 + j]! += add[j]!
          ufSums[ufOf[m]! * 4 + j]! += add[j]!
        }
      }
    }
    const emit = (dias: number): RankingPronto[] => {
      // Municipalities: the k best by (cleared area, all area) rounded as shown, then IBGE code.
      const top: number[] = []
      let total = 0
      const better = (a: number, b: number) => {
        const da = round4(sums[a * 4 + 3]!), db = round4(sums[b * 4 + 3]!)
        if (da !== db) return da > db
        const aa = round4(sums[a * 4 + 1]!), ab = round4(sums[b * 4 + 1]!)
        return aa !== ab ? aa > ab : a < b
      }
      for (let m = 0; m < n; m++) {
        if (round4(sums[m * 4 + 3]!) <= 0) continue
        total++
        if (top.length === k && !better(m, top[k - 1]!)) continue
        let at = top.length
        while (at > 0 && better(m, top[at - 1]!)) at--
        top.splice(at, 0, m)
        if (top.length > k) top.pop()
      }
      const mun = new Float64Array(top.length * 5)
      top.forEach((m, i) => mun.set([munis[m]!, sums[m * 4]!, sums[m * 4 + 1]!, sums[m * 4 + 2]!, sums[m * 4 + 3]!], i * 5))
      // States: all of them with cleared area (at most 27).
      const ufs: number[] = []
      for (let u = 0; u < 256; u++) if (round4(ufSums[u * 4 + 3]!) > 0) ufs.push(u)
      ufs.sort((a, b) => round4(ufSums[b * 4 + 3]!) - round4(ufSums[a * 4 + 3]!) || round4(ufSums[b * 4 + 1]!) - round4(ufSums[a * 4 + 1]!) || a - b)
      const uf = new Float64Array(ufs.length * 6)
      ufs.forEach((u, i) => uf.set([u, ufMunis[u]!, ufSums[u * 4]!, ufSums[u * 4 + 1]!, ufSums[u * 4 + 2]!, ufSums[u * 4 + 3]!], i * 6))
      return [
        { grupo, por: 'municipio', dias, total, itens: mun },
        { grupo, por: 'uf', dias, total: ufs.length, itens: uf },
      ]
    }
    for (let d = 1; d <= maxDias; d++) {
      const day = ag.refOffset - d + 1
      if (day >= 0) addDay(day)
      yield* emit(d)
    }
    for (let day = ag.refOffset - maxDias; day >= 0; day--) addDay(day)
    yield* emit(0)
  }
}
