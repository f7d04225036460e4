// /v1/pacotes/brasil: every parameter-free paid route of the catalogue in one call, each part run
// in-process through its own route handler (no HTTP, no payment per part: the pack is paid once),
// with its default query. Parts run in parallel; one that fails (a 503 for a base not built, an
// error, no answer in PARTE_TEMPO_MS) is null in its family and listed in `indisponiveis`, and the
// others are served. The body is assembled from the parts' JSON (a part that keeps its answer as
// bytes is not parsed again).
import type { AppContext } from '../../core/context'
import { ApiError, JsonText } from '../../core/errors'
import { semDadosErro, type RouteDef } from '../../core/route'
import { catalogo, CRITERIO_BRASIL, nomeDa, partesDoBrasil, PRECO_BRASIL, resumo, rotasServidas, ROTA_BRASIL, type Pacote } from './catalogo'

/** How long a part may take before the pack goes without it. */
export const PARTE_TEMPO_MS = 5_000

export interface Indisponivel {
  familia: string
  nome: string
  rota: string
  status: number | null
  codigo: string
  mensagem: string
}

type Resultado = { rota: RouteDef; json: Uint8Array | null; falha: Indisponivel | null }

const encoder = new TextEncoder()

async function executar(r: RouteDef, ctx: AppContext, request: Request, baseUrl: string, tempoMs: number): Promise<Resultado> {
  const falha = (status: number | null, codigo: string, mensagem: string): Resultado => ({ rota: r, json: null, falha: { familia: r.dataset, nome: nomeDa(r), rota: r.path, status, codigo, mensagem } })
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const query = r.query ? r.query.parse({}) : {}
    const tempo = new Promise<'tempo'>((resolve) => (timer = setTimeout(() => resolve('tempo'), tempoMs)))
    // The part sees a request for its own path (no handler reads it today; one that builds links would get them right).
    let propria = request
    try {
      propria = new Request(`${baseUrl}${r.path}`, { headers: request.headers })
    } catch {}
    const out = await Promise.race([Promise.resolve().then(() => r.handler({ params: {}, query, request: propria, baseUrl, ctx })), tempo])
    if (out === 'tempo') return falha(null, 'tempo_esgotado', `a parte não respondeu em ${tempoMs / 1000} s; o pacote seguiu sem ela`)
    // In tests (checkResponses) each part is held to its own route's schema, as if called alone.
    if (ctx.checkResponses) r.response.parse(out instanceof JsonText ? out.parse() : out)
    const json = out instanceof JsonText ? (typeof out.text === 'string' ? encoder.encode(out.text) : out.text) : encoder.encode(JSON.stringify(out))
    return { rota: r, json, falha: null }
  } catch (err) {
    if (err instanceof ApiError) return falha(err.status, err.codigo, err.message)
    ctx.log.error('falha interna numa parte do pacote', { rota: r.path, erro: err instanceof Error ? err.message : String(err) })
    return falha(500, 'erro_interno', 'falha inesperada nesta parte (registrada no log do servidor)')
  } finally {
    clearTimeout(timer)
  }
}

export interface ResumoBrasil extends Omit<Pacote, 'descricao'> {
  criterio: string
}

export function resumoBrasil(ctx: AppContext): ResumoBrasil {
  const { descricao: _, ...r } = resumo({ rota: ROTA_BRASIL, preco: PRECO_BRASIL, descricao: '' }, partesDoBrasil(rotasServidas(ctx)))
  return { ...r, criterio: CRITERIO_BRASIL }
}

/** The pack's body as JSON bytes: `pacote` (what it holds and saves), one object per family with its parts, `indisponiveis`. */
export async function brasil(ctx: AppContext, request: Request, baseUrl: string, tempoMs = PARTE_TEMPO_MS): Promise<JsonText> {
  const meta = resumoBrasil(ctx)
  const rotas = partesDoBrasil(rotasServidas(ctx))
  const resultados = await Promise.all(rotas.map((r) => executar(r, ctx, request, baseUrl, tempoMs)))
  // Never paid for nothing: a pack is billable only with at least one part.
  if (!resultados.some((x) => x.json)) throw semDadosErro(`nenhuma das ${resultados.length} partes respondeu (${resultados.map((x) => `${x.rota.path}: ${x.falha!.codigo}`).join('; ')})`)
  const porFamilia = new Map<string, Resultado[]>()
  for (const x of resultados) {
    const l = porFamilia.get(x.rota.dataset) ?? []
    l.push(x)
    porFamilia.set(x.rota.dataset, l)
  }
  const chunks: Uint8Array[] = [encoder.encode(`{"pacote":${JSON.stringify(meta)}`)]
  for (const [familia, partes] of porFamilia) {
    chunks.push(encoder.encode(`,${JSON.stringify(familia)}:{`))
    partes.forEach((p, i) => {
      chunks.push(encoder.encode(`${i ? ',' : ''}${JSON.stringify(nomeDa(p.rota))}:`))
      chunks.push(p.json ?? encoder.encode('null'))
    })
    chunks.push(encoder.encode('}'))
  }
  chunks.push(encoder.encode(`,"indisponiveis":${JSON.stringify(resultados.flatMap((x) => (x.falha ? [x.falha] : [])))}}`))
  return new JsonText(Buffer.concat(chunks))
}

export function amostra(ctx: AppContext) {
  const pacotes = catalogo(ctx)
  // The count said in words is the one /v1/pacotes/brasil answers: both come from partesDoBrasil over the same table.
  const brasil = pacotes.find((p) => p.rota === ROTA_BRASIL)
  return {
    amostra: true as const,
    aviso:
      'Grátis: o que cada pacote contém e quanto economiza contra a soma dos preços das partes, calculado da tabela de rotas deste servidor. ' +
      `O pacote ${ROTA_BRASIL} traz as ${brasil?.quantidade ?? 0} rotas pagas sem parâmetros deste servidor numa chamada, cada parte com a sua fonte; as outras são os pacotes de uma base.`,
    criterio_brasil: CRITERIO_BRASIL,
    pacotes,
  }
}
