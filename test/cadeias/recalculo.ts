// An independent recomputation of a chain's reading from its answer alone (`elos` and `regra`),
// written apart from the engine: it checks each link's status against its date and idade_maxima,
// its points against the rule's bands, and the level and direction against the scales. A partial
// link (the rule's incompleto_se, read from the fields the link's detalhe carries) counts for every
// value it may still have: from its value up when that value is a lower bound.
import { expect } from 'bun:test'

type Faixa = { abaixo_de?: number; ate?: number; igual?: string; demais?: true; pontos: number }
type Contrib = { faixas?: Faixa[]; por_periodo?: { meses: number[]; faixas: Faixa[] }[] }

/** The bands of the month; with no reference time (nothing loaded), those of every period. */
const bandsFor = (c: Contrib, month: number | null): Faixa[] => c.faixas ?? (month === null ? c.por_periodo!.flatMap((p) => p.faixas) : c.por_periodo!.find((p) => p.meses.includes(month))!.faixas)

function band(faixas: Faixa[], v: number | string): Faixa | undefined {
  return faixas.find((f) => f.demais || (f.igual !== undefined ? v === f.igual : typeof v === 'number' && (f.abaixo_de !== undefined ? v < f.abaixo_de : v <= f.ate!)))
}

/** Brasília calendar date of an instant. */
const dayOf = (ms: number) => new Date(ms - 3 * 3600_000).toISOString().slice(0, 10)

function tooOld(data: string, idade: { dias?: number; meses?: number; horas?: number }, avaliada: string): boolean {
  const ref = Date.parse(avaliada)
  if (idade.horas !== undefined) {
    const t = data.includes('T') ? Date.parse(data) : Date.parse(`${data}T23:59:59.999-03:00`)
    return (ref - t) / 3_600_000 > idade.horas
  }
  const day = data.includes('T') ? dayOf(Date.parse(data)) : data
  if (idade.meses !== undefined) {
    const [y1, m1] = day.slice(0, 7).split('-').map(Number)
    const [y2, m2] = dayOf(ref).slice(0, 7).split('-').map(Number)
    return y2! * 12 + m2! - (y1! * 12 + m1!) > idade.meses
  }
  return (Date.parse(dayOf(ref)) - Date.parse(day.slice(0, 10))) / 86_400_000 > idade.dias!
}

function word(faixas: { ate?: number; demais?: true; valor: string }[], x: number): number {
  const i = faixas.findIndex((f) => !f.demais && x <= f.ate!)
  return i < 0 ? faixas.length - 1 : i
}

/** Whether a link's value is on incomplete data: a condition of the rule holds on the field its detalhe carries. */
function partial(r: any, e: any): boolean {
  return (r.origem.incompleto_se ?? []).some((c: any) => {
    const v = e.detalhe?.[c.campo]
    return c.igual !== undefined ? v === c.igual : typeof v === 'number' && v < c.abaixo_de
  })
}

export function recalcular(body: any): void {
  const month = body.mes_da_regra as number | null
  const byId = new Map<string, any>(body.elos.map((e: any) => [e.id, e]))
  expect(body.elos.map((e: any) => e.id)).toEqual(body.regra.elos.map((e: any) => e.id))
  // Statuses: a value and a date in time are ok unless a dependency is not.
  for (const r of body.regra.elos) {
    const e = byId.get(r.id)
    if (e.valor === null || e.data === null) {
      expect({ id: e.id, status: e.status }).toEqual({ id: e.id, status: 'ausente' })
      continue
    }
    const old = tooOld(e.data, r.idade_maxima, body.avaliada_em)
    const dependencyBad = (r.depende_de ?? []).some((d: string) => byId.get(d).status !== 'ok')
    const noBand = [r.nivel, r.direcao].some((c: Contrib | undefined) => c && !band(bandsFor(c, month), e.valor))
    const expected = old ? 'defasado' : noBand ? 'ausente' : partial(r, e) ? 'parcial' : dependencyBad ? byId.get(r.depende_de.find((d: string) => byId.get(d).status !== 'ok')).status : 'ok'
    expect({ id: e.id, status: e.status }).toEqual({ id: e.id, status: expected })
  }
  for (const qual of ['nivel', 'direcao'] as const) {
    let min = 0
    let max = 0
    for (const r of body.regra.elos) {
      const c: Contrib | undefined = r[qual]
      const e = byId.get(r.id)
      if (!c) {
        expect(e.pontos[qual]).toBeNull()
        continue
      }
      const faixas = bandsFor(c, month)
      if (e.status === 'ok') {
        const p = band(faixas, e.valor)!.pontos
        expect({ id: e.id, qual, pontos: e.pontos[qual] }).toEqual({ id: e.id, qual, pontos: p })
        min += p
        max += p
      } else {
        expect(e.pontos[qual]).toBeNull()
        // A partial lower bound reaches its own band and every band above it.
        const from = e.status === 'parcial' && r.origem.valor_incompleto === 'minimo' ? faixas.indexOf(band(faixas, e.valor)!) : 0
        const reachable = faixas.slice(from).map((f) => f.pontos)
        min += Math.min(...reachable)
        max += Math.max(...reachable)
      }
    }
    const scale = body.regra[qual].faixas
    const [a, b] = [word(scale, min), word(scale, max)]
    const m = body.leitura[qual]
    expect({ qual, min: m.pontos_min, max: m.pontos_max, pontos: m.pontos, valor: m.valor, possiveis: m.possiveis }).toEqual({
      qual,
      min,
      max,
      pontos: min === max ? min : null,
      valor: a === b ? scale[a].valor : null,
      possiveis: scale.slice(a, b + 1).map((f: any) => f.valor),
    })
  }
  expect(body.leitura.completa).toBe(body.elos.every((e: any) => e.status === 'ok'))
  expect(body.leitura.elos_sem_valor_atual).toEqual(body.elos.filter((e: any) => e.status !== 'ok').map((e: any) => e.id))
}
