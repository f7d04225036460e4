import { z } from 'zod'

const motivo = z.enum(['formato_invalido', 'digito_verificador_invalido']).nullable()
  .describe('null quando válido; formato_invalido quando não tem a forma de um documento; digito_verificador_invalido quando a forma confere mas os dígitos não')

export const CnpjValidacao = z.object({
  valido: z.boolean(),
  motivo,
  cnpj: z.string().describe('normalizado: 14 caracteres sem pontuação, letras em maiúsculas; vazio quando o formato é inválido (a entrada não é ecoada, pode ser um CPF)'),
  formatado: z.string().describe('forma pontuada NN.NNN.NNN/NNNN-NN; vazio quando o formato é inválido'),
  raiz: z.string().describe('8 primeiros caracteres, comuns ao grupo econômico; vazio quando o formato é inválido'),
  matriz: z.boolean().describe('true quando a ordem é 0001 (matriz), false para filial ou formato inválido'),
})

export const CpfValidacao = z.object({
  valido: z.boolean(),
  motivo,
  mascarado: z.string().regex(/^\*\*\*\d{6}\*\*$/).nullable().describe('***NNNNNN**, como a Receita publica; null quando o formato é inválido. O CPF completo nunca é devolvido.'),
})

export const ValorParam = z.object({ valor: z.string().max(64, 'no máximo 64 caracteres') })

export const FerramentasIndice = z.object({
  ferramentas: z.array(z.object({ nome: z.string(), url: z.string(), descricao: z.string(), exemplo: z.string() })),
  gratis: z.literal(true),
  limite_de_taxa: z.null().describe('nenhum: as ferramentas são aritmética pura'),
})
