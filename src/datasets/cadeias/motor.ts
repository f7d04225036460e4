// The engine of the causal chains: reads each link from its source as its rule says, judges its
// age against the chain's reference time, turns its value into points by the rule's bands, and the
// sums into words by the rule's scales. It knows no chain: everything chain-specific is in regras/.
//
// Reference time (avaliada_em): the newest instant any of the chain's inputs was known (a copy's
// consultado_em; the end of an ingested day or month), never later than now. The reading is what
// the inputs said then: the same copies give the same reading, whoever asks and when; how old it
// is now is in `fonte` (defasagem_segundos, status), as for every polled source.
//
// Degradation: a link is `ok` when it has a value dated within its idade_maxima of avaliada_em;
// `defasado` when older (its value is shown, not used); `parcial` when its value was computed on
// incomplete data (the rule's incompleto_se: a 30-day rain sum over 7 observed days, a dry spell that
// reaches the edge of the observed window); `ausente` when there is none (or its value has no band in
// the rule). A link that depends on another that is not ok is not ok either. A link not ok counts as
// every value it could still have: any value its bands allow, or, for a partial value that is a
// lower bound of the complete one (valor_incompleto: minimo), any value from it up. The level (and
// the direction) is stated only when all of them lead to the same word; otherwise it is null and
// `possiveis` lists the words the missing links could lead to. Nothing is filled in.
import type { AppContext } from '../../core/context'
import type { Fonte } from '../../core/feeds/feed'
import { resolver } from './caminho'
import { FONTES_DEF, type FonteDef, type Lida } from './fontes'
import type { Condicao, Contribuicao, EloRegra, Escala, Faixa, FonteId, IdadeMaxima, Regra } from './regras'
import { daysBetween, instantOf, isoDateBrasilia, isoMonthBrasilia, ISO_DAY, ISO_INSTANT, ISO_MONTH, monthsBetween, round } from './tempo'

export type StatusElo = 'ok' | 'defasado' | 'parcial' | 'ausente'
type Detalhe = Record<string, number | string | boolean | null>

export interface EloFonte {
  /** The source id of the rule (familia/nome of the route, or cadeias/termica, cadeias/bandeira). */
  de: FonteId
  rota: string | null
  campo: string
  base: string | null
  consultado_em: string | null
  defasagem_segundos: number | null
  status: Fonte['status'] | null
  referencia: string | null
}

export interface EloAvaliado {
  id: string
  indicador: string
  unidade: string
  valor: number | string | null
  data: string | null
  status: StatusElo
  motivo: string | null
  idade_maxima: IdadeMaxima
  depende_de: string[]
  pontos: { nivel: number | null; direcao: number | null }
  faixas: { nivel: string | null; direcao: string | null }
  detalhe: Detalhe | null
  fonte: EloFonte
}

export interface Medida {
  nome: string
  valor: string | null
  pontos: number | null
  pontos_min: number
  pontos_max: number
  possiveis: string[]
}

export interface Leitura {
  nivel: Medida
  direcao: Medida
  completa: boolean
  elos_sem_valor_atual: string[]
  texto: string
}

export interface Avaliacao {
  avaliada_em: string | null
  mes_da_regra: number | null
  elos: EloAvaliado[]
  leitura: Leitura
  fonte: Fonte
}

// ------------------------------------------------------------------ bands and scales

const num = (x: number) => x.toLocaleString('pt-BR', { maximumFractionDigits: 3 })

export function descreverFaixa(f: Faixa): string {
  if ('abaixo_de' in f) return `< ${num(f.abaixo_de)}`
  if ('ate' in f) return `≤ ${num(f.ate)}`
  if ('igual' in f) return `= ${f.igual}`
  return 'demais valores'
}

/** The bands that apply in month `mes` (1-12). */
export function faixasDoMes(c: Contribuicao, mes: number): Faixa[] {
  if ('faixas' in c) return c.faixas
  return c.por_periodo.find((p) => p.meses.includes(mes))!.faixas
}

/** The first band a value falls in; null when none (a text value the rule does not list, or a number for text bands). */
export function faixaDe(faixas: Faixa[], valor: number | string): Faixa | null {
  for (const f of faixas) {
    if ('demais' in f) return f
    if ('igual' in f) {
      if (valor === f.igual) return f
      continue
    }
    if (typeof valor !== 'number') return null
    if ('abaixo_de' in f ? valor < f.abaixo_de : valor <= f.ate) return f
  }
  return null
}

/** Position of a sum in a scale (its first band whose `ate` the sum does not pass). */
export function posicaoNaEscala(e: Escala, soma: number): number {
  const i = e.faixas.findIndex((f) => !('demais' in f) && soma <= f.ate)
  return i < 0 ? e.faixas.length - 1 : i
}

// ------------------------------------------------------------------ links

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function fonteDoElo(def: FonteDef, e: EloRegra, corpo: Record<string, unknown> | null, fonteSemDados: unknown): EloFonte {
  const f = corpo ? resolver(corpo, e.origem.fonte_em) : fonteSemDados
  const o = isRecord(f) ? f : {}
  const campo = e.origem.campo ?? (e.origem.media_de ? `média de ${e.origem.media_de.join(', ')}` : `Σ ${e.origem.razao_pct!.soma_de} ÷ ${e.origem.razao_pct!.dividido_por} × 100`)
  return {
    de: def.id,
    rota: def.rota,
    campo,
    base: typeof o.base === 'string' ? o.base : null,
    consultado_em: typeof o.consultado_em === 'string' ? o.consultado_em : null,
    defasagem_segundos: isNum(o.defasagem_segundos) ? o.defasagem_segundos : null,
    status: o.status === 'ok' || o.status === 'cache_servido' || o.status === 'fonte_indisponivel' || o.status === 'amostra' ? o.status : null,
    referencia: typeof o.referencia === 'string' ? o.referencia : null,
  }
}

/** The value of a link from its source's answer, or why it has none. */
function valorDoElo(e: EloRegra, corpo: Record<string, unknown>): { valor: number | string | null; motivo: string | null; detalhe: Detalhe | null } {
  const o = e.origem
  if (o.campo !== undefined) {
    const v = resolver(corpo, o.campo)
    if (isNum(v) || typeof v === 'string') return { valor: v, motivo: null, detalhe: null }
    return { valor: null, motivo: `${o.campo} sem valor na resposta`, detalhe: null }
  }
  if (o.media_de) {
    const detalhe: Detalhe = {}
    for (const c of o.media_de) {
      const v = resolver(corpo, c)
      detalhe[c] = isNum(v) ? v : null
      if (!isNum(v)) return { valor: null, motivo: `${c} sem valor na resposta (a média precisa de todos)`, detalhe }
    }
    const vals = Object.values(detalhe) as number[]
    return { valor: round(vals.reduce((a, b) => a + b, 0) / vals.length, 2), motivo: null, detalhe }
  }
  const r = o.razao_pct!
  const parcelas = resolver(corpo, r.soma_de)
  const divisor = resolver(corpo, r.dividido_por)
  if (!Array.isArray(parcelas) || !parcelas.length || !parcelas.every(isNum)) return { valor: null, motivo: `${r.soma_de} sem valores na resposta`, detalhe: null }
  if (!isNum(divisor) || divisor === 0) return { valor: null, motivo: `${r.dividido_por} sem valor (ou zero) na resposta`, detalhe: null }
  const soma = parcelas.reduce((a, b) => a + b, 0)
  return { valor: round((soma / divisor) * 100, 3), motivo: null, detalhe: { soma: round(soma, 2), divisor } }
}

/** Whether a dated value is too old for the link, and the words that say so; null when it is in time. */
export function defasagem(data: string, idade: IdadeMaxima, avaliadaEm: number): string | null {
  const ref = isoDateBrasilia(avaliadaEm)
  if ('meses' in idade) {
    const mes = ISO_MONTH.test(data) ? data : ISO_DAY.test(data) ? data.slice(0, 7) : ISO_INSTANT.test(data) ? isoMonthBrasilia(Date.parse(data)) : null
    if (!mes) return `data "${data}" fora do formato`
    const atraso = monthsBetween(mes, ref.slice(0, 7))
    if (atraso <= idade.meses) return null
    return idade.meses === 0 ? `dado de ${mes}; a regra pede o mês de avaliada_em (${ref.slice(0, 7)})` : `dado de ${mes}; a regra aceita até ${idade.meses} ${idade.meses === 1 ? 'mês' : 'meses'} antes de ${ref.slice(0, 7)}`
  }
  if ('dias' in idade) {
    const dia = ISO_DAY.test(data) ? data : ISO_INSTANT.test(data) ? isoDateBrasilia(Date.parse(data)) : ISO_MONTH.test(data) ? null : null
    if (!dia) return `data "${data}" sem o dia`
    const atraso = daysBetween(dia, ref)
    if (atraso <= idade.dias) return null
    return `dado de ${dia}; a regra aceita até ${idade.dias} ${idade.dias === 1 ? 'dia' : 'dias'} antes de ${ref}`
  }
  const t = instantOf(data)
  if (t === null) return `data "${data}" fora do formato`
  if ((avaliadaEm - t) / 3_600_000 <= idade.horas) return null
  return `dado de ${new Date(t).toISOString().slice(0, 16)}Z; a regra aceita até ${num(idade.horas)} h antes de avaliada_em`
}

/** The rule's `detalhes`, and the fields its incompleteness conditions read (by path), so the answer alone says why a link is partial. */
const detalhesDe = (e: EloRegra, corpo: Record<string, unknown> | null): Detalhe | null => {
  const campos = [...Object.entries(e.origem.detalhes ?? {}), ...(e.origem.incompleto_se ?? []).map((c) => [c.campo, c.campo] as const)]
  if (!campos.length || !corpo) return null
  const out: Detalhe = {}
  for (const [rotulo, campo] of campos) {
    const v = resolver(corpo, campo)
    out[rotulo] = isNum(v) || typeof v === 'string' || typeof v === 'boolean' ? v : null
  }
  return out
}

/** The first incompleteness condition of the rule that holds in the answer, in words; null when the value is complete. */
function incompleto(e: EloRegra, corpo: Record<string, unknown>): string | null {
  for (const c of e.origem.incompleto_se ?? []) {
    const v = resolver(corpo, c.campo)
    if ('igual' in c ? v === c.igual : isNum(v) && v < c.abaixo_de) return `calculado sobre dados incompletos: ${c.campo} = ${JSON.stringify(v)}${'abaixo_de' in c ? ` (menos de ${num(c.abaixo_de)})` : ''}`
  }
  return null
}

/** The points a link not ok may still give: every band, or, from a lower bound of its value, that value's band and the ones above. */
function pontosPossiveis(faixas: Faixa[], minimo: number | undefined): number[] {
  const desde = minimo === undefined ? null : faixaDe(faixas, minimo)
  return (desde ? faixas.slice(faixas.indexOf(desde)) : faixas).map((f) => f.pontos)
}

function contribuir(c: Contribuicao | undefined, valor: number | string | null, mes: number): { pontos: number | null; faixa: string | null; semFaixa: boolean } {
  if (!c || valor === null) return { pontos: null, faixa: null, semFaixa: false }
  const f = faixaDe(faixasDoMes(c, mes), valor)
  if (!f) return { pontos: null, faixa: null, semFaixa: true }
  return { pontos: f.pontos, faixa: descreverFaixa(f), semFaixa: false }
}

// ------------------------------------------------------------------ the reading

export interface Entradas {
  /** The source answers, by id (from FONTES_DEF, or given directly in tests). */
  lidas: Partial<Record<FonteId, Lida>>
  /** Now (ms): the cap of the reference time and the age in `fonte`. */
  agora: number
}

export function referencia(lidas: Partial<Record<FonteId, Lida>>, agora: number): number | null {
  const ts = Object.values(lidas)
    .map((l) => l?.instante)
    .filter(isNum)
  return ts.length ? Math.min(agora, Math.max(...ts)) : null
}

export function avaliarComEntradas(regra: Regra, { lidas, agora }: Entradas): Avaliacao {
  const avaliada = referencia(lidas, agora)
  const mes = avaliada === null ? null : Number(isoMonthBrasilia(avaliada).slice(5, 7))
  const vistas = new Map<FonteId, Record<string, unknown> | null>()
  const corpoDe = (id: FonteId) => {
    if (!vistas.has(id)) {
      const l = lidas[id]
      vistas.set(id, l?.corpo ? (l.vista && avaliada !== null ? l.vista(avaliada) : l.corpo) : null)
    }
    return vistas.get(id)!
  }

  /** Lower bounds of partial values (valor_incompleto: minimo), by link: they narrow the points the link may give. */
  const minimos = new Map<string, number>()
  const elos: EloAvaliado[] = regra.elos.map((e) => {
    const def = FONTES_DEF[e.origem.fonte]
    const lida = lidas[e.origem.fonte]
    const corpo = corpoDe(e.origem.fonte)
    const fonte = fonteDoElo(def, e, corpo, lida?.fonte)
    // One shape, in reading order: what, value, status, points; then the rule's terms and the source.
    const elo = (valor: number | string | null, data: string | null, status: StatusElo, motivo: string | null, detalhe: Detalhe | null, n?: ReturnType<typeof contribuir>, d?: ReturnType<typeof contribuir>): EloAvaliado => ({
      id: e.id,
      indicador: e.indicador,
      unidade: e.unidade,
      valor,
      data,
      status,
      motivo,
      pontos: { nivel: n?.pontos ?? null, direcao: d?.pontos ?? null },
      faixas: { nivel: n?.faixa ?? null, direcao: d?.faixa ?? null },
      idade_maxima: e.idade_maxima,
      depende_de: e.depende_de ?? [],
      detalhe,
      fonte,
    })
    if (!corpo || avaliada === null || mes === null) return elo(null, null, 'ausente', lida?.motivo ?? `nenhuma resposta de ${def.rota ?? def.id}`, null)
    const { valor, motivo, detalhe } = valorDoElo(e, corpo)
    const dataBruta = resolver(corpo, e.origem.data)
    const data = typeof dataBruta === 'string' ? dataBruta : null
    const detalheTodo = detalhe || e.origem.detalhes || e.origem.incompleto_se ? { ...(detalhe ?? {}), ...(detalhesDe(e, corpo) ?? {}) } : null
    if (valor === null) return elo(null, data, 'ausente', motivo, detalheTodo)
    if (data === null) return elo(valor, null, 'ausente', `${e.origem.data} sem data na resposta`, detalheTodo)
    const velho = defasagem(data, e.idade_maxima, avaliada)
    if (velho) return elo(valor, data, 'defasado', velho, detalheTodo)
    const n = contribuir(e.nivel, valor, mes)
    const d = contribuir(e.direcao, valor, mes)
    if (n.semFaixa || d.semFaixa) return elo(valor, data, 'ausente', `o valor ${valor} não cai em nenhuma faixa da regra`, detalheTodo)
    const parcial = incompleto(e, corpo)
    if (parcial) {
      const minimo = e.origem.valor_incompleto === 'minimo' && typeof valor === 'number'
      if (minimo) minimos.set(e.id, valor)
      return elo(valor, data, 'parcial', `${parcial}; ${minimo ? `o valor completo é pelo menos ${num(valor)} ${e.unidade}` : 'o valor completo pode ser qualquer um'}, e o elo conta por todos os que ainda pode ter`, detalheTodo)
    }
    return elo(valor, data, 'ok', null, detalheTodo, n, d)
  })

  // A link that uses another (the premium uses the PTAX) is not ok when that one is not; to a fixed point.
  const porId = new Map(elos.map((e) => [e.id, e]))
  for (let mudou = true; mudou; ) {
    mudou = false
    for (const e of elos) {
      if (e.status !== 'ok') continue
      const ruim = e.depende_de.map((d) => porId.get(d)!).find((d) => d.status !== 'ok')
      if (!ruim) continue
      e.status = ruim.status
      e.motivo = `depende de ${ruim.id}, que está ${ruim.status}`
      e.pontos = { nivel: null, direcao: null }
      e.faixas = { nivel: null, direcao: null }
      mudou = true
    }
  }

  const regraDe = new Map(regra.elos.map((e) => [e.id, e]))
  const medir = (qual: 'nivel' | 'direcao'): Medida => {
    const escala = regra[qual]
    let min = 0
    let max = 0
    for (const e of elos) {
      const c = regraDe.get(e.id)![qual]
      if (!c) continue
      if (e.status === 'ok') {
        min += e.pontos[qual]!
        max += e.pontos[qual]!
      } else {
        const ps = mes === null ? ('faixas' in c ? [c.faixas] : c.por_periodo.map((p) => p.faixas)).flat().map((f) => f.pontos) : pontosPossiveis(faixasDoMes(c, mes), e.status === 'parcial' ? minimos.get(e.id) : undefined)
        min += Math.min(...ps)
        max += Math.max(...ps)
      }
    }
    const de = posicaoNaEscala(escala, min)
    const ate = posicaoNaEscala(escala, max)
    const possiveis = escala.faixas.slice(de, ate + 1).map((f) => f.valor)
    return { nome: escala.nome, valor: de === ate ? possiveis[0]! : null, pontos: min === max ? min : null, pontos_min: min, pontos_max: max, possiveis }
  }
  const nivel = medir('nivel')
  const direcao = medir('direcao')
  const fora = elos.filter((e) => e.status !== 'ok')
  const leitura: Leitura = {
    nivel,
    direcao,
    completa: fora.length === 0,
    elos_sem_valor_atual: fora.map((e) => e.id),
    texto: texto(regra, elos, nivel, direcao),
  }
  return { avaliada_em: avaliada === null ? null : new Date(avaliada).toISOString(), mes_da_regra: mes, elos, leitura, fonte: fonteDaCadeia(regra, lidas, avaliada, agora) }
}

const maiuscula = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
const sinal = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0')
const valorTexto = (v: number | string, unidade: string) => (typeof v === 'number' ? `${num(v)} ${unidade}` : v)

function medidaTexto(m: Medida): string {
  if (m.valor !== null) return `${maiuscula(m.nome)}: ${m.valor} (${m.pontos !== null ? `${sinal(m.pontos)} ${Math.abs(m.pontos) === 1 ? 'ponto' : 'pontos'}` : `de ${sinal(m.pontos_min)} a ${sinal(m.pontos_max)} pontos conforme os elos que faltam, o mesmo resultado com qualquer valor deles`}).`
  return `${maiuscula(m.nome)}: sem leitura (com os elos que faltam, ficaria entre ${m.possiveis[0]} e ${m.possiveis[m.possiveis.length - 1]}, de ${sinal(m.pontos_min)} a ${sinal(m.pontos_max)} pontos).`
}

function texto(_regra: Regra, elos: EloAvaliado[], nivel: Medida, direcao: Medida): string {
  const partes = [medidaTexto(nivel), medidaTexto(direcao)]
  const somaram = elos.filter((e) => e.status === 'ok' && ((e.pontos.nivel ?? 0) !== 0 || (e.pontos.direcao ?? 0) !== 0))
  if (somaram.length)
    partes.push(
      `Pesaram: ${somaram
        .map((e) => {
          const p = [e.pontos.nivel ? `${sinal(e.pontos.nivel)} no nível` : null, e.pontos.direcao ? `${sinal(e.pontos.direcao)} na direção` : null].filter(Boolean).join(', ')
          return `${e.indicador.charAt(0).toLowerCase() + e.indicador.slice(1)}, ${valorTexto(e.valor!, e.unidade)} (${p})`
        })
        .join('; ')}.`,
    )
  else if (elos.some((e) => e.status === 'ok')) partes.push('Nenhum elo com valor atual somou pontos.')
  const fora = elos.filter((e) => e.status !== 'ok')
  if (fora.length) partes.push(`Sem valor atual (${fora.length} de ${elos.length} elos): ${fora.map((e) => `${e.id}, ${e.status}: ${e.motivo}`).join('; ')}.`)
  return partes.join(' ')
}

function fonteDaCadeia(regra: Regra, lidas: Partial<Record<FonteId, Lida>>, avaliada: number | null, agora: number): Fonte {
  const feeds = Object.values(lidas)
    .map((l) => (l?.corpo ? resolverFonte(l.corpo) : isRecord(l?.fonte) ? l.fonte : null))
    .filter((f): f is Record<string, unknown> => f !== null && typeof f.status === 'string')
  const intervalos = feeds.map((f) => f.atualiza_a_cada_minutos).filter(isNum)
  const tentativas = feeds.map((f) => f.tentado_em).filter((t): t is string => typeof t === 'string')
  const erros = feeds.filter((f) => typeof f.ultimo_erro === 'string').map((f) => `${f.base}: ${f.ultimo_erro}`)
  const naoOk = feeds.filter((f) => f.status !== 'ok')
  return {
    base: `dadosbr: cadeia ${regra.cadeia} (regra de ${regra.versao}) sobre as cópias das fontes de cada elo`,
    consultado_em: avaliada === null ? null : new Date(avaliada).toISOString(),
    defasagem_segundos: avaliada === null ? null : Math.max(0, Math.round((agora - avaliada) / 1000)),
    atualiza_a_cada_minutos: intervalos.length ? Math.min(...intervalos) : 1440,
    cache: avaliada !== null,
    // The chain's copies as a whole: ok when every one is; the bundled sample when every other one is.
    status: avaliada === null ? 'fonte_indisponivel' : naoOk.length === 0 ? 'ok' : naoOk.every((f) => f.status === 'amostra') ? 'amostra' : 'cache_servido',
    tentado_em: tentativas.length ? tentativas.sort().at(-1)! : null,
    ultimo_erro: erros.length ? erros.join('; ') : null,
  }
}

/** The copies' own `fonte` objects in an answer (`fonte`, or each of `fontes`). */
function resolverFonte(corpo: Record<string, unknown>): Record<string, unknown> | null {
  if (isRecord(corpo.fonte) && typeof corpo.fonte.status === 'string') return corpo.fonte
  if (isRecord(corpo.fontes)) {
    const all = Object.values(corpo.fontes).filter(isRecord)
    // The worst of them: one stale copy makes the whole answer stale.
    return all.find((f) => f.status !== 'ok') ?? all[0] ?? null
  }
  return null
}

/** Reads the chain's sources in-process (in parallel) and evaluates the rule. */
export async function avaliar(ctx: AppContext, regra: Regra, agora = Date.now()): Promise<Avaliacao> {
  const ids = [...new Set(regra.elos.map((e) => e.origem.fonte))]
  const lidas = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await FONTES_DEF[id].ler(ctx)] as const))) as Partial<Record<FonteId, Lida>>
  return avaliarComEntradas(regra, { lidas, agora })
}
