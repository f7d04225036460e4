// Supplier contracts and open tenders: maps the index rows and the feed copy to the answers.
// fornecedor() is also what the enriched profile (src/datasets/empresa) puts in contratos_publicos.
import type { z } from 'zod'
import type { AppContext } from '../../core/context'
import { avisoDaFonte } from '../../core/feeds/aviso'
import type { FeedAnswer } from '../../core/feeds/feed'
import { BASE, VALUE_SCALE } from './layout'
import type { Abertas, Contrato, Fornecedor, FonteContratos, AbertasQuery } from './model'
import { contratoLink } from './pncp'
import type { ContractsFiles, ContratoRow } from './store'
import { ABERTAS_FEED, abertasKey, type AbertasCopy } from './feed'

type Out<T extends z.ZodType> = z.output<T>

/** The index's reach: up to which publication day it holds every contract. */
export function fonteContratos(files: ContractsFiles): Out<typeof FonteContratos> {
  const s = files.state
  return { base: BASE, referencia: s.sincronizado_ate, desde: s.desde, atualizado_em: s.atualizado_em }
}

function contrato(r: ContratoRow): Out<typeof Contrato> {
  return {
    numero_controle_pncp: r.numero,
    cnpj_fornecedor: r.cnpj_fornecedor,
    orgao: { cnpj: r.orgao_cnpj, razao_social: r.orgao_razao, esfera: r.esfera as Out<typeof Contrato>['orgao']['esfera'], poder: r.poder as Out<typeof Contrato>['orgao']['poder'] },
    unidade: { nome: r.unidade_nome, municipio: r.municipio, uf: r.uf },
    objeto: r.objeto,
    valor_inicial: r.valor_inicial,
    valor_global: r.valor_global,
    data_assinatura: r.data_assinatura,
    vigencia_inicio: r.vigencia_inicio,
    vigencia_fim: r.vigencia_fim,
    tipo: r.tipo,
    link: contratoLink(r.numero),
  }
}

/**
 * Every contract of the company: all establishments of the CNPJ's 8-character root (a contract
 * binds the legal entity, as the integrity screening reads sanctions). No contract: zeros.
 */
export function fornecedor(files: ContractsFiles, cnpj: string): Out<typeof Fornecedor> {
  const raiz = cnpj.slice(0, 8)
  const resumo = files.resumo(raiz)
  return {
    cnpj,
    resumo: { total_contratos: resumo.total, valor_total: resumo.valor / VALUE_SCALE, orgaos_distintos: resumo.orgaos },
    contratos: resumo.total ? files.contratos(raiz).map(contrato) : [],
    fonte: fonteContratos(files),
  }
}

/**
 * One page of the open tenders of a query, from a local copy (never a wait on PNCP beyond the feed's
 * first-need bound). The copy of a modalidade's whole list holds every UF: a `uf` is filtered from it
 * whenever it is held (or kept fresh unasked, as the default one), and only without it does a UF get
 * a copy of its own (PNCP asked for that UF alone). Tenders whose proposal deadline passed are
 * dropped: counted against now, or, for the bundled sample, against the time it was recorded (the
 * sample shows what was open that day, and says so in fonte).
 */
export async function abertas(ctx: AppContext, q: Out<typeof AbertasQuery>): Promise<Out<typeof Abertas>> {
  const inteira = abertasKey(q.modalidade)
  let lida: FeedAnswer<AbertasCopy> | null = null
  if (!q.uf || ctx.feeds.peek<AbertasCopy>(ABERTAS_FEED, inteira).dados || keptUnasked(ctx, inteira)) lida = await ctx.feeds.get<AbertasCopy>(ABERTAS_FEED, inteira)
  if (q.uf && !lida?.dados) {
    const propria = await ctx.feeds.get<AbertasCopy>(ABERTAS_FEED, abertasKey(q.modalidade, q.uf))
    if (propria.dados || !lida) lida = propria
  }
  const { dados, fonte } = lida!
  const abertasEm = fonte.status === 'amostra' && fonte.consultado_em ? Date.parse(fonte.consultado_em) : ctx.feeds.now()
  const daUf = (dados?.oportunidades ?? []).filter((o) => !q.uf || o.unidade.uf === q.uf)
  const abertas = daUf.filter((o) => !o.data_encerramento_proposta || Date.parse(o.data_encerramento_proposta) > abertasEm)
  const start = (q.pagina - 1) * q.por_pagina
  return {
    total: abertas.length,
    pagina: q.pagina,
    oportunidades: abertas.slice(start, start + q.por_pagina) as Out<typeof Abertas>['oportunidades'],
    abertas_em: new Date(abertasEm).toISOString(),
    encerradas_omitidas: daUf.length - abertas.length,
    aviso: avisoDaFonte('a lista do PNCP', fonte),
    fonte,
  }
}

/** Whether a copy is refreshed in the background without being asked for (the feed's default keys). */
const keptUnasked = (ctx: AppContext, key: string) => (ctx.feeds.def(ABERTAS_FEED).defaultKeys ?? []).includes(key)
