// `dadosbr exportar` and the researchers' recipes of docs/pesquisa.md: the bundled sample of every
// dataset exported to Parquet, read back row for row against the builds it came from; every `sql`
// block of the guide run verbatim in DuckDB over the export, and the `js` block in Polars
// (nodejs-polars, installed here from npm into node_modules/.cache: its npm package asks for Node 22,
// so it is not a dependency of the project; it runs under Bun).
import { beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import type { DuckDBConnection } from '@duckdb/node-api'
import { DuckDBInstance } from '@duckdb/node-api'
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { builtDatasets, exportDatasets, type ExportedDataset } from '../../ingest/export/export'
import { UNDOCUMENTED } from '../../ingest/export/dictionary'
import { buildSampleData, tempDir } from '../helpers'

const ROOT = join(import.meta.dir, '..', '..')
const GUIDE = readFileSync(join(ROOT, 'docs', 'pesquisa.md'), 'utf8')
const CLI = join(ROOT, 'src', 'cli.ts')
const blocks = (lang: string) => [...GUIDE.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!)

let dataDir: string
let work: string
let out: string
let results: ExportedDataset[]
let conn: DuckDBConnection

const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]

beforeAll(async () => {
  dataDir = await buildSampleData()
  work = tempDir('dadosbr-pesquisa-')
  out = join(work, 'dadosbr-parquet')
  results = await exportDatasets({ dataDir, out, bases: [], quiet: true, log: () => {} })
  conn = await (await DuckDBInstance.create(':memory:')).connect()
  // The guide's paths are relative to the folder holding dadosbr-parquet/.
  await conn.run(`SET file_search_path = '${work}'`)
}, 120_000)

describe('dadosbr exportar', () => {
  test('exports every dataset with a build, each with its manifest and a complete dictionary', () => {
    expect(results.map((r) => r.base)).toEqual(builtDatasets(dataDir))
    expect(results.map((r) => r.base)).toContain('cnpj')
    for (const r of results) {
      expect(r.sem_descricao).toEqual([])
      expect(readFileSync(join(out, r.base, 'manifest.json'), 'utf8')).toBe(readFileSync(join(dataDir, r.base, 'current', 'manifest.json'), 'utf8'))
      const dictionary = JSON.parse(readFileSync(join(out, r.base, 'dicionario.json'), 'utf8'))
      expect(dictionary.referencia).toBe(r.referencia)
      for (const t of dictionary.tabelas) for (const c of t.colunas) for (const field of ['significado', 'origem']) expect(c[field]).not.toBe(UNDOCUMENTED)
      expect(readFileSync(join(out, r.base, 'dicionario.md'), 'utf8')).toContain('| coluna | tipo | significado | origem |')
    }
  })

  test('the dictionary lists exactly the columns and types of the files', async () => {
    for (const r of results) {
      const dictionary = JSON.parse(readFileSync(join(out, r.base, 'dicionario.json'), 'utf8'))
      for (const t of dictionary.tabelas) {
        const source = `read_parquet('${join(out, r.base, t.arquivos)}'${t.particoes ? ', hive_partitioning = true' : ''})`
        const described = await rows(`DESCRIBE SELECT * FROM ${source}`)
        const types = Object.fromEntries(described.map((d) => [d.column_name, d.column_type]))
        expect(Object.keys(types).sort()).toEqual(t.colunas.map((c: { coluna: string }) => c.coluna).sort())
        for (const c of t.colunas) if (!t.particoes?.includes(c.coluna)) expect(`${r.base}.${t.tabela}.${c.coluna} ${types[c.coluna]}`).toBe(`${r.base}.${t.tabela}.${c.coluna} ${c.tipo}`)
        expect(Number((await rows(`SELECT count(*) AS n FROM ${source}`))[0]!.n)).toBe(t.linhas)
      }
    }
  })

  test('the registry: every table row for row as in cnpj.duckdb, estabelecimentos partitioned by UF, typed', async () => {
    await conn.run(`ATTACH '${join(dataDir, 'cnpj', 'current', 'cnpj.duckdb')}' AS origem (READ_ONLY)`)
    try {
      const tables = (await rows(`SELECT table_name FROM information_schema.tables WHERE table_catalog = 'origem' AND table_name <> 'meta'`)).map((t) => String(t.table_name))
      expect(tables.sort()).toEqual(['cnaes', 'empresas', 'estabelecimentos', 'motivos', 'municipios', 'naturezas', 'paises', 'qualificacoes', 'simples', 'socios'])
      const parquet = (t: string) =>
        t === 'estabelecimentos'
          ? `read_parquet('${out}/cnpj/estabelecimentos/*/*.parquet', hive_partitioning = true)`
          : ['empresas', 'socios', 'simples'].includes(t) ? `read_parquet('${out}/cnpj/${t}/*.parquet')` : `read_parquet('${out}/cnpj/${t}.parquet')`
      for (const t of tables) {
        const columns = (await rows(`SELECT column_name FROM information_schema.columns WHERE table_catalog = 'origem' AND table_name = '${t}'`)).map((c) => `"${c.column_name}"`).join(', ')
        const diff = await rows(`(SELECT ${columns} FROM origem.${t} EXCEPT ALL SELECT ${columns} FROM ${parquet(t)}) UNION ALL (SELECT ${columns} FROM ${parquet(t)} EXCEPT ALL SELECT ${columns} FROM origem.${t})`)
        expect(`${t}: ${diff.length} linhas diferentes`).toBe(`${t}: 0 linhas diferentes`)
      }
      const ufs = readdirSync(join(out, 'cnpj', 'estabelecimentos')).sort()
      expect(ufs).toEqual((await rows(`SELECT DISTINCT 'uf=' || uf AS d FROM origem.estabelecimentos ORDER BY 1`)).map((r) => String(r.d)))
      // The partition column lives in the path only (Spark refuses a column both in the files and in the path).
      const inFile = await rows(`DESCRIBE SELECT * FROM read_parquet('${out}/cnpj/estabelecimentos/uf=DF/*.parquet', hive_partitioning = false)`)
      expect(inFile.some((c) => c.column_name === 'uf')).toBe(false)
      const serpro = (await rows(`SELECT data_situacao::VARCHAR AS d, typeof(data_situacao) AS t FROM ${parquet('estabelecimentos')} WHERE cnpj = '33683111000280'`))[0]
      expect(serpro).toEqual({ d: '2004-05-22', t: 'DATE' })
      // zstd in every column chunk.
      const codecs = await rows(`SELECT DISTINCT compression FROM parquet_metadata('${out}/cnpj/**/*.parquet')`)
      expect(codecs.map((c) => c.compression)).toEqual(['ZSTD'])
    } finally {
      await conn.run('DETACH origem')
    }
  })

  test('the small datasets: row counts as in their SQLite files, JSON columns readable, binary internals left out', async () => {
    for (const base of ['bcb', 'integridade', 'licitacoes', 'fundos', 'desmatamento', 'tributos']) {
      const build = realpathSync(join(dataDir, base, 'current'))
      const file = readdirSync(build).find((f) => f.endsWith('.sqlite'))!
      const db = new Database(join(build, file), { readonly: true })
      const dictionary = JSON.parse(readFileSync(join(out, base, 'dicionario.json'), 'utf8'))
      for (const t of dictionary.tabelas) {
        const n = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${t.tabela}"`).get()!.n
        expect(`${base}.${t.tabela} ${t.linhas}`).toBe(`${base}.${t.tabela} ${n}`)
        for (const c of t.colunas.filter((c: { tipo: string }) => c.tipo === 'JSON'))
          expect(Number((await rows(`SELECT count(*) AS n FROM read_parquet('${join(out, base, t.arquivos)}') WHERE json_valid("${c.coluna}")`))[0]!.n)).toBe(n)
      }
      db.close()
    }
    expect(existsSync(join(out, 'desmatamento', 'rankings.parquet'))).toBe(false)
    const contrato = (await rows(`SELECT typeof(data_assinatura) AS t, data_assinatura::VARCHAR AS d FROM '${out}/licitacoes/contratos.parquet' WHERE numero = '99887766000105-2-000001/2022'`))[0]
    expect(contrato).toEqual({ t: 'DATE', d: '2022-12-20' })
    const exp = (await rows(`SELECT count(DISTINCT grupo) AS g, count(DISTINCT mes) AS m FROM '${out}/exportacoes/exportacoes.parquet'`))[0]
    expect(Number(exp!.m)).toBe(13)
  })

  test('errors: a base without a build, no --saida', () => {
    const run = (args: string[]) => Bun.spawnSync([process.execPath, CLI, 'exportar', ...args], { env: process.env })
    const unknown = run(['nada', '--saida', join(work, 'x'), '--data', dataDir])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr.toString()).toStartWith(`dadosbr exportar: sem base construída em ${dataDir} para nada; rode 'dadosbr ingest nada' (ou --amostra) antes (construídas: `)
    const noOut = run(['cnpj'])
    expect(noOut.exitCode).toBe(2)
    expect(noOut.stderr.toString()).toBe('dadosbr exportar: --saida DIR é obrigatório (a pasta onde escrever os Parquet)\n')
  })
})

describe('docs/pesquisa.md', () => {
  test('every sql block runs verbatim in DuckDB over the export, with the answers the sample gives', async () => {
    const sql = blocks('sql')
    expect(sql.length).toBeGreaterThanOrEqual(6)
    const results: Record<string, unknown>[][] = []
    for (const block of sql) for (const statement of block.split(/;\s*\n/).map((s) => s.trim()).filter(Boolean)) results.push(await rows(statement))
    const [ativos, atividade, socios] = results.filter((r) => r.length > 0)
    // Against the build itself: the counts by UF of active establishments.
    await conn.run(`ATTACH '${join(dataDir, 'cnpj', 'current', 'cnpj.duckdb')}' AS origem2 (READ_ONLY)`)
    const expected = await rows(`SELECT uf, count(*) AS ativos FROM origem2.estabelecimentos WHERE situacao = '02' GROUP BY uf ORDER BY ativos DESC, uf`)
    await conn.run('DETACH origem2')
    expect(ativos).toEqual(expected)
    expect(atividade!.map((r) => r.razao_social)).toContain('SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)')
    expect(socios!.map((r) => r.nome)).toContain('WILSON BIANCARDI COURY')
    for (const r of socios!) expect(String(r.cpf_cnpj)).not.toMatch(/^\d{11}$/)
    // The dictionary query lists the partners' columns.
    expect(results.at(-1)!.map((r) => r.coluna)).toContain('faixa_etaria')
  })

  test('the Polars block reads the same files (nodejs-polars under Bun)', async () => {
    const cache = join(ROOT, 'node_modules', '.cache', 'polars-0.26.1')
    if (!existsSync(join(cache, 'node_modules', 'nodejs-polars-linux-x64-gnu'))) {
      mkdirSync(cache, { recursive: true })
      writeFileSync(join(cache, 'package.json'), '{"private":true}')
      // The platform package named explicitly: as nodejs-polars' optional dependency npm skips it on Node 20 (engines >= 22).
      const npm = Bun.spawnSync(['npm', 'install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', 'nodejs-polars@0.26.1', 'nodejs-polars-linux-x64-gnu@0.26.1'], { cwd: cache })
      expect(npm.exitCode, npm.stderr.toString()).toBe(0)
    }
    const [block] = blocks('js')
    const script = join(cache, 'receita.mjs')
    writeFileSync(script, block!)
    const r = Bun.spawnSync([process.execPath, script], { cwd: work })
    expect(r.exitCode, r.stderr.toString()).toBe(0)
    const printed = r.stdout.toString()
    await conn.run(`ATTACH '${join(dataDir, 'cnpj', 'current', 'cnpj.duckdb')}' AS origem3 (READ_ONLY)`)
    const expected = await rows(`SELECT uf, count(*) AS n FROM origem3.estabelecimentos WHERE situacao = '02' GROUP BY uf`)
    await conn.run('DETACH origem3')
    for (const { uf, n } of expected) expect(printed).toMatch(new RegExp(`│ ${uf}\\s+┆ ${n}\\s+│`))
  }, 120_000)
})
