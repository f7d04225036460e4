// The deterministic classifier: a Portuguese lexicon and a few rules, kept as data
// (dados/lexico.json). Topic by weighted terms; sentiment by polar terms and by movement words
// read against their subject (a falling dollar or falling inflation is good news, a falling
// Ibovespa is not); relevance from market-moving terms minus service-piece cues.
import LEXICO from './dados/lexico.json'
import { tokens } from './texto'

export const TEMAS = ['cripto', 'macro', 'cambio', 'regulacao', 'empresas'] as const
export const SENTIMENTOS = ['positivo', 'negativo', 'neutro'] as const
export type Tema = (typeof TEMAS)[number]
export type Sentimento = (typeof SENTIMENTOS)[number]

export interface Classificacao {
  tema: Tema
  sentimento: Sentimento
  relevancia: number
}

export const LEXICO_VERSAO: string = LEXICO.versao

interface Term {
  words: string[]
  /** The last word matches as a prefix ("cripto*" matches criptomoedas). */
  prefix: boolean
  weight: number
}

function term(text: string, weight = 1): Term {
  const prefix = text.endsWith('*')
  return { words: (prefix ? text.slice(0, -1) : text).split(' ').filter(Boolean), prefix, weight }
}
const compile = (m: Record<string, number>) => Object.entries(m).map(([t, w]) => term(t, w))
const compileList = (l: string[]) => l.map((t) => term(t))

function matchAt(toks: string[], i: number, t: Term): boolean {
  if (i + t.words.length > toks.length) return false
  for (let k = 0; k < t.words.length; k++) {
    const last = k === t.words.length - 1
    if (last && t.prefix ? !toks[i + k]!.startsWith(t.words[k]!) : toks[i + k] !== t.words[k]) return false
  }
  return true
}

function positions(toks: string[], t: Term): number[] {
  const out: number[] = []
  for (let i = 0; i < toks.length; i++) if (matchAt(toks, i, t)) out.push(i)
  return out
}

const TEMA_TERMS = Object.fromEntries(TEMAS.map((t) => [t, compile(LEXICO.temas[t])])) as Record<Tema, Term[]>
const S = LEXICO.sentimento
const POS = compile(S.positivo)
const NEG = compile(S.negativo)
const UP = compileList(S.alta)
const DOWN = compileList(S.queda)
const INVERSE = compileList(S.sujeitos_inversos)
const SUBJECTS = compileList(S.sujeitos)
const NEGATORS = new Set(S.negadores)
const R = LEXICO.relevancia
const REL = compile(R.termos)
const SERVICE = compile(R.servico)

function temaOf(title: string[], summary: string[]): Tema {
  let best: Tema | null = null
  let bestScore = 0
  for (const tema of LEXICO.ordem_empate as Tema[]) {
    let score = 0
    for (const t of TEMA_TERMS[tema]) {
      if (positions(title, t).length) score += t.weight
      else if (positions(summary, t).length) score += 0.4 * t.weight
    }
    if (score > bestScore) {
      best = tema
      bestScore = score
    }
  }
  return best ?? (LEXICO.tema_padrao as Tema)
}

const negatedAt = (toks: string[], i: number) => NEGATORS.has(toks[i - 1] ?? '') || NEGATORS.has(toks[i - 2] ?? '')

const TRANSITIVE = compileList(S.transitivos)
const ADJECTIVES = new Set(S.adjetivos)
const ATTENUATORS = new Set(S.atenuantes)
const NEUTRALIZERS = compileList(S.neutralizadores)

interface Subject {
  at: number
  end: number
  inverse: boolean
}

/**
 * The subject a movement word at [i, i+len) speaks of. A transitive verb ("Copom corta a Selic",
 * "inflação derruba bolsas") speaks of what follows it; an intransitive one ("dólar cai") of the
 * nearest subject before it; an adjective ("maior nível") of the headline's first subject.
 */
function subjectOf(subjects: Subject[], i: number, len: number, kind: 'transitive' | 'intransitive' | 'adjective'): Subject | null {
  const after = () => subjects.filter((s) => s.at >= i + len && s.at <= i + len + 4).sort((a, b) => a.at - b.at)[0] ?? null
  const before = subjects.filter((s) => s.end <= i)
  if (kind === 'transitive') return after() ?? before.sort((a, b) => b.end - a.end)[0] ?? null
  if (kind === 'adjective') return before.sort((a, b) => a.at - b.at)[0] ?? after()
  return before.sort((a, b) => b.end - a.end || Number(b.inverse) - Number(a.inverse))[0] ?? after()
}

function sentimentoOf(toks: string[]): Sentimento {
  let score = 0
  for (const t of POS) for (const i of positions(toks, t)) score += negatedAt(toks, i) ? -t.weight : t.weight
  for (const t of NEG) for (const i of positions(toks, t)) score -= negatedAt(toks, i) ? -t.weight : t.weight
  const subjects: Subject[] = []
  for (const [list, inverse] of [[INVERSE, true], [SUBJECTS, false]] as const)
    for (const t of list) for (const at of positions(toks, t)) subjects.push({ at, end: at + t.words.length, inverse })
  // A subject phrase inside a longer one ("juros" in "curva de juros", "tarifa" in "tarifa social") defers to the longer.
  const kept = subjects.filter((s) => !subjects.some((o) => o !== s && o.at <= s.at && o.end >= s.end && o.end - o.at > s.end - s.at))
  const moves: { at: number; len: number; dir: number; word: string }[] = []
  for (const [list, dir] of [[UP, 1], [DOWN, -1]] as const)
    for (const t of list) for (const at of positions(toks, t)) moves.push({ at, len: t.words.length, dir, word: t.words.join(' ') })
  const transitive = new Set(TRANSITIVE.map((t) => t.words.join(' ')))
  for (const m of moves) {
    const adjective = ADJECTIVES.has(m.word)
    // "maior queda", "queda recorde": the adjective only grades the movement next to it.
    if (adjective && moves.some((o) => o !== m && !ADJECTIVES.has(o.word) && Math.abs(o.at - m.at) <= 1)) continue
    const subject = subjectOf(kept, m.at, m.len, adjective ? 'adjective' : transitive.has(m.word) ? 'transitive' : 'intransitive')
    let d: number = subject ? (subject.inverse ? -m.dir : m.dir) : m.dir * 0.5
    if (negatedAt(toks, m.at)) d = -d
    if ([m.at - 2, m.at - 1, m.at + m.len, m.at + m.len + 1].some((k) => ATTENUATORS.has(toks[k] ?? ''))) d /= 2
    score += d
  }
  // Explainers, "mantém", "oscila", "divergem": whatever moves inside them is not the news.
  if (NEUTRALIZERS.some((t) => positions(toks, t).length)) score /= 2
  if (score >= S.limiar) return 'positivo'
  if (score <= -S.limiar) return 'negativo'
  return 'neutro'
}

function relevanciaOf(title: string[]): number {
  let gain = 0
  for (const t of REL) if (positions(title, t).length) gain += t.weight
  let penalty = 0
  for (const t of SERVICE) if (positions(title, t).length) penalty += t.weight
  // A list headline ("5 ações para...") is service content.
  if (/^\d+$/.test(title[0] ?? '') && title.length > 2 && !['%'].includes(title[1]!)) penalty -= 1
  return Math.max(0, Math.min(10, Math.round(R.base + Math.min(R.teto_termos, gain) + penalty)))
}

/** Classifies a headline (and its summary, used for the topic only). */
export function classificarLexico(titulo: string, resumo: string | null = null): Classificacao {
  const title = tokens(titulo)
  const summary = resumo ? tokens(resumo) : []
  return { tema: temaOf(title, summary), sentimento: sentimentoOf(title), relevancia: relevanciaOf(title) }
}
