// A local PNCP for the sync and open-tender tests: /v1/contratos and /v1/contratos/atualizacao paged
// from records held in memory by publication (or update) day, and /v1/contratacoes/proposta (open
// procurements) filtered as PNCP filters them (modalidade, uf, closing up to dataFinal, still open),
// all in the real envelope, on the replay server (which adds the faults: slow, down, 5xx, 429, garbage).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'
import type { PncpContratacao, PncpContrato } from '../../src/datasets/licitacoes/pncp'

/** The real Jandira record, as the template of every generated contract (the real key order and types). */
const TEMPLATE: PncpContrato = JSON.parse(readFileSync(join(import.meta.dir, 'fixtures', 'contratos', 'contratos-20240814-p1.json'), 'utf8')).data[0]

/** The real Araci (BA) procurement of the recorded /v1/contratacoes/proposta answer, as the template of every generated one. */
const TEMPLATE_LICITACAO: PncpContratacao = JSON.parse(readFileSync(join(import.meta.dir, 'fixtures', 'abertas', 'proposta-6-p1.json'), 'utf8')).data[0]

/**
 * An open procurement in PNCP's format: body 99887766000105 (fictitious), sequential `seq`, in `uf`,
 * proposals closing at `encerra` (Brasília local time without offset, as PNCP sends it).
 */
export function licitacao(seq: number, uf: string, encerra: string, over: Partial<PncpContratacao> & Record<string, unknown> = {}): PncpContratacao {
  const base = structuredClone(TEMPLATE_LICITACAO) as PncpContratacao & Record<string, unknown>
  return {
    ...base,
    numeroControlePNCP: `99887766000105-1-${String(seq).padStart(6, '0')}/2026`,
    sequencialCompra: seq,
    anoCompra: 2026,
    orgaoEntidade: { cnpj: '99887766000105', razaoSocial: 'MUNICIPIO FICTICIO DE TESTE', poderId: 'E', esferaId: 'M' },
    unidadeOrgao: { ...(base.unidadeOrgao as object), ufSigla: uf, municipioNome: `Cidade Ficticia ${uf}`, nomeUnidade: `PREFEITURA FICTICIA (${uf})` },
    objetoCompra: `AQUISIÇÃO FICTÍCIA ${seq}`,
    valorTotalEstimado: 1000 * seq,
    dataEncerramentoProposta: encerra,
    ...over,
  }
}

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
  /** Procurements with proposals open (/v1/contratacoes/proposta), of every modalidade and UF. */
  propostas: PncpContratacao[]
  /** PNCP's clock: a procurement whose deadline passed is no longer listed (default: the real clock). */
  now: () => number
  /** Every /v1/contratacoes/proposta query, as its search parameters. */
  propostasAsked: URLSearchParams[]
}

const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`

export function fakePncp(): FakePncp {
  const fake: FakePncp = { server: startReplay(), days: new Map(), updates: new Map(), queue: [], refuse: new Map(), asked: [], propostas: [], now: Date.now, propostasAsked: [] }
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
  fake.server.on('/v1/contratacoes/proposta', (url: URL) => {
    const q = url.searchParams
    const queued = fake.queue.shift()
    if (queued) return queued
    fake.propostasAsked.push(q)
    const dataFinal = q.get('dataFinal') ?? ''
    if (!/^\d{8}$/.test(dataFinal)) return { status: 400, body: '{"message":"dataFinal obrigatória"}', headers: { 'content-type': 'application/json' } }
    const ate = `${dataFinal.slice(0, 4)}-${dataFinal.slice(4, 6)}-${dataFinal.slice(6, 8)}T23:59:59`
    // PNCP's times are Brasília local without offset (UTC-3).
    const agora = new Date(fake.now() - 3 * 3600_000).toISOString().slice(0, 19)
    const modalidade = q.get('codigoModalidadeContratacao')
    const uf = q.get('uf')
    const all = fake.propostas.filter(
      (p) =>
        (!modalidade || String(p.modalidadeId) === modalidade) &&
        (!uf || p.unidadeOrgao?.ufSigla === uf) &&
        (p.dataEncerramentoProposta ?? '') <= ate &&
        (p.dataEncerramentoProposta ?? '') > agora,
    )
    if (all.length === 0) return { status: 204 }
    const pagina = Number(q.get('pagina') ?? 1)
    const size = Number(q.get('tamanhoPagina') ?? 50)
    const totalPaginas = Math.ceil(all.length / size)
    const data = all.slice((pagina - 1) * size, pagina * size)
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data, totalRegistros: all.length, totalPaginas, numeroPagina: pagina, paginasRestantes: Math.max(0, totalPaginas - pagina), empty: data.length === 0 }) }
  })
  return fake
}
