// The registry (cnpj.duckdb) as Parquet, with DuckDB's own COPY: estabelecimentos partitioned by
// UF (hive layout, uf=SP/), every big table split into files of at most FILE_SIZE (DuckDB cannot
// combine PARTITION_BY with FILE_SIZE_BYTES, so each UF is one COPY into its own folder), the code
// tables one file each. Columns keep the DuckDB file's types (DATE, DECIMAL, BOOLEAN...).
import type { DuckDBConnection } from '@duckdb/node-api'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { sqlString } from '../lib/sql'
import type { ColumnNote, TableDoc } from './dictionary'
import { UNDOCUMENTED } from './dictionary'

/** Largest Parquet file written (DuckDB starts a new file past it): a task of Spark or Trino each, none huge. */
export const FILE_SIZE = '256MB'

const E = 'Empresas*.zip'
const ES = 'Estabelecimentos*.zip'
const S = 'Socios*.zip'
const SI = 'Simples.zip'

/** What each column means and which column of the Receita's layout (its metadata PDF) it comes from. */
export const CNPJ_DICTIONARY: Record<string, { descricao: string; colunas: Record<string, ColumnNote> }> = {
  empresas: {
    descricao: 'Uma linha por empresa (raiz de 8 dígitos do CNPJ).',
    colunas: {
      cnpj_basico: ['raiz do CNPJ (8 primeiros caracteres), comum à matriz e às filiais', `${E}: CNPJ BÁSICO`],
      razao_social: ['razão social; um CPF no fim do nome de empresário individual vem mascarado (***456789**)', `${E}: RAZÃO SOCIAL / NOME EMPRESARIAL`],
      natureza_juridica: ['código da natureza jurídica (tabela naturezas)', `${E}: NATUREZA JURÍDICA`],
      qualificacao_responsavel: ['código da qualificação do responsável (tabela qualificacoes)', `${E}: QUALIFICAÇÃO DO RESPONSÁVEL`],
      capital_social: ['capital social em reais', `${E}: CAPITAL SOCIAL DA EMPRESA (vírgula decimal)`],
      porte: ['porte: 00 não informado, 01 micro empresa, 03 empresa de pequeno porte, 05 demais', `${E}: PORTE DA EMPRESA`],
      ente_federativo: ['ente federativo responsável (só naturezas jurídicas 1XXX, administração pública)', `${E}: ENTE FEDERATIVO RESPONSÁVEL`],
    },
  },
  estabelecimentos: {
    descricao: 'Uma linha por estabelecimento (CNPJ de 14 caracteres), matriz ou filial. Particionada por UF.',
    colunas: {
      cnpj: ['CNPJ completo, 14 caracteres sem pontuação (letras A-Z possíveis nos alfanuméricos)', `${ES}: CNPJ BÁSICO + CNPJ ORDEM + CNPJ DV`],
      cnpj_basico: ['raiz do CNPJ (junta com empresas, socios e simples)', `${ES}: CNPJ BÁSICO`],
      matriz_filial: ['1 matriz, 2 filial', `${ES}: IDENTIFICADOR MATRIZ/FILIAL`],
      nome_fantasia: ['nome fantasia', `${ES}: NOME FANTASIA`],
      situacao: ['situação cadastral: 01 nula, 02 ativa, 03 suspensa, 04 inapta, 08 baixada', `${ES}: SITUAÇÃO CADASTRAL`],
      data_situacao: ['data da situação cadastral', `${ES}: DATA SITUAÇÃO CADASTRAL (AAAAMMDD)`],
      motivo: ['código do motivo da situação cadastral (tabela motivos)', `${ES}: MOTIVO SITUAÇÃO CADASTRAL`],
      cidade_exterior: ['cidade no exterior (estabelecimentos fora do Brasil)', `${ES}: NOME DA CIDADE NO EXTERIOR`],
      pais: ['código do país (tabela paises), para endereço no exterior', `${ES}: PAIS`],
      data_inicio: ['data de início da atividade', `${ES}: DATA DE INÍCIO ATIVIDADE (AAAAMMDD)`],
      cnae_principal: ['CNAE fiscal principal, 7 dígitos (tabela cnaes)', `${ES}: CNAE FISCAL PRINCIPAL`],
      cnaes_secundarios: ['CNAEs secundários separados por vírgula', `${ES}: CNAE FISCAL SECUNDÁRIA`],
      tipo_logradouro: ['tipo de logradouro (RUA, AVENIDA...)', `${ES}: TIPO DE LOGRADOURO`],
      logradouro: ['logradouro', `${ES}: LOGRADOURO`],
      numero: ['número', `${ES}: NÚMERO`],
      complemento: ['complemento', `${ES}: COMPLEMENTO`],
      bairro: ['bairro', `${ES}: BAIRRO`],
      cep: ['CEP, 8 dígitos', `${ES}: CEP`],
      uf: ['sigla da UF (EX para o exterior); partição hive: vem do caminho uf=XX/', `${ES}: UF`],
      municipio: ['código do município da Receita, TOM (tabela municipios; não é o código do IBGE)', `${ES}: MUNICÍPIO`],
      ddd1: ['DDD do telefone 1', `${ES}: DDD 1`],
      telefone1: ['telefone 1', `${ES}: TELEFONE 1`],
      ddd2: ['DDD do telefone 2', `${ES}: DDD 2`],
      telefone2: ['telefone 2', `${ES}: TELEFONE 2`],
      ddd_fax: ['DDD do fax', `${ES}: DDD DO FAX`],
      fax: ['fax', `${ES}: FAX`],
      email: ['correio eletrônico', `${ES}: CORREIO ELETRÔNICO`],
      situacao_especial: ['situação especial (ex. RECUPERACAO JUDICIAL)', `${ES}: SITUAÇÃO ESPECIAL`],
      data_situacao_especial: ['data da situação especial', `${ES}: DATA DA SITUAÇÃO ESPECIAL (AAAAMMDD)`],
    },
  },
  socios: {
    descricao: 'Uma linha por sócio de uma empresa. CPFs vêm mascarados como a Receita publica (***456789**).',
    colunas: {
      cnpj_basico: ['raiz do CNPJ da empresa', `${S}: CNPJ BÁSICO`],
      identificador: ['1 pessoa jurídica, 2 pessoa física, 3 estrangeiro', `${S}: IDENTIFICADOR DE SÓCIO`],
      nome: ['nome do sócio (pessoa física) ou razão social (pessoa jurídica)', `${S}: NOME DO SÓCIO (NO CASO PF) OU RAZÃO SOCIAL (NO CASO PJ)`],
      cpf_cnpj: ['CNPJ do sócio pessoa jurídica, ou CPF mascarado (***456789**)', `${S}: CNPJ/CPF DO SÓCIO`],
      qualificacao: ['código da qualificação do sócio (tabela qualificacoes)', `${S}: QUALIFICAÇÃO DO SÓCIO`],
      data_entrada: ['data de entrada na sociedade', `${S}: DATA DE ENTRADA SOCIEDADE (AAAAMMDD)`],
      pais: ['código do país do sócio estrangeiro (tabela paises)', `${S}: PAIS`],
      representante_cpf: ['CPF mascarado do representante legal', `${S}: REPRESENTANTE LEGAL`],
      representante_nome: ['nome do representante legal', `${S}: NOME DO REPRESENTANTE`],
      representante_qualificacao: ['código da qualificação do representante (tabela qualificacoes)', `${S}: QUALIFICAÇÃO DO REPRESENTANTE LEGAL`],
      faixa_etaria: ['faixa etária: 0 não se aplica, 1 até 12 anos, 2 13-20, 3 21-30, ... 8 71-80, 9 mais de 80', `${S}: FAIXA ETÁRIA`],
    },
  },
  simples: {
    descricao: 'Opção pelo Simples Nacional e pelo MEI, por empresa.',
    colunas: {
      cnpj_basico: ['raiz do CNPJ', `${SI}: CNPJ BÁSICO`],
      opcao_simples: ['optante pelo Simples Nacional (S/N; nulo quando em branco)', `${SI}: OPÇÃO PELO SIMPLES`],
      data_opcao: ['data de opção pelo Simples', `${SI}: DATA DE OPÇÃO PELO SIMPLES`],
      data_exclusao: ['data de exclusão do Simples', `${SI}: DATA DE EXCLUSÃO DO SIMPLES`],
      opcao_mei: ['optante pelo MEI', `${SI}: OPÇÃO PELO MEI`],
      data_opcao_mei: ['data de opção pelo MEI', `${SI}: DATA DE OPÇÃO PELO MEI`],
      data_exclusao_mei: ['data de exclusão do MEI', `${SI}: DATA DE EXCLUSÃO DO MEI`],
    },
  },
}
const LOOKUPS: Record<string, string> = { cnaes: 'Cnaes.zip', motivos: 'Motivos.zip', municipios: 'Municipios.zip', naturezas: 'Naturezas.zip', paises: 'Paises.zip', qualificacoes: 'Qualificacoes.zip' }
for (const [table, zip] of Object.entries(LOOKUPS))
  CNPJ_DICTIONARY[table] = {
    descricao: `Tabela de códigos (${zip}).`,
    colunas: { codigo: ['código', `${zip}: CÓDIGO`], descricao: ['descrição', `${zip}: DESCRIÇÃO`] },
  }
CNPJ_DICTIONARY.municipios!.colunas.codigo_ibge = [
  'código IBGE do município (7 dígitos); nulo para EXTERIOR e para um código TOM que a tabela da Receita não tem',
  'municipios.csv da Receita (TOM ↔ IBGE): CÓDIGO DO MUNICÍPIO - IBGE, pelo CÓDIGO DO MUNICÍPIO - TOM',
]

/** Big tables: split in files of FILE_SIZE; estabelecimentos also by UF. */
const SPLIT = ['empresas', 'socios', 'simples']

async function columnsOf(conn: DuckDBConnection, table: string): Promise<{ name: string; type: string }[]> {
  const r = await conn.runAndReadAll(`SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = 'registro' AND table_name = ${sqlString(table)} ORDER BY ordinal_position`)
  return r.getRows().map(([name, type]) => ({ name: String(name), type: String(type) }))
}

async function count(conn: DuckDBConnection, sql: string): Promise<number> {
  return Number((await conn.runAndReadAll(sql)).getRows()[0]![0])
}

/**
 * Writes every table of the registry attached as `registro` into `out`; `onTable` reports each
 * table done (rows) for the progress bar. Returns the dictionary's tables.
 */
export async function exportRegistry(conn: DuckDBConnection, out: string, onRows: (rows: number) => void): Promise<TableDoc[]> {
  const tables = (await conn.runAndReadAll(`SELECT table_name FROM information_schema.tables WHERE table_catalog = 'registro' AND table_name <> 'meta' ORDER BY table_name`)).getRows().map((r) => String(r[0]))
  const docs: TableDoc[] = []
  const opts = `FORMAT parquet, COMPRESSION zstd`
  for (const table of tables) {
    const columns = await columnsOf(conn, table)
    const rows = await count(conn, `SELECT count(*) FROM registro.${table}`)
    const known = CNPJ_DICTIONARY[table]
    const doc = (c: { name: string; type: string }) => ({ coluna: c.name, tipo: c.type, significado: known?.colunas[c.name]?.[0] ?? UNDOCUMENTED, origem: known?.colunas[c.name]?.[1] ?? UNDOCUMENTED })
    if (table === 'estabelecimentos') {
      const dir = join(out, table)
      const others = columns.filter((c) => c.name !== 'uf').map((c) => c.name)
      const ufs = (await conn.runAndReadAll(`SELECT coalesce(uf, ''), count(*) FROM registro.estabelecimentos GROUP BY 1 ORDER BY 1`)).getRows()
      for (const [uf, n] of ufs) {
        // An empty UF (never seen in a real dump) would make a folder uf=; it goes under uf=__NULO__.
        const folder = join(dir, `uf=${String(uf) || '__NULO__'}`)
        mkdirSync(folder, { recursive: true })
        const where = String(uf) ? `uf = ${sqlString(String(uf))}` : `(uf IS NULL OR uf = '')`
        await conn.run(`COPY (SELECT ${others.join(', ')} FROM registro.estabelecimentos WHERE ${where}) TO ${sqlString(folder)} (${opts}, FILE_SIZE_BYTES '${FILE_SIZE}', FILENAME_PATTERN 'parte_{i}', OVERWRITE_OR_IGNORE true)`)
        onRows(Number(n))
      }
      docs.push({ tabela: table, descricao: known!.descricao, arquivos: `${table}/uf=*/*.parquet`, particoes: ['uf'], linhas: rows, colunas: columns.map(doc) })
    } else if (SPLIT.includes(table)) {
      const dir = join(out, table)
      mkdirSync(dir, { recursive: true })
      await conn.run(`COPY registro.${table} TO ${sqlString(dir)} (${opts}, FILE_SIZE_BYTES '${FILE_SIZE}', FILENAME_PATTERN 'parte_{i}', OVERWRITE_OR_IGNORE true)`)
      onRows(rows)
      docs.push({ tabela: table, descricao: known?.descricao ?? UNDOCUMENTED, arquivos: `${table}/*.parquet`, linhas: rows, colunas: columns.map(doc) })
    } else {
      await conn.run(`COPY registro.${table} TO ${sqlString(join(out, `${table}.parquet`))} (${opts})`)
      onRows(rows)
      docs.push({ tabela: table, descricao: known?.descricao ?? UNDOCUMENTED, arquivos: `${table}.parquet`, linhas: rows, colunas: columns.map(doc) })
    }
  }
  return docs
}
