import { z } from 'zod'
import { normalizeCnpj, checkCnpj } from '../../core/documents'
import { checkedParam } from '../../core/validate'

const str = z.string().nullable()

/**
 * The path parameter of /v1/bcb/instituicao: a 14-character CNPJ (check digits verified) or an
 * 8-character root, with or without punctuation (00.000.000, 00000000, 00.000.000/0001-91).
 * Becomes the root.
 */
export const RaizParam = checkedParam((value) => {
  const s = normalizeCnpj(value)
  if (/^[0-9A-Z]{8}$/.test(s) && /\d/.test(s)) return { ok: true, value: s }
  const check = checkCnpj(value)
  if (check.valido) return { ok: true, value: check.cnpj.slice(0, 8) }
  return {
    ok: false,
    codigo: 'cnpj_invalido',
    mensagem:
      s.length === 14 && check.motivo === 'digito_verificador_invalido'
        ? 'CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis) ou mande só a raiz de 8 caracteres'
        : 'use o CNPJ de 14 caracteres ou a raiz de 8 (números, ou letras A-Z no CNPJ alfanumérico), com ou sem pontuação',
  }
})

export const RaizPath = z.object({ cnpj: RaizParam })

export const Registro = z.object({
  lista: z.enum(['bancos', 'cooperativas', 'consorcios', 'demais_instituicoes', 'conglomerados']).describe('a lista do Banco Central onde a raiz aparece'),
  nome: str,
  segmento: str.describe('ex. Banco Múltiplo, Cooperativa de Crédito, Instituição de Pagamento; null nos conglomerados'),
  endereco: z.object({ logradouro: str, complemento: str, bairro: str, cep: str, municipio: str, uf: str, municipio_ibge: str }),
  telefone: str,
  sitio: str.describe('SÍTIO NA INTERNET como a instituição informou ao Banco Central'),
  carteira_comercial: z.boolean().nullable().describe('bancos: tem carteira comercial'),
  cooperativa: z.object({ classe: str, criterio_associacao: str, categoria: str, filiacao: str }).nullable().describe('cooperativas de crédito: classe (Singular, Central...), critério de associação, categoria, central a que é filiada'),
  conglomerado: z.object({ nome: str, classe: str, tipo_participacao: str, data_inicio: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable() }).nullable().describe('conglomerados: o conglomerado e o papel da instituição nele'),
})

export const FonteBcb = z.object({
  base: z.literal('BCB'),
  referencia: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe('posição da relação mais recente (AAAA-MM-DD)'),
  listas: z.object({ bancos: z.string(), cooperativas: z.string(), consorcios: z.string(), demais_instituicoes: z.string(), conglomerados: z.string() }).describe('posição de cada lista ("Posição:" do título da planilha)'),
})

export const InstituicaoBcb = z.object({
  cnpj_basico: z.string().describe('raiz de 8 caracteres'),
  autorizada: z.boolean().describe('a raiz consta de uma das listas de instituições em funcionamento (bancos, cooperativas, consórcios, demais); constar só de um conglomerado não basta'),
  registros: z.array(Registro),
  dominios_verificados: z.array(z.string()).describe('nomes de host dos sítios oficiais informados ao Banco Central: minúsculas, sem esquema, caminho ou porta; entradas malformadas descartadas'),
  fonte: FonteBcb,
})

export const InstituicaoAmostra = InstituicaoBcb.extend({ amostra: z.literal(true) })

export type InstituicaoResultado = z.output<typeof InstituicaoBcb>
