// Field paths into a route's answer, as the rules name them: `sin.ear_percentual`,
// `cinturoes[id=mg-sul].dias_secos_consecutivos`, `classificacoes[].liquido` (every element),
// `serie[-1].data` (the last one). The rules say where each link's number comes from in these
// terms, and a test resolves them in the live answers of the routes: no number without its field.

type Passo = { nome: string; seletor: null | { tipo: 'id'; valor: string } | { tipo: 'todos' } | { tipo: 'indice'; valor: number } }

const SEGMENTO = /^([a-z_][a-z0-9_]*)(?:\[(?:(id)=([^\]]+)|(-?\d+)|)\])?$/

/** The steps of a path; throws on a malformed one (rules are checked when loaded). */
export function passos(caminho: string): Passo[] {
  return caminho.split('.').map((seg) => {
    const m = SEGMENTO.exec(seg)
    if (!m) throw new Error(`caminho malformado: "${caminho}" (trecho "${seg}")`)
    const nome = m[1]!
    if (!seg.includes('[')) return { nome, seletor: null }
    if (m[2]) return { nome, seletor: { tipo: 'id', valor: m[3]! } }
    if (m[4] !== undefined) return { nome, seletor: { tipo: 'indice', valor: Number(m[4]) } }
    return { nome, seletor: { tipo: 'todos' } }
  })
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The value at a path, undefined when the path leads nowhere (a missing key, no element with
 * that id). After a `[]` step the result is the list of what follows in each element.
 */
export function resolver(valor: unknown, caminho: string): unknown {
  return percorrer(valor, passos(caminho))
}

function percorrer(valor: unknown, resto: Passo[]): unknown {
  if (!resto.length) return valor
  const [passo, ...depois] = resto as [Passo, ...Passo[]]
  if (!isRecord(valor) || !(passo.nome in valor)) return undefined
  const v = valor[passo.nome]
  if (!passo.seletor) return percorrer(v, depois)
  if (!Array.isArray(v)) return undefined
  switch (passo.seletor.tipo) {
    case 'id': {
      const alvo = passo.seletor.valor
      return percorrer(v.find((e) => isRecord(e) && e.id === alvo), depois)
    }
    case 'indice': {
      const i = passo.seletor.valor < 0 ? v.length + passo.seletor.valor : passo.seletor.valor
      return percorrer(v[i], depois)
    }
    case 'todos':
      return v.map((e) => percorrer(e, depois))
  }
}
