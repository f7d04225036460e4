// What each pack holds, derived from the route table at request time (ctx.datasets: no import of
// the registry here, which imports this dataset). A route added later joins /v1/pacotes/brasil by
// itself when it meets the rule; the other packs (/v1/mercado/pacote, /v1/commodities/pacote)
// hold the routes of their dataset named by the keys of their answer.
import { z } from 'zod'
import type { AppContext } from '../../core/context'
import type { RouteDef } from '../../core/route'

export const ROTA_BRASIL = '/v1/pacotes/brasil'
export const PRECO_BRASIL = 0.09

export const CRITERIO_BRASIL =
  'Todas as rotas pagas que este servidor serve sem parâmetro de caminho e que respondem sem nenhum parâmetro de consulta ' +
  '(o esquema da consulta aceita a consulta vazia e a rota não exige um filtro, como /v1/cnpj/busca exige), cada uma com os seus valores padrão; ' +
  'fora os pacotes (as rotas .../pacote e /v1/pacotes/*: um pacote não contém pacotes) e as cadeias causais (/v1/cadeias/*: leituras feitas sobre estas mesmas partes, vendidas à parte). ' +
  'A lista sai da tabela de rotas a cada pedido: uma rota nova que atenda a regra entra sozinha.'

export interface Parte {
  familia: string
  nome: string
  rota: string
  preco: number
}

export interface Pacote {
  rota: string
  preco: number
  descricao: string
  partes: Parte[]
  quantidade: number
  soma_das_partes: number
  economia: number
  economia_pct: number
}

/** The last path segment: the part's key inside its family. */
export const nomeDa = (r: RouteDef) => r.path.slice(r.path.lastIndexOf('/') + 1)

export const rotasServidas = (ctx: AppContext): RouteDef[] => ctx.datasets.flatMap((d) => d.routes)

export const ehPacote = (r: RouteDef) => r.dataset === 'pacotes' || r.path.endsWith('/pacote')

/** Callable with no parameter at all: no path parameter, an empty query accepted by its schema, no filter demanded by the handler. */
export function semParametros(r: RouteDef): boolean {
  if (/\{\w+\}/.test(r.path)) return false
  if (r.errors.includes('filtro_obrigatorio')) return false
  return !r.query || r.query.safeParse({}).success
}

export function partesDoBrasil(rotas: RouteDef[]): RouteDef[] {
  return rotas.filter((r) => r.price !== null && !ehPacote(r) && r.dataset !== 'cadeias' && semParametros(r))
}

/** The parts of a dataset's own pack: the routes of its dataset whose name is a key of the pack's answer. */
export function partesDoPacote(pacote: RouteDef, rotas: RouteDef[]): RouteDef[] {
  const chaves = pacote.response instanceof z.ZodObject ? Object.keys(pacote.response.shape) : []
  return rotas.filter((r) => r.dataset === pacote.dataset && r.price !== null && !ehPacote(r) && chaves.includes(nomeDa(r)))
}

/** Prices summed in USDC base units (6 decimals): no floating-point drift in the sums. */
const atomico = (p: number) => Math.round(p * 1_000_000)
const usd = (a: number) => a / 1_000_000

export function resumo(pacote: { rota: string; preco: number; descricao: string }, partes: RouteDef[]): Pacote {
  const soma = partes.reduce((a, r) => a + atomico(r.price!), 0)
  const economia = soma - atomico(pacote.preco)
  return {
    ...pacote,
    partes: partes.map((r) => ({ familia: r.dataset, nome: nomeDa(r), rota: r.path, preco: r.price! })),
    quantidade: partes.length,
    soma_das_partes: usd(soma),
    economia: usd(economia),
    economia_pct: soma > 0 ? Math.round((economia / soma) * 1000) / 10 : 0,
  }
}

/** Every paid pack served, with what it holds and saves; /v1/pacotes/brasil first. */
export function catalogo(ctx: AppContext): Pacote[] {
  const rotas = rotasServidas(ctx)
  const out: Pacote[] = []
  for (const p of rotas.filter((r) => ehPacote(r) && r.price !== null)) {
    const partes = p.path === ROTA_BRASIL ? partesDoBrasil(rotas) : partesDoPacote(p, rotas)
    out.push(resumo({ rota: p.path, preco: p.price!, descricao: p.description ?? p.summary }, partes))
  }
  return out.sort((a, b) => (a.rota === ROTA_BRASIL ? -1 : b.rota === ROTA_BRASIL ? 1 : a.rota.localeCompare(b.rota)))
}
