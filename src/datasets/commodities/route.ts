// HTTP only: each commodities route with its price (SPEC §4 Commodities and Packs) and schemas; the work is in service.ts.
import type { AppContext } from '../../core/context'
import { JsonText } from '../../core/errors'
import { defineRoute, REGRA_SEM_DADOS } from '../../core/route'
import { AmostraResposta, BriefingResposta, ClimaResposta, ExportacoesResposta, FogoResposta, HidrologiaResposta, PacoteResposta } from './model'
import * as service from './service'

/**
 * Each answer is written once a second per process and sent as bytes to every request of that
 * second: the copies change a few times a day, only the ages (whole seconds) move. Under load the
 * pack (~60 KB) would otherwise be rebuilt and serialized per request.
 */
const written = new WeakMap<AppContext, Map<string, { second: number; body: JsonText }>>()
function perSecond(name: string, build: (ctx: AppContext) => Promise<unknown>) {
  return async ({ ctx }: { ctx: AppContext }) => {
    const second = Math.floor(Date.now() / 1000)
    let m = written.get(ctx)
    if (!m) written.set(ctx, (m = new Map()))
    const hit = m.get(name)
    if (hit && hit.second === second) return hit.body
    const value = await build(ctx)
    const body = new JsonText(Buffer.from(JSON.stringify(value)), value)
    m.set(name, { second, body })
    return body
  }
}

const FONTE_NOTE =
  'A cópia vem em `fonte` com consultado_em, defasagem_segundos, a última tentativa (tentado_em, ultimo_erro) e status: ok (dentro do intervalo), cache_servido (mais velha: a fonte falhou ou está lenta; a resposta nunca espera por ela) ' +
  'ou amostra (a amostra embutida, da data em que foi gravada). ' +
  REGRA_SEM_DADOS

export const clima = defineRoute({
  path: '/v1/commodities/clima',
  dataset: 'commodities',
  summary: 'Chuva, dias secos e geada nos cinturões agrícolas',
  description:
    'Para cada cinturão (soja no norte e médio-norte de MT, oeste do PR, noroeste do RS; milho safrinha; café no Sul de Minas e no Cerrado Mineiro; cana em SP; algodão no oeste da BA): ' +
    'chuva observada em 7 e 30 dias, chuva prevista em 7 dias, dias secos seguidos, mínima das próximas 72 horas e alerta de geada pelo limiar da cultura. Open-Meteo, atualizado duas vezes ao dia. ' +
    FONTE_NOTE,
  price: 0.005,
  response: ClimaResposta,
  errors: [],
  handler: perSecond('clima', service.clima),
})

export const fogo = defineRoute({
  path: '/v1/commodities/fogo',
  dataset: 'commodities',
  summary: 'Focos de queimada por bioma e estado',
  description:
    'Focos de calor do INPE dos últimos 7 dias (arquivos diários), contados no satélite de referência AQUA_M-T: série diária por bioma com a FRP média, os 10 estados com mais focos e a média de dias sem chuva nos focos. Atualizado diariamente. ' +
    FONTE_NOTE,
  price: 0.002,
  response: FogoResposta,
  errors: [],
  handler: perSecond('fogo', service.fogo),
})

export const exportacoes = defineRoute({
  path: '/v1/commodities/exportacoes',
  dataset: 'commodities',
  summary: 'Exportações mensais por commodity',
  description:
    'Valor FOB (US$) e peso líquido (kg) exportados por grupo de commodity (prefixos de NCM) nos 13 últimos meses, com a variação contra o mesmo mês do ano anterior. ComexStat (EXP_AAAA.csv), reconstruído todo mês por `dadosbr ingest exportacoes`. ' +
    '503 quando nenhuma base de exportações foi construída (nada é cobrado).',
  price: 0.005,
  response: ExportacoesResposta,
  errors: [],
  handler: perSecond('exportacoes', service.exportacoes),
})

export const hidrologia = defineRoute({
  path: '/v1/commodities/hidrologia',
  dataset: 'commodities',
  summary: 'Energia armazenada nos reservatórios por subsistema',
  description: 'EAR diária do ONS por subsistema (SE/CO, S, NE, N) em % e MWmês, variação em 7 dias, e o total do SIN calculado como Σ MWmês ÷ Σ máximo. Atualizado diariamente. ' + FONTE_NOTE,
  price: 0.002,
  response: HidrologiaResposta,
  errors: [],
  handler: perSecond('hidrologia', service.hidrologia),
})

export const briefing = defineRoute({
  path: '/v1/commodities/briefing',
  dataset: 'commodities',
  summary: 'Briefing diário de commodities, em inglês',
  description:
    'Resumo e um destaque por commodity com a direção (up, down, flat) para onde os sinais de clima, fogo, exportações, hidrologia e câmbio (PTAX) empurram o preço em reais. ' +
    'O texto sai de um modelo determinístico; cada número vem com o sinal e o campo de onde veio (evidencias). Com um LLM configurado, a prosa é reescrita e só usada se os números forem os mesmos; escrito_por diz quem escreveu. ' +
    FONTE_NOTE,
  price: 0.1,
  response: BriefingResposta,
  errors: [],
  handler: perSecond('briefing', service.briefing),
})

export const pacote = defineRoute({
  path: '/v1/commodities/pacote',
  dataset: 'commodities',
  summary: 'Os cinco sinais de commodities numa chamada',
  description:
    'As respostas de clima, fogo, exportacoes, hidrologia e briefing, cada uma com sua fonte. Uma parte sem nenhum dado vem null e listada em indisponiveis; as outras vêm mesmo assim. ' +
    'O pacote só é cobrado com ao menos uma parte: com as cinco faltando, 503 dados_indisponiveis, sem cobrança.',
  price: 0.06,
  response: PacoteResposta,
  errors: [],
  semDados: (r) => (r.indisponiveis.length === 5 ? 'as cinco partes (clima, fogo, exportações, hidrologia, briefing) estão sem dados' : null),
  handler: perSecond('pacote', service.pacote),
})

export const amostra = defineRoute({
  path: '/v1/commodities/amostra',
  dataset: 'commodities',
  summary: 'Amostra grátis dos sinais de commodities',
  description: 'Dois cinturões, o total do SIN, a soja do último mês, os focos por bioma e o resumo do briefing, com amostra: true e a fonte de cada parte.',
  price: null,
  response: AmostraResposta,
  errors: [],
  handler: perSecond('amostra', service.amostra),
})
