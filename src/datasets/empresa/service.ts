// The enriched profile: the registry card, the integrity screening, the central-bank check and the
// public contracts of one CNPJ, each read from this server's own loaded files by the same function
// its route uses (no HTTP between parts). The registry anchors it: an unknown CNPJ is a 404. Any
// other base not loaded leaves its part null, and `fontes` says why and how to load it.
import type { z } from 'zod'
import { servingStore, storeOf, whyUnavailable, type AppContext } from '../../core/context'
import { ApiError } from '../../core/errors'
import { consultarBcb } from '../bcb/service'
import * as cnpjService from '../cnpj/service'
import type { CnpjStore } from '../cnpj/store'
import { consultarIntegridade } from '../integridade/service'
import { fornecedor } from '../licitacoes/service'
import type { ContractsStore } from '../licitacoes/store'
import type { Enriquecido, FonteParte } from './model'

type Out<T extends z.ZodType> = z.output<T>
type Fonte = Out<typeof FonteParte>

const BASES = { cadastro: 'RFB/CNPJ', integridade: 'CGU/MTE', banco_central: 'BCB', contratos_publicos: 'PNCP/contratos' } as const
const DATASET = { cadastro: 'cnpj', integridade: 'integridade', banco_central: 'bcb', contratos_publicos: 'licitacoes' } as const
type Parte = keyof typeof BASES

/** Why a base's part is missing: the reason its files did not open, and the command that builds them. */
function ausente(ctx: AppContext, parte: Parte): Fonte {
  const name = DATASET[parte]
  const why = ctx.stores.get(name) ? whyUnavailable(ctx, name) : ctx.openFailures.get(name)
  return {
    base: BASES[parte],
    disponivel: false,
    referencia: null,
    motivo: `base '${name}' não carregada neste servidor${why ? ` (${why})` : ''}; rode 'dadosbr ingest ${name}'`,
  }
}

const presente = (parte: Parte, referencia: string | null): Fonte => ({ base: BASES[parte], disponivel: true, referencia, motivo: null })

/** One part read through its route's function; null (and why) when its base is not loaded. */
async function parte<T>(ctx: AppContext, nome: Parte, read: () => Promise<T>, referencia: (value: T) => string | null): Promise<{ value: T | null; fonte: Fonte }> {
  if (!servingStore(ctx, DATASET[nome])) return { value: null, fonte: ausente(ctx, nome) }
  try {
    const value = await read()
    return { value, fonte: presente(nome, referencia(value)) }
  } catch (err) {
    if (err instanceof ApiError && err.codigo === 'dados_indisponiveis') return { value: null, fonte: ausente(ctx, nome) }
    throw err
  }
}

/** The three parts besides the registry card, read at once. */
async function demais(ctx: AppContext, cnpj: string) {
  const [integridade, bancoCentral, contratos] = await Promise.all([
    parte(ctx, 'integridade', () => consultarIntegridade(ctx, cnpj), (v) => v.fonte.referencia),
    parte(ctx, 'banco_central', () => consultarBcb(ctx, cnpj), (v) => v.fonte.referencia),
    parte(ctx, 'contratos_publicos', () => storeOf<ContractsStore>(ctx, 'licitacoes').use((s) => fornecedor(s.files, cnpj)), (v) => v.fonte.referencia),
  ])
  return { integridade, bancoCentral, contratos }
}

/** What /v1/empresa/enriquecer/{cnpj} answers: 503 without the registry, 404 for a CNPJ it does not hold. */
export async function enriquecer(ctx: AppContext, cnpj: string): Promise<Out<typeof Enriquecido>> {
  const cadastro = await storeOf<CnpjStore>(ctx, 'cnpj').use((files) => cnpjService.completo(files, cnpj))
  const { integridade, bancoCentral, contratos } = await demais(ctx, cnpj)
  return {
    cnpj,
    cadastro,
    integridade: integridade.value,
    banco_central: bancoCentral.value,
    contratos_publicos: contratos.value,
    fontes: { cadastro: presente('cadastro', cadastro.fonte.referencia), integridade: integridade.fonte, banco_central: bancoCentral.fonte, contratos_publicos: contratos.fonte },
  }
}

/**
 * The free sample: the same profile, but a company the loaded registry lacks leaves its card null
 * (with why) instead of a 404, so the sample answers from whatever bases are loaded.
 */
export async function amostra(ctx: AppContext, cnpj: string): Promise<Out<typeof Enriquecido>> {
  const registro = await parte(ctx, 'cadastro', () => storeOf<CnpjStore>(ctx, 'cnpj').use((files) => cnpjService.completo(files, cnpj)), (v) => v.fonte.referencia).catch((err) => {
    if (err instanceof ApiError && err.codigo === 'nao_encontrado')
      return { value: null, fonte: { base: BASES.cadastro, disponivel: true, referencia: null, motivo: 'a empresa da amostra não consta do cadastro carregado' } }
    throw err
  })
  const { integridade, bancoCentral, contratos } = await demais(ctx, cnpj)
  return {
    cnpj,
    cadastro: registro.value,
    integridade: integridade.value,
    banco_central: bancoCentral.value,
    contratos_publicos: contratos.value,
    fontes: { cadastro: registro.fonte, integridade: integridade.fonte, banco_central: bancoCentral.fonte, contratos_publicos: contratos.fonte },
  }
}
