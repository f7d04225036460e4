// The IBGE code of each of the month's municipalities: the registry carries the Receita's 4-digit
// TOM code only, and the bridge is the Receita's own table (municipios.csv, the same one the
// deforestation build reads: ingest/lib/municipios-rfb.ts). The build adds a `codigo_ibge` column
// to the `municipios` code table of cnpj.duckdb; the server reads it with the other code tables, so
// every route shows the same code for the same establishment.
import type { DuckDBConnection } from '@duckdb/node-api'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { MUNICIPIOS_ARQUIVO } from '../../src/core/municipios-rfb'
import { MunicipiosError, parseMunicipios, type TabelaMunicipios } from '../lib/municipios-rfb'
import { sqlString } from '../lib/sql'

// The table's errors and its download are shared with the deforestation build (one copy on disk for both).
export { downloadMunicipiosTable, MunicipiosTableError } from '../lib/municipios-rfb'
import { MunicipiosTableError } from '../lib/municipios-rfb'

/** municipios.csv in a folder (the name compared case-insensitively), or null. */
export function municipiosTableIn(dir: string): string | null {
  if (!existsSync(dir)) return null
  const name = readdirSync(dir).find((f) => f.toLowerCase() === MUNICIPIOS_ARQUIVO)
  return name ? join(dir, name) : null
}

/** What the manifest says of the table. */
export interface MunicipiosRecord {
  arquivo: string
  bytes: number
  sha256: string
  /** Rows of the table kept (TOM and IBGE codes well formed). */
  municipios: number
  /** Rows added where the table has a known gap (LACUNAS in ingest/lib/municipios-rfb.ts). */
  complementos: TabelaMunicipios['complementos']
  /** TOM codes of the month's municipality table with no IBGE code in it (their establishments show null). */
  sem_codigo_ibge: string[]
}

/** Reads and checks the table (before the long load: a wrong file fails first). */
export async function readMunicipiosTable(path: string): Promise<{ tabela: TabelaMunicipios; bytes: number; sha256: string }> {
  const bytes = new Uint8Array(await Bun.file(path).arrayBuffer())
  try {
    const tabela = await parseMunicipios(bytes, path)
    return { tabela, bytes: statSync(path).size, sha256: new Bun.CryptoHasher('sha256').update(bytes).digest('hex') }
  } catch (err) {
    if (err instanceof MunicipiosError) throw new MunicipiosTableError(err.message)
    throw err
  }
}

/**
 * Adds `codigo_ibge` to the month's `municipios` table (the Receita's Municipios.zip, by TOM code)
 * from the bridge table. A TOM code the bridge lacks keeps a null code (EXTERIOR, 9707, is such a
 * code: abroad has no IBGE code). Returns the TOM codes left without one.
 */
export async function attachIbgeCodes(conn: DuckDBConnection, tabela: TabelaMunicipios): Promise<string[]> {
  await conn.run('ALTER TABLE municipios ADD COLUMN codigo_ibge VARCHAR')
  const byTom = new Map<string, string>()
  for (const m of tabela.municipios) if (!byTom.has(m.tom)) byTom.set(m.tom, m.ibge)
  if (byTom.size) {
    const values = [...byTom].map(([tom, ibge]) => `(${sqlString(tom)}, ${sqlString(ibge)})`).join(', ')
    await conn.run(`UPDATE municipios SET codigo_ibge = ponte.ibge FROM (VALUES ${values}) AS ponte(tom, ibge) WHERE municipios.codigo = ponte.tom`)
  }
  const missing = (await conn.runAndReadAll('SELECT codigo FROM municipios WHERE codigo_ibge IS NULL ORDER BY codigo')).getRows()
  return missing.map((r) => String(r[0]))
}
