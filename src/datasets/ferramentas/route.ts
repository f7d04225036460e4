import { checkCnpj, checkCpf, formatCnpj } from '../../core/documents'
import { defineRoute } from '../../core/route'
import { CnpjValidacao, CpfValidacao, FerramentasIndice, ValorParam } from './model'

const TOOLS = [
  { nome: 'cnpj', url: '/v1/ferramentas/cnpj/{valor}', descricao: 'Valida um CNPJ (numérico ou alfanumérico), com ou sem pontuação.', exemplo: '/v1/ferramentas/cnpj/33.683.111/0002-80' },
  { nome: 'cpf', url: '/v1/ferramentas/cpf/{valor}', descricao: 'Valida um CPF e devolve só a forma mascarada ***NNNNNN**.', exemplo: '/v1/ferramentas/cpf/529.982.247-25' },
]

export const indice = defineRoute({
  path: '/v1/ferramentas',
  dataset: 'ferramentas',
  summary: 'Índice das ferramentas grátis',
  price: null,
  response: FerramentasIndice,
  errors: [],
  handler: ({ baseUrl }) => ({
    ferramentas: TOOLS.map((t) => ({ ...t, url: baseUrl + t.url, exemplo: baseUrl + t.exemplo })),
    gratis: true as const,
    limite_de_taxa: null,
  }),
})

export const validarCnpj = defineRoute({
  path: '/v1/ferramentas/cnpj/{valor}',
  dataset: 'ferramentas',
  summary: 'Valida um CNPJ',
  description:
    'Aritmética pura (módulo 11), sem consulta à base. Aceita o CNPJ alfanumérico (IN RFB 2.229/2024). ' +
    'Números com todos os caracteres iguais são inválidos. Entrada inválida responde 200 com valido=false. ' +
    'Pontuação aceita: ponto, barra, hífen e espaços; as barras do CNPJ pontuado podem ir no caminho sem codificar.',
  price: null,
  params: ValorParam,
  response: CnpjValidacao,
  errors: [],
  exampleInput: { params: { valor: '33683111000280' } },
  handler: ({ params }) => {
    const check = checkCnpj(params.valor)
    if (!check.valido && check.motivo === 'formato_invalido')
      return { valido: false, motivo: check.motivo, cnpj: '', formatado: '', raiz: '', matriz: false }
    return {
      valido: check.valido,
      motivo: check.valido ? null : check.motivo,
      cnpj: check.cnpj,
      formatado: formatCnpj(check.cnpj),
      raiz: check.cnpj.slice(0, 8),
      matriz: check.cnpj.slice(8, 12) === '0001',
    }
  },
})

export const validarCpf = defineRoute({
  path: '/v1/ferramentas/cpf/{valor}',
  dataset: 'ferramentas',
  summary: 'Valida um CPF',
  description: 'Aritmética pura, sem consulta. O CPF completo nunca é devolvido nem registrado em log: só a forma mascarada ***NNNNNN**.',
  price: null,
  params: ValorParam,
  response: CpfValidacao,
  errors: [],
  exampleInput: { params: { valor: '529.982.247-25' } },
  handler: ({ params }) => {
    const check = checkCpf(params.valor)
    return { valido: check.valido, motivo: check.valido ? null : check.motivo, mascarado: check.mascarado }
  },
})
