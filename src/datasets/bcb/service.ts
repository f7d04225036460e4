// The Banco Central check as plain functions over the open build, so another route (the enriched
// profile) gets exactly this answer without HTTP:
//   instituicao(files, raiz)           with the files of an open build
//   consultarBcb(ctx, cnpjOuRaiz)      with the server's context (503 dados_indisponiveis when not loaded)
import { storeOf, type AppContext } from '../../core/context'
import { checkCnpj, normalizeCnpj } from '../../core/documents'
import type { InstituicaoResultado } from './model'
import type { BcbFiles, BcbStore } from './store'

/** The 8-character root of a CNPJ (14, check digits valid) or of a root given as such; null otherwise. */
export function raizDe(cnpjOuRaiz: string): string | null {
  const s = normalizeCnpj(cnpjOuRaiz)
  if (/^[0-9A-Z]{8}$/.test(s) && /\d/.test(s)) return s
  const check = checkCnpj(cnpjOuRaiz)
  return check.valido ? check.cnpj.slice(0, 8) : null
}

/** The answer for a root: its registros and verified domains, or autorizada=false with empty lists. */
export function instituicao(files: BcbFiles, raiz: string): InstituicaoResultado {
  const row = files.porRaiz.get(raiz)
  const corpo = row ? (JSON.parse(row.corpo) as Omit<InstituicaoResultado, 'cnpj_basico' | 'fonte'>) : { autorizada: false, registros: [], dominios_verificados: [] }
  return { cnpj_basico: raiz, ...corpo, fonte: files.fonte }
}

/** What /v1/bcb/instituicao/{cnpj} answers, from the server's loaded build; the argument is a CNPJ or a root (already valid). */
export function consultarBcb(ctx: AppContext, cnpjOuRaiz: string): Promise<InstituicaoResultado> {
  const raiz = raizDe(cnpjOuRaiz)
  if (!raiz) throw new Error(`raiz inválida: ${cnpjOuRaiz.slice(0, 20)}`)
  return storeOf<BcbStore>(ctx, 'bcb').use((s) => instituicao(s.files, raiz))
}
