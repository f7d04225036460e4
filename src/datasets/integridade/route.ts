// HTTP only: the screening route (SPEC §4) and its free sample; the work is in service.ts.
import { servingStore } from '../../core/context'
import type { z } from 'zod'
import { defineRoute } from '../../core/route'
import { CnpjPath, Triagem, TriagemAmostra, TriagemLote } from './model'
import { consultarIntegridadeJson, consultarLoteJson, triagem } from './service'
import { CNPJS_DESCRICAO, lerListaDeCnpjs, LoteQuery, MAX_CNPJS_POR_LOTE, unidadesDoLote } from '../../core/lote'
import type { IntegridadeStore } from './store'
// Embedded in the executable (a plain JSON import); rewritten by `bun test/integridade/amostra.ts`.
import AMOSTRA_COPIA from './amostra.json'

/**
 * VIABRAS ENGENHARIA EIRELI: a real company on the MTE's employers list of 04/09/2026 (the
 * bundled sample's excerpt of it), a construction firm of the kind that holds public contracts.
 */
export const AMOSTRA_CNPJ = '00638595000105'

const DESCRICAO =
  'Consulta as cinco listas oficiais: CEIS, CNEP e CEPIM (CGU, arquivos diários), cadastro de empregadores ' +
  'flagrados com trabalho análogo ao de escravo (MTE) e acordos de leniência (CGU). Só registros de pessoas jurídicas ' +
  '(linhas de pessoas físicas são descartadas na carga). Uma sanção vale para a empresa inteira: a consulta de qualquer ' +
  'estabelecimento traz os registros de todos os CNPJs da mesma raiz de 8 caracteres, e cada apontamento diz se casou ' +
  'pelo CNPJ consultado (correspondencia=cnpj, primeiro) ou só pela raiz (correspondencia=raiz). Cada apontamento traz ' +
  'os campos da sua fonte com chaves em português e datas AAAA-MM-DD (null quando a fonte não informa) e vigente: ' +
  'CEIS/CNEP sem data final ou com data final ainda não passada (hoje em Brasília); CEPIM e MTE: constar da lista; ' +
  'acordos de leniência: pela situação (em vigência = true; cumprido/descumprido = false). ficha_limpa = nenhum ' +
  'apontamento vigente; total_apontamentos conta todos, vigentes ou não. fonte.listas dá a data de referência de cada ' +
  'lista. CNPJ válido sem registros: 200 com ficha_limpa=true e listas vazias. CNPJ inválido: 400 cnpj_invalido antes ' +
  'de qualquer consulta, sem cobrança.'

export const consulta = defineRoute({
  path: '/v1/integridade/consulta/{cnpj}',
  dataset: 'integridade',
  summary: 'Triagem de integridade de um CNPJ nas cinco listas oficiais',
  description: DESCRICAO,
  price: 0.01,
  params: CnpjPath,
  response: Triagem,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  exampleInput: { params: { cnpj: AMOSTRA_CNPJ } },
  handler: ({ params, ctx }) => consultarIntegridadeJson(ctx, params.cnpj),
})

export const lote = defineRoute({
  path: '/v1/integridade/lote',
  dataset: 'integridade',
  summary: 'Triagem de integridade de até 100 CNPJs numa chamada, cobrada por CNPJ',
  description:
    `cnpjs: ${CNPJS_DESCRICAO}. Cada item traz cnpj, encontrado (a raiz tem algum apontamento nas cinco listas) e a triagem de ` +
    '/v1/integridade/consulta/{cnpj} (resultado, também para quem não tem apontamento: ficha_limpa=true), ou o erro que essa rota daria ' +
    '(cnpj_invalido), na ordem dada. O preço é o de /v1/integridade/consulta por CNPJ válido e distinto (o 402 deste endereço diz o total). ' +
    'Lista vazia, mais de 100 itens, outro separador que não a vírgula ou nenhum CNPJ válido: 400, sem cobrança. ' +
    'Sem servidor: dadosbr consultar integridade --arquivo lista.txt.',
  price: 0.01,
  units: unidadesDoLote,
  maxUnits: MAX_CNPJS_POR_LOTE,
  query: LoteQuery,
  response: TriagemLote,
  errors: ['parametro_invalido', 'dados_indisponiveis'],
  exampleInput: { query: { cnpjs: `${AMOSTRA_CNPJ},33683111000280,00.638.595/0001-05,123` } },
  handler: ({ query, ctx }) => consultarLoteJson(ctx, lerListaDeCnpjs(query.cnpjs)),
})

const amostraCopia = AMOSTRA_COPIA as z.output<typeof TriagemAmostra>

export const amostra = defineRoute({
  path: '/v1/integridade/amostra',
  dataset: 'integridade',
  summary: 'Amostra grátis: triagem de uma empresa sancionada real (VIABRAS ENGENHARIA EIRELI, 00.638.595/0001-05)',
  description:
    'A mesma resposta de /v1/integridade/consulta/{cnpj}, com amostra=true, para uma empresa real do cadastro de ' +
    'empregadores do MTE. Da base carregada quando ela tem registros da empresa; senão (ou sem base carregada), de uma ' +
    'cópia embutida no programa, construída da amostra do repositório: fonte diz de quando ela é.',
  price: null,
  response: TriagemAmostra,
  errors: [],
  example: amostraCopia,
  handler: async ({ ctx }) => {
    const store = servingStore<IntegridadeStore>(ctx, 'integridade')
    const live = store ? await store.use((s) => triagem(s.files, AMOSTRA_CNPJ)) : null
    return live && live.total_apontamentos > 0 ? { ...live, amostra: true as const } : amostraCopia
  },
})
