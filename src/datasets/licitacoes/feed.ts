// Open tenders as a feed (src/core/feeds): one local copy per (modalidade, uf) query of PNCP's
// /v1/contratacoes/proposta, every page of it, refreshed in the background every
// PNCP_ABERTAS_MINUTOS minutes and on first need, kept on disk; a request pages through the copy
// and never waits on PNCP (15-22 s a query).
import type { FeedDef } from '../../core/feeds/feed'
import { addDays, mapLimit, oportunidade, PNCP, pncpDate, readPage, todayBrasilia, type Oportunidade, type PncpContratacao, type PncpPage } from './pncp'

export const ABERTAS_FEED = 'licitacoes-abertas'
export const DEFAULT_MINUTES = 30

/** The refresh interval: PNCP_ABERTAS_MINUTOS (a number of minutes, at least 1), else 30. A bad value is said once and the default kept. */
let warned = false
export function abertasMinutos(env: Record<string, string | undefined> = process.env): number {
  const raw = env.PNCP_ABERTAS_MINUTOS?.trim()
  if (!raw) return DEFAULT_MINUTES
  const n = Number(raw)
  if (Number.isFinite(n) && n >= 1 && n <= 24 * 60) return n
  if (!warned) process.stderr.write(`dadosbr: configuração inválida: PNCP_ABERTAS_MINUTOS=${raw}: deve ser um número de minutos de 1 a 1440; usado o padrão, ${DEFAULT_MINUTES}\n`)
  warned = true
  return DEFAULT_MINUTES
}

/** The key of a query's copy: the modalidade, then the UF when there is one (`6`, `6-SP`). */
export const abertasKey = (modalidade: string, uf?: string) => (uf ? `${modalidade}-${uf}` : modalidade)

export interface AbertasCopy {
  oportunidades: Oportunidade[]
}

/** Pages asked of PNCP at once during a refresh. */
const PAGES_IN_FLIGHT = 4
/** Proposals closing up to this many days ahead are asked for (PNCP wants a dataFinal; a year covers every open one). */
const HORIZON_DAYS = 365
const PAGE_SIZE = 50

export const abertasFeed: FeedDef<AbertasCopy> = {
  name: ABERTAS_FEED,
  dataset: 'licitacoes',
  base: 'PNCP/contratacoes/proposta',
  upstreams: [PNCP],
  get intervalMinutes() {
    return abertasMinutos()
  },
  // The default query (every UF, pregão eletrônico) is kept fresh unasked; the others from their first request on.
  defaultKeys: [abertasKey('6')],
  // A UF's tenders are in its modalidade's whole list: while that copy is good, the UF's own is not polled.
  coveredBy: (key) => (key.includes('-') ? key.split('-')[0]! : null),
  timeoutMs: 90_000,
  // A first copy takes PNCP 15-22 s a page: a request never waits for it. Until one lands the answer
  // has no data: a 503 dados_indisponiveis, not charged (defineRoute's semDados).
  firstNeedWaitMs: 0,
  async fetch(key, ctx) {
    const [modalidade, uf] = key.split('-') as [string, string | undefined]
    const params = (pagina: number) => {
      const p = new URLSearchParams({ dataFinal: pncpDate(addDays(todayBrasilia(ctx.now()), HORIZON_DAYS)), codigoModalidadeContratacao: modalidade })
      if (uf) p.set('uf', uf)
      p.set('pagina', String(pagina))
      p.set('tamanhoPagina', String(PAGE_SIZE))
      return p
    }
    const read = async (pagina: number): Promise<PncpPage<PncpContratacao>> => {
      const url = `${ctx.url(PNCP)}/v1/contratacoes/proposta?${params(pagina)}`
      const response = await ctx.fetch(url, { retries: 2, backoffMs: 2000, accept: [204] })
      return readPage<PncpContratacao>(response, `/v1/contratacoes/proposta ${key} página ${pagina}`)
    }
    const readAll = async () => {
      const first = await read(1)
      const rest = await mapLimit(Array.from({ length: Math.max(0, first.totalPaginas - 1) }, (_, i) => i + 2), PAGES_IN_FLIGHT, read)
      const pages = [first, ...rest]
      return { records: pages.flatMap((p) => p.data), consistent: pages.every((p) => p.totalRegistros === first.totalRegistros) }
    }
    let got = await readAll()
    // The list moves while it is paged (tenders open and close): read once more, then keep the union seen.
    if (!got.consistent) got = await readAll()
    const byNumber = new Map<string, Oportunidade>()
    for (const record of got.records) {
      const o = record && typeof record === 'object' ? oportunidade(record) : null
      if (o) byNumber.set(o.numero_controle_pncp, o)
    }
    // Closing soonest first (what a supplier must act on), then by control number for a stable order.
    const oportunidades = [...byNumber.values()].sort(
      (a, b) => (a.data_encerramento_proposta ?? '9').localeCompare(b.data_encerramento_proposta ?? '9') || a.numero_controle_pncp.localeCompare(b.numero_controle_pncp),
    )
    return { oportunidades }
  },
}
