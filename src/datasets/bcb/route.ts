// HTTP only: the Banco Central check (SPEC §4) and its free sample; the work is in service.ts.
import { servingStore } from '../../core/context'
import type { z } from 'zod'
import { defineRoute } from '../../core/route'
import { InstituicaoAmostra, InstituicaoBcb, RaizPath } from './model'
import { consultarBcbJson, instituicao } from './service'
import type { BcbStore } from './store'
// Embedded in the executable; rewritten by `bun test/bcb/amostra.ts`.
import AMOSTRA_COPIA from './amostra.json'

/** Banco do Brasil S.A.: a real authorized bank, in the bundled sample's real list of May 2024. */
export const AMOSTRA_RAIZ = '00000000'

export const instituicaoRoute = defineRoute({
  path: '/v1/bcb/instituicao/{cnpj}',
  dataset: 'bcb',
  summary: 'Instituição autorizada pelo Banco Central e domínios verificados',
  description:
    'Aceita o CNPJ de 14 caracteres (dígitos verificadores conferidos) ou só a raiz de 8, com ou sem pontuação ' +
    '(00.000.000, 00000000/0001-91...); a consulta é sempre pela raiz, pois a autorização é da empresa. Fonte: a relação ' +
    'mensal de instituições em funcionamento no país do Banco Central (bancos, cooperativas de crédito, administradoras ' +
    'de consórcio, demais instituições e conglomerados). registros traz uma entrada por lista em que a raiz aparece ' +
    '(nome, segmento, endereço, telefone, sítio; nas cooperativas, classe e categoria; nos conglomerados, o conglomerado ' +
    'e o papel da instituição). dominios_verificados: os nomes de host dos sítios informados, em minúsculas, sem esquema, ' +
    'caminho ou porta (entradas malformadas descartadas). Raiz que não consta: 200 com autorizada=false e listas vazias. ' +
    'Entrada inválida: 400 cnpj_invalido antes de qualquer consulta, sem cobrança.',
  price: 0.005,
  params: RaizPath,
  response: InstituicaoBcb,
  errors: ['cnpj_invalido', 'dados_indisponiveis'],
  exampleInput: { params: { cnpj: '00.000.000' } },
  handler: ({ params, ctx }) => consultarBcbJson(ctx, params.cnpj),
})

const amostraCopia = AMOSTRA_COPIA as z.output<typeof InstituicaoAmostra>

export const amostra = defineRoute({
  path: '/v1/bcb/amostra',
  dataset: 'bcb',
  summary: 'Amostra grátis: consulta ao Banco Central de um banco autorizado real (Banco do Brasil, raiz 00.000.000)',
  description:
    'A mesma resposta de /v1/bcb/instituicao/{cnpj}, com amostra=true. Da base carregada quando ela tem o banco; senão ' +
    '(ou sem base carregada), de uma cópia embutida no programa, construída da amostra do repositório: fonte diz de quando ela é.',
  price: null,
  response: InstituicaoAmostra,
  errors: [],
  example: amostraCopia,
  handler: async ({ ctx }) => {
    const store = servingStore<BcbStore>(ctx, 'bcb')
    const live = store ? await store.use((s) => instituicao(s.files, AMOSTRA_RAIZ)) : null
    return live?.autorizada ? { ...live, amostra: true as const } : amostraCopia
  },
})
