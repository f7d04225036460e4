// HTTP only: the packs' routes with their prices (SPEC §4 Packs); the work is in catalogo.ts and service.ts.
import type { AppContext } from '../../core/context'
import { JsonText } from '../../core/errors'
import { defineRoute } from '../../core/route'
import { AmostraResposta, BrasilResposta } from './model'
import { PRECO_BRASIL, ROTA_BRASIL } from './catalogo'
import * as service from './service'

/**
 * The pack is built once a second per process and sent as bytes to every request of that second
 * (requests arriving while it is built wait for the same build): its ~100 KB would otherwise be
 * assembled from a dozen parts per request under load. Its parts' ages move by the second.
 */
const built = new WeakMap<AppContext, { second: number; body: Promise<JsonText> }>()
function brasilPorSegundo(ctx: AppContext, request: Request, baseUrl: string): Promise<JsonText> {
  const second = Math.floor(Date.now() / 1000)
  const hit = built.get(ctx)
  if (hit && hit.second === second) return hit.body
  const body = service.brasil(ctx, request, baseUrl)
  body.catch(() => {
    if (built.get(ctx)?.body === body) built.delete(ctx)
  })
  built.set(ctx, { second, body })
  return body
}

export const brasil = defineRoute({
  path: ROTA_BRASIL,
  dataset: 'pacotes',
  summary: 'Todas as rotas pagas sem parâmetros do catálogo numa chamada',
  description:
    'Cada parte é a resposta da rota como ela a dá sozinha (com a sua fonte), por família (a base) e nome: commodities.clima, mercado.cambio, fundos.fluxos... ' +
    '`pacote` diz quais rotas entraram, a soma dos preços delas e a economia; a lista sai da tabela de rotas (rotas pagas sem parâmetro de caminho que respondem sem consulta, fora pacotes e cadeias causais). ' +
    'As partes rodam no próprio servidor, sem cobrança por parte; uma que falha (ou não teria nenhum dado) vem null e listada em indisponiveis, e as outras vêm mesmo assim. ' +
    'O pacote só é cobrado com ao menos uma parte: com todas faltando, 503 dados_indisponiveis, sem cobrança. ' +
    'Entram todas as rotas que cumprem a regra (pacote.quantidade; /v1/pacotes/amostra lista as mesmas), não uma contagem fixa.',
  price: PRECO_BRASIL,
  response: BrasilResposta,
  errors: [],
  handler: ({ ctx, request, baseUrl }) => brasilPorSegundo(ctx, request, baseUrl),
})

export const amostra = defineRoute({
  path: '/v1/pacotes/amostra',
  dataset: 'pacotes',
  summary: 'O que cada pacote contém e quanto economiza (grátis)',
  description: 'Cada pacote pago (/v1/pacotes/brasil, /v1/commodities/pacote, /v1/mercado/pacote) com as suas partes, a soma dos preços delas e a economia, calculados da tabela de rotas deste servidor, com amostra: true.',
  price: null,
  response: AmostraResposta,
  errors: [],
  handler: ({ ctx }) => service.amostra(ctx),
})
