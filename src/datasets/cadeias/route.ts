// HTTP only: each chain route with its price (SPEC §4 Causal chains) and schemas; the work is in service.ts and motor.ts.
import type { AppContext } from '../../core/context'
import { JsonText } from '../../core/errors'
import { defineRoute, REGRA_SEM_DADOS } from '../../core/route'
import { AmostraResposta, CadeiaResposta } from './model'
import { REGRAS, type CadeiaId } from './regras'
import * as service from './service'

/**
 * Each answer is built once a second per process and sent as bytes to every request of that second
 * (requests arriving while it is built wait for the same build): the copies behind it change a few
 * times a day, only the ages (whole seconds) move.
 */
const built = new WeakMap<AppContext, Map<string, { second: number; body: Promise<JsonText> }>>()
export function perSecond(name: string, build: (ctx: AppContext) => Promise<unknown>) {
  return ({ ctx }: { ctx: AppContext }) => {
    const second = Math.floor(Date.now() / 1000)
    let m = built.get(ctx)
    if (!m) built.set(ctx, (m = new Map()))
    const hit = m.get(name)
    if (hit && hit.second === second) return hit.body
    const body = build(ctx).then((b) => new JsonText(Buffer.from(JSON.stringify(b)), b))
    // A failed build is not kept: the next request tries again (unless a newer build took its place).
    body.catch(() => {
      if (m!.get(name)?.body === body) m!.delete(name)
    })
    m.set(name, { second, body })
    return body
  }
}

const COMO_LER =
  'Cada elo traz indicador, valor, data, a fonte (rota e campo de onde veio, com a idade da cópia) e o seu status: ok conta na leitura; defasado (mais velho que a idade máxima da regra) e ausente não contam. ' +
  'A leitura (nível e direção em palavras, com os pontos) é recalculável com `regra`: cada elo cai numa faixa e soma pontos; a soma cai numa escala. Sem um elo, a leitura só diz a palavra que qualquer valor dele daria; ' +
  'senão fica null com as palavras possíveis. Um elo calculado sobre dados incompletos (janela observada menor que a do indicador) fica parcial: conta por todos os valores que ele ainda pode ter. ' +
  'avaliada_em é o instante mais recente dos dados da cadeia; `fonte` diz a idade da leitura. `limites` diz o que ela não diz. ' +
  REGRA_SEM_DADOS

function rotaDaCadeia(id: CadeiaId, summary: string) {
  return defineRoute({
    path: `/v1/cadeias/${id}`,
    dataset: 'cadeias',
    summary,
    description: `${REGRAS[id].descricao} ${COMO_LER}`,
    price: service.PRECO_CADEIA,
    response: CadeiaResposta,
    errors: [],
    handler: perSecond(id, (ctx) => service.cadeia(ctx, id)),
  })
}

export const energia = rotaDaCadeia('energia_br', 'Cadeia causal da energia: chuva nas bacias, reservatórios, despacho térmico e bandeira tarifária')
export const cafe = rotaDaCadeia('cafe_kc', 'Cadeia causal do café arábica: dias secos e geada em Minas e o risco para a produtividade')
export const soja = rotaDaCadeia('soja_zs', 'Cadeia causal da soja: dias secos em Mato Grosso, risco para a produtividade e volume embarcado')
export const capital = rotaDaCadeia('capital_br', 'Cadeia causal do capital: prêmio do USDT sobre a PTAX, fluxo dos fundos e pressão cambial')

export const amostra = defineRoute({
  path: '/v1/cadeias/amostra',
  dataset: 'cadeias',
  summary: 'Amostra grátis de uma cadeia causal completa (energia_br)',
  description: `A cadeia ${service.CADEIA_DA_AMOSTRA} inteira, como a rota paga a dá, com amostra: true e a lista das outras. ${COMO_LER}`,
  price: null,
  response: AmostraResposta,
  errors: [],
  handler: perSecond('amostra', (ctx) => service.amostra(ctx)),
})
