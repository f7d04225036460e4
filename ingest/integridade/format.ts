// Writing the lists in their published bytes (fixtures, tests, the benchmark's full-size files):
// cp1252, `;`, every field quoted with `""` escapes, CRLF; the MTE list unquoted. The headers are
// the published ones, typos and en dash included. (Bytes: encodeCp1252; zips: writeZipFiles, both in ingest/lib.)

/** One CGU line: every field quoted, `""` inside. */
export const cguLine = (fields: string[]) => fields.map((f) => `"${f.replace(/"/g, '""')}"`).join(';')

/** A CGU CSV: header and rows, CRLF after every line (the last included). */
export const cguCsv = (header: readonly string[], rows: string[][]) => [header, ...rows].map((r) => cguLine([...r]) + '\r\n').join('')

export const CEIS_HEADER = [
  'CADASTRO', 'CÓDIGO DA SANÇÃO', 'TIPO DE PESSOA', 'CPF OU CNPJ DO SANCIONADO', 'NOME DO SANCIONADO', 'NOME INFORMADO PELO ÓRGÃO SANCIONADOR',
  'RAZÃO SOCIAL - CADASTRO RECEITA', 'NOME FANTASIA - CADASTRO RECEITA', 'NÚMERO DO PROCESSO', 'CATEGORIA DA SANÇÃO', 'DATA INÍCIO SANÇÃO',
  'DATA FINAL SANÇÃO', 'DATA PUBLICAÇÃO', 'PUBLICAÇÃO', 'DETALHAMENTO DO MEIO DE PUBLICAÇÃO', 'DATA DO TRÂNSITO EM JULGADO', 'ABRAGÊNCIA DA SANÇÃO',
  'ÓRGÃO SANCIONADOR', 'UF ÓRGÃO SANCIONADOR', 'ESFERA ÓRGÃO SANCIONADOR', 'FUNDAMENTAÇÃO LEGAL', 'DATA ORIGEM INFORMAÇÃO', 'ORIGEM INFORMAÇÕES', 'OBSERVAÇÕES',
] as const

/** CNEP: CEIS plus VALOR DA MULTA between the category and the start date. */
export const CNEP_HEADER = [...CEIS_HEADER.slice(0, 10), 'VALOR DA MULTA', ...CEIS_HEADER.slice(10)] as const

export const CEPIM_HEADER = ['CNPJ ENTIDADE', 'NOME ENTIDADE', 'NÚMERO CONVÊNIO', 'ÓRGÃO CONCEDENTE', 'MOTIVO DO IMPEDIMENTO'] as const

export const ACORDOS_HEADER = [
  'ID DO ACORDO', 'CNPJ DO SANCIONADO', 'RAZÃO SOCIAL – CADASTRO RECEITA', 'NOME FANTASIA – CADASTRO RECEITA', 'DATA DE INÍCIO DO ACORDO',
  'DATA DE FIM DO ACORDO', 'SITUAÇÃO DO ACORDO DE LENIÊNICA', 'DATA DA INFORMAÇÃO', 'NÚMERO DO PROCESSO', 'TERMOS DO ACORDO', 'ÓRGÃO SANCIONADOR',
] as const

export const EFEITOS_HEADER = ['ID DO ACORDO', 'EFEITO DO ACORDO DE LENIENCIA', 'COMPLEMENTO'] as const

export const MTE_HEADER = [
  'ID', 'Ano da ação fiscal', 'UF', 'Empregador', 'CNPJ/CPF', 'Estabelecimento', 'Trabalhadores envolvidos', 'CNAE',
  'Decisão administrativa de procedência', 'Inclusão no Cadastro de Empregadores',
] as const

/** The MTE list: unquoted `;`, CRLF between lines and none after the last (as published). */
export const mteCsv = (lines: string[][]) => [[...MTE_HEADER], ...lines].map((r) => r.join(';')).join('\r\n')

/** dd/mm/yyyy of an ISO date. */
export const br = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`

/** CNPJ as the MTE writes it: 00.000.000/0000-00. */
export const punctuated = (c: string) => `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`
