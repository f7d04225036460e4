import { z } from 'zod'
import { cnpjParam } from '../../core/validate'
import { EmpresaCompleta } from '../cnpj/model'
import { InstituicaoBcb } from '../bcb/model'
import { Triagem } from '../integridade/model'
import { Fornecedor } from '../licitacoes/model'

/** Where one part of the profile came from: its base and reference date, or why it is missing. */
export const FonteParte = z.object({
  base: z.string(),
  disponivel: z.boolean().describe('false quando a base não está carregada neste servidor (a parte vem null)'),
  referencia: z.string().nullable().describe('mês (cadastro) ou dia (demais) de referência da base usada'),
  motivo: z.string().nullable().describe('por que a parte está ausente, e como carregá-la'),
})

export const Enriquecido = z.object({
  cnpj: z.string(),
  cadastro: EmpresaCompleta.nullable().describe('o cartão completo do cadastro da Receita (rota /v1/cnpj/empresa/{cnpj}/completo)'),
  integridade: Triagem.nullable().describe('a triagem nas cinco listas (rota /v1/integridade/consulta/{cnpj})'),
  banco_central: InstituicaoBcb.nullable().describe('a consulta ao Banco Central pela raiz (rota /v1/bcb/instituicao/{cnpj})'),
  contratos_publicos: Fornecedor.nullable().describe('os contratos públicos da raiz no PNCP (rota /v1/licitacoes/fornecedor/{cnpj})'),
  fontes: z.object({ cadastro: FonteParte, integridade: FonteParte, banco_central: FonteParte, contratos_publicos: FonteParte }),
})

export const EnriquecidoAmostra = Enriquecido.extend({ amostra: z.literal(true) })

export const CnpjPath = z.object({ cnpj: cnpjParam })
