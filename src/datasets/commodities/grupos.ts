// The export groups: NCM prefixes kept as data (grupos-ncm.json). Codes are strings, always.
import data from './grupos-ncm.json'

export interface GrupoNcm {
  id: string
  nome: string
  en: string
  ncm_prefixos: string[]
}

export const GRUPOS: GrupoNcm[] = data.grupos

/** The group of an 8-digit NCM (longest matching prefix), or null. */
export function grupoDoNcm(ncm: string, grupos: GrupoNcm[] = GRUPOS): number | null {
  let best = -1
  let bestLen = 0
  grupos.forEach((g, i) => {
    for (const p of g.ncm_prefixos) if (p.length > bestLen && ncm.startsWith(p)) ((best = i), (bestLen = p.length))
  })
  return best >= 0 ? best : null
}
