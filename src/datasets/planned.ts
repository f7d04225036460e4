// Every path of the interface (SPEC §4) is declared from the start. A path whose dataset this
// version does not serve yet answers 501 `nao_implementado` naming the dataset, instead of the 404
// a typo gets; /llms.txt, /openapi.json and /termos list what is served and what is not. A
// dataset that gets built declares its real routes and its paths leave this list by themselves.
import { z } from 'zod'
import { ApiError } from '../core/errors'
import { defineRoute, type RouteDef } from '../core/route'

export interface PlannedDataset {
  name: string
  titulo: string
  routes: { path: string; price: number | null; summary: string }[]
}

export const PLANNED: PlannedDataset[] = [
  {
    name: 'integridade',
    titulo: 'Integridade: CEIS, CNEP, CEPIM, lista do trabalho escravo e acordos de leniência',
    routes: [
      { path: '/v1/integridade/consulta/{cnpj}', price: 0.01, summary: 'Triagem de integridade de um CNPJ nas cinco listas oficiais' },
      { path: '/v1/integridade/amostra', price: null, summary: 'Amostra grátis da triagem (empresa sancionada real)' },
    ],
  },
  {
    name: 'bcb',
    titulo: 'Banco Central: instituições autorizadas e seus domínios',
    routes: [
      { path: '/v1/bcb/instituicao/{cnpj}', price: 0.005, summary: 'Instituição autorizada pelo Banco Central e domínios verificados' },
      { path: '/v1/bcb/amostra', price: null, summary: 'Amostra grátis da consulta ao Banco Central' },
    ],
  },
  {
    name: 'licitacoes',
    titulo: 'Compras públicas (PNCP): contratos por fornecedor e licitações abertas',
    routes: [
      { path: '/v1/licitacoes/fornecedor/{cnpj}', price: 0.01, summary: 'Contratos públicos de um fornecedor' },
      { path: '/v1/licitacoes/abertas', price: 0.01, summary: 'Licitações com propostas abertas' },
      { path: '/v1/licitacoes/amostra', price: null, summary: 'Amostra grátis de contratos de um fornecedor' },
    ],
  },
  {
    name: 'empresa',
    titulo: 'Perfil enriquecido (cadastro, integridade, Banco Central e contratos numa chamada)',
    routes: [
      { path: '/v1/empresa/enriquecer/{cnpj}', price: 0.05, summary: 'Perfil completo de uma empresa numa chamada' },
      { path: '/v1/empresa/amostra', price: null, summary: 'Amostra grátis do perfil enriquecido' },
    ],
  },
  {
    name: 'mercado',
    titulo: 'Mercado: notícias com sentimento, indicadores, câmbio e prêmio cripto',
    routes: [
      { path: '/v1/mercado/noticias', price: 0.002, summary: 'Notícias financeiras com tema, sentimento e relevância' },
      { path: '/v1/mercado/indicadores', price: 0.002, summary: 'Selic, IPCA, PTAX e medianas do Focus' },
      { path: '/v1/mercado/cambio', price: 0.002, summary: 'PTAX, BTC e USDT em reais e o prêmio cripto' },
      { path: '/v1/mercado/pacote', price: 0.004, summary: 'Câmbio, indicadores e manchetes numa chamada' },
      { path: '/v1/mercado/amostra', price: null, summary: 'Amostra grátis de notícias e indicadores' },
    ],
  },
  {
    name: 'commodities',
    titulo: 'Commodities: clima nos cinturões agrícolas, queimadas, exportações, reservatórios e briefing',
    routes: [
      { path: '/v1/commodities/clima', price: 0.005, summary: 'Chuva, dias secos e geada nos cinturões agrícolas' },
      { path: '/v1/commodities/fogo', price: 0.002, summary: 'Focos de queimada por bioma e estado' },
      { path: '/v1/commodities/exportacoes', price: 0.005, summary: 'Exportações mensais por commodity' },
      { path: '/v1/commodities/hidrologia', price: 0.002, summary: 'Energia armazenada nos reservatórios por subsistema' },
      { path: '/v1/commodities/briefing', price: 0.1, summary: 'Briefing diário de commodities, em inglês' },
      { path: '/v1/commodities/pacote', price: 0.06, summary: 'Os cinco sinais de commodities numa chamada' },
      { path: '/v1/commodities/amostra', price: null, summary: 'Amostra grátis dos sinais de commodities' },
    ],
  },
  {
    name: 'fundos',
    titulo: 'Fundos de investimento (CVM): fluxos, cadastro, ranking, carteiras e movimentações',
    routes: [
      { path: '/v1/fundos/fluxos', price: 0.005, summary: 'Captação e resgates diários por classe' },
      { path: '/v1/fundos/consulta/{cnpj}', price: 0.005, summary: 'Cadastro de um fundo na CVM' },
      { path: '/v1/fundos/ranking', price: 0.01, summary: 'Fundos por patrimônio, captação ou cotistas' },
      { path: '/v1/fundos/carteira/{cnpj}', price: 0.01, summary: 'Ações e BDRs na carteira de um fundo' },
      { path: '/v1/fundos/movimentacoes', price: 0.02, summary: 'Compras e vendas de ações pelos fundos' },
      { path: '/v1/fundos/amostra', price: null, summary: 'Amostra grátis da base de fundos' },
    ],
  },
  {
    name: 'tributos',
    titulo: 'Reforma tributária: IBS/CBS por NCM, busca nos anexos e calendário 2026-2033',
    routes: [
      { path: '/v1/tributos/ncm/{codigo}', price: 0.005, summary: 'Regime de IBS/CBS de um NCM, com fundamento legal' },
      { path: '/v1/tributos/busca', price: 0.005, summary: 'Busca nos anexos da LC 214/2025' },
      { path: '/v1/tributos/calendario', price: 0.002, summary: 'Tributos em vigor ano a ano, 2026-2033' },
      { path: '/v1/tributos/amostra', price: null, summary: 'Amostra grátis da reforma tributária' },
    ],
  },
  {
    name: 'cadeias',
    titulo: 'Cadeias causais: energia, café, soja e capital',
    routes: [
      { path: '/v1/cadeias/energia_br', price: 0.05, summary: 'Cadeia causal da energia no Brasil' },
      { path: '/v1/cadeias/cafe_kc', price: 0.05, summary: 'Cadeia causal do café arábica' },
      { path: '/v1/cadeias/soja_zs', price: 0.05, summary: 'Cadeia causal da soja' },
      { path: '/v1/cadeias/capital_br', price: 0.05, summary: 'Cadeia causal do fluxo de capital' },
      { path: '/v1/cadeias/amostra', price: null, summary: 'Amostra grátis de uma cadeia completa' },
    ],
  },
  {
    name: 'desmatamento',
    titulo: 'Desmatamento: alertas DETER por município, fornecedor e rankings',
    routes: [
      { path: '/v1/desmatamento/municipio/{ibge}', price: 0.01, summary: 'Alertas de desmatamento de um município' },
      { path: '/v1/desmatamento/fornecedor/{cnpj}', price: 0.02, summary: 'Exposição ao desmatamento dos municípios de uma empresa' },
      { path: '/v1/desmatamento/ranking', price: 0.01, summary: 'Municípios ou estados por área desmatada' },
      { path: '/v1/desmatamento/amostra', price: null, summary: 'Amostra grátis: totais por bioma e o pior município' },
    ],
  },
  {
    name: 'pacotes',
    titulo: 'Pacotes: todas as rotas sem parâmetros numa chamada',
    routes: [
      { path: '/v1/pacotes/brasil', price: 0.09, summary: 'Todas as rotas sem parâmetros do catálogo numa chamada' },
      { path: '/v1/pacotes/amostra', price: null, summary: 'O que cada pacote contém e quanto economiza' },
    ],
  },
]

const NaoImplementado = z.object({ erro: z.object({ codigo: z.literal('nao_implementado'), mensagem: z.string() }) })

/**
 * The 501 routes of the planned paths that no served route declares yet. Any path parameters and
 * query strings are ignored: the answer is the same whatever is asked.
 */
export function plannedRoutes(served: RouteDef[], servedNames: string[]): RouteDef[] {
  const taken = new Set(served.map((r) => r.path))
  return PLANNED.flatMap((ds) =>
    ds.routes
      .filter((r) => !taken.has(r.path))
      .map((r) =>
        defineRoute({
          path: r.path,
          dataset: ds.name,
          summary: r.summary,
          description: `Ainda não servida por esta versão: a base '${ds.name}' (${ds.titulo}) será publicada numa próxima versão${r.price !== null ? `, a US$ ${r.price} por chamada` : ''}. Hoje responde 501 nao_implementado, sem cobrar.`,
          price: null,
          planned: { price: r.price },
          response: NaoImplementado,
          errors: ['nao_implementado'],
          acceptsAnyQuery: true,
          handler: () => {
            throw new ApiError('nao_implementado', `A base '${ds.name}' (${ds.titulo}) ainda não é servida por esta versão do dadosbr; nada foi cobrado. Bases servidas: ${servedNames.join(', ')}. Veja /llms.txt.`)
          },
        }),
      ),
  )
}
