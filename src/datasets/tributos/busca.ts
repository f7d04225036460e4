// The annex search (docs/tributos.md, "Busca"): an in-memory index of the items' wording, built
// once from the annex data.
//  - Words (texto.ts rules): every word of the term must begin a word of the item (its wording, or
//    its Annex's subject: "cesta básica" finds the Annex I items). "arroz" finds "Arroz", "feij"
//    finds "Feijões", "leite em pó" needs "leite" and "po".
//  - Codes: a term made of digits and dots is an NCM code (or NBS, when it starts with "1." and
//    has 9 digits or an NBS shape): items citing that code, a code above it or a code below it.
//  - With the NCM table loaded, the official description of each code an item cites counts too
//    ("cerveja" finds the Imposto Seletivo's "Bebidas alcóolicas" through 2203, "Cervejas de malte").
//  - Order: items whose wording has all the words first, then those that need the cited codes'
//    descriptions, then those that need the Annex subject; within each, more whole words (not
//    prefixes), the term as a phrase, then Annex and item.
import { ANEXOS, type AnexoDados, type ItemDados } from './anexos'
import { palavras } from './texto'
import { startingWith } from '../../core/sorted'

export interface Achado {
  anexo: AnexoDados
  item: ItemDados
  /** Where all the words were found: the item's wording, the descriptions of the NCM codes it cites, or the Annex subject too. */
  encontrado_em: 'redacao' | 'descricao_ncm' | 'assunto_do_anexo' | 'codigo'
}

interface Doc {
  anexo: AnexoDados
  item: ItemDados
  ordem: number
  /** The item's own words (wording, code cell). */
  proprias: Set<string>
  /** Words of the official descriptions of the NCM codes the item cites. */
  daNcm: Set<string>
  /** The Annex subject's words. */
  doAnexo: Set<string>
  /** The wording's words joined by one space, for phrase matches. */
  frase: string
}

export interface ResultadoBusca {
  tipo: 'palavras' | 'codigo_ncm' | 'codigo_nbs'
  palavras: string[]
  total: number
  achados: Achado[]
}

export class IndiceBusca {
  private readonly docs: Doc[] = []
  /** Every distinct word, sorted: the words a prefix begins are a range. */
  private readonly vocabulario: string[]
  private readonly porPalavra = new Map<string, number[]>()

  /** descricaoNcm: the NCM table's description of a code (digits), when a table is loaded. */
  constructor(anexos: AnexoDados[] = ANEXOS.anexos, descricaoNcm?: (codigo: string) => string | undefined) {
    for (const anexo of anexos) {
      if (anexo.situacao !== 'vigente') continue
      const doAnexo = new Set(palavras(anexo.assunto))
      for (const item of anexo.itens) {
        // A vetoed row (Annex XI, 1.4, 1.5, 1.8, 1.9) is kept in the data as the law prints it, but it is not law: not searched.
        if (item.texto === '(VETADO)') continue
        const proprias = new Set(palavras(`${item.texto} ${item.codigos_texto ?? ''}`))
        const daNcm = new Set<string>()
        if (descricaoNcm) for (const r of item.ncm) if (!r.exceto) for (const w of palavras(descricaoNcm(r.codigo) ?? '')) if (!proprias.has(w)) daNcm.add(w)
        const doc: Doc = { anexo, item, ordem: this.docs.length, proprias, daNcm, doAnexo, frase: palavras(item.texto).join(' ') }
        this.docs.push(doc)
        for (const w of new Set([...proprias, ...daNcm, ...doAnexo])) {
          const list = this.porPalavra.get(w) ?? []
          list.push(doc.ordem)
          this.porPalavra.set(w, list)
        }
      }
    }
    this.vocabulario = [...this.porPalavra.keys()].sort()
  }

  /** The words of the vocabulary a query word begins. */
  private iniciadas(prefixo: string): string[] {
    return startingWith(this.vocabulario, prefixo)
  }

  buscar(termo: string, limite: number): ResultadoBusca {
    const codigo = /^[\d.\s]+$/.test(termo) ? termo.replace(/[.\s]/g, '') : null
    if (codigo && codigo.length >= 2) {
      const nbs = /^1\.\d{4}/.test(termo.trim()) || codigo.length === 9
      const achados = this.docs.filter((d) =>
        (nbs ? d.item.nbs : d.item.ncm).some((r) => !r.exceto && (r.codigo.startsWith(codigo) || codigo.startsWith(r.codigo))),
      )
      return { tipo: nbs ? 'codigo_nbs' : 'codigo_ncm', palavras: [codigo], total: achados.length, achados: achados.slice(0, limite).map((d) => ({ anexo: d.anexo, item: d.item, encontrado_em: 'codigo' as const })) }
    }
    const ws = [...new Set(palavras(termo))]
    if (!ws.length) return { tipo: 'palavras', palavras: [], total: 0, achados: [] }
    let candidatos: number[] | null = null
    const exatas = ws.map((w) => new Set(this.porPalavra.get(w) ?? []))
    for (const w of ws) {
      const docs = new Set<number>()
      for (const v of this.iniciadas(w)) for (const i of this.porPalavra.get(v)!) docs.add(i)
      const antes: number[] = candidatos ?? [...docs]
      candidatos = antes.filter((i) => docs.has(i))
      if (!candidatos.length) break
    }
    const frase = ws.join(' ')
    const tem = (set: Set<string>, w: string) => {
      if (set.has(w)) return true
      for (const p of set) if (p.startsWith(w)) return true
      return false
    }
    const scored = (candidatos ?? []).map((i) => {
      const d = this.docs[i]!
      const onde = ws.every((w) => tem(d.proprias, w)) ? 'redacao' : ws.every((w) => tem(d.proprias, w) || tem(d.daNcm, w)) ? 'descricao_ncm' : 'assunto_do_anexo'
      const inteiras = exatas.reduce((n, set) => n + (set.has(i) ? 1 : 0), 0)
      const nivel = onde === 'redacao' ? 2000 : onde === 'descricao_ncm' ? 1000 : 0
      return { d, onde, score: nivel + inteiras * 10 + (ws.length > 1 && d.frase.includes(frase) ? 5 : 0) }
    })
    scored.sort((a, b) => b.score - a.score || a.d.anexo.numero - b.d.anexo.numero || a.d.ordem - b.d.ordem)
    return { tipo: 'palavras', palavras: ws, total: scored.length, achados: scored.slice(0, limite).map((s) => ({ anexo: s.d.anexo, item: s.d.item, encontrado_em: s.onde as Achado['encontrado_em'] })) }
  }
}

let indice: IndiceBusca | null = null
export const indiceBusca = () => (indice ??= new IndiceBusca())
