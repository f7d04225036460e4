// The six files an integrity build reads, each recognized by its header (never by its name or by
// column position): the CGU's CEIS, CNEP, CEPIM, leniency agreements and their effects (the
// leniency zip holds two CSVs), and the MTE's employers list. Headers as published, typos included
// (`ABRAGÊNCIA`, `LENIÊNICA`, the cp1252 en dash in `RAZÃO SOCIAL – CADASTRO RECEITA`); matching is
// on the normalized form (header.ts), so accents, case, dashes and spacing do not matter.
import { columnIndex, HeaderError, normalizeHeader, type ColumnSpec } from '../../src/core/text/header'

export type Kind = 'ceis' | 'cnep' | 'cepim' | 'acordos' | 'efeitos' | 'mte'

export const KIND_LABEL: Record<Kind, string> = {
  ceis: 'CEIS',
  cnep: 'CNEP',
  cepim: 'CEPIM',
  acordos: 'acordos de leniência (_Acordos)',
  efeitos: 'efeitos dos acordos de leniência (_Efeitos)',
  mte: 'cadastro de empregadores do MTE (trabalho escravo)',
}

/** CEIS columns; CNEP has the same plus VALOR DA MULTA. */
const SANCTION_COLUMNS = {
  cadastro: 'CADASTRO',
  codigo: 'CÓDIGO DA SANÇÃO',
  tipo_pessoa: 'TIPO DE PESSOA',
  documento: 'CPF OU CNPJ DO SANCIONADO',
  nome: 'NOME DO SANCIONADO',
  nome_orgao: 'NOME INFORMADO PELO ÓRGÃO SANCIONADOR',
  razao_social: 'RAZÃO SOCIAL - CADASTRO RECEITA',
  nome_fantasia: 'NOME FANTASIA - CADASTRO RECEITA',
  processo: 'NÚMERO DO PROCESSO',
  categoria: 'CATEGORIA DA SANÇÃO',
  inicio: 'DATA INÍCIO SANÇÃO',
  fim: ['DATA FINAL SANÇÃO', 'DATA FIM SANÇÃO'],
  data_publicacao: 'DATA PUBLICAÇÃO',
  publicacao: 'PUBLICAÇÃO',
  detalhamento: 'DETALHAMENTO DO MEIO DE PUBLICAÇÃO',
  transito: 'DATA DO TRÂNSITO EM JULGADO',
  // The file spells it ABRAGÊNCIA; the CGU's dictionary spells it right.
  abrangencia: ['ABRAGÊNCIA DA SANÇÃO', 'ABRANGÊNCIA DA SANÇÃO'],
  orgao: 'ÓRGÃO SANCIONADOR',
  orgao_uf: 'UF ÓRGÃO SANCIONADOR',
  orgao_esfera: 'ESFERA ÓRGÃO SANCIONADOR',
  fundamentacao: 'FUNDAMENTAÇÃO LEGAL',
  origem_data: 'DATA ORIGEM INFORMAÇÃO',
  origem: 'ORIGEM INFORMAÇÕES',
  observacoes: 'OBSERVAÇÕES',
} satisfies ColumnSpec

/** Without these a CEIS/CNEP row says nothing useful: the others may be missing (then null). */
const SANCTION_REQUIRED = ['codigo', 'documento', 'categoria', 'inicio', 'fim', 'orgao'] as const

export const COLUMNS = {
  ceis: SANCTION_COLUMNS,
  cnep: { ...SANCTION_COLUMNS, valor_multa: 'VALOR DA MULTA' },
  cepim: {
    cnpj: 'CNPJ ENTIDADE',
    nome: 'NOME ENTIDADE',
    convenio: ['NÚMERO CONVÊNIO', 'NÚMERO DO CONVÊNIO'],
    orgao: 'ÓRGÃO CONCEDENTE',
    motivo: 'MOTIVO DO IMPEDIMENTO',
  },
  acordos: {
    id: 'ID DO ACORDO',
    cnpj: 'CNPJ DO SANCIONADO',
    razao_social: 'RAZÃO SOCIAL – CADASTRO RECEITA',
    nome_fantasia: 'NOME FANTASIA – CADASTRO RECEITA',
    inicio: 'DATA DE INÍCIO DO ACORDO',
    fim: 'DATA DE FIM DO ACORDO',
    // LENIÊNICA is the published spelling.
    situacao: ['SITUAÇÃO DO ACORDO DE LENIÊNICA', 'SITUAÇÃO DO ACORDO DE LENIÊNCIA'],
    data_informacao: 'DATA DA INFORMAÇÃO',
    processo: 'NÚMERO DO PROCESSO',
    termos: 'TERMOS DO ACORDO',
    orgao: 'ÓRGÃO SANCIONADOR',
  },
  efeitos: {
    id: 'ID DO ACORDO',
    efeito: ['EFEITO DO ACORDO DE LENIENCIA', 'EFEITO DO ACORDO DE LENIÊNCIA'],
    complemento: 'COMPLEMENTO',
  },
  mte: {
    id: 'ID',
    ano: 'Ano da ação fiscal',
    uf: 'UF',
    empregador: 'Empregador',
    documento: 'CNPJ/CPF',
    estabelecimento: 'Estabelecimento',
    trabalhadores: 'Trabalhadores envolvidos',
    cnae: 'CNAE',
    decisao: 'Decisão administrativa de procedência',
    inclusao: 'Inclusão no Cadastro de Empregadores',
  },
} as const satisfies Record<Kind, ColumnSpec>

const REQUIRED: Record<Kind, readonly string[]> = {
  ceis: SANCTION_REQUIRED,
  cnep: [...SANCTION_REQUIRED, 'valor_multa'],
  cepim: ['cnpj', 'nome', 'convenio', 'orgao', 'motivo'],
  acordos: ['id', 'cnpj', 'inicio', 'fim', 'situacao', 'orgao'],
  efeitos: ['id', 'efeito'],
  mte: ['id', 'empregador', 'documento', 'inclusao'],
}

/** The columns that say which list a header belongs to (a file close to one but missing others gets a message naming them). */
const SIGNATURE: Record<Kind, string[]> = {
  ceis: ['CPF OU CNPJ DO SANCIONADO', 'CATEGORIA DA SANÇÃO', 'CÓDIGO DA SANÇÃO'],
  cnep: ['CPF OU CNPJ DO SANCIONADO', 'CATEGORIA DA SANÇÃO', 'VALOR DA MULTA'],
  cepim: ['CNPJ ENTIDADE', 'MOTIVO DO IMPEDIMENTO'],
  acordos: ['ID DO ACORDO', 'CNPJ DO SANCIONADO'],
  efeitos: ['ID DO ACORDO', 'COMPLEMENTO'],
  mte: ['CNPJ/CPF', 'Empregador', 'Inclusão no Cadastro de Empregadores'],
}

const has = (normalized: string[], name: string) => normalized.includes(normalizeHeader(name))

/**
 * Which file a header is, or null. CNEP is CEIS plus VALOR DA MULTA; the effects file is told
 * from the agreements by its EFEITO column.
 */
export function kindOf(header: string[]): Kind | null {
  const n = header.map(normalizeHeader)
  const sig = (k: Kind) => SIGNATURE[k].every((c) => has(n, c))
  if (sig('cnep')) return 'cnep'
  if (sig('ceis')) return 'ceis'
  if (sig('cepim')) return 'cepim'
  if (sig('acordos')) return 'acordos'
  if (has(n, 'ID DO ACORDO') && (has(n, 'EFEITO DO ACORDO DE LENIENCIA') || sig('efeitos'))) return 'efeitos'
  if (sig('mte')) return 'mte'
  return null
}

/** Column positions for a recognized file; throws HeaderError naming the missing required columns. */
export function indexFor<K extends Kind>(kind: K, header: string[]) {
  const spec = COLUMNS[kind] as ColumnSpec
  const optional = Object.keys(spec).filter((k) => !REQUIRED[kind].includes(k))
  try {
    return columnIndex(header, spec, optional) as Record<keyof (typeof COLUMNS)[K] & string, number>
  } catch (err) {
    if (err instanceof HeaderError) throw new HeaderError(`${KIND_LABEL[kind]}: ${err.message}`)
    throw err
  }
}

/** For an unknown header: the first columns, to say what the file looks like. */
export function describeHeader(header: string[]): string {
  const shown = header.slice(0, 6).map((h) => h.trim()).filter(Boolean)
  return shown.length ? shown.join('; ') + (header.length > 6 ? '; ...' : '') : '(vazio)'
}
