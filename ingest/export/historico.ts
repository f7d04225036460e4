// The registry's history as Parquet (docs/pesquisa.md, "Histórico"): one row per change of every
// month held, read through the server's own reader (src/datasets/cnpj/historico-store.ts) and shown
// as the API shows it, with the raw values of the registry's columns before and after, so that
// any month held can be rebuilt from the latest export and the changes (the recipe in the guide,
// run by test/cnpj/historico-export.test.ts). Written month by month, hive-partitioned by month.
import type { DuckDBConnection } from '@duckdb/node-api'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CAMPO_EMPRESA, CAMPO_PRESENCA, CAMPO_SOCIOS, CAMPOS, I, TIPOS, type Item } from '../../src/datasets/cnpj/historico-layout'
import { change } from '../../src/datasets/cnpj/historico'
import { HistoryStore } from '../../src/datasets/cnpj/historico-store'
import { FICHA, SOCIO } from '../../src/datasets/cnpj/layout'
import { sqlString } from '../lib/sql'
import type { TableDoc } from './dictionary'

/**
 * The registry table each card field is a column of (the card fields are named as the columns),
 * from the registry attached as `registro` (export.ts).
 */
async function tableOfColumns(conn: DuckDBConnection): Promise<Record<string, string>> {
  const rows = (await conn.runAndReadAll(`SELECT table_name, column_name FROM information_schema.columns WHERE table_catalog = 'registro'
    AND table_name IN ('estabelecimentos', 'empresas', 'simples') ORDER BY CASE table_name WHEN 'estabelecimentos' THEN 0 WHEN 'empresas' THEN 1 ELSE 2 END DESC`)).getRows()
  return Object.fromEntries(rows.map(([t, c]) => [String(c), String(t)]))
}

/** A field's raw values keyed by their column names (the card store's text: dates AAAA-MM-DD, decimals with a dot, booleans true/false). */
const named = (names: readonly string[], values: (string | null)[] | null) => (values === null ? null : Object.fromEntries(names.map((n, i) => [n, values[i] ?? null])))
const CARD_COLUMNS = FICHA.filter((f) => f !== 'dv')
/** The card fields named otherwise than their column (the Simples dates: the table's data_opcao is the Simples option's). */
const COLUMN_OF: Partial<Record<string, string>> = { data_opcao_simples: 'data_opcao', data_exclusao_simples: 'data_exclusao' }

function row(tableOf: Record<string, string>, referencia: string, anterior: string | null, lacuna: boolean, it: Item, shown: ReturnType<typeof change>) {
  const campo = it[I.campo]
  let tabela: string
  let antesBruto: Record<string, string | null> | null = null
  let depoisBruto: Record<string, string | null> | null = null
  if (campo === CAMPO_SOCIOS) {
    tabela = 'socios'
    antesBruto = named(SOCIO, it[I.antes])
    depoisBruto = named(SOCIO, it[I.depois])
  } else if (campo === CAMPO_PRESENCA) {
    tabela = 'estabelecimentos'
    // saiu_do_cadastro keeps the whole card of the month before: the establishment's columns and its company's.
    if (it[I.antes]) antesBruto = Object.fromEntries(CARD_COLUMNS.map((c) => [c, it[I.antes]![FICHA.indexOf(c)] ?? null]))
  } else {
    const brutos = CAMPOS[campo]!.brutos
    tabela = tableOf[COLUMN_OF[brutos[0]!] ?? brutos[0]!]!
    antesBruto = named(brutos, it[I.antes])
    depoisBruto = named(brutos, it[I.depois])
  }
  return {
    referencia_anterior: anterior, lacuna, cnpj: it[I.cnpj], cnpj_basico: it[I.cnpj].slice(0, 8), tipo: TIPOS[it[I.tipo]], campo: shown.campo,
    nivel: campo === CAMPO_PRESENCA ? 'estabelecimento' : campo === CAMPO_SOCIOS || CAMPO_EMPRESA[campo] ? 'empresa' : 'estabelecimento',
    tabela, antes: shown.antes, depois: shown.depois, antes_bruto: antesBruto, depois_bruto: depoisBruto,
    uf: it[I.uf], municipio: it[I.municipio], cnae_principal: it[I.cnae], razao_social: it[I.razao],
    referencia,
  }
}

const COLUMNS = {
  referencia_anterior: 'VARCHAR', lacuna: 'BOOLEAN', cnpj: 'VARCHAR', cnpj_basico: 'VARCHAR', tipo: 'VARCHAR', campo: 'VARCHAR', nivel: 'VARCHAR', tabela: 'VARCHAR',
  antes: 'JSON', depois: 'JSON', antes_bruto: 'JSON', depois_bruto: 'JSON', uf: 'VARCHAR', municipio: 'VARCHAR', cnae_principal: 'VARCHAR', razao_social: 'VARCHAR', referencia: 'VARCHAR',
}

/** Writes `historico/` (the changes, partitioned by month) and `historico_meses.parquet` into `out` (the registry attached as `registro`); returns their dictionary entries. */
export async function exportHistory(conn: DuckDBConnection, buildDir: string, out: string, onRows: (n: number) => void): Promise<TableDoc[]> {
  const store = new HistoryStore(buildDir)
  const tableOf = await tableOfColumns(conn)
  const dir = join(out, 'historico')
  const temp = join(out, '.historico.tmp')
  mkdirSync(temp, { recursive: true })
  let total = 0
  try {
    const meses: { referencia: string; referencia_anterior: string | null; lacuna: boolean; mudancas: number }[] = []
    for (const month of store.months) {
      const { referencia, referencia_anterior, lacuna, itens } = month.meta
      meses.push({ referencia, referencia_anterior, lacuna, mudancas: itens })
      if (!itens) continue
      // NDJSON in slices, read back by DuckDB into the month's Parquet file.
      const folder = join(dir, `referencia=${referencia}`)
      mkdirSync(folder, { recursive: true })
      const SLICE = 200_000
      const files: string[] = []
      for (let from = 0; from < itens; from += SLICE) {
        const lines: string[] = []
        for (let p = from; p < Math.min(itens, from + SLICE); p++) {
          const it = month.item(p)
          const { referencia: _, ...r } = row(tableOf, referencia, referencia_anterior, lacuna, it, change(month, it))
          lines.push(JSON.stringify(r))
        }
        const file = join(temp, `${referencia}-${files.length}.json`)
        writeFileSync(file, lines.join('\n') + '\n')
        files.push(file)
      }
      const columns = `{${Object.entries(COLUMNS).filter(([c]) => c !== 'referencia').map(([c, t]) => `'${c}': '${t}'`).join(', ')}}`
      await conn.run(`COPY (SELECT * FROM read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', columns = ${columns}, maximum_object_size = 67108864))
        TO ${sqlString(join(folder, 'parte_0.parquet'))} (FORMAT parquet, COMPRESSION zstd)`)
      for (const f of files) rmSync(f)
      total += itens
      onRows(itens)
    }
    writeFileSync(join(temp, 'meses.json'), JSON.stringify(meses))
    await conn.run(`COPY (SELECT * FROM read_json(${sqlString(join(temp, 'meses.json'))}, columns = {'referencia': 'VARCHAR', 'referencia_anterior': 'VARCHAR', 'lacuna': 'BOOLEAN', 'mudancas': 'BIGINT'}))
      TO ${sqlString(join(out, 'historico_meses.parquet'))} (FORMAT parquet, COMPRESSION zstd)`)
    return [
      {
        tabela: 'historico',
        descricao:
          'Uma linha por mudança de cada mês do histórico: o que o dump do mês mostrou diferente do mês anterior guardado (docs/historico.md). ' +
          'Com as colunas de bruto, qualquer mês guardado se reconstrói a partir do último (receita em docs/pesquisa.md). Particionada por mês.',
        arquivos: 'historico/referencia=*/*.parquet',
        particoes: ['referencia'],
        linhas: total,
        colunas: Object.entries(COLUMNS).map(([coluna, tipo]) => ({ coluna, tipo, significado: HISTORY_COLUMNS[coluna]![0], origem: HISTORY_COLUMNS[coluna]![1] })),
      },
      {
        tabela: 'historico_meses',
        descricao: 'Os meses que o histórico guarda, do mais antigo ao mais novo.',
        arquivos: 'historico_meses.parquet',
        linhas: meses.length,
        colunas: [
          { coluna: 'referencia', tipo: 'VARCHAR', significado: 'o mês (AAAA-MM)', origem: 'derivada: mês do dump carregado' },
          { coluna: 'referencia_anterior', tipo: 'VARCHAR', significado: 'o mês com que foi comparado (vazio no primeiro mês guardado)', origem: 'derivada: o mês em uso quando este foi carregado' },
          { coluna: 'lacuna', tipo: 'BOOLEAN', significado: 'há meses não carregados entre os dois: as mudanças aconteceram entre eles', origem: 'derivada' },
          { coluna: 'mudancas', tipo: 'BIGINT', significado: 'mudanças do mês', origem: 'derivada' },
        ],
      },
    ]
  } finally {
    store.close()
    rmSync(temp, { recursive: true, force: true })
  }
}

const D = 'derivada: comparação do dump do mês com o do mês anterior guardado'
const HISTORY_COLUMNS: Record<string, [string, string]> = {
  referencia: ['o mês do dump que mostrou a mudança (partição hive: vem do caminho referencia=AAAA-MM/)', 'mês do dump carregado'],
  referencia_anterior: ['o mês com que ele foi comparado', D],
  lacuna: ['há meses não carregados entre referencia_anterior e referencia', D],
  cnpj: ['o estabelecimento; nas mudanças da empresa e de sócios, a matriz (ou o primeiro estabelecimento) no mês', 'Estabelecimentos*.zip: CNPJ BÁSICO + ORDEM + DV'],
  cnpj_basico: ['raiz do CNPJ', 'Estabelecimentos*.zip: CNPJ BÁSICO'],
  tipo: ['tipo de mudança (abertura, situacao_cadastral, razao_social, ..., saiu_do_cadastro, voltou_ao_cadastro; lista em docs/historico.md)', D],
  campo: ['o campo do cartão (caminho no JSON de /v1/cnpj/empresa); socios nas mudanças de sócios; vazio em abertura, saída e volta ao cadastro', D],
  nivel: ['empresa (vale para todos os estabelecimentos da raiz: campos da empresa, do Simples e sócios) ou estabelecimento', D],
  tabela: ['a tabela do cadastro das colunas em antes_bruto e depois_bruto (estabelecimentos, empresas, simples, socios)', D],
  antes: ['o valor como o cartão do mês anterior o mostrava (JSON)', D],
  depois: ['o valor como o cartão do mês o mostrava (JSON)', D],
  antes_bruto: ['as colunas do cadastro de que o campo sai, antes, como texto (datas AAAA-MM-DD, decimais com ponto, booleanos true/false); em saiu_do_cadastro, o cartão inteiro do mês anterior; num sócio, a linha do sócio', D],
  depois_bruto: ['as mesmas colunas, depois; vazio em saídas', D],
  uf: ['UF do estabelecimento no mês (em saiu_do_cadastro, no mês anterior)', 'Estabelecimentos*.zip: UF'],
  municipio: ['código do município da Receita (tabela municipios)', 'Estabelecimentos*.zip: MUNICÍPIO'],
  cnae_principal: ['CNAE principal do estabelecimento no mês', 'Estabelecimentos*.zip: CNAE FISCAL PRINCIPAL'],
  razao_social: ['razão social da empresa no mês', 'Empresas*.zip: RAZÃO SOCIAL'],
}
