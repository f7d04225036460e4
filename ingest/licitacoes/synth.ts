// A synthetic PNCP for benchmarks: /v1/contratos (and an empty /v1/contratos/atualizacao) paging N
// contracts spread over the publication days since 2021, and /v1/contratacoes/proposta with open
// tenders, every record in PNCP's real JSON shape (the keys, order and types of the recorded
// answers under test/licitacoes/fixtures), generated on the fly from the record's number, so the
// same request always gets the same page and nothing is written to disk. One supplier root
// (11.222.333, five establishments) gets BIG_SUPPLIER_CONTRACTS contracts; the others follow a
// skewed distribution (a few suppliers with many contracts, most with a handful).
//   bun ingest/licitacoes/synth.ts --porta 0 --contratos 20000000 [--ate 2026-10-31] [--atraso-ms 0]
// prints {"url": ...} on stdout once listening.
import { addDays } from '../../src/datasets/licitacoes/pncp'
import { seededRandom } from '../lib/random'

export const SYNTH_FIRST_DAY = '2021-01-01'
export const BIG_ROOT = '11222333'
export const BIG_SUPPLIER_CONTRACTS = 100_000

export interface SynthPlan {
  contratos: number
  ate: string
}

const DAY_MS = 86_400_000
export const dayCount = (p: SynthPlan) => Math.round((Date.parse(`${p.ate}T00:00:00Z`) - Date.parse(`${SYNTH_FIRST_DAY}T00:00:00Z`)) / DAY_MS) + 1
const dayIndex = (d: string) => Math.round((Date.parse(`${d}T00:00:00Z`) - Date.parse(`${SYNTH_FIRST_DAY}T00:00:00Z`)) / DAY_MS)

/** The contracts published on a day: [first, first + count) of the global numbering. */
export function dayRange(p: SynthPlan, day: string): { first: number; count: number } {
  const days = dayCount(p)
  const i = dayIndex(day)
  if (i < 0 || i >= days) return { first: 0, count: 0 }
  const base = Math.floor(p.contratos / days)
  const extra = p.contratos % days
  return { first: i * base + Math.min(i, extra), count: base + (i < extra ? 1 : 0) }
}

function checkDigit(body: string): number {
  let sum = 0
  let weight = 2
  for (let i = body.length - 1; i >= 0; i--) {
    sum += (body.charCodeAt(i) - 48) * weight
    weight = weight === 9 ? 2 : weight + 1
  }
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}

/** A valid CNPJ from a root number and a branch. */
export function cnpjOf(root: number, branch = 1): string {
  const body = String(root).padStart(8, '0') + String(branch).padStart(4, '0')
  const d1 = checkDigit(body)
  return body + d1 + checkDigit(body + d1)
}

/** Distinct supplier roots for a plan (about one for every 8 contracts). */
export const supplierCount = (p: SynthPlan) => Math.max(10, Math.floor(p.contratos / 8))

/** The supplier root of contract n: the big one for 1 in N/100 000, else skewed over the others. */
export function supplierOf(p: SynthPlan, n: number): { root: number; branch: number } {
  const r = seededRandom(n * 2 + 1)
  const big = Math.min(1, BIG_SUPPLIER_CONTRACTS / p.contratos)
  if (n % Math.max(1, Math.round(1 / big)) === 0) return { root: Number(BIG_ROOT), branch: 1 + (n % 5) }
  const u = r()
  const id = Math.floor(supplierCount(p) * u * u * u)
  // Spread the ids over the root space, clear of the big root.
  return { root: 20_000_000 + ((id * 7919) % 70_000_000), branch: 1 + Math.floor(r() * 3 * r()) }
}

const OBJETOS = [
  'AQUISIÇÃO DE MATERIAL DE EXPEDIENTE PARA ATENDER AS SECRETARIAS MUNICIPAIS',
  'CONTRATAÇÃO DE EMPRESA ESPECIALIZADA NA PRESTAÇÃO DE SERVIÇOS DE LIMPEZA, CONSERVAÇÃO E HIGIENIZAÇÃO',
  'AQUISIÇÃO DE MEDICAMENTOS PARA A FARMÁCIA BÁSICA',
  'FORNECIMENTO DE GÊNEROS ALIMENTÍCIOS PARA A MERENDA ESCOLAR',
  'LOCAÇÃO DE VEÍCULOS COM MOTORISTA PARA O TRANSPORTE ESCOLAR',
  'AQUISIÇÃO DE COMBUSTÍVEIS (GASOLINA COMUM E ÓLEO DIESEL S10) PARA A FROTA MUNICIPAL',
  'PRESTAÇÃO DE SERVIÇOS DE MANUTENÇÃO PREVENTIVA E CORRETIVA DE APARELHOS DE AR CONDICIONADO',
  'AQUIS.DE BEBEDOURO',
  'EXECUÇÃO DE OBRA DE PAVIMENTAÇÃO ASFÁLTICA EM VIAS URBANAS, CONFORME PROJETO BÁSICO, PLANILHA ORÇAMENTÁRIA E CRONOGRAMA FÍSICO-FINANCEIRO',
  'REGISTRO DE PREÇOS PARA FUTURA E EVENTUAL AQUISIÇÃO DE MATERIAL MÉDICO-HOSPITALAR',
]
const COMPLEMENTOS = [
  '',
  ' DO MUNICÍPIO',
  ', CONFORME TERMO DE REFERÊNCIA',
  ', CONFORME ESPECIFICAÇÕES E QUANTITATIVOS CONSTANTES DO TERMO DE REFERÊNCIA, ANEXO I DO EDITAL, PELO PERÍODO DE 12 (DOZE) MESES, PODENDO SER PRORROGADO NOS TERMOS DA LEI Nº 14.133/2021',
]
const UFS = ['SP', 'MG', 'RJ', 'BA', 'RS', 'PR', 'PE', 'CE', 'PA', 'SC', 'GO', 'MA', 'AM', 'ES', 'PB', 'RN', 'MT', 'AL', 'PI', 'DF', 'MS', 'SE', 'RO', 'TO', 'AC', 'AP', 'RR']
const ESFERAS = ['M', 'M', 'M', 'E', 'F', 'D']
const PODERES = ['E', 'E', 'E', 'L', 'J', 'N']
const TIPOS = ['{"id":1,"nome":"Contrato (termo inicial)"}', '{"id":7,"nome":"Empenho"}', '{"id":2,"nome":"Comodato"}', '{"id":12,"nome":"Carta-contrato"}']
const ORGAOS = 40_000

const json = (s: string) => JSON.stringify(s)

/** One contract in PNCP's /v1/contratos shape. */
export function synthContract(p: SynthPlan, n: number, day: string): string {
  const r = seededRandom(n * 2 + 2)
  const u = r()
  const orgaoId = Math.floor(ORGAOS * u * u)
  const orgao = cnpjOf(60_000_000 + orgaoId * 13)
  const esfera = ESFERAS[orgaoId % ESFERAS.length]!
  const uf = UFS[orgaoId % UFS.length]!
  const unidade = 1 + Math.floor(r() * 3)
  const sup = supplierOf(p, n)
  const ni = cnpjOf(sup.root, sup.branch)
  const year = Number(day.slice(0, 4))
  const signed = addDays(day, -Math.floor(r() * 30))
  const end = addDays(signed, 30 + Math.floor(r() * 700))
  const valor = Math.round(Math.exp(6 + r() * 10) * 100) / 100
  const global = r() < 0.2 ? Math.round(valor * (1 + r() * 0.25) * 100) / 100 : valor
  const objeto = OBJETOS[Math.floor(r() * OBJETOS.length)]! + COMPLEMENTOS[Math.floor(r() * COMPLEMENTOS.length)]!
  const tipo = TIPOS[Math.floor(r() * r() * TIPOS.length)]!
  const seq = String(n + 1).padStart(6, '0')
  return (
    `{"numeroControlePncpCompra":"${orgao}-1-${seq}/${year}","codigoPaisFornecedor":"BRA","nomeRazaoSocialFornecedor":"FORNECEDOR SINTETICO ${sup.root} LTDA","orgaoSubRogado":null,` +
    `"orgaoEntidade":{"cnpj":"${orgao}","razaoSocial":"ORGAO SINTETICO ${orgaoId}","poderId":"${PODERES[orgaoId % PODERES.length]}","esferaId":"${esfera}"},"anoContrato":${year},"tipoContrato":${tipo},` +
    `"numeroContratoEmpenho":"${n % 9999}/${year}","dataAssinatura":"${signed}","dataVigenciaInicio":"${signed}","dataVigenciaFim":"${end}","niFornecedor":"${ni}","tipoPessoa":"PJ",` +
    `"categoriaProcesso":{"id":2,"nome":"Compras"},"dataPublicacaoPncp":"${day}T09:49:03","dataAtualizacao":"${day}T09:49:03","sequencialContrato":${n + 1},` +
    `"unidadeOrgao":{"ufNome":"${uf}","codigoUnidade":"${unidade}","nomeUnidade":"UNIDADE SINTETICA ${unidade} DO ORGAO ${orgaoId}","ufSigla":"${uf}","municipioNome":"MUNICIPIO ${orgaoId % 5570}","codigoIbge":"${3500000 + (orgaoId % 5570)}"},` +
    `"informacaoComplementar":"","processo":"${n % 99999}/${year}","unidadeSubRogada":null,"niFornecedorSubContratado":null,"nomeFornecedorSubContratado":null,"receita":false,"tipoPessoaSubContratada":null,` +
    `"objetoContrato":${json(objeto)},"valorInicial":${valor},"numeroParcelas":1,"valorParcela":${valor},"valorGlobal":${global},"valorAcumulado":${global},"numeroRetificacao":0,"identificadorCipi":null,"urlCipi":null,` +
    `"numeroControlePNCP":"${orgao}-2-${seq}/${year}","usuarioNome":"Sistema Sintético"}`
  )
}

/** A page of /v1/contratos for a day, in the real envelope; null for a day with none (PNCP answers 204). */
export function synthContractsPage(p: SynthPlan, day: string, pagina: number, size: number): string | null {
  const { first, count } = dayRange(p, day)
  if (count === 0) return null
  const totalPaginas = Math.ceil(count / size)
  const from = (pagina - 1) * size
  const parts: string[] = []
  for (let k = from; k < Math.min(count, from + size); k++) parts.push(synthContract(p, first + k, day))
  return `{"data":[${parts.join(',')}],"totalRegistros":${count},"totalPaginas":${totalPaginas},"numeroPagina":${pagina},"paginasRestantes":${Math.max(0, totalPaginas - pagina)},"empty":${parts.length === 0}}`
}

/** Open tenders: `total` auctions in PNCP's /v1/contratacoes/proposta shape, paged. */
export function synthTendersPage(total: number, pagina: number, size: number, today: string): string {
  const parts: string[] = []
  for (let n = (pagina - 1) * size; n < Math.min(total, pagina * size); n++) {
    const r = seededRandom(n + 7)
    const orgaoId = Math.floor(r() * ORGAOS)
    const orgao = cnpjOf(60_000_000 + orgaoId * 13)
    const uf = UFS[orgaoId % UFS.length]!
    const close = addDays(today, 1 + Math.floor(r() * 30))
    const estimado = r() < 0.3 ? 0 : Math.round(Math.exp(8 + r() * 8) * 100) / 100
    parts.push(
      `{"valorTotalEstimado":${estimado},"valorTotalHomologado":null,"numeroControlePNCP":"${orgao}-1-${String(n + 1).padStart(6, '0')}/2026",` +
        `"linkSistemaOrigem":${r() < 0.5 ? `"https://compras.sintetico.gov.br/edital/${n}"` : 'null'},"anoCompra":2026,"sequencialCompra":${n + 1},"numeroCompra":"${n}/2026","processo":"${n}/2026",` +
        `"orgaoEntidade":{"cnpj":"${orgao}","razaoSocial":"ORGAO SINTETICO ${orgaoId}","poderId":"E","esferaId":"M"},` +
        `"unidadeOrgao":{"ufNome":"${uf}","codigoUnidade":"1","nomeUnidade":"UNIDADE SINTETICA","ufSigla":"${uf}","municipioNome":"MUNICIPIO ${orgaoId % 5570}","codigoIbge":"${3500000 + (orgaoId % 5570)}"},` +
        `"orgaoSubRogado":null,"unidadeSubRogada":null,"modalidadeId":6,"modalidadeNome":"Pregão - Eletrônico","justificativaPresencial":null,"modoDisputaId":1,"modoDisputaNome":"Aberto",` +
        `"tipoInstrumentoConvocatorioCodigo":1,"tipoInstrumentoConvocatorioNome":"Edital","amparoLegal":{"codigo":1,"nome":"Lei 14.133/2021, Art. 28, I","descricao":"pregão"},` +
        `"objetoCompra":${json(OBJETOS[n % OBJETOS.length]!)},"informacaoComplementar":null,"srp":true,"dataPublicacaoPncp":"${today}T09:00:00","dataAberturaProposta":"${today}T08:00:00",` +
        `"dataEncerramentoProposta":"${close}T10:00:00","situacaoCompraId":1,"situacaoCompraNome":"Divulgada no PNCP","dataInclusao":"${today}T09:00:00","dataAtualizacao":"${today}T09:00:00","usuarioNome":"Sistema Sintético"}`,
    )
  }
  const totalPaginas = Math.ceil(total / size)
  return `{"data":[${parts.join(',')}],"totalRegistros":${total},"totalPaginas":${totalPaginas},"numeroPagina":${pagina},"paginasRestantes":${Math.max(0, totalPaginas - pagina)},"empty":${parts.length === 0}}`
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const opt = (name: string, fallback: string) => {
    const i = args.indexOf(name)
    return i >= 0 ? args[i + 1]! : fallback
  }
  const plan: SynthPlan = { contratos: Number(opt('--contratos', '1000000')), ate: opt('--ate', '2026-10-31') }
  const tenders = Number(opt('--licitacoes', '2000'))
  let delayMs = Number(opt('--atraso-ms', '0'))
  const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(opt('--porta', '0')),
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const q = url.searchParams
      const pagina = Number(q.get('pagina') ?? 1)
      const size = Number(q.get('tamanhoPagina') ?? 50)
      // Switch the proposal endpoint to slow (a PNCP taking 30 s) without a restart.
      if (url.pathname === '/_atraso') {
        delayMs = Number(q.get('ms') ?? 0)
        return new Response('ok')
      }
      if (url.pathname === '/v1/contratos') {
        const body = synthContractsPage(plan, iso(q.get('dataInicial') ?? ''), pagina, size)
        return body === null ? new Response(null, { status: 204 }) : new Response(body, { headers: { 'content-type': 'application/json' } })
      }
      if (url.pathname === '/v1/contratos/atualizacao') return new Response(null, { status: 204 })
      if (url.pathname === '/v1/contratacoes/proposta') {
        if (delayMs) await Bun.sleep(delayMs)
        return new Response(synthTendersPage(tenders, pagina, size, new Date().toISOString().slice(0, 10)), { headers: { 'content-type': 'application/json' } })
      }
      return new Response('not found', { status: 404 })
    },
  })
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}` })}\n`)
}
