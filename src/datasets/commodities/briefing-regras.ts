// The briefing's deterministic part: from the four signals and the markets' PTAX, one highlight per
// commodity with a direction flag (where the signals push its price: up | down | flat) and the
// evidence behind it, each number with the signal it comes from. The English text is written from
// the evidence only, so every number in it is traceable (docs/commodities.md lists the rules).
import type { PtaxDados } from '../mercado/bcb'
import { CULTURAS, type CulturaId } from './cinturoes'
import type { ClimaDados } from './clima'
import type { ExportacoesDados } from './exportacoes'
import type { FogoDados } from './fogo'
import type { HidrologiaDados } from './hidrologia'
import { round } from './tempo'

export type Direcao = 'up' | 'down' | 'flat'
export type Sinal = 'clima' | 'fogo' | 'exportacoes' | 'hidrologia' | 'mercado'

export interface Evidencia {
  sinal: Sinal
  /** Where in that signal's answer the value is (route field path). */
  campo: string
  valor: number
  unidade: string
  /** +1 pushes the price up, -1 down, 0 context only. */
  efeito: -1 | 0 | 1
}

export interface Destaque {
  id: string
  commodity: string
  direcao: Direcao
  pontuacao: number
  texto: string
  evidencias: Evidencia[]
}

export interface Sinais {
  clima: ClimaDados | null
  fogo: FogoDados | null
  hidrologia: HidrologiaDados | null
  exportacoes: ExportacoesDados | null
  ptax: PtaxDados | null
}

/** Thresholds of the rules (docs/commodities.md). */
export const REGRAS = {
  diasSecos: 15,
  chuvaPrevistaSeca: 10,
  chuvaAmpla30d: 150,
  exportacaoForte: 10,
  cambio: 1,
  fogoSp: 20,
  hidroDelta: 1,
  hidroBaixo: 40,
}

export const REGRA_TEXTO =
  'direcao = sinal da soma dos efeitos (+1 empurra o preço em reais para cima, -1 para baixo): geada prevista em algum cinturão da cultura (+1); ' +
  `nos meses sensíveis da cultura, ${REGRAS.diasSecos}+ dias secos seguidos e menos de ${REGRAS.chuvaPrevistaSeca} mm previstos em 7 dias em algum cinturão (+1), ou ${REGRAS.chuvaAmpla30d}+ mm em 30 dias em todos (-1); ` +
  `volume exportado no último mês ${REGRAS.exportacaoForte}%+ acima (+1) ou abaixo (-1) do mesmo mês do ano anterior; PTAX de venda ${REGRAS.cambio}%+ acima (+1) ou abaixo (-1) do início da série da semana; ` +
  `açúcar: ${REGRAS.fogoSp}+ focos em São Paulo em 7 dias (+1); energia: EAR do SIN ${REGRAS.hidroDelta}+ ponto abaixo (+1) ou acima (-1) de 7 dias antes, e abaixo de ${REGRAS.hidroBaixo}% (+1).`

interface Commodity {
  id: string
  en: string
  cultura?: CulturaId
  grupo?: string
  fogoSp?: boolean
  hidro?: boolean
}

export const COMMODITIES: Commodity[] = [
  { id: 'soybeans', en: 'Soybeans', cultura: 'soja', grupo: 'soja' },
  { id: 'corn', en: 'Corn', cultura: 'milho_safrinha', grupo: 'milho' },
  { id: 'coffee', en: 'Coffee', cultura: 'cafe', grupo: 'cafe_verde' },
  { id: 'sugar', en: 'Sugar', cultura: 'cana', grupo: 'acucar', fogoSp: true },
  { id: 'cotton', en: 'Cotton', cultura: 'algodao', grupo: 'algodao' },
  { id: 'beef', en: 'Beef', grupo: 'carne_bovina' },
  { id: 'chicken', en: 'Chicken', grupo: 'frango' },
  { id: 'orange_juice', en: 'Orange juice', grupo: 'suco_laranja' },
  { id: 'pulp', en: 'Pulp', grupo: 'celulose' },
  { id: 'iron_ore', en: 'Iron ore', grupo: 'minerio_ferro' },
  { id: 'crude_oil', en: 'Crude oil', grupo: 'petroleo_bruto' },
  { id: 'electricity', en: 'Electricity (hydro reservoirs)', hidro: true },
]

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const monthName = (ym: string) => `${MONTHS[Number(ym.slice(5, 7)) - 1]} ${ym.slice(0, 4)}`
const dayName = (iso: string) => `${Number(iso.slice(8, 10))} ${MONTHS[Number(iso.slice(5, 7)) - 1]!.slice(0, 3)} ${iso.slice(0, 4)}`
/** 1234.5 -> "1,234.5" (always `digits` decimals). */
export const fmt = (x: number, digits = 1) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const signed = (x: number, digits = 1) => `${x > 0 ? '+' : x < 0 ? '-' : ''}${fmt(Math.abs(x), digits)}`

/** The PTAX selling rate's change over the series window (the week), or null: the same number as /v1/mercado/cambio's ptax.variacao_pct. */
export function variacaoPtax(ptax: PtaxDados | null): { pct: number; desde: string; ate: string; venda: number } | null {
  const s = ptax?.serie
  if (!s || s.length < 2) return null
  const first = s[0]!
  const last = s[s.length - 1]!
  return { pct: round((last.venda / first.venda - 1) * 100, 3), desde: first.data, ate: last.data, venda: last.venda }
}

function destaque(c: Commodity, s: Sinais): Destaque {
  const ev: Evidencia[] = []
  const frases: string[] = []
  const mes = s.clima ? Number(s.clima.referencia.slice(5, 7)) : null
  if (c.cultura && s.clima) {
    const cultura = CULTURAS[c.cultura]
    const belts = s.clima.cinturoes.filter((b) => b.culturas.includes(c.cultura!))
    const geada = belts.filter((b) => b.geada.culturas_em_risco.includes(c.cultura!))
    for (const b of geada) {
      const i = s.clima.cinturoes.indexOf(b)
      ev.push({ sinal: 'clima', campo: `cinturoes[${i}].temp_min_72h_c`, valor: b.temp_min_72h_c!, unidade: '°C', efeito: 1 })
      frases.push(`frost risk in ${b.municipio} (${b.uf}), with a low of ${fmt(b.temp_min_72h_c!)} °C forecast within 72 hours (crop threshold ${fmt(cultura.geada_limiar_c)} °C)`)
    }
    const sensivel = mes !== null && cultura.meses_seca.includes(mes)
    const secos = belts.filter((b) => (b.dias_secos_consecutivos ?? 0) >= REGRAS.diasSecos && (b.chuva_prevista_7d_mm ?? 0) < REGRAS.chuvaPrevistaSeca)
    if (sensivel && secos.length) {
      for (const b of secos) {
        const i = s.clima.cinturoes.indexOf(b)
        ev.push({ sinal: 'clima', campo: `cinturoes[${i}].dias_secos_consecutivos`, valor: b.dias_secos_consecutivos!, unidade: 'days', efeito: 1 })
        ev.push({ sinal: 'clima', campo: `cinturoes[${i}].chuva_prevista_7d_mm`, valor: b.chuva_prevista_7d_mm ?? 0, unidade: 'mm', efeito: 0 })
        frases.push(`${b.dias_secos_consecutivos}${b.dias_secos_no_limite ? '+' : ''} dry days in a row in ${b.municipio} (${b.uf}) with only ${fmt(b.chuva_prevista_7d_mm ?? 0)} mm forecast for the next 7 days`)
      }
    } else if (belts.length) {
      // A spell that reaches the edge of the observed window (7 days when the archive is down) may be
      // longer than seen: below the threshold it is undetermined, never "no stress".
      const indeterminados = sensivel ? belts.filter((b) => b.dias_secos_no_limite && (b.dias_secos_consecutivos ?? 0) < REGRAS.diasSecos && (b.chuva_prevista_7d_mm ?? 0) < REGRAS.chuvaPrevistaSeca) : []
      for (const b of indeterminados) {
        const i = s.clima.cinturoes.indexOf(b)
        ev.push({ sinal: 'clima', campo: `cinturoes[${i}].dias_secos_consecutivos`, valor: b.dias_secos_consecutivos ?? 0, unidade: 'days', efeito: 0 })
        frases.push(`at least ${b.dias_secos_consecutivos ?? 0} dry days in a row in ${b.municipio} (${b.uf}), as far back as observed: whether the spell reaches ${REGRAS.diasSecos} days is unknown`)
      }
      const chuvas = belts.map((b) => b.chuva_observada_30d_mm)
      const min = chuvas.every((x) => x !== null) ? Math.min(...(chuvas as number[])) : null
      const iMin = min === null ? -1 : s.clima.cinturoes.indexOf(belts[chuvas.indexOf(min)]!)
      // A 30-day sum over fewer observed days is a lower bound of the real one: said as such.
      const observados = Math.min(...belts.map((b) => b.dias_observados_30d))
      const parcial = observados < 30
      const iObs = s.clima.cinturoes.indexOf(belts.find((b) => b.dias_observados_30d === observados)!)
      const chuva30 = (x: number) => (parcial ? `at least ${fmt(x)} mm in 30 days, only ${observados} of them observed` : `${fmt(x)} mm in 30 days`)
      if (sensivel && min !== null && min >= REGRAS.chuvaAmpla30d && !geada.length) {
        ev.push({ sinal: 'clima', campo: `cinturoes[${iMin}].chuva_observada_30d_mm`, valor: min, unidade: 'mm', efeito: -1 })
        if (parcial) ev.push({ sinal: 'clima', campo: `cinturoes[${iObs}].dias_observados_30d`, valor: observados, unidade: 'days', efeito: 0 })
        frases.push(`ample rain, at least ${fmt(min)} mm over the last 30 days in every ${cultura.en} belt${parcial ? ` (only ${observados} of the 30 days observed)` : ''}`)
      } else if (min !== null && !geada.length) {
        ev.push({ sinal: 'clima', campo: `cinturoes[${iMin}].chuva_observada_30d_mm`, valor: min, unidade: 'mm', efeito: 0 })
        if (parcial) ev.push({ sinal: 'clima', campo: `cinturoes[${iObs}].dias_observados_30d`, valor: observados, unidade: 'days', efeito: 0 })
        const seco = `driest ${cultura.en} belt: ${chuva30(min)}${sensivel ? '' : ', outside the sensitive months'}`
        frases.push(indeterminados.length ? seco : `no weather stress flagged (${seco})`)
      }
    }
  }
  if (c.grupo && s.exportacoes) {
    const gi = s.exportacoes.grupos.findIndex((g) => g.id === c.grupo)
    const g = s.exportacoes.grupos[gi]
    if (g) {
      const u = g.ultimo_mes
      const v = u.variacao_kg_pct
      const efeito = v === null ? 0 : v >= REGRAS.exportacaoForte ? 1 : v <= -REGRAS.exportacaoForte ? -1 : 0
      ev.push({ sinal: 'exportacoes', campo: `grupos[${gi}].ultimo_mes.kg_liquido`, valor: u.kg_liquido, unidade: 'kg', efeito: 0 })
      ev.push({ sinal: 'exportacoes', campo: `grupos[${gi}].ultimo_mes.fob_usd`, valor: u.fob_usd, unidade: 'US$', efeito: 0 })
      if (v !== null) ev.push({ sinal: 'exportacoes', campo: `grupos[${gi}].ultimo_mes.variacao_kg_pct`, valor: v, unidade: '%', efeito })
      frases.push(
        `exports of ${fmt(u.kg_liquido / 1e6)} thousand tonnes worth US$ ${fmt(u.fob_usd / 1e6)} million in ${monthName(u.mes)}` +
          (v === null ? '' : ` (${signed(v)}% in volume year on year)`),
      )
    }
  }
  if (c.fogoSp && s.fogo) {
    const i = s.fogo.estados.findIndex((e) => e.uf === 'SP')
    const n = i >= 0 ? s.fogo.estados[i]!.focos_7d : 0
    if (n >= REGRAS.fogoSp) {
      ev.push({ sinal: 'fogo', campo: `estados[${i}].focos_7d`, valor: n, unidade: 'hotspots', efeito: 1 })
      frases.push(`${n} fire hotspots in São Paulo state over 7 days (reference satellite), a risk to cane fields`)
    }
  }
  if (c.hidro && s.hidrologia) {
    const sin = s.hidrologia.sin
    ev.push({ sinal: 'hidrologia', campo: 'sin.ear_percentual', valor: sin.ear_percentual, unidade: '%', efeito: sin.ear_percentual < REGRAS.hidroBaixo ? 1 : 0 })
    let f = `stored energy in the national grid at ${fmt(sin.ear_percentual, 2)}% of capacity`
    if (sin.delta_7d_pp !== null) {
      const d = sin.delta_7d_pp
      ev.push({ sinal: 'hidrologia', campo: 'sin.delta_7d_pp', valor: d, unidade: 'pp', efeito: d <= -REGRAS.hidroDelta ? 1 : d >= REGRAS.hidroDelta ? -1 : 0 })
      f += ` (${signed(d, 2)} points in 7 days)`
    }
    frases.push(f)
  }
  const fx = c.hidro ? null : variacaoPtax(s.ptax)
  if (fx) {
    const efeito = fx.pct >= REGRAS.cambio ? 1 : fx.pct <= -REGRAS.cambio ? -1 : 0
    ev.push({ sinal: 'mercado', campo: 'ptax.variacao_pct', valor: fx.pct, unidade: '%', efeito })
    if (efeito) frases.push(`the dollar ${fx.pct > 0 ? 'rose' : 'fell'} ${fmt(Math.abs(fx.pct), 3)}% against the real since ${dayName(fx.desde)} (PTAX ${fmt(fx.venda, 4)})`)
  }
  const pontuacao = ev.reduce((a, e) => a + e.efeito, 0)
  const direcao: Direcao = pontuacao > 0 ? 'up' : pontuacao < 0 ? 'down' : 'flat'
  const texto = frases.length ? `${c.en}: ${frases.join('; ')}.` : `${c.en}: no signal available.`
  return { id: c.id, commodity: c.en, direcao, pontuacao, texto: texto.charAt(0).toUpperCase() + texto.slice(1), evidencias: ev }
}

export function destaques(s: Sinais): Destaque[] {
  return COMMODITIES.filter((c) => (c.hidro ? s.hidrologia : s.clima || s.exportacoes || s.ptax)).map((c) => destaque(c, s))
}

/** The summary: directions counted, then one sentence per signal, each number from that signal. */
export function resumo(data: string, ds: Destaque[], s: Sinais): string {
  const count = (d: Direcao) => ds.filter((x) => x.direcao === d).map((x) => x.commodity.toLowerCase())
  const up = count('up')
  const down = count('down')
  const parts = [`Brazil commodity briefing for ${dayName(data)}: signals point up for ${up.length ? up.join(', ') : 'none'} and down for ${down.length ? down.join(', ') : 'none'}; the rest are flat.`]
  if (s.clima) {
    const geadas = s.clima.cinturoes.filter((b) => b.geada.alerta).length
    const secos = s.clima.cinturoes.filter((b) => (b.dias_secos_consecutivos ?? 0) >= REGRAS.diasSecos).length
    // Dry through the whole observed window and still short of the threshold: it may be longer than seen.
    const talvez = s.clima.cinturoes.filter((b) => b.dias_secos_no_limite && (b.dias_secos_consecutivos ?? 0) < REGRAS.diasSecos).length
    parts.push(
      `Weather: ${geadas} of ${s.clima.cinturoes.length} crop belts with a frost alert and ${secos} with ${REGRAS.diasSecos}+ dry days in a row` +
        (talvez ? ` (${talvez} more dry as far back as observed, so undetermined).` : '.'),
    )
  }
  if (s.fogo) {
    const top = s.fogo.biomas[0]
    parts.push(`Fire: ${s.fogo.focos_referencia_7d} hotspots over 7 days from the reference satellite${top ? `, most in the ${top.bioma} biome (${top.focos_7d})` : ''}.`)
  }
  if (s.hidrologia) parts.push(`Hydro: reservoirs of the national grid at ${fmt(s.hidrologia.sin.ear_percentual, 2)}%.`)
  const fx = variacaoPtax(s.ptax)
  if (fx) parts.push(`FX: PTAX at ${fmt(fx.venda, 4)} reais per dollar (${signed(fx.pct, 3)}% since ${dayName(fx.desde)}).`)
  return parts.join(' ')
}

/** Every number written in a text, as written (thousands separators kept, sign dropped): the LLM may reword, never renumber. */
export function numerosDe(texto: string): string[] {
  return (texto.match(/\d[\d,]*(?:\.\d+)?/g) ?? []).map((n) => n.replace(/,$/, '')).sort()
}

