// `dadosbr exportar cnpj` writes the history as Parquet, and the recipe of docs/pesquisa.md ("O
// histórico") rebuilds an older month from the latest export and the changes: its blocks run
// verbatim in DuckDB here, on the bundled sample's two months and on two synthetic months, and the
// month they rebuild equals that month's own build, column by column and partner by partner.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { synthCnpj, synthMonth } from '../../ingest/cnpj/synth'
import { exportDatasets } from '../../ingest/export/export'
import { tempDir } from '../temp'
import { buildHistoryData, EARLIER_FIXTURES } from './helpers'

setDefaultTimeout(180_000)

const GUIDE = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'pesquisa.md'), 'utf8')
const SECTION = GUIDE.slice(GUIDE.indexOf('### O histórico'), GUIDE.indexOf('O dicionário também é uma tabela'))
const statements = [...SECTION.matchAll(/```sql\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split(/;\s*\n/).map((s) => s.trim()).filter(Boolean))
const quiet = { quiet: true, log: () => {} }

/** The card's columns of a month's own build, one row per establishment and column, as text (what the recipe rebuilds). */
const OWN_CARDS = `
  WITH f AS (SELECT e.cnpj, e.cnpj_basico, e.matriz_filial::VARCHAR AS matriz_filial, e.nome_fantasia, e.situacao, e.data_situacao::VARCHAR AS data_situacao,
      e.motivo, e.data_inicio::VARCHAR AS data_inicio, e.cnae_principal, e.cnaes_secundarios, e.tipo_logradouro, e.logradouro, e.numero, e.complemento,
      e.bairro, e.municipio, e.cidade_exterior, e.uf, e.cep, e.ddd1, e.telefone1, e.ddd2, e.telefone2, e.email, e.pais, e.ddd_fax, e.fax, e.situacao_especial,
      e.data_situacao_especial::VARCHAR AS data_situacao_especial, m.razao_social, m.natureza_juridica,
      m.porte, m.capital_social::VARCHAR AS capital_social, m.qualificacao_responsavel, m.ente_federativo,
      coalesce(s.opcao_simples, false)::VARCHAR AS opcao_simples, coalesce(s.opcao_mei, false)::VARCHAR AS opcao_mei,
      s.data_opcao::VARCHAR AS data_opcao_simples, s.data_exclusao::VARCHAR AS data_exclusao_simples, s.data_opcao_mei::VARCHAR AS data_opcao_mei,
      s.data_exclusao_mei::VARCHAR AS data_exclusao_mei
    FROM proprio.estabelecimentos e LEFT JOIN proprio.empresas m USING (cnpj_basico) LEFT JOIN proprio.simples s USING (cnpj_basico))
  SELECT f.cnpj, f.cnpj_basico, k.key AS coluna, k.value ->> '$' AS valor FROM f, json_each(to_json(f)) k WHERE k.key NOT IN ('cnpj', 'cnpj_basico')`
const OWN_PARTNERS = `SELECT cnpj_basico, identificador::VARCHAR, nome, cpf_cnpj, qualificacao, data_entrada::VARCHAR, representante_nome, faixa_etaria::VARCHAR
  FROM proprio.socios WHERE cnpj_basico IN (SELECT cnpj_basico FROM proprio.estabelecimentos)`

/** Runs the recipe over `work/dadosbr-parquet` and compares the month it rebuilds with `own` (that month's cnpj.duckdb). */
async function rebuildAndCompare(work: string, own: string) {
  const conn: DuckDBConnection = await (await DuckDBInstance.create(':memory:')).connect()
  await conn.run(`SET file_search_path = '${work}'`)
  const results: Record<string, unknown>[][] = []
  for (const s of statements) results.push((await conn.runAndReadAll(s)).getRowObjectsJson() as Record<string, unknown>[])
  await conn.run(`ATTACH '${own}' AS proprio (READ_ONLY)`)
  const differ = async (a: string, b: string) =>
    (await conn.runAndReadAll(`(SELECT * FROM (${a}) EXCEPT ALL SELECT * FROM (${b})) UNION ALL (SELECT * FROM (${b}) EXCEPT ALL SELECT * FROM (${a}))`)).getRowObjectsJson()
  const cards = await differ('SELECT * FROM fichas_do_mes', OWN_CARDS)
  const partners = await differ('SELECT * FROM socios_do_mes WHERE cnpj_basico IN (SELECT cnpj_basico FROM proprio.estabelecimentos)', OWN_PARTNERS)
  const counts = (await conn.runAndReadAll(`SELECT (SELECT count(*) FROM fichas_do_mes) AS linhas, (SELECT count(*) FROM (${OWN_CARDS})) AS esperadas, (SELECT count(*) FROM (${OWN_PARTNERS})) AS socios`)).getRowObjectsJson()[0]!
  conn.closeSync()
  return { cards, partners, counts, results }
}

describe('the history as Parquet, and the recipe that rebuilds an older month', () => {
  test('the recipe is in the guide, ending with one row per establishment', () => {
    expect(statements.length).toBeGreaterThanOrEqual(8)
    expect(statements.at(-2)).toContain('PIVOT fichas_do_mes ON coluna')
  })

  test("the bundled sample: July rebuilt from August's export and the changes is July's own build", async () => {
    const data = await buildHistoryData()
    const july = tempDir('dadosbr-julho-')
    await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir: july, ...quiet })
    const work = tempDir('dadosbr-receita-')
    const [exported] = await exportDatasets({ dataDir: data, out: join(work, 'dadosbr-parquet'), bases: ['cnpj'], quiet: true, log: () => {} })
    expect(exported!.sem_descricao).toEqual([])
    const dictionary = JSON.parse(readFileSync(join(work, 'dadosbr-parquet', 'cnpj', 'dicionario.json'), 'utf8'))
    expect(dictionary.tabelas.filter((t: { tabela: string }) => t.tabela.startsWith('historico')).map((t: { tabela: string; linhas: number }) => [t.tabela, t.linhas])).toEqual([['historico', 20], ['historico_meses', 2]])
    const { cards, partners, counts, results } = await rebuildAndCompare(work, join(july, 'cnpj', 'current', 'cnpj.duckdb'))
    expect(cards).toEqual([])
    expect(partners).toEqual([])
    expect(counts).toEqual({ linhas: '429', esperadas: '429', socios: '12' })
    // The last query of the guide: August's openings by UF.
    expect(results.at(-1)).toEqual([{ uf: 'SP', aberturas: '1' }])
  })

  test('two synthetic months: month 0 rebuilt from month 1 is month 0, column by column', async () => {
    const [m0, m1] = [tempDir('dadosbr-rs0-'), tempDir('dadosbr-rs1-')]
    await synthCnpj({ outDir: m0, companies: 10_000, seed: 13, quiet: true })
    await synthCnpj({ outDir: m1, companies: 10_000, seed: 13, month: 1, quiet: true })
    const data = tempDir('dadosbr-rs-')
    await buildCnpj({ sourceDir: m0, month: synthMonth(0), dataDir: data, ...quiet })
    const m = await buildCnpj({ sourceDir: m1, month: synthMonth(1), dataDir: data, ...quiet })
    expect(m.historico.itens).toBeGreaterThan(300)
    const own = tempDir('dadosbr-rs-own-')
    await buildCnpj({ sourceDir: m0, month: synthMonth(0), dataDir: own, ...quiet })
    const work = tempDir('dadosbr-rs-receita-')
    await exportDatasets({ dataDir: data, out: join(work, 'dadosbr-parquet'), bases: ['cnpj'], quiet: true, log: () => {} })
    const { cards, partners, counts } = await rebuildAndCompare(work, join(own, 'cnpj', 'current', 'cnpj.duckdb'))
    expect(cards.slice(0, 5)).toEqual([])
    expect(partners.slice(0, 5)).toEqual([])
    expect(Number(counts.linhas)).toBe(Number(counts.esperadas))
    expect(Number(counts.linhas)).toBeGreaterThan(10_000 * 28)
  })
})
