import { z } from 'zod'
import type { AppContext } from './context'
import { FonteEstado } from './feeds/model'
import { defineRoute } from './route'

/** The dataset whose reference month is reported as base_referencia (SPEC §2: "the loaded registry"). */
const REGISTRY_DATASET = 'cnpj'

export const Health = z.object({
  status: z.enum(['ok', 'degradado']).describe('degradado quando algum arquivo de dados falta ou não abre, ou uma fonte tem problema (fontes[].problema); motivos diz qual'),
  servico: z.string(),
  versao: z.string(),
  base_referencia: z.string().regex(/^\d{4}-\d{2}$/).nullable().describe('mês de referência (AAAA-MM) do cadastro de empresas carregado'),
  pagamentos: z.enum(['ativos', 'desligados', 'indisponiveis']).describe('desligados com --free (nada é cobrado); indisponiveis quando o facilitador não responde (rotas pagas dão 503)'),
  sem_fontes: z.boolean().describe('true com serve --sem-fontes: nenhuma fonte externa é consultada e as cópias são servidas como estão (a amostra embutida, status amostra)'),
  bases: z.array(
    z.object({
      nome: z.string(),
      ok: z.boolean(),
      referencia: z.string().nullable(),
      motivo: z.string().nullable(),
      aviso: z.string().nullable().describe('uma parte da base que não responde, com a base servindo (o histórico do cadastro danificado): o serviço fica degradado'),
    }),
  ),
  fontes: z
    .array(FonteEstado)
    .describe('fontes consultadas pelo servidor, cada uma com o mesmo registro que o `fonte` das suas rotas traz (para uma fonte com várias consultas, a consulta padrão), o número de falhas seguidas e o problema que deixa o serviço degradado'),
  motivos: z.array(z.string()),
})

export const VERSION = '0.1.0'

export async function healthOf(ctx: AppContext): Promise<z.infer<typeof Health>> {
  const bases: z.infer<typeof Health>['bases'] = []
  for (const ds of ctx.datasets) {
    if (!ds.open) continue
    const store = ctx.stores.get(ds.name)
    const h = store
      ? await store.health().catch((e: Error) => ({ ok: false, motivo: `não abre: ${e.message}`, referencia: null }))
      : { ok: false, motivo: ctx.openFailures.get(ds.name) ?? `arquivo de dados ausente em ${ctx.config.dataDir}; rode 'dadosbr ingest ${ds.name}'`, referencia: null }
    bases.push({ nome: ds.name, ok: h.ok, referencia: h.referencia ?? null, motivo: h.ok ? null : (h.motivo ?? 'indisponível'), aviso: (h.ok && 'aviso' in h && h.aviso) || null })
  }
  const motivos = bases.flatMap((b) => (!b.ok ? [`${b.nome}: ${b.motivo}`] : b.aviso ? [`${b.nome}: ${b.aviso}`] : []))
  const fontes = ctx.feeds.health().map(({ chave: _, ...f }) => f)
  for (const f of fontes) if (f.problema) motivos.push(`fonte ${f.nome}: ${f.problema}`)
  const pagamentos = ctx.config.free ? 'desligados' : (await ctx.payments?.available()) ? 'ativos' : 'indisponiveis'
  if (pagamentos === 'indisponiveis') motivos.push('pagamentos: o facilitador não responde')
  return {
    status: motivos.length ? 'degradado' : 'ok',
    servico: 'dadosbr',
    versao: VERSION,
    base_referencia: bases.find((b) => b.nome === REGISTRY_DATASET && b.ok)?.referencia ?? null,
    pagamentos,
    sem_fontes: ctx.feeds.offline,
    bases,
    fontes,
    motivos,
  }
}

export const healthRoute = defineRoute({
  path: '/v1/health',
  dataset: 'servico',
  summary: 'Estado do serviço e das bases carregadas',
  description: 'Sempre 200: o estado vai no corpo. status=degradado quando um arquivo de dados falta ou não abre.',
  price: null,
  response: Health,
  errors: [],
  handler: ({ ctx }) => healthOf(ctx),
})
