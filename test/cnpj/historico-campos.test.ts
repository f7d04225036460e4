// The history's field table (CAMPOS in src/datasets/cnpj/historico-layout.ts) against the card it
// describes: every card field has a row, and each row names every raw value its rendering reads,
// so that a change recorded with those values shows on its own exactly as the card showed it, and
// a past card rebuilt from them is the card of that month. A field added to the card (FICHA, or a
// key of the card's JSON) fails here until its row is added.
import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { DICTIONARY_TABLE, FICHA } from '../../src/datasets/cnpj/layout'
import { CAMPO_BRUTOS, CAMPO_JSON, CAMPOS, COMPANY_FIELDS, nivelOf, ROTULO_IBGE, TIPOS, valueAt, type Registro } from '../../src/datasets/cnpj/historico-layout'
import { CardCodec } from '../../src/datasets/cnpj/card-codec'
import { cardJson, municipiosIbge, type CardView } from '../../src/datasets/cnpj/card-json'
import { COMPANY_CARD_SQL, ESTABLISHMENT_CARD_SQL } from '../../ingest/cnpj/card-store'
import { buildHistoryData } from './helpers'

const data = await buildHistoryData()

/** Every card of both months' builds (the card store's records), and the code tables of August. */
function records(): { cnpj: string; record: Registro }[] {
  const out: { cnpj: string; record: Registro }[] = []
  const { readdirSync } = require('node:fs') as typeof import('node:fs')
  for (const build of readdirSync(join(data, 'cnpj')).filter((d: string) => /^2026-/.test(d))) {
    const db = new Database(join(data, 'cnpj', build, 'fichas.sqlite'), { readonly: true })
    // Cards are stored coded with the month's dictionary (card-codec.ts).
    const codec = new CardCodec((db.query(`SELECT palavra FROM ${DICTIONARY_TABLE} ORDER BY codigo`).values() as [string][]).map(([w]) => w))
    for (const { name } of db.query("SELECT name FROM sqlite_master WHERE name LIKE 'estabelecimentos_p%'").all() as { name: string }[])
      for (const { dados } of db.query(`SELECT dados FROM ${name}`).all() as { dados: string }[]) out.push({ cnpj: '00000000000000', record: codec.fields(dados).map((v) => v || null) })
    db.close()
  }
  return out
}
const all = records()
const lookups = (() => {
  const db = new Database(join(data, 'cnpj', 'current', 'historico', '2026-08.sqlite'), { readonly: true })
  const r = JSON.parse(new TextDecoder().decode(Bun.zstdDecompressSync((db.query('SELECT dados FROM rotulos WHERE chave = 0').get() as { dados: Uint8Array }).dados)))
  db.close()
  const { [ROTULO_IBGE]: ibge, ...tables } = r as Record<string, [string, string][]>
  return { lookups: Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, new Map(rows)])) as CardView['lookups'], ibge: municipiosIbge(ibge ?? []) }
})()
const view: CardView = { ...lookups, referencia: '2026-08' }
/** The whole card of a record, as /v1/cnpj/empresa writes it, parsed. */
const shown = (record: Registro) => JSON.parse(cardJson(view, '00000000000000', record)) as Record<string, unknown>

test('the sample has cards of every kind the test perturbs (in Brazil, abroad, with and without phones)', () => {
  expect(all.length).toBeGreaterThanOrEqual(20)
  expect(all.some((r) => r.record[FICHA.indexOf('uf')] === 'EX')).toBe(true)
  expect(all.some((r) => r.record[FICHA.indexOf('telefone1')] !== null && r.record[FICHA.indexOf('telefone2')] !== null)).toBe(true)
})

test('every raw card field (but the check digits, part of the CNPJ) is rendered into some field of the table', () => {
  const covered = new Set(CAMPOS.flatMap((c) => c.brutos as readonly string[]))
  expect(FICHA.filter((f) => f !== 'dv' && !covered.has(f))).toEqual([])
})

test('every value the card shows is a field of the table (the CNPJ and the source are not the company\'s)', () => {
  const leaves = (value: unknown, path: string): string[] =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k)) : [path]
  const paths = new Set(all.flatMap((r) => leaves(shown(r.record), '')))
  const campos = CAMPOS.map((c) => c.campo as string)
  const uncovered = [...paths].filter((p) => p !== 'cnpj' && !p.startsWith('fonte.') && !campos.some((c) => p === c || p.startsWith(`${c}.`)))
  expect(uncovered).toEqual([])
})

test("each field's own writer (what the history compares and shows) gives what the whole card shows at its path", () => {
  const differ: string[] = []
  for (const { record } of all) {
    const card = shown(record)
    CAMPOS.forEach((c, k) => {
      if (CAMPO_JSON[k]!(view, record) !== JSON.stringify(valueAt(card, c.campo))) differ.push(c.campo)
      // A change keeps only the campo's raw values: its writer must give the same from those alone.
      const only: Registro = FICHA.map(() => null)
      for (const i of CAMPO_BRUTOS[k]!) only[i] = record[i] ?? null
      if (CAMPO_JSON[k]!(view, only) !== JSON.stringify(valueAt(card, c.campo))) differ.push(`${c.campo} (só os seus valores)`)
    })
  }
  expect([...new Set(differ)]).toEqual([])
})

test("each field's rendering reads only its own raw values: any other value changed, the field shows the same", () => {
  // Perturb each raw value with the values other cards have for it (and null), one at a time.
  const alternatives = FICHA.map((_, i) => [...new Set([null, ...all.map((r) => r.record[i] ?? null)])])
  const broken: string[] = []
  for (const { record } of all) {
    const base = shown(record)
    for (let i = 0; i < FICHA.length; i++) {
      if (FICHA[i] === 'dv') continue
      for (const v of alternatives[i]!) {
        if (v === (record[i] ?? null)) continue
        const changed = [...record]
        changed[i] = v
        const other = shown(changed)
        CAMPOS.forEach((c, k) => {
          if (CAMPO_BRUTOS[k]!.includes(i)) return
          if (JSON.stringify(valueAt(base, c.campo)) !== JSON.stringify(valueAt(other, c.campo))) broken.push(`${c.campo} lê ${FICHA[i]}`)
        })
      }
    }
  }
  expect([...new Set(broken)]).toEqual([])
})

test("company fields are the ones the card store joins from the company and Simples rows; each field's level follows from its raw values", () => {
  expect([...COMPANY_FIELDS]).toEqual(FICHA.slice(FICHA.indexOf('razao_social')))
  expect(COMPANY_CARD_SQL.match(/\b(m|si)\.\w+/g)!.length).toBe(COMPANY_FIELDS.size)
  expect(ESTABLISHMENT_CARD_SQL).not.toMatch(/\b(m|si)\./)
  expect(CAMPOS.filter((c) => nivelOf(c) === 'empresa').map((c) => c.campo)).toEqual(['razao_social', 'natureza_juridica', 'ente_federativo_responsavel', 'qualificacao_responsavel', 'capital_social', 'porte', 'simples.optante', 'simples.data_opcao', 'simples.data_exclusao', 'simples.mei', 'simples.mei_data_opcao', 'simples.mei_data_exclusao'])
  for (const c of CAMPOS) expect(c.brutos.every((b) => COMPANY_FIELDS.has(b)) || c.brutos.every((b) => !COMPANY_FIELDS.has(b))).toBe(true)
  expect(new Set(CAMPOS.map((c) => c.tipo)).size).toBeLessThanOrEqual(TIPOS.length)
})
