// The Receita Federal CNPJ dump, file by file: which zips exist, their columns in order
// (NOTES §3), and the SQL that turns each raw text field into a typed value. DuckDB's CSV
// reader does the splitting (latin-1, ';', every field quoted); this module owns the meaning.

import { sqlString } from '../lib/sql'

export type Kind =
  | 'empresas' | 'estabelecimentos' | 'socios' | 'simples'
  | 'cnaes' | 'motivos' | 'municipios' | 'naturezas' | 'paises' | 'qualificacoes'

export interface FileKind {
  kind: Kind
  /** Zip names of the month: Empresas0..9 or a single name. */
  zips: string[]
  columns: string[]
}

const numbered = (base: string) => Array.from({ length: 10 }, (_, i) => `${base}${i}`)
const LOOKUP = ['codigo', 'descricao']

export const FILE_KINDS: FileKind[] = [
  { kind: 'empresas', zips: numbered('Empresas'), columns: ['cnpj_basico', 'razao_social', 'natureza_juridica', 'qualificacao_responsavel', 'capital_social', 'porte', 'ente_federativo'] },
  {
    kind: 'estabelecimentos',
    zips: numbered('Estabelecimentos'),
    columns: [
      'cnpj_basico', 'cnpj_ordem', 'cnpj_dv', 'matriz_filial', 'nome_fantasia', 'situacao_cadastral', 'data_situacao', 'motivo',
      'cidade_exterior', 'pais', 'data_inicio_atividade', 'cnae_principal', 'cnaes_secundarios', 'tipo_logradouro', 'logradouro',
      'numero', 'complemento', 'bairro', 'cep', 'uf', 'municipio', 'ddd1', 'telefone1', 'ddd2', 'telefone2', 'ddd_fax', 'fax',
      'email', 'situacao_especial', 'data_situacao_especial',
    ],
  },
  { kind: 'socios', zips: numbered('Socios'), columns: ['cnpj_basico', 'identificador', 'nome', 'cpf_cnpj', 'qualificacao', 'data_entrada', 'pais', 'representante_cpf', 'representante_nome', 'representante_qualificacao', 'faixa_etaria'] },
  { kind: 'simples', zips: ['Simples'], columns: ['cnpj_basico', 'opcao_simples', 'data_opcao', 'data_exclusao', 'opcao_mei', 'data_opcao_mei', 'data_exclusao_mei'] },
  { kind: 'cnaes', zips: ['Cnaes'], columns: LOOKUP },
  { kind: 'motivos', zips: ['Motivos'], columns: LOOKUP },
  { kind: 'municipios', zips: ['Municipios'], columns: LOOKUP },
  { kind: 'naturezas', zips: ['Naturezas'], columns: LOOKUP },
  { kind: 'paises', zips: ['Paises'], columns: LOOKUP },
  { kind: 'qualificacoes', zips: ['Qualificacoes'], columns: LOOKUP },
]

/** All 37 zip names of a month. */
export const ALL_ZIPS = FILE_KINDS.flatMap((k) => k.zips)

export function kindOfZip(zipName: string): FileKind | undefined {
  const base = zipName.replace(/\.zip$/i, '')
  return FILE_KINDS.find((k) => k.zips.includes(base))
}

// ---- value rules, as SQL over the raw VARCHAR column ----

/**
 * trim(c), calling trim only on the values that need it. DuckDB's trim walks every character of
 * the value through utf8proc to find its end (perf: ~10 % of the establishments load); latin-1
 * text decodes to two space characters only (U+0020, U+00A0), so testing the first and last bytes
 * for them gives the same result (measured on 280 k establishments, 7 text columns: 102 → 33 ms
 * over the bare column, no value different).
 */
export const trimmed = (c: string) =>
  `CASE WHEN prefix(${c}, ' ') OR suffix(${c}, ' ') OR prefix(${c}, chr(160)) OR suffix(${c}, chr(160)) THEN trim(${c}) ELSE ${c} END`

/** Blank or whitespace-only text is null. */
export const text = (c: string) => `NULLIF(${trimmed(c)}, '')`
/** Lookup descriptions also collapse inner runs of spaces ("SEM  MOTIVO" -> "SEM MOTIVO"). */
export const label = (c: string) => `NULLIF(regexp_replace(trim(${c}), '\\s+', ' ', 'g'), '')`

/**
 * YYYYMMDD; '0', '00000000', blank, impossible dates and years outside 1800-2100 (e.g. 202, 4100)
 * are null. Eight characters between the bounds, compared as text, then parsed: the regex this
 * replaced cost 10 % of the whole establishments load (measured on 880 k real-format rows).
 */
export const date = (c: string) =>
  `CASE WHEN length(${c}) = 8 AND ${c} BETWEEN '18000101' AND '21001231' THEN try_strptime(${c}, '%Y%m%d')::DATE END`

/** Decimal comma ("1061004829,23"), exact to the cent: never a float on the way in. */
export const decimal = (c: string) => `TRY_CAST(replace(${trimmed(c)}, ',', '.') AS DECIMAL(18,2))`

/** A numeric code left-padded to its width ("2" -> "02"); blank is null (lpad keeps a null). */
export const code = (c: string, width: number) => `lpad(${text(c)}, ${width}, '0')`

/**
 * A comma-separated code list keeps digits and commas only. The replacing regex runs only on a
 * list holding something else: run on every row it was a fifth of the establishments load. The
 * test is a full match, 2.4x cheaper than translate() (47 → 19 ms on 280 k establishments).
 */
export const codeList = (c: string) =>
  `CASE WHEN regexp_full_match(${c}, '[0-9,]*') THEN NULLIF(${c}, '') ELSE NULLIF(regexp_replace(${c}, '[^0-9,]', '', 'g'), '') END`

/**
 * A legal name. An individual entrepreneur's legal name can end in the owner's CPF
 * ("MARIA DA SILVA 12345678909"): it is masked as the Receita masks partner CPFs, three
 * asterisks, the 4th to 9th digits, two asterisks ("MARIA DA SILVA ***456789**"), in every file
 * the build writes, so no answer, index or DuckDB query gives it in full (LGPD). Eleven digits
 * ending the name, with or without the CPF's dots and dash; the check digits are not required.
 */
export const legalName = (c: string) =>
  `regexp_replace(${text(c)}, '(^| )[0-9]{3}\\.?([0-9]{3})\\.?([0-9]{3})-?[0-9]{2}$', '\\1***\\2\\3**')`

/** CNPJ parts may hold letters (alphanumeric CNPJ, July 2026 on): upper-case, keep as text. */
export const cnpjPart = (c: string) => `upper(${trimmed(c)})`

/** The typed SELECT list that loads one file kind into its table. */
export function selectFor(kind: Kind): string {
  switch (kind) {
    case 'empresas':
      return [
        `${cnpjPart('cnpj_basico')} AS cnpj_basico`, `${legalName('razao_social')} AS razao_social`, `${code('natureza_juridica', 4)} AS natureza_juridica`,
        `${code('qualificacao_responsavel', 2)} AS qualificacao_responsavel`, `${decimal('capital_social')} AS capital_social`,
        `${code('porte', 2)} AS porte`, `${text('ente_federativo')} AS ente_federativo`,
      ].join(', ')
    case 'estabelecimentos':
      return [
        `${cnpjPart('cnpj_basico')} || ${cnpjPart('cnpj_ordem')} || ${trimmed('cnpj_dv')} AS cnpj`, `${cnpjPart('cnpj_basico')} AS cnpj_basico`,
        `TRY_CAST(matriz_filial AS UTINYINT) AS matriz_filial`, `${text('nome_fantasia')} AS nome_fantasia`,
        `${code('situacao_cadastral', 2)} AS situacao`, `${date('data_situacao')} AS data_situacao`, `${code('motivo', 2)} AS motivo`,
        `${text('cidade_exterior')} AS cidade_exterior`, `${code('pais', 3)} AS pais`, `${date('data_inicio_atividade')} AS data_inicio`,
        `${code('cnae_principal', 7)} AS cnae_principal`, `${codeList('cnaes_secundarios')} AS cnaes_secundarios`,
        `${text('tipo_logradouro')} AS tipo_logradouro`, `${text('logradouro')} AS logradouro`, `${text('numero')} AS numero`,
        `${text('complemento')} AS complemento`, `${text('bairro')} AS bairro`, `${text('cep')} AS cep`, `upper(${text('uf')}) AS uf`,
        `${code('municipio', 4)} AS municipio`, `${text('ddd1')} AS ddd1`, `${text('telefone1')} AS telefone1`, `${text('ddd2')} AS ddd2`,
        `${text('telefone2')} AS telefone2`, `${text('ddd_fax')} AS ddd_fax`, `${text('fax')} AS fax`, `${text('email')} AS email`,
        `${text('situacao_especial')} AS situacao_especial`, `${date('data_situacao_especial')} AS data_situacao_especial`,
      ].join(', ')
    case 'socios':
      return [
        `${cnpjPart('cnpj_basico')} AS cnpj_basico`, `TRY_CAST(identificador AS UTINYINT) AS identificador`, `${text('nome')} AS nome`,
        // Partner CPFs arrive pre-masked (***NNNNNN**) and are kept exactly as given.
        `${text('cpf_cnpj')} AS cpf_cnpj`, `${code('qualificacao', 2)} AS qualificacao`, `${date('data_entrada')} AS data_entrada`,
        `${code('pais', 3)} AS pais`, `${text('representante_cpf')} AS representante_cpf`, `${text('representante_nome')} AS representante_nome`,
        `${code('representante_qualificacao', 2)} AS representante_qualificacao`, `TRY_CAST(faixa_etaria AS UTINYINT) AS faixa_etaria`,
      ].join(', ')
    case 'simples':
      return [
        `${cnpjPart('cnpj_basico')} AS cnpj_basico`, `upper(${trimmed('opcao_simples')}) = 'S' AS opcao_simples`, `${date('data_opcao')} AS data_opcao`,
        `${date('data_exclusao')} AS data_exclusao`, `upper(${trimmed('opcao_mei')}) = 'S' AS opcao_mei`, `${date('data_opcao_mei')} AS data_opcao_mei`,
        `${date('data_exclusao_mei')} AS data_exclusao_mei`,
      ].join(', ')
    default:
      return `trim(codigo) AS codigo, ${label('descricao')} AS descricao`
  }
}

/**
 * Storage of the columns whose values are nearly all distinct (CNPJs, roots, CEPs, phones):
 * zstd. DuckDB's default for text (dict_fsst, ~19 % of the establishments load's CPU in perf)
 * hashes every value into a dictionary that such a column never fills. Measured on 1.1 M
 * establishments, 1 M companies and 600 k Simples rows, three runs each: load CPU −7 to −8 %,
 * tables +10 % (establishments), +21 % (companies), +2 MB (Simples); the Parquet split reads
 * them back at the same cost.
 */
const UNIQUE_TEXT = 'VARCHAR USING COMPRESSION zstd'

/** Column types of each table, for CREATE TABLE; lookups are (codigo, descricao). */
export const TABLES: Record<Kind, string> = {
  empresas: `cnpj_basico ${UNIQUE_TEXT}, razao_social VARCHAR, natureza_juridica VARCHAR, qualificacao_responsavel VARCHAR, capital_social DECIMAL(18,2), porte VARCHAR, ente_federativo VARCHAR`,
  estabelecimentos:
    `cnpj ${UNIQUE_TEXT}, cnpj_basico VARCHAR, matriz_filial UTINYINT, nome_fantasia VARCHAR, situacao VARCHAR, data_situacao DATE, motivo VARCHAR, cidade_exterior VARCHAR, pais VARCHAR, data_inicio DATE, cnae_principal VARCHAR, cnaes_secundarios VARCHAR, tipo_logradouro VARCHAR, logradouro VARCHAR, numero VARCHAR, complemento VARCHAR, bairro VARCHAR, cep ${UNIQUE_TEXT}, uf VARCHAR, municipio VARCHAR, ddd1 VARCHAR, telefone1 ${UNIQUE_TEXT}, ddd2 VARCHAR, telefone2 VARCHAR, ddd_fax VARCHAR, fax VARCHAR, email VARCHAR, situacao_especial VARCHAR, data_situacao_especial DATE`,
  socios: 'cnpj_basico VARCHAR, identificador UTINYINT, nome VARCHAR, cpf_cnpj VARCHAR, qualificacao VARCHAR, data_entrada DATE, pais VARCHAR, representante_cpf VARCHAR, representante_nome VARCHAR, representante_qualificacao VARCHAR, faixa_etaria UTINYINT',
  simples: `cnpj_basico ${UNIQUE_TEXT}, opcao_simples BOOLEAN, data_opcao DATE, data_exclusao DATE, opcao_mei BOOLEAN, data_opcao_mei DATE, data_exclusao_mei DATE`,
  cnaes: 'codigo VARCHAR, descricao VARCHAR',
  motivos: 'codigo VARCHAR, descricao VARCHAR',
  municipios: 'codigo VARCHAR, descricao VARCHAR',
  naturezas: 'codigo VARCHAR, descricao VARCHAR',
  paises: 'codigo VARCHAR, descricao VARCHAR',
  qualificacoes: 'codigo VARCHAR, descricao VARCHAR',
}

/**
 * The read_csv call for one raw file: no header, ';', every field quoted, latin-1, all columns
 * as text (typing happens in selectFor). Malformed rows go to the rejects table with their line.
 */
export function readCsvSql(path: string, kind: FileKind, rejectsTable: string): string {
  const columns = `{${kind.columns.map((c) => `'${c}': 'VARCHAR'`).join(', ')}}`
  return `read_csv(${sqlString(path)}, auto_detect=false, header=false, delim=';', quote='"', escape='"', new_line='\\n', encoding='latin-1', columns=${columns}, all_varchar=true, ignore_errors=true, store_rejects=true, rejects_table='${rejectsTable}', rejects_scan='${rejectsTable}_scan', max_line_size=1048576, parallel=false)`
}
