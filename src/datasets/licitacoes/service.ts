// Supplier contracts and open tenders: maps the index rows and the feed copy to the answers.
// fornecedor() is also what the enriched profile (src/datasets/empresa) puts in contratos_publicos.
import type { z } from 'zod'
import type { AppContext } from '../../core/context'
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

/** One page of the open tenders of a query, from its local copy (never a wait on PNCP beyond the feed's first-need bound). */
export async function abertas(ctx: AppContext, q: Out<typeof AbertasQuery>): Promise<Out<typeof Abertas>> {
  const { dados, fonte } = await ctx.feeds.get<AbertasCopy>(ABERTAS_FEED, abertasKey(q.modalidade, q.uf))
  const all = dados?.oportunidades ?? []
  const start = (q.pagina - 1) * q.por_pagina
  return { total: all.length, pagina: q.pagina, oportunidades: all.slice(start, start + q.por_pagina) as Out<typeof Abertas>['oportunidades'], fonte }
}
