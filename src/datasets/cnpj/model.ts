import { z } from 'zod'
import { checkCnpj } from '../../core/documents'
import { loteDe } from '../../core/lote'
import { booleanParam, cnpjParam, decimalParam, ibgeMunicipioParam, intParam, pagina, porPagina, ufOuExteriorParam } from '../../core/validate'
import { TIPOS } from './historico-layout'

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable()
const str = z.string().nullable()

export const Fonte = z.object({
  base: z.literal('RFB/CNPJ'),
  referencia: z.string().regex(/^\d{4}-\d{2}$/).nullable().describe('mês de referência do dump, AAAA-MM'),
})

export const CodigoDescricao = z.object({ codigo: str, descricao: str })

export const PORTES = ['micro_empresa', 'empresa_pequeno_porte', 'demais', 'nao_informado'] as const

export const SituacaoCadastral = z.object({
  codigo: str.describe('01 nula, 02 ativa, 03 suspensa, 04 inapta, 08 baixada'),
  descricao: str.describe('Nula, Ativa, Suspensa, Inapta ou Baixada'),
  data: date,
  motivo: str.describe('motivo da situação; null quando a Receita registra 00 (sem motivo)'),
})

export const Empresa = z.object({
  cnpj: z.string().describe('14 caracteres'),
  razao_social: str.describe('um CPF no fim do nome (empresário individual) vem mascarado: ***NNNNNN**'),
  nome_fantasia: str,
  matriz_filial: z.enum(['matriz', 'filial']).nullable(),
  situacao_cadastral: SituacaoCadastral,
  situacao_especial: z
    .object({ descricao: str.describe('como a Receita publica, ex. RECUPERACAO JUDICIAL'), data: date })
    .nullable()
    .describe('situação especial do estabelecimento; null quando a Receita não registra nenhuma'),
  data_inicio_atividade: date,
  natureza_juridica: CodigoDescricao,
  qualificacao_responsavel: CodigoDescricao.describe('qualificação da pessoa responsável pela empresa perante a Receita (tabela de qualificações)'),
  ente_federativo_responsavel: str.describe('só para naturezas jurídicas da administração pública (1XXX), como a Receita publica (ex. SANTA CATARINA); null nas demais'),
  porte: z.enum(PORTES).nullable(),
  capital_social: z.number().nullable(),
  cnae_principal: CodigoDescricao,
  cnae_secundarios: z.array(CodigoDescricao),
  endereco: z.object({
    logradouro: str,
    numero: str,
    complemento: str,
    bairro: str,
    municipio: str,
    uf: str,
    cep: str,
    codigo_municipio_ibge: z
      .string()
      .regex(/^\d{7}$/)
      .nullable()
      .describe('código IBGE (7 dígitos) do município, pela tabela TOM ↔ IBGE da Receita; null no exterior e para um código que a tabela não tem'),
    pais: CodigoDescricao.nullable().describe('país do endereço (código e nome da tabela de países da Receita), preenchido pela Receita para endereços no exterior; null quando em branco'),
  }),
  contato: z.object({
    email: str,
    telefone: str.describe('o primeiro telefone; o segundo quando o primeiro está em branco'),
    telefone_2: str.describe('o segundo telefone, quando há também o primeiro'),
    fax: str,
  }),
  simples: z.object({
    optante: z.boolean(),
    mei: z.boolean(),
    data_opcao: date.describe('opção pelo Simples Nacional'),
    data_exclusao: date.describe('exclusão do Simples Nacional'),
    mei_data_opcao: date.describe('opção pelo MEI (SIMEI)'),
    mei_data_exclusao: date.describe('exclusão do MEI'),
  }),
  fonte: Fonte,
})

export const Socio = z.object({
  nome: str,
  tipo: z.enum(['pessoa_fisica', 'pessoa_juridica', 'estrangeiro']).nullable(),
  documento_mascarado: str.describe('como a Receita publica: CPF mascarado ***NNNNNN**, CNPJ do sócio pessoa jurídica completo'),
  qualificacao: CodigoDescricao,
  data_entrada: date,
  faixa_etaria: z.string().regex(/^(\d{2}-\d{2}|81\+)$/).nullable().describe('00-12, 13-20, 21-30 ... 71-80, 81+; null quando não se aplica'),
  representante_legal: str,
})

export const Filial = z.object({ cnpj: z.string(), matriz_filial: z.enum(['matriz', 'filial']).nullable(), uf: str, municipio: str, situacao: str })

export const EmpresaCompleta = Empresa.extend({
  socios: z.array(Socio),
  total_socios: z.number().int(),
  filiais: z.array(Filial).describe('outros estabelecimentos da mesma raiz, por CNPJ; no máximo 1000 (total_filiais diz quantos há)'),
  total_filiais: z.number().int(),
})

export const EmpresaAmostra = EmpresaCompleta.extend({
  amostra: z.literal(true),
  origem: z
    .enum(['base_carregada', 'copia_embutida'])
    .describe('base_carregada: lida do cadastro carregado neste servidor (fonte.referencia é o mês dele); copia_embutida: a cópia embutida no programa, construída da amostra do repositório (o cadastro carregado não tem a empresa, ou nenhum está carregado)'),
})

export const Situacao = z.object({
  cnpj: z.string(),
  existe: z.boolean(),
  situacao_cadastral: z.object({ codigo: str, descricao: str, data: date }).nullable(),
  matriz_filial: z.enum(['matriz', 'filial']).nullable(),
  uf: str,
  fonte: Fonte,
})

export const Socios = z.object({ cnpj: z.string(), total: z.number().int(), socios: z.array(Socio), fonte: Fonte })

const total = z.union([z.number().int(), z.literal('10000+')]).describe('contagem exata até 10000; acima disso, "10000+"')

export const BuscaResultado = z.object({
  total,
  pagina: z.number().int(),
  resultados: z.array(z.object({ cnpj: z.string(), razao_social: str, nome_fantasia: str, uf: str, municipio: str, codigo_municipio_ibge: z.string().nullable(), cnae_principal: str, situacao: str })),
  fonte: Fonte,
})

export const SocioBuscaResultado = z.object({
  total,
  pagina: z.number().int(),
  resultados: z.array(z.object({ nome_socio: str, cnpj: z.string().describe('raiz de 8 caracteres'), razao_social: str, qualificacao: CodigoDescricao, data_entrada: date })),
  fonte: Fonte,
})

export const CnpjPath = z.object({ cnpj: cnpjParam })

const isoDate = z.iso.date('use AAAA-MM-DD')

/** The largest capital a search bound takes (R$ 10 trillion: far above any registered capital). */
export const CAPITAL_MAXIMO = 10_000_000_000_000
/** The município filters of /busca and /mudancas: the Receita's code, or the IBGE's through the Receita's TOM ↔ IBGE table. */
const municipioTom = z.string().regex(/^\d{4}$/, 'código de 4 dígitos da Receita').describe('código do município da Receita (TOM, 4 dígitos); para o código IBGE, municipio_ibge')
const municipioIbge = ibgeMunicipioParam.meta({ pattern: '^\\d{7}$', example: '3550308' }).describe('código IBGE do município (7 dígitos, dígito verificador conferido), pela tabela TOM ↔ IBGE da Receita')
const cnaeCode = (what: string, example: string) => z.string().regex(/^\d{7}$/, 'sete dígitos, sem pontuação (ex. 4711302)').meta({ example }).describe(what)

export const BuscaQuery = z
  .object({
    nome: z.string().trim().min(2).max(200).optional().describe('palavras da razão social ou do nome fantasia, cada uma como começo de palavra; sem acento, caixa nem largura; formas jurídicas e conectivos ignorados (docs/busca.md)'),
    uf: ufOuExteriorParam.optional().describe('sigla da UF do estabelecimento, ou EX para os no exterior'),
    municipio: municipioTom.optional(),
    municipio_ibge: municipioIbge.optional(),
    cnae: cnaeCode('atividade principal', '4771701').optional(),
    cnae_secundario: cnaeCode('uma das atividades secundárias', '4721103').optional(),
    cnae_qualquer: cnaeCode('a atividade principal ou uma das secundárias', '5611201').optional(),
    natureza_juridica: z
      .string()
      .regex(/^\d{3}-?\d$/, 'código de 4 dígitos da tabela de naturezas jurídicas, com ou sem hífen (ex. 2062 ou 206-2)')
      .transform((s) => s.replace('-', ''))
      .meta({ example: '2062' })
      .optional()
      .describe('natureza jurídica (ex. 2062 sociedade empresária limitada, 2135 empresário individual)'),
    porte: z.enum(['micro_empresa', 'pequeno_porte', 'empresa_pequeno_porte', 'demais', 'nao_informado']).optional(),
    capital_min: decimalParam(0, CAPITAL_MAXIMO, 1000000).optional().describe('capital social mínimo, em reais (inclusive); acima de capital_max dá 400'),
    capital_max: decimalParam(0, CAPITAL_MAXIMO, 5000000).optional().describe('capital social máximo, em reais (inclusive)'),
    simples: booleanParam(true).optional().describe('true: optante pelo Simples Nacional; false: não optante'),
    mei: booleanParam(false).optional().describe('true: optante pelo MEI; false: não optante'),
    situacao: z.enum(['ativa', 'baixada', 'suspensa', 'inapta', 'nula']).default('ativa'),
    abertura_de: isoDate.optional().meta({ example: '2020-01-01' }).describe('início de atividade a partir desta data (inclusive); depois de abertura_ate dá 400'),
    abertura_ate: isoDate.optional().meta({ example: '2020-12-31' }).describe('início de atividade até esta data (inclusive)'),
    pagina,
    por_pagina: porPagina,
  })

/** A masked CPF as the Receita publishes a partner's (***456789**), or a full CNPJ (check digits verified). */
export const DOCUMENTO_SOCIO = /^\*{3}\d{6}\*{2}$/
const documento = z
  .string()
  .transform((value, ctx) => {
    const v = value.trim()
    if (DOCUMENTO_SOCIO.test(v)) return v
    const cnpj = checkCnpj(v)
    if (cnpj.valido) return cnpj.cnpj
    ctx.addIssue({
      code: 'custom',
      message: /^[\d*.\-/\s]+$/.test(v) && !/^[\d.\-/\s]+$/.test(v)
        ? 'CPF mascarado com formato inválido: use como a Receita publica, três asteriscos, os 6 dígitos do meio do CPF e dois asteriscos (ex. ***456789**)'
        : cnpj.motivo === 'digito_verificador_invalido'
          ? 'CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)'
          : 'use o CPF mascarado como a Receita publica (***456789**) ou um CNPJ completo de 14 caracteres, com ou sem pontuação',
    })
    return z.NEVER
  })
  .meta({ pattern: '^\\s*(\\*{3}\\d{6}\\*{2}|[0-9A-Za-z./\\s-]{14,24})\\s*$', example: '***414127**' })

export const SocioBuscaQuery = z.object({
  nome: z.string().trim().min(3).max(200).optional().describe('palavras do nome do sócio, cada uma como começo de palavra; as regras da busca de empresas (docs/busca.md)'),
  documento: documento.optional().describe('o documento do sócio como a Receita publica: CPF mascarado (***456789**) ou CNPJ completo (as participações de uma empresa em outras); com ou sem nome'),
  pagina,
  por_pagina: porPagina,
})

export const Lote = loteDe(Empresa, 'o CNPJ consta do cadastro (resultado é o cartão de /v1/cnpj/empresa/{cnpj})', Fonte)

// ---- history (docs/historico.md) ----

/** A reference month, AAAA-MM. */
const mes = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'use AAAA-MM (ex.: 2026-07)')

export const TipoMudanca = z.enum(TIPOS).describe('o tipo de mudança; a ordem da lista é a ordem do feed')

const valor = z
  .unknown()
  .describe('o valor como o cartão daquele mês o mostrava: texto, número, booleano, objeto (situação cadastral, CNAE, natureza jurídica, sócio) ou lista (CNAEs secundários); null para um campo vazio e nas mudanças sem campo (abertura, saída e volta ao cadastro)')

const campo = z
  .string()
  .nullable()
  .describe('o campo do cartão (caminho no JSON de /v1/cnpj/empresa: razao_social, endereco.logradouro, contato.telefone, simples.mei...); socios para as mudanças de sócios; null para abertura, saiu_do_cadastro e voltou_ao_cadastro')

export const Mudanca = z.object({
  referencia: mes.describe('mês (AAAA-MM) do dump que mostrou a mudança'),
  referencia_anterior: mes.describe('o mês com que ele foi comparado; quando não é o mês anterior, a mudança aconteceu entre os dois'),
  tipo: TipoMudanca,
  campo,
  antes: valor,
  depois: valor,
})

export const Historico = z.object({
  cnpj: z.string(),
  meses: z.array(mes).describe('os meses do histórico em que este CNPJ constava do cadastro, do mais antigo ao mais novo (cada um vale em ?referencia=)'),
  mudancas: z.array(Mudanca).describe('uma por mudança, da mais nova à mais antiga; as da empresa (razão social, natureza, capital, porte, Simples, MEI, sócios) valem para todos os seus estabelecimentos'),
  fonte: Fonte,
})

export const MudancaDoMes = z.object({
  cnpj: z.string().describe('o estabelecimento; nas mudanças da empresa e de sócios, a matriz (ou o primeiro estabelecimento)'),
  tipo: TipoMudanca,
  campo,
  antes: valor,
  depois: valor,
  uf: str.describe('do estabelecimento no mês da mudança (saiu_do_cadastro: no mês anterior)'),
  municipio: str,
  cnae_principal: str,
  razao_social: str,
})

export const Mudancas = z.object({
  referencia: mes,
  referencia_anterior: mes.nullable().describe('o mês com que este foi comparado; null no primeiro mês do histórico (sem mudanças)'),
  lacuna: z.boolean().describe('true quando há meses não carregados entre referencia_anterior e referencia: as mudanças aconteceram entre os dois'),
  total: z.number().int(),
  pagina: z.number().int(),
  mudancas: z.array(MudancaDoMes),
  fonte: Fonte,
})

export const MudancasQuery = z.object({
  referencia: mes.optional().describe('mês do feed (padrão: o mais recente do histórico)'),
  tipo: TipoMudanca.optional(),
  uf: ufOuExteriorParam.optional().describe('sigla da UF do estabelecimento, ou EX para os no exterior'),
  municipio: municipioTom.optional(),
  municipio_ibge: municipioIbge.optional(),
  cnae: cnaeCode('atividade principal', '6201501').optional(),
  pagina,
  por_pagina: intParam(1, 100).default(20).describe('até 100'),
})

/** `?referencia=` of the card routes: the card as it was in a month of the history. */
export const ReferenciaQuery = z.object({
  referencia: mes.optional().describe('mês do histórico (AAAA-MM): o cartão como estava naquele mês; sem ele, o mês em uso'),
})
