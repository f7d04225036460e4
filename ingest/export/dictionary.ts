// The data dictionary written beside each dataset's Parquet files: for every column of every
// table, its type as written, what it means, and where it comes from in the official source.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ColumnDoc {
  coluna: string
  /** The Parquet column's type, as DuckDB names it (VARCHAR, BIGINT, DATE, JSON...). */
  tipo: string
  significado: string
  /** The source's file and column (or "derivada: ..." when computed by the ingest). */
  origem: string
}

export interface TableDoc {
  tabela: string
  descricao: string
  /** Files of the table, relative to the dataset's folder (a glob when it is split or partitioned). */
  arquivos: string
  /** Columns that are hive partitions (uf=SP/...): in the path, not in the files. */
  particoes?: string[]
  linhas: number
  colunas: ColumnDoc[]
}

/** Meaning and origin of one column, as a dataset's export spec writes it. */
export type ColumnNote = readonly [significado: string, origem: string]

export const UNDOCUMENTED = '(sem descrição no dicionário desta versão)'

export function writeDictionary(dir: string, base: string, referencia: string, tables: TableDoc[]): void {
  writeFileSync(join(dir, 'dicionario.json'), JSON.stringify({ base, referencia, tabelas: tables }, null, 2) + '\n')
  const md = [`# ${base}: dicionário de dados`, '', `Referência dos dados: ${referencia}. Arquivos Parquet (zstd); \`manifest.json\` diz de que arquivos oficiais a base foi construída.`, '']
  for (const t of tables) {
    md.push(`## ${t.tabela}`, '', `${t.descricao} Arquivos: \`${t.arquivos}\`${t.particoes?.length ? ` (partições hive: ${t.particoes.join(', ')})` : ''}; ${t.linhas.toLocaleString('pt-BR')} linhas.`, '')
    md.push('| coluna | tipo | significado | origem |', '|---|---|---|---|')
    for (const c of t.colunas) md.push(`| \`${c.coluna}\` | ${c.tipo} | ${c.significado.replace(/\|/g, '\\|')} | ${c.origem.replace(/\|/g, '\\|')} |`)
    md.push('')
  }
  writeFileSync(join(dir, 'dicionario.md'), md.join('\n'))
}
