// A local PNCP for the sync tests: /v1/contratos and /v1/contratos/atualizacao paged from records
// held in memory by publication (or update) day, in the real envelope, on the replay server (which
// adds the faults: slow, down, 5xx, 429, garbage).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'
import type { PncpContrato } from '../../src/datasets/licitacoes/pncp'

/** The real Jandira record, as the template of every generated contract (the real key order and types). */
const TEMPLATE: PncpContrato = JSON.parse(readFileSync(join(import.meta.dir, 'fixtures', 'contratos', 'contratos-20240814-p1.json'), 'utf8')).data[0]

/** A contract in PNCP's format: body 99887766000105 (fictitious), sequential `seq`, supplier `cnpj`. */
export function contract(seq: number, cnpj: string, over: Partial<PncpContrato> & Record<string, unknown> = {}): PncpContrato {
  return { ...structuredClone(TEMPLATE), numeroControlePNCP: `99887766000105-2-${String(seq).padStart(6, '0')}/2024`, niFornecedor: cnpj, nomeRazaoSocialFornecedor: 'FORNECEDOR FICTICIO LTDA', orgaoEntidade: { cnpj: '99887766000105', razaoSocial: 'MUNICIPIO FICTICIO DE TESTE', poderId: 'E', esferaId: 'M' }, ...over }
}

export interface FakePncp {
  server: ReplayServer
  /** Contracts by publication day (YYYY-MM-DD). */
  days: Map<string, PncpContrato[]>
  /** Contracts by update day. */
  updates: Map<string, PncpContrato[]>
  /** Per request, before answering: a way to change the list between two calls. */
  onPage?: (day: string, pagina: number) => void
  /** Answers given before any other, one per request (a 503, a 429 with Retry-After, garbage...). */
  queue: { status: number; body?: string; headers?: Record<string, string> }[]
  /** Days answered with this status instead (e.g. 422). */
  refuse: Map<string, number>
  /** Every day asked, in order. */
  asked: string[]
}

const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`

export function fakePncp(): FakePncp {
  const fake: FakePncp = { server: startReplay(), days: new Map(), updates: new Map(), queue: [], refuse: new Map(), asked: [] }
  const serve = (source: () => Map<string, PncpContrato[]>) => (url: URL) => {
    const day = iso(url.searchParams.get('dataInicial') ?? '')
    const pagina = Number(url.searchParams.get('pagina') ?? 1)
    const size = Number(url.searchParams.get('tamanhoPagina') ?? 50)
    const queued = fake.queue.shift()
    if (queued) return queued
    fake.asked.push(day)
    const refused = fake.refuse.get(day)
    if (refused) return { status: refused, body: '{"message":"Data Final deve ser >= data atual"}', headers: { 'content-type': 'application/json' } }
    fake.onPage?.(day, pagina)
    const all = source().get(day) ?? []
    if (all.length === 0) return { status: 204 }
    const totalPaginas = Math.ceil(all.length / size)
    const data = all.slice((pagina - 1) * size, pagina * size)
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data, totalRegistros: all.length, totalPaginas, numeroPagina: pagina, paginasRestantes: Math.max(0, totalPaginas - pagina), empty: data.length === 0 }) }
  }
  fake.server.on('/v1/contratos', serve(() => fake.days))
  fake.server.on('/v1/contratos/atualizacao', serve(() => fake.updates))
  return fake
}
