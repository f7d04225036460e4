// The Banco Central check as plain functions over the open build, so another route (the enriched
// profile) gets exactly this answer without HTTP:
//   instituicao(files, raiz)           with the files of an open build
//   consultarBcb(ctx, cnpjOuRaiz)      with the server's context (503 dados_indisponiveis when not loaded)
import { storeOf, type AppContext } from '../../core/context'
import { ApiError, JsonText } from '../../core/errors'
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

const ascii = (s: string) => Buffer.from(s, 'latin1')
const NAO_CONSTA = ascii('{"autorizada":false,"registros":[],"dominios_verificados":[]}')

/**
 * The answer for a root as UTF-8 JSON, put together from the bytes stored for it at build time
 * (never decoded to a string); a root on no list: autorizada=false with empty lists.
 */
export function instituicaoJson(files: BcbFiles, raiz: string): Uint8Array {
  const corpo = files.porRaiz.get(raiz)?.corpo ?? NAO_CONSTA
  return Buffer.concat([ascii(`{"cnpj_basico":"${raiz}",`), corpo.subarray(1, corpo.length - 1), ascii(',"fonte":'), files.fonteJson, ascii('}')])
}

/** The same answer as an object (for routes that combine it with other data, like the enriched profile). */
export function instituicao(files: BcbFiles, raiz: string): InstituicaoResultado {
  return JSON.parse(new TextDecoder().decode(instituicaoJson(files, raiz))) as InstituicaoResultado
}

/** The root of a CNPJ (or a root), or a 400 like the route's own. */
function raizOu400(cnpjOuRaiz: string): string {
  const raiz = raizDe(cnpjOuRaiz)
  if (!raiz) throw new ApiError('cnpj_invalido', 'use o CNPJ de 14 caracteres ou a raiz de 8, com ou sem pontuação')
  return raiz
}

/** What /v1/bcb/instituicao/{cnpj} answers, from the server's loaded build, as an object; the argument is a CNPJ or a root. */
export function consultarBcb(ctx: AppContext, cnpjOuRaiz: string): Promise<InstituicaoResultado> {
  const raiz = raizOu400(cnpjOuRaiz)
  return storeOf<BcbStore>(ctx, 'bcb').use((s) => instituicao(s.files, raiz))
}

/** The same, as the JSON bytes the route sends. */
export function consultarBcbJson(ctx: AppContext, cnpjOuRaiz: string): Promise<JsonText> {
  const raiz = raizOu400(cnpjOuRaiz)
  return storeOf<BcbStore>(ctx, 'bcb').use((s) => new JsonText(instituicaoJson(s.files, raiz)))
}
