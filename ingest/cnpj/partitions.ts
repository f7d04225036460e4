// The per-root Parquet partitions the load writes (one folder per table and partition), read back
// by the card store (load.ts) and by the name indexes (search-index.ts).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { PARTITIONED_TABLES } from '../../src/datasets/cnpj/layout'
import { sqlString } from '../lib/sql'
import { ESTABLISHMENT_CARD_SQL } from './card-store'

export type PartitionedTable = (typeof PARTITIONED_TABLES)[number]

/**
 * What each partition carries, as a select list over its registry table: only the columns the
 * cards and the name indexes read, and for an establishment its part of the card already joined
 * (`ficha`). Writing Parquet costs per column and per value, and the card query then reads one
 * column where it read 23.
 */
const PARTITION_COLUMNS: Record<PartitionedTable, string> = {
  estabelecimentos: `cnpj, cnpj_basico, ${ESTABLISHMENT_CARD_SQL} AS ficha, situacao, uf, matriz_filial, nome_fantasia, cnae_principal, cnaes_secundarios, municipio, data_inicio`,
  empresas: 'cnpj_basico, razao_social, natureza_juridica, porte, capital_social, qualificacao_responsavel, ente_federativo',
  socios: 'cnpj_basico, identificador, nome, cpf_cnpj, qualificacao, data_entrada, representante_nome, faixa_etaria',
  simples: 'cnpj_basico, opcao_simples, opcao_mei, data_opcao, data_exclusao, data_opcao_mei, data_exclusao_mei',
}

/** The rows of a partition, from its registry table (`SELECT <this> FROM <table>`). */
export const partitionSelect = (table: PartitionedTable) => PARTITION_COLUMNS[table]

/** One partition's Parquet files of a table as a DuckDB relation; null when the partition got no rows. */
export function partitionRelation(partsDir: string, table: PartitionedTable, partition: number): string | null {
  const dir = join(partsDir, table, `part=${partition}`)
  return existsSync(dir) ? `read_parquet(${sqlString(join(dir, '*.parquet'))}, hive_partitioning = false)` : null
}
