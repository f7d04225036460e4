// The chains' answers as plain functions of the AppContext: a chain reads its sources in-process
// and applies its rule (motor.ts); the answer carries the links, the reading, the rule and its
// limits. The pack /v1/pacotes/brasil does not include the chains (docs/cadeias.md).
import type { z } from 'zod'
import type { AppContext } from '../../core/context'
import type { AmostraResposta, CadeiaResposta } from './model'
import { avaliar } from './motor'
import { CADEIAS, REGRAS, type CadeiaId } from './regras'

export type Cadeia = z.infer<typeof CadeiaResposta>
export type Amostra = z.infer<typeof AmostraResposta>

export const PRECO_CADEIA = 0.05
export const CADEIA_DA_AMOSTRA: CadeiaId = 'energia_br'

export async function cadeia(ctx: AppContext, id: CadeiaId, agora = Date.now()): Promise<Cadeia> {
  const regra = REGRAS[id]
  const a = await avaliar(ctx, regra, agora)
  const { titulo, descricao, limites, ...aplicada } = regra
  return { cadeia: regra.cadeia, titulo, descricao, avaliada_em: a.avaliada_em, mes_da_regra: a.mes_da_regra, leitura: a.leitura, elos: a.elos, regra: aplicada, limites, fonte: a.fonte }
}

export async function amostra(ctx: AppContext, agora = Date.now()): Promise<Amostra> {
  const c = await cadeia(ctx, CADEIA_DA_AMOSTRA, agora)
  return {
    amostra: true,
    aviso:
      `Amostra grátis: a cadeia ${CADEIA_DA_AMOSTRA} completa, como a rota paga /v1/cadeias/${CADEIA_DA_AMOSTRA} a dá agora (mesmos elos, leitura, regra e limites). ` +
      'As outras três custam US$ 0,05 cada; todas se leem do mesmo jeito.',
    ...c,
    outras_cadeias: CADEIAS.filter((x) => x !== CADEIA_DA_AMOSTRA).map((x) => ({ rota: `/v1/cadeias/${x}`, titulo: REGRAS[x].titulo, preco: PRECO_CADEIA })),
  }
}
