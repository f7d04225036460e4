// The Receita Federal's municipality table (municipios.csv: cp1252, `;`, header
// `CÓDIGO DO MUNICÍPIO - TOM;CÓDIGO DO MUNICÍPIO - IBGE;MUNICÍPIO - TOM;MUNICÍPIO - IBGE;UF`, one
// copy seen with an extra ESTADO column): the registry's establishments carry the 4-digit TOM
// code, DETER's alerts and the registry cards' codigo_municipio_ibge the 7-digit IBGE code. Read by
// both builds (deforestation and registry), downloaded from RFB_MUNICIPIOS (src/core/municipios-rfb.ts).
// Columns are picked by name.
//
// Its known gap: Boa Esperança do Norte/MT (IBGE 5101837) is missing, though the registry already
// places companies there under TOM 1182 (the Receita's own Municipios.zip lists
// "1182";"BOA ESPERANCA DO NORTE"). The build adds that row when the table has neither code and
// records it in the manifest (complementos); a table that gains the row is used as published.
import { csvRows, decodeText, chunksOf, isBlankRow, sniffEncoding } from '../../src/core/text/csv'
import { columnIndex, HeaderError } from '../../src/core/text/header'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { MUNICIPIOS_ARQUIVO, RFB_MUNICIPIOS } from '../../src/core/municipios-rfb'
import { upstreamUrl } from '../../src/core/upstream'
import { downloadIfChanged } from './conditional'

/** The table could not be had or read; the message says what to do. */
export class MunicipiosTableError extends Error {}

/**
 * Where the downloaded table is kept under a data folder: one copy for the registry and the
 * deforestation builds, so one monthly run asks for it once (and then only if it changed).
 */
export const municipiosDownloadDir = (dataDir: string) => join(dataDir, 'downloads', 'municipios-rfb')


export interface MunicipioRfb {
  tom: string
  ibge: string
  /** The IBGE name (MUNICÍPIO - IBGE), else the TOM one. */
  nome: string
  uf: string
}

export interface TabelaMunicipios {
  municipios: MunicipioRfb[]
  /** Rows kept out: EXTERIOR (IBGE 0) and malformed codes. */
  descartadas: number
  complementos: { tom: string; ibge: string; nome: string; motivo: string }[]
}

const COLUMNS = {
  tom: ['CÓDIGO DO MUNICÍPIO - TOM', 'CODIGO TOM'],
  ibge: ['CÓDIGO DO MUNICÍPIO - IBGE', 'CODIGO IBGE'],
  nomeTom: ['MUNICÍPIO - TOM'],
  nomeIbge: ['MUNICÍPIO - IBGE'],
  uf: ['UF'],
} as const

/** The one known gap of the table, filled explicitly (see the header comment and docs/desmatamento.md). */
export const LACUNAS = [
  {
    tom: '1182',
    ibge: '5101837',
    nome: 'Boa Esperança do Norte',
    uf: 'MT',
    motivo: 'ausente da tabela da Receita; TOM 1182 da tabela Municipios do CNPJ ("BOA ESPERANCA DO NORTE"), IBGE 5101837 da lista do IBGE',
  },
] as const

export class MunicipiosError extends Error {}

/** The first bytes of a download are the table, not a page served in its place (its header names the TOM code). */
export function looksLikeMunicipiosCsv(head: Uint8Array): boolean {
  const t = new TextDecoder('windows-1252').decode(head).trimStart().toUpperCase()
  return !t.startsWith('<') && /TOM/.test(t.split(/\r?\n/)[0] ?? '')
}

export async function parseMunicipios(bytes: Uint8Array, label = 'municipios.csv'): Promise<TabelaMunicipios> {
  const rows = csvRows(decodeText(chunksOf(bytes), sniffEncoding(bytes)), ';')
  let index: ReturnType<typeof columnIndex<typeof COLUMNS>> | null = null
  const municipios: MunicipioRfb[] = []
  let descartadas = 0
  let line = 0
  for await (const row of rows) {
    line++
    if (isBlankRow(row)) continue
    if (!index) {
      // The header is the first row naming the columns (a title line above it is allowed).
      try {
        index = columnIndex(row, COLUMNS, ['nomeTom', 'nomeIbge'])
      } catch (err) {
        if (err instanceof HeaderError && line < 5) continue
        break
      }
      if (index.nomeTom < 0 && index.nomeIbge < 0) throw new MunicipiosError(`${label}: sem coluna de nome (MUNICÍPIO - IBGE ou MUNICÍPIO - TOM)`)
      continue
    }
    const tomRaw = (row[index.tom] ?? '').trim()
    const ibge = (row[index.ibge] ?? '').trim()
    const uf = (row[index.uf] ?? '').trim().toUpperCase()
    const nome = ((index.nomeIbge >= 0 ? row[index.nomeIbge] : '') || (index.nomeTom >= 0 ? row[index.nomeTom] : '') || '').trim()
    // The TOM code is 4 digits zero-padded in the registry ("0139"); a table read by a tool that
    // dropped the zeros is padded back.
    if (!/^\d{1,4}$/.test(tomRaw) || !/^[1-5]\d{6}$/.test(ibge) || !/^[A-Z]{2}$/.test(uf) || !nome) {
      descartadas++
      continue
    }
    municipios.push({ tom: tomRaw.padStart(4, '0'), ibge, nome, uf })
  }
  if (!index) throw new MunicipiosError(`${label}: não é a tabela de municípios da Receita (vazio, ou sem o cabeçalho CÓDIGO DO MUNICÍPIO - TOM;CÓDIGO DO MUNICÍPIO - IBGE;...)`)
  if (!municipios.length) throw new MunicipiosError(`${label}: nenhum município (arquivo cortado?)`)
  const complementos: TabelaMunicipios['complementos'] = []
  for (const l of LACUNAS)
    if (!municipios.some((m) => m.tom === l.tom || m.ibge === l.ibge)) {
      municipios.push({ tom: l.tom, ibge: l.ibge, nome: l.nome, uf: l.uf })
      complementos.push({ tom: l.tom, ibge: l.ibge, nome: l.nome, motivo: l.motivo })
    }
  return { municipios, descartadas, complementos }
}

/**
 * The Receita's table, downloaded into `dir` (again only when it changed: ETag/Last-Modified).
 * Throws MunicipiosTableError, saying what to do, when it does not come.
 */
export async function downloadMunicipiosTable(dir: string, options: { quiet?: boolean; log?: (line: string) => void; retryDelayMs?: number; retries?: number; timeoutMs?: number; env?: Record<string, string | undefined> } = {}): Promise<{ path: string; changed: boolean }> {
  const url = upstreamUrl(RFB_MUNICIPIOS, options.env)
  const dest = join(dir, MUNICIPIOS_ARQUIVO)
  mkdirSync(dir, { recursive: true })
  let changed: boolean
  try {
    changed = (await downloadIfChanged(url, dest, { quiet: options.quiet, log: options.log, label: MUNICIPIOS_ARQUIVO, retryDelayMs: options.retryDelayMs, retries: options.retries, timeoutMs: options.timeoutMs })).changed
  } catch (err) {
    throw new MunicipiosTableError(`a tabela de municípios da Receita (TOM ↔ IBGE) não veio de ${url}: ${err instanceof Error ? err.message : err}; tente mais tarde ou ponha o ${MUNICIPIOS_ARQUIVO} na pasta --from`)
  }
  if (!looksLikeMunicipiosCsv(new Uint8Array(await Bun.file(dest).slice(0, 512).arrayBuffer()))) {
    // A page served in place of the file: removed (with its validators) so the next run asks again.
    rmSync(dest, { force: true })
    rmSync(`${dest}.http.json`, { force: true })
    throw new MunicipiosTableError(`${url} não entregou a tabela de municípios (veio outra coisa, talvez uma página de erro); tente mais tarde ou ponha o ${MUNICIPIOS_ARQUIVO} na pasta --from`)
  }
  return { path: dest, changed }
}
