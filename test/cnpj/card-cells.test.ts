// cardCells (card-json.ts), the CSV cells of `dadosbr consultar cnpj --saida x.csv`, made from a
// card's raw fields through the card's own field writers: the same cells as walking the parsed
// card JSON, on every card of the real-format sample and on a card with what JSON escapes.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { ZodArray, ZodNullable, ZodObject, ZodOptional, type z } from 'zod'
import { cardCells, cardJson, municipiosIbge, type CardView } from '../../src/datasets/cnpj/card-json'
import { CardCodec } from '../../src/datasets/cnpj/card-codec'
import { ROTULO_IBGE } from '../../src/datasets/cnpj/historico-layout'
import { DICTIONARY_TABLE, FICHA } from '../../src/datasets/cnpj/layout'
import { Empresa } from '../../src/datasets/cnpj/model'
import { buildFixtureData } from './helpers'

/** The Empresa schema's leaf columns, as consultar lists them. */
function columnsOf(schema: z.ZodType, prefix = ''): string[] {
  if (schema instanceof ZodArray) return [prefix]
  if (schema instanceof ZodNullable || schema instanceof ZodOptional) return columnsOf(schema.unwrap() as z.ZodType, prefix)
  if (!(schema instanceof ZodObject)) return [prefix]
  return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([k, v]) => columnsOf(v, prefix ? `${prefix}.${k}` : k))
}
const columns = columnsOf(Empresa).filter((c) => c !== 'cnpj' && !c.startsWith('fonte.'))

/** The reference: each column's path walked on the parsed card (what consultar does with a JSON answer). */
function walked(json: string): string[] {
  const card = JSON.parse(json)
  return columns.map((c) => {
    let v = card
    for (const k of c.split('.')) v = v === null || v === undefined ? undefined : v[k]
    if (v === null || v === undefined) return ''
    if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' && 'codigo' in x ? String(x.codigo) : JSON.stringify(x))).join(' ')
    return typeof v === 'object' ? JSON.stringify(v) : String(v)
  })
}

/** Every card record of the sample's build, and its month's view. */
async function sample(): Promise<{ view: CardView; records: string[][] }> {
  const build = join(await buildFixtureData(), 'cnpj', 'current')
  const h = new Database(join(build, 'historico', '2026-08.sqlite'), { readonly: true })
  const r = JSON.parse(new TextDecoder().decode(Bun.zstdDecompressSync((h.query('SELECT dados FROM rotulos WHERE chave = 0').get() as { dados: Uint8Array }).dados)))
  h.close()
  const { [ROTULO_IBGE]: ibge, ...tables } = r as Record<string, [string, string][]>
  const view: CardView = { referencia: '2026-08', lookups: Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, new Map(rows)])) as CardView['lookups'], ibge: municipiosIbge(ibge ?? []) }
  const db = new Database(join(build, 'fichas.sqlite'), { readonly: true })
  const codec = new CardCodec((db.query(`SELECT palavra FROM ${DICTIONARY_TABLE} ORDER BY codigo`).values() as [string][]).map(([w]) => w))
  const records: string[][] = []
  for (const { name } of db.query("SELECT name FROM sqlite_master WHERE name LIKE 'estabelecimentos_p%'").all() as { name: string }[])
    for (const { dados } of db.query(`SELECT dados FROM ${name}`).all() as { dados: string }[]) records.push(codec.fields(dados))
  db.close()
  return { view, records }
}

describe('cardCells', () => {
  const cells = cardCells(columns)

  test('a column no field of the card gives is refused when the list is made', () => {
    expect(() => cardCells(['razao_social', 'nao_existe'])).toThrow('cardCells: nenhum campo do cartão dá a coluna nao_existe')
  })

  test('every card of the real-format sample: the same cells as walking its parsed JSON', async () => {
    const { view, records } = await sample()
    expect(records.length).toBeGreaterThanOrEqual(10)
    for (const v of records) expect(cells(view, v)).toEqual(walked(cardJson(view, '00000000000000', v)))
  })

  test('a card with quotes, backslashes, a control character, accents, a capital with cents and secondary activities (short codes, empty items)', () => {
    const lookups = { cnaes: new Map([['0000001', 'A "B"'], ['0000002', null]]), motivos: new Map(), municipios: new Map([['7107', 'SÃO PAULO']]), naturezas: new Map([['2062', 'Sociedade\\Ltda']]), paises: new Map(), qualificacoes: new Map() }
    const view: CardView = { referencia: '2026-08', lookups: lookups as CardView['lookups'], ibge: municipiosIbge([['7107', '3550308']]) }
    const v = FICHA.map(() => '')
    const set = (f: (typeof FICHA)[number], x: string) => (v[FICHA.indexOf(f)] = x)
    set('razao_social', 'ACME "DO" BRASIL\\SA\u0001')
    set('nome_fantasia', 'CAFÉ, PÃO & CIA')
    set('capital_social', '123456789.50')
    set('cnaes_secundarios', ',1,,2,0000003,')
    set('natureza_juridica', '2062')
    set('municipio', '7107')
    set('uf', 'SP')
    set('opcao_simples', 'true')
    set('situacao_especial', 'RECUPERACAO JUDICIAL')
    expect(cells(view, v)).toEqual(walked(cardJson(view, '11222333000181', v)))
    const at = (c: string) => cells(view, v)[columns.indexOf(c)]
    expect([at('razao_social'), at('capital_social'), at('cnae_secundarios'), at('simples.optante'), at('endereco.codigo_municipio_ibge'), at('natureza_juridica.descricao'), at('situacao_especial.data')]).toEqual([
      'ACME "DO" BRASIL\\SA\u0001', '123456789.5', '0000001 0000002 0000003', 'true', '3550308', 'Sociedade\\Ltda', '',
    ])
  })
})
