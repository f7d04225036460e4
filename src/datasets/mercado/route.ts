// HTTP only: each markets route with its price (SPEC §4, §8) and schemas; the work is in service.ts.
import { defineRoute, REGRA_SEM_DADOS } from '../../core/route'
import { AmostraResposta, CambioResposta, IndicadoresResposta, NoticiasQuery, NoticiasResposta, PacoteResposta } from './model'
import * as service from './service'

const FONTE_NOTE =
  'Cada fonte vem em `fonte`/`fontes` com consultado_em, defasagem_segundos, a última tentativa (tentado_em, ultimo_erro) e status: ok (cópia dentro do intervalo), cache_servido (cópia mais velha: a fonte falhou ou está lenta; a resposta nunca espera por ela), ' +
  'amostra (a amostra embutida, da data em que foi gravada) ou fonte_indisponivel (nenhuma cópia ainda). ' +
  REGRA_SEM_DADOS

export const noticias = defineRoute({
  path: '/v1/mercado/noticias',
  dataset: 'mercado',
  summary: 'Notícias financeiras com tema, sentimento e relevância',
  description:
    'Manchetes de feeds RSS e Atom de veículos brasileiros, atualizadas a cada 15 minutos, as mais recentes primeiro; a mesma história em vários veículos vem uma vez, com os outros em outras_fontes. ' +
    'Tema, sentimento e relevância vêm do léxico determinístico (ou do LLM configurado; `classificador` diz qual). ' +
    FONTE_NOTE,
  price: 0.002,
  query: NoticiasQuery,
  exampleInput: { query: { tema: 'macro', relevancia_min: '5', por_pagina: '2' } },
  response: NoticiasResposta,
  errors: ['parametro_invalido'],
  handler: ({ query, ctx }) => service.noticias(ctx, query),
})

export const indicadores = defineRoute({
  path: '/v1/mercado/indicadores',
  dataset: 'mercado',
  summary: 'Selic, IPCA, PTAX e medianas do Focus',
  description:
    'Meta Selic (SGS 432), IPCA mensal (433) e em 12 meses (13522), PTAX de compra e venda do último dia útil com boletim (nota diz quando não é do dia), medianas do Focus para IPCA, Selic, PIB e câmbio deste ano e do próximo. ' +
    'Cada indicador com valor, unidade, referência e origem; um indicador sem valor vem null e listado em indisponiveis. ' +
    FONTE_NOTE,
  price: 0.002,
  response: IndicadoresResposta,
  errors: [],
  semDados: (r) => (Object.values(r.indicadores).every((v) => v === null) ? 'nenhum indicador tem valor (nenhuma cópia do SGS, da PTAX nem do Focus)' : null),
  handler: ({ ctx }) => service.indicadores(ctx),
})

export const cambio = defineRoute({
  path: '/v1/mercado/cambio',
  dataset: 'mercado',
  summary: 'PTAX, BTC e USDT em reais e o prêmio cripto',
  description:
    'PTAX do último dia útil com a série recente; BTC/BRL e USDT/BRL de três corretoras brasileiras (mediana e cada cotação) e BTC/USD global, consultados na hora com cache de 15 s; ' +
    'prêmio do USDT sobre a PTAX e do BTC/BRL sobre BTC/USD × PTAX, em %. Quando as corretoras falham, a última cópia boa com a idade, as falhas da última consulta em `falhas` e, em `avisos`, ' +
    'de quando são as cotações mais velhas que o prometido. Sem nenhuma cotação (PTAX, BTC e USDT todas null): 503 dados_indisponiveis, sem cobrança. ' +
    FONTE_NOTE,
  price: 0.002,
  response: CambioResposta,
  errors: [],
  semDados: (r) => (r.ptax === null && r.btc_brl === null && r.usdt_brl === null && r.btc_usd === null ? 'nenhuma cotação (PTAX, BTC/BRL, USDT/BRL, BTC/USD) tem valor' : null),
  handler: ({ ctx }) => service.cambio(ctx),
})

export const pacote = defineRoute({
  path: '/v1/mercado/pacote',
  dataset: 'mercado',
  summary: 'Câmbio, indicadores e manchetes numa chamada',
  description:
    'As respostas de /v1/mercado/cambio e /v1/mercado/indicadores e as 10 manchetes mais recentes. Uma parte sem nenhum dado vem null e listada em indisponiveis; as outras vêm mesmo assim. ' +
    'O pacote só é cobrado com ao menos uma parte: com as três faltando, 503 dados_indisponiveis, sem cobrança.',
  price: 0.004,
  response: PacoteResposta,
  errors: [],
  semDados: (r) => (r.cambio === null && r.indicadores === null && r.noticias === null ? 'as três partes (câmbio, indicadores, notícias) estão sem dados' : null),
  handler: ({ ctx }) => service.pacote(ctx),
})

export const amostra = defineRoute({
  path: '/v1/mercado/amostra',
  dataset: 'mercado',
  summary: 'Amostra grátis de notícias e indicadores',
  description: 'As 5 manchetes mais recentes e os indicadores, com amostra: true e as fontes com a idade de cada cópia.',
  price: null,
  response: AmostraResposta,
  errors: [],
  handler: ({ ctx }) => service.amostra(ctx),
})
