// SQL only: DuckDB for the registry card, SQLite FTS5 for text search. Dates leave as
// 'YYYY-MM-DD' text and money as DOUBLE, so rows map to JSON without conversions.
//
// Establishments are read by their 8-character root, the one indexed column: DuckDB 1.5 uses the
// ART index only for a lone equality (measured at 1.1 M rows: root alone 0.5 ms p50; root AND cnpj
// 13 ms, a full scan), so the row of one CNPJ is picked from its root's rows by the caller.

const day = (c: string) => `strftime(${c}, '%Y-%m-%d')`

export const SQL = {
  lookups: (table: string) => `SELECT codigo, descricao FROM ${table}`,
  meta: `SELECT referencia FROM meta LIMIT 1`,

  situacao: `SELECT cnpj, situacao, ${day('data_situacao')} AS data_situacao, matriz_filial, uf FROM estabelecimentos WHERE cnpj_basico = $1`,

  estabelecimento: `
    SELECT cnpj, cnpj_basico, matriz_filial, nome_fantasia, situacao, ${day('data_situacao')} AS data_situacao, motivo,
           ${day('data_inicio')} AS data_inicio, cnae_principal, cnaes_secundarios, tipo_logradouro, logradouro, numero,
           complemento, bairro, municipio, uf, cep, cidade_exterior, pais, ddd1, telefone1, ddd2, telefone2, email
    FROM estabelecimentos WHERE cnpj_basico = $1`,

  empresa: `SELECT razao_social, natureza_juridica, porte, CAST(capital_social AS DOUBLE) AS capital_social FROM empresas WHERE cnpj_basico = $1 LIMIT 1`,

  simples: `SELECT opcao_simples, opcao_mei FROM simples WHERE cnpj_basico = $1 LIMIT 1`,

  socios: `
    SELECT identificador, nome, cpf_cnpj, qualificacao, ${day('data_entrada')} AS data_entrada, representante_nome, faixa_etaria
    FROM socios WHERE cnpj_basico = $1 ORDER BY data_entrada NULLS LAST, nome`,


}

/**
 * Company search over the SQLite index, one rowid range (situação/UF partition) at a time, in rank
 * order. With words (names and filter tokens) it reads the FTS doclist; with none (UF and dates
 * only) it walks the partition's rows.
 */
export function companySearchSql(withMatch: boolean, extra: string[]) {
  const filters = extra.map((w) => ` AND ${w}`).join('')
  if (!withMatch) {
    const from = `FROM empresa_doc d WHERE d.id BETWEEN $lo AND $hi${filters}`
    return {
      page: `SELECT d.id, d.cnpj, d.razao_social, d.nome_fantasia, d.municipio, d.cnae ${from} ORDER BY d.id LIMIT $limit`,
      count: `SELECT count(*) AS n FROM (SELECT 1 ${from} LIMIT 10001)`,
    }
  }
  // Order by the FTS rowid (its natural order; ordering by the joined id makes SQLite sort every
  // match), and count without the join unless a column filter needs it (8 ms -> 0.8 ms at 1 M rows).
  const match = `FROM empresa_fts f JOIN empresa_doc d ON d.id = f.rowid WHERE empresa_fts MATCH $match AND f.rowid BETWEEN $lo AND $hi${filters}`
  return {
    page: `SELECT d.id, d.cnpj, d.razao_social, d.nome_fantasia, d.municipio, d.cnae ${match} ORDER BY f.rowid LIMIT $limit`,
    count: extra.length
      ? `SELECT count(*) AS n FROM (SELECT 1 ${match} LIMIT 10001)`
      : `SELECT count(*) AS n FROM (SELECT 1 FROM empresa_fts WHERE empresa_fts MATCH $match AND rowid BETWEEN $lo AND $hi LIMIT 10001)`,
  }
}

export const SOCIO_SEARCH = {
  page: `SELECT d.cnpj_basico, d.nome, d.qualificacao, d.data_entrada FROM socio_fts f JOIN socio_doc d ON d.id = f.rowid
         WHERE socio_fts MATCH $match ORDER BY f.rowid LIMIT $limit OFFSET $offset`,
  count: `SELECT count(*) AS n FROM (SELECT 1 FROM socio_fts WHERE socio_fts MATCH $match LIMIT 10001)`,
}
