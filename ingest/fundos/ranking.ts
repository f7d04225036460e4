// The rankings, computed once per build so a call reads a stored list (no sort per request):
// by latest net assets and by shareholders, one list per CVM classification (and one over all);
// by net inflow, one list per classification and per window start (each trading day up to the
// consolidated one), since the order depends on the window. The classes that appear in any list
// keep their flows as prefix sums, so the flows over any window cost two reads per class.
import { RANKING_SIZE, RANKING_STALE_DAYS, type ClasseCorpo } from '../../src/datasets/fundos/layout'
import type { Cadastro } from './cadastro'
import { isCancelled } from './cadastro'
import type { ClassDaily, DailyResult } from './daily'

/** The key of the list over every classification. */
export const TODAS = '*'

export interface RankingList {
  por: 'patrimonio' | 'cotistas' | 'captacao'
  classificacao: string
  /** Window start (trading-day index) for captacao; -1 otherwise. */
  inicio: number
  /** Class ids (indexes into RankingResult.classes), best first. */
  classes: number[]
}

export interface RankedClass {
  corpo: ClasseCorpo
  /** cum captacao[0..T], then cum resgates[0..T]. */
  fluxos: Float64Array
}

export interface RankingResult {
  lists: RankingList[]
  classes: RankedClass[]
  /** Classifications with an eligible class, largest total net assets first. */
  classificacoes: string[]
}

/** The k largest by score (ties: smaller CNPJ first), kept in a small sorted array. */
class TopK {
  readonly items: { score: number; cnpj: string; c: number }[] = []
  constructor(private readonly k: number) {}
  offer(score: number, cnpj: string, c: number) {
    const items = this.items
    if (items.length === this.k) {
      const last = items[items.length - 1]!
      if (score < last.score || (score === last.score && cnpj > last.cnpj)) return
    }
    let i = items.length
    while (i > 0 && (items[i - 1]!.score < score || (items[i - 1]!.score === score && items[i - 1]!.cnpj > cnpj))) i--
    items.splice(i, 0, { score, cnpj, c })
    if (items.length > this.k) items.pop()
  }
}

const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000)

export function computeRankings(daily: DailyResult, consolidated: number, cadastro: Cadastro): RankingResult {
  const T = consolidated
  const lastDate = daily.dates[T]!
  // Every value is as of the consolidated day, where the windows and fonte.referencia end: a class's
  // report on a later, partial day is not ranked nor shown (c.consolidado, not c.latest).
  // Eligible: reported within RANKING_STALE_DAYS of the consolidated day (not after a gap), not cancelled.
  const eligible: ClassDaily[] = daily.classes.filter((c) => {
    if (!c.consolidado) return false
    const age = daysBetween(daily.dates[c.consolidado.day]!, lastDate)
    return age <= RANKING_STALE_DAYS && !isCancelled(cadastro.identity(c.cnpj).situacao)
  })
  const groupsOf = (c: ClassDaily) => [TODAS, c.traits.classificacao]

  const lists: RankingList[] = []
  const byValue = (por: 'patrimonio' | 'cotistas', value: (c: ClassDaily) => number | null) => {
    const tops = new Map<string, TopK>()
    eligible.forEach((c, i) => {
      const v = value(c)
      if (v === null) return
      for (const g of groupsOf(c)) {
        let top = tops.get(g)
        if (!top) tops.set(g, (top = new TopK(RANKING_SIZE)))
        top.offer(v, c.cnpj, i)
      }
    })
    for (const [g, top] of tops) lists.push({ por, classificacao: g, inicio: -1, classes: top.items.map((x) => x.c) })
  }
  byValue('patrimonio', (c) => c.consolidado!.pl)
  byValue('cotistas', (c) => c.consolidado!.cotistas)

  // Net inflow over [s, T] for every start s, walking s down from T and adding each day's flows.
  const net = new Float64Array(eligible.length)
  const moving = new Set<number>()
  const flowsAt: number[][] = Array.from({ length: T + 1 }, () => [])
  eligible.forEach((c, i) => c.flowDays.forEach((t, k) => t <= T && flowsAt[t]!.push(i, k)))
  for (let s = T; s >= 0; s--) {
    const at = flowsAt[s]!
    for (let j = 0; j < at.length; j += 2) {
      const i = at[j]!
      const k = at[j + 1]!
      net[i] = net[i]! + eligible[i]!.captacao[k]! - eligible[i]!.resgates[k]!
      moving.add(i)
    }
    const tops = new Map<string, TopK>()
    // Only classes with a flow in the window compete (a class without movement is not ranked by inflow).
    for (const i of moving) {
      for (const g of groupsOf(eligible[i]!)) {
        let top = tops.get(g)
        if (!top) tops.set(g, (top = new TopK(RANKING_SIZE)))
        top.offer(net[i]!, eligible[i]!.cnpj, i)
      }
    }
    for (const [g, top] of tops) lists.push({ por: 'captacao', classificacao: g, inicio: s, classes: top.items.map((x) => x.c) })
  }

  // The classes in any list, renumbered, with their prefix sums.
  const ids = new Map<number, number>()
  const classes: RankedClass[] = []
  for (const list of lists) {
    list.classes = list.classes.map((i) => {
      let id = ids.get(i)
      if (id === undefined) {
        id = classes.length
        ids.set(i, id)
        const c = eligible[i]!
        const who = cadastro.identity(c.cnpj)
        const fluxos = new Float64Array(2 * (T + 1))
        c.flowDays.forEach((t, k) => {
          if (t > T) return
          fluxos[t] = fluxos[t]! + c.captacao[k]!
          fluxos[T + 1 + t] = fluxos[T + 1 + t]! + c.resgates[k]!
        })
        for (let t = 1; t <= T; t++) {
          fluxos[t] = fluxos[t]! + fluxos[t - 1]!
          fluxos[T + 1 + t] = fluxos[T + 1 + t]! + fluxos[T + t]!
        }
        classes.push({
          corpo: {
            cnpj: c.cnpj, nome: who.nome, fundo: who.fundo, gestor: who.gestor, classificacao: c.traits.classificacao,
            cotas_de_fundos: c.traits.cotasDeFundos, data: daily.dates[c.consolidado!.day]!, cota: c.consolidado!.cota,
            patrimonio_liquido: c.consolidado!.pl, cotistas: c.consolidado!.cotistas,
          },
          fluxos,
        })
      }
      return id
    })
  }

  const plByGroup = new Map<string, number>()
  for (const c of eligible) plByGroup.set(c.traits.classificacao, (plByGroup.get(c.traits.classificacao) ?? 0) + (c.consolidado!.pl ?? 0))
  const classificacoes = [...plByGroup].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([g]) => g)
  return { lists, classes, classificacoes }
}
