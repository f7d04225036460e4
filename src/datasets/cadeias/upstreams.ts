// The upstreams the causal chains read themselves (the others come in-process from the markets,
// commodities and funds datasets): each a setting with the real default (src/core/upstream.ts).
import { defineUpstream } from '../../core/upstream'

export const ANEEL_BANDEIRAS = defineUpstream(
  'ANEEL_BANDEIRAS_URL',
  'https://dadosabertos.aneel.gov.br/dataset/7f43a020-6dc5-44b8-80b4-d97eaa94436c/resource/0591b8f6-fe54-437b-b72b-1aa2efd46e42/download',
  'dados abertos da ANEEL: bandeira tarifária acionada em cada mês (bandeira-tarifaria-acionamento.csv)',
)
export const ONS_BALANCO = defineUpstream(
  'ONS_BALANCO_URL',
  'https://ons-aws-prod-opendata.s3.amazonaws.com/dataset/balanco_energia_subsistema_ho',
  'dados abertos do ONS: balanço de energia horário por subsistema, com a geração térmica (BALANCO_ENERGIA_SUBSISTEMA_AAAA.csv)',
)
