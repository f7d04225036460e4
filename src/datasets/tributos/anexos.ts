// The annexes of LC 214/2025 kept in the repository (data/anexos.json), checked against their schema
// when the module loads: a malformed edit of the data file fails at start, not in an answer.
// What each field means, and where the wording comes from: docs/tributos.md ("Os anexos").
import { z } from 'zod'
import ANEXOS_JSON from './data/anexos.json'
import { nivelNcm } from './codigos'

export const REGIMES = ['aliquota_zero', 'reducao_60', 'imposto_seletivo'] as const
export type RegimeAnexo = (typeof REGIMES)[number]

const Referencia = z
  .object({
    texto: z.string().min(1).describe('o código como a lei o escreve (capítulos: o número do capítulo)'),
    codigo: z.string().regex(/^\d{2,9}$/).describe('só os dígitos: o prefixo comparado com o código NCM (ou NBS)'),
    nivel: z.enum(['capitulo', 'posicao', 'subposicao', 'item', 'subitem']),
    exceto: z.literal(true).optional().describe('exceção escrita no item ("exceto ..."): o código fica fora do item'),
    alinea: z.string().regex(/^[a-d]$/).optional().describe('alínea do item a que a referência pertence'),
  })
  .strict()

const Item = z
  .object({
    item: z.string().regex(/^(\d+(\.\d+)?|[IVX]+)$/),
    texto: z.string().min(1).describe('redação literal do item'),
    codigos_texto: z.string().nullable().optional().describe('a coluna NCM/SH ou NBS do Anexo, quando ele tem uma (Anexos de 3 colunas)'),
    cabecalho: z.literal(true).optional().describe('linha de título de um grupo de subitens, sem código'),
    ncm: z.array(Referencia),
    nbs: z.array(Referencia),
    exceto_anexos: z.array(z.string()).optional().describe('remissão "ressalvados os produtos relacionados no Anexo ..."'),
    condicoes: z.array(z.string()).describe('trechos literais da redação que condicionam o benefício'),
    verificado: z.boolean(),
    nota: z.string().optional(),
  })
  .strict()

const Anexo = z
  .object({
    anexo: z.string().regex(/^[IVX]+$/),
    numero: z.number().int(),
    titulo: z.string().nullable(),
    assunto: z.string(),
    artigo: z.string(),
    regime: z.enum(REGIMES).nullable(),
    nomenclatura: z.enum(['NCM', 'NBS', 'NCM/NBS']).nullable(),
    codigos_no_texto: z.boolean().optional(),
    condicoes: z.array(z.string()).optional(),
    aviso: z.string().optional().describe('dito em observacoes quando um item do Anexo dá o regime principal de um código (reduções que dependem de quem compra ou vende)'),
    regime_alternativo: z.object({ regime: z.enum(REGIMES), artigo: z.string(), condicao: z.string() }).strict().optional(),
    situacao: z.enum(['vigente', 'revogado']),
    cobertura: z.enum(['completa', 'nao_transcrito', 'nao_se_aplica']),
    nota: z.string().optional(),
    itens: z.array(Item),
  })
  .strict()

export const AnexosData = z
  .object({
    versao: z.string(),
    norma: z.object({ nome: z.string(), publicacao: z.string(), texto_oficial: z.string().url(), nomenclatura: z.string() }).strict(),
    texto_conferido_em: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    alteracoes: z.array(z.object({ norma: z.string(), efeito: z.string(), anexos: z.array(z.string()), aplicada: z.boolean() }).strict()),
    fontes: z.array(z.object({ descricao: z.string(), papel: z.string() }).strict()),
    verificacao: z.string(),
    anexos: z.array(Anexo),
  })
  .strict()
  .superRefine((d, ctx) => {
    for (const a of d.anexos)
      for (const it of a.itens)
        for (const r of it.ncm)
          if (nivelNcm(r.codigo) !== r.nivel) ctx.addIssue({ code: 'custom', message: `Anexo ${a.anexo}, item ${it.item}: ${r.texto} não é de nível ${r.nivel}` })
  })

export type AnexosDados = z.output<typeof AnexosData>
export type AnexoDados = AnexosDados['anexos'][number]
export type ItemDados = AnexoDados['itens'][number]
export type ReferenciaDados = ItemDados['ncm'][number]

export const ANEXOS: AnexosDados = AnexosData.parse(ANEXOS_JSON)

/** Regime names as answers say them. */
export const REGIME_DESCRICAO: Record<RegimeAnexo | 'aliquota_padrao', { descricao: string; reducao_percentual: number | null }> = {
  aliquota_zero: { descricao: 'Alíquotas do IBS e da CBS reduzidas a zero', reducao_percentual: 100 },
  reducao_60: { descricao: 'Alíquotas do IBS e da CBS reduzidas em 60%', reducao_percentual: 60 },
  imposto_seletivo: { descricao: 'Sujeito ao Imposto Seletivo (alíquotas fixadas em lei ordinária)', reducao_percentual: null },
  aliquota_padrao: { descricao: 'Nenhum Anexo da LC 214/2025 reduz as alíquotas deste código: IBS e CBS às alíquotas-padrão', reducao_percentual: 0 },
}

/** "LC 214/2025, art. 125, Anexo I, item 1". */
export function dispositivo(a: Pick<AnexoDados, 'anexo' | 'artigo'>, item: string): string {
  return `LC 214/2025, ${a.artigo}, Anexo ${a.anexo}, item ${item}`
}
