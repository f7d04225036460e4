// HTTP only: the enriched profile and its free sample (SPEC §4); the work is in service.ts.
import { defineRoute } from '../../core/route'
import { CnpjPath, Enriquecido, EnriquecidoAmostra } from './model'
import * as service from './service'

/**
 * CONSTRUTORA FICTICIA ALFA LTDA: the integrity sample's sanctioned company (CEIS and CNEP), with
 * public contracts in the PNCP sample. Constructed (test/empresa/fixtures/README.md says why).
 */
export const AMOSTRA_CNPJ = '90111222000174'

export const enriquecer = defineRoute({
  path: '/v1/empresa/enriquecer/{cnpj}',
  dataset: 'empresa',
  summary: 'Perfil completo de uma empresa numa chamada (KYB): cadastro, integridade, Banco Central e contratos públicos',
  description:
    'CNPJ com ou sem pontuação; um CNPJ inválido dá 400 cnpj_invalido (não é cobrado). Cada parte é a mesma resposta da rota da sua base ' +
    '(/v1/cnpj/empresa/{cnpj}/completo, /v1/integridade/consulta/{cnpj}, /v1/bcb/instituicao/{cnpj}, /v1/licitacoes/fornecedor/{cnpj}), lida ' +
    'dos arquivos deste servidor numa chamada só. Um CNPJ que não consta do cadastro dá 404. Uma base não carregada deixa a sua parte null, e ' +
    'fontes diz por quê; fontes também dá a data de referência de cada base usada.',
  price: 0.05,
  params: CnpjPath,
  response: Enriquecido,
  errors: ['cnpj_invalido', 'nao_encontrado', 'dados_indisponiveis'],
  handler: ({ params, ctx }) => service.enriquecer(ctx, params.cnpj),
})

export const amostra = defineRoute({
  path: '/v1/empresa/amostra',
  dataset: 'empresa',
  summary: 'Amostra grátis do perfil enriquecido: empresa sancionada com contratos públicos (fictícia, das amostras embutidas)',
  description: 'O perfil de 90.111.222/0001-74 das bases carregadas; a parte de uma base ausente vem null, e fontes diz por quê.',
  price: null,
  response: EnriquecidoAmostra,
  errors: [],
  handler: async ({ ctx }) => ({ ...(await service.amostra(ctx, AMOSTRA_CNPJ)), amostra: true as const }),
})
