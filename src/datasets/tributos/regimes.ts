// Which annex items reach an NCM code (docs/tributos.md, "Como um código encontra seu regime"):
//  1. An item reaches a code when one of its references (chapter, position, subposition, item or
//     full code, as digit prefixes) is a prefix of the code.
//  2. An "exceto" reference of the same item (and of the same alínea, when it has one) that is a
//     prefix of the code takes the code out of that item.
//  3. An item that ressalva another Annex ("ressalvados os produtos relacionados no Anexo I")
//     does not reach a code some item of that Annex reaches.
//  4. The items left are ordered: the most specific reference first (more digits), then the
//     larger reduction (zero before 60%), then the Annex and item order. The first gives the
//     principal regime; the others are alternatives that depend on what the product is.
// The Imposto Seletivo (Annex XVII) is applied by the same rules, apart from the IBS/CBS regimes.
import { ANEXOS, type AnexoDados, type ItemDados, type ReferenciaDados, type RegimeAnexo } from './anexos'
import { startingWith } from '../../core/sorted'

export interface Alcance {
  anexo: AnexoDados
  item: ItemDados
  /** The reference of the item that reaches the code (its most specific one). */
  ref: ReferenciaDados
  /** Position of the item in the data, for a stable order. */
  ordem: number
}

export interface Exclusao extends Alcance {
  motivo: 'exceto' | 'remissao'
  /** The "exceto" reference (motivo exceto) or the Annex that takes precedence (motivo remissao). */
  por: string
}

export interface Avaliacao {
  /** IBS/CBS regimes reaching the code, principal first. */
  beneficios: Alcance[]
  /** Annex XVII items reaching the code. */
  seletivo: Alcance[]
  /** Items that cite the code but leave it out (exceto, ressalva). */
  exclusoes: Exclusao[]
}

const REDUCAO: Record<RegimeAnexo, number> = { aliquota_zero: 100, reducao_60: 60, imposto_seletivo: 0 }

interface Entrada {
  anexo: AnexoDados
  item: ItemDados
  ref: ReferenciaDados
  ordem: number
}

export class IndiceAnexos {
  /** Inclusion references by their digits. */
  private readonly porPrefixo = new Map<string, Entrada[]>()
  /** Every inclusion reference's digits, sorted: the references below a short code are a range. */
  readonly prefixos: string[]

  constructor(anexos: AnexoDados[] = ANEXOS.anexos) {
    let ordem = 0
    for (const anexo of anexos) {
      if (anexo.situacao !== 'vigente' || !anexo.regime) continue
      for (const item of anexo.itens) {
        ordem++
        for (const ref of item.ncm) {
          if (ref.exceto) continue
          const list = this.porPrefixo.get(ref.codigo) ?? []
          list.push({ anexo, item, ref, ordem })
          this.porPrefixo.set(ref.codigo, list)
        }
      }
    }
    this.prefixos = [...this.porPrefixo.keys()].sort()
  }

  /** Rules 1 and 2: the items whose references reach the whole code, and those an "exceto" takes out. */
  private alcances(codigo: string): { dentro: Alcance[]; exclusoes: Exclusao[] } {
    const porItem = new Map<ItemDados, Entrada>()
    for (let n = 2; n <= codigo.length; n++) {
      for (const e of this.porPrefixo.get(codigo.slice(0, n)) ?? []) {
        const seen = porItem.get(e.item)
        if (!seen || seen.ref.codigo.length < e.ref.codigo.length) porItem.set(e.item, e)
      }
    }
    const dentro: Alcance[] = []
    const exclusoes: Exclusao[] = []
    for (const e of porItem.values()) {
      const exc = e.item.ncm.find((r) => r.exceto && (!r.alinea || !e.ref.alinea || r.alinea === e.ref.alinea) && codigo.startsWith(r.codigo))
      if (exc) exclusoes.push({ ...e, motivo: 'exceto', por: exc.texto })
      else dentro.push({ ...e })
    }
    return { dentro, exclusoes }
  }

  /** The regimes of a code (rules 1 to 4). Meant for full 8-digit codes; a shorter code gets the items that reach all of it. */
  avaliar(codigo: string): Avaliacao {
    const { dentro, exclusoes } = this.alcances(codigo)
    const anexosPresentes = new Set(dentro.filter((a) => !a.item.exceto_anexos?.length).map((a) => a.anexo.anexo))
    const beneficios: Alcance[] = []
    const seletivo: Alcance[] = []
    for (const a of dentro) {
      const ressalva = a.item.exceto_anexos?.find((x) => anexosPresentes.has(x))
      if (ressalva) {
        exclusoes.push({ ...a, motivo: 'remissao', por: `Anexo ${ressalva}` })
        continue
      }
      if (a.anexo.regime === 'imposto_seletivo') seletivo.push(a)
      else beneficios.push(a)
    }
    beneficios.sort(
      (x, y) =>
        y.ref.codigo.length - x.ref.codigo.length ||
        REDUCAO[y.anexo.regime!] - REDUCAO[x.anexo.regime!] ||
        x.anexo.numero - y.anexo.numero ||
        x.ordem - y.ordem,
    )
    seletivo.sort((x, y) => x.ordem - y.ordem)
    exclusoes.sort((x, y) => x.anexo.numero - y.anexo.numero || x.ordem - y.ordem)
    return { beneficios, seletivo, exclusoes }
  }

  /** Inclusion references longer than the code and below it (the code covers only part of them). */
  abaixo(codigo: string): Alcance[] {
    const out: Alcance[] = []
    for (const p of startingWith(this.prefixos, codigo)) if (p.length > codigo.length) for (const e of this.porPrefixo.get(p)!) out.push({ ...e })
    return out
  }
}

/** The principal IBS/CBS regime of an evaluation: the first item's, or the standard rates when no item reaches the code. */
export function regimePrincipal(a: Avaliacao): RegimeBeneficio {
  return (a.beneficios[0]?.anexo.regime as Exclude<RegimeAnexo, 'imposto_seletivo'> | undefined) ?? 'aliquota_padrao'
}

/** The IBS/CBS regimes a code can have (the Imposto Seletivo is apart). */
export type RegimeBeneficio = 'aliquota_zero' | 'reducao_60' | 'aliquota_padrao'
