// IBGE microregions, kept as data (microrregioes-ibge.json: where it comes from and how it was
// checked are written inside it): the supplier route's "surrounding region" of a municipality.
// `bun ingest/desmatamento/microrregioes.ts --conferir municipios.json` compares the table with
// an answer of IBGE's official API (servicodados.ibge.gov.br/api/v1/localidades/municipios).
import { readFileSync } from 'node:fs'
import TABELA from './microrregioes-ibge.json'

/** IBGE state codes (one home: src/core/ibge.ts, which the server's IBGE check uses too). */
export { UF_POR_CODIGO } from '../../src/core/ibge'

const municipios = TABELA.municipios as Record<string, string>
const nomes = TABELA.microrregioes as Record<string, string>

/** The microregion (5 digits) of a municipality's IBGE code, or null when the table lacks it. */
export function microrregiaoDe(ibge: string): string | null {
  return municipios[ibge] ?? null
}

export function nomeMicrorregiao(codigo: string): string | null {
  return nomes[codigo] ?? null
}

/** Every municipality of the table (IBGE code → microregion). */
export function todosMunicipios(): [string, string][] {
  return Object.entries(municipios)
}

export const MICRORREGIOES_FONTE = 'IBGE, Divisão Territorial Brasileira (microrregiões geográficas)'

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().trim()

/** Differences between the table and an answer of IBGE's localidades API (array of municipalities). */
export function conferir(api: { id: number | string; nome?: string; microrregiao?: { id: number | string; nome?: string } | null }[]): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const m of api) {
    const ibge = String(m.id)
    seen.add(ibge)
    const oficial = m.microrregiao ? String(m.microrregiao.id) : null
    const nosso = municipios[ibge] ?? null
    if (oficial !== nosso) out.push(`${ibge} ${m.nome ?? ''}: IBGE ${oficial ?? 'sem microrregião'}, tabela ${nosso ?? 'ausente'}`)
    const nomeOficial = m.microrregiao?.nome
    if (oficial && nomeOficial && nomes[oficial] && fold(nomes[oficial]!) !== fold(nomeOficial)) out.push(`microrregião ${oficial}: IBGE "${nomeOficial}", tabela "${nomes[oficial]}"`)
  }
  for (const ibge of Object.keys(municipios)) if (!seen.has(ibge)) out.push(`${ibge}: na tabela, ausente da resposta do IBGE`)
  return [...new Set(out)]
}

if (import.meta.main) {
  const i = process.argv.indexOf('--conferir')
  const file = i >= 0 ? process.argv[i + 1] : undefined
  if (!file) {
    console.error('uso: bun ingest/desmatamento/microrregioes.ts --conferir municipios.json  (resposta de https://servicodados.ibge.gov.br/api/v1/localidades/municipios)')
    process.exit(2)
  }
  const diffs = conferir(JSON.parse(readFileSync(file, 'utf8')))
  for (const d of diffs) console.log(d)
  console.log(diffs.length ? `${diffs.length} diferença(s)` : 'tabela igual à do IBGE')
  process.exit(diffs.length ? 1 : 0)
}
