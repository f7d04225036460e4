// A root listed twice in Empresas, or a CNPJ twice in Estabelecimentos, with different rows, as the
// real dump sometimes does: the card, the search and the history show the same one of its rows (the
// smallest, column by column), whatever order the dump lists them in (ingest/cnpj/one-row.ts). An
// arbitrary pick changed the card from one build to the next and recorded a change of razão social
// that no month had; a CNPJ's two rows joined with the next month's two recorded every difference
// between them as a change, every month.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildCnpj } from '../../ingest/cnpj/load'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { writeZip } from '../../ingest/lib/zip-write'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'
import { EARLIER_FIXTURES, FIXTURES } from './helpers'

setDefaultTimeout(120_000)

const quiet = { quiet: true, log: () => {} }
const ROOT = '11222333'
const CNPJ = '11222333000181'
/** The root's second row: another razão social, which sorts before the sample's ("AÇOUGUE E MERCEARIA IRMÃOS ARAÚJO  LTDA"). */
const SECOND = `"${ROOT}";"AAA DUPLICADA LTDA";"2062";"49";"0,00";"03";""`

/** A month's row of ROOT in `zip` with field `field` set to `value` (every field quoted, ';' between). */
const otherRow = (line: string, field: number, value: string) => line.split('";"').map((f, i) => (i === field ? value : f)).join('";"')

/** A copy of a month's zips where `zip` lists ROOT's row twice: the second row (SECOND, or `edit` of the first) before the sample's (`first`) or after it. */
async function withSecondRow(from: string, first: boolean, zip = 'Empresas2', edit?: (line: string) => string): Promise<string> {
  const dir = tempDir('dadosbr-raiz-repetida-src-')
  for (const f of readdirSync(from)) copyFileSync(join(from, f), join(dir, f))
  const path = join(dir, `${zip}.zip`)
  const [entry] = await listEntries(path)
  const parts: Uint8Array[] = []
  for await (const chunk of readEntry(path, entry!)) parts.push(chunk)
  const lines = Buffer.concat(parts).toString('latin1').replace(/\n$/, '').split('\n')
  const at = lines.findIndex((l) => l.startsWith(`"${ROOT}"`))
  expect(at).toBeGreaterThanOrEqual(0)
  lines.splice(first ? at : at + 1, 0, edit ? edit(lines[at]!) : SECOND)
  await writeZip(path, entry!.name, Buffer.from(`${lines.join('\n')}\n`, 'latin1'))
  return dir
}

async function answers(data: string, paths: string[]) {
  const { app } = await testApp({ dataDir: data })
  try {
    const out = []
    for (const p of paths) out.push((await get(app, p)).body)
    return out
  } finally {
    await app.close()
  }
}

describe('a root listed twice in Empresas', () => {
  test('the card and the search show the smallest of its rows, whichever the dump lists first', async () => {
    for (const first of [true, false]) {
      const data = tempDir('dadosbr-raiz-repetida-')
      await buildCnpj({ sourceDir: await withSecondRow(FIXTURES, first), month: '2026-08', dataDir: data, ...quiet })
      const [card, found] = await answers(data, [`/v1/cnpj/empresa/${CNPJ}`, '/v1/cnpj/busca?nome=duplicada&situacao=baixada'])
      expect([first, card.razao_social]).toEqual([first, 'AAA DUPLICADA LTDA'])
      expect([first, found.resultados.map((r: { cnpj: string; razao_social: string }) => [r.cnpj, r.razao_social])]).toEqual([first, [[CNPJ, 'AAA DUPLICADA LTDA']]])
    }
  })

  test('listed in another order the next month, it is no change; the card as of the month before is that month\'s own', async () => {
    const data = tempDir('dadosbr-raiz-repetida-')
    const july = await withSecondRow(EARLIER_FIXTURES, false)
    await buildCnpj({ sourceDir: july, month: '2026-07', dataDir: data, ...quiet })
    const m = await buildCnpj({ sourceDir: await withSecondRow(FIXTURES, true), month: '2026-08', dataDir: data, ...quiet })
    // The sample's 20 changes (test/cnpj/historico-ingest.test.ts), none of them this root's company.
    expect(m.historico.itens).toBe(20)
    expect(m.historico.por_tipo.razao_social).toBeUndefined()
    const [feed, then] = await answers(data, ['/v1/cnpj/mudancas?por_pagina=100', `/v1/cnpj/empresa/${CNPJ}?referencia=2026-07`])
    expect(feed.total).toBe(20)
    const companyLevel = ['razao_social', 'natureza_juridica', 'capital_social', 'porte', 'simples', 'mei']
    expect(feed.mudancas.filter((i: { cnpj: string; tipo: string }) => i.cnpj.startsWith(ROOT) && companyLevel.includes(i.tipo))).toEqual([])
    const alone = tempDir('dadosbr-raiz-repetida-julho-')
    await buildCnpj({ sourceDir: july, month: '2026-07', dataDir: alone, ...quiet })
    const [own] = await answers(alone, [`/v1/cnpj/empresa/${CNPJ}`])
    expect(own.razao_social).toBe('AAA DUPLICADA LTDA')
    expect(then).toEqual(own)
  })
})

describe('a CNPJ listed twice in Estabelecimentos', () => {
  // The second row: another nome fantasia ("AAA FANTASIA"), which sorts after the sample's blank one.
  const twice = (from: string, first: boolean) => withSecondRow(from, first, 'Estabelecimentos1', (line) => otherRow(line, 4, 'AAA FANTASIA'))

  test('listed in another order the next month, its card, its search and its history are those of one establishment, the smaller row', async () => {
    const data = tempDir('dadosbr-cnpj-repetido-')
    await buildCnpj({ sourceDir: await twice(EARLIER_FIXTURES, false), month: '2026-07', dataDir: data, ...quiet })
    const m = await buildCnpj({ sourceDir: await twice(FIXTURES, true), month: '2026-08', dataDir: data, ...quiet })
    // The sample's 20 changes, this CNPJ's closing among them, and no other of its.
    expect(m.historico.itens).toBe(20)
    const [card, found, feed, history] = await answers(data, [
      `/v1/cnpj/empresa/${CNPJ}`, '/v1/cnpj/busca?nome=fantasia&situacao=baixada', '/v1/cnpj/mudancas?por_pagina=100', `/v1/cnpj/empresa/${CNPJ}/historico`,
    ])
    expect(card.nome_fantasia).toBeNull()
    expect(found.resultados).toEqual([])
    expect(feed.mudancas.filter((i: { cnpj: string }) => i.cnpj === CNPJ).map((i: { tipo: string }) => i.tipo)).toEqual(['situacao_cadastral'])
    expect(history.mudancas.map((i: { tipo: string; referencia: string }) => [i.referencia, i.tipo])).toEqual([['2026-08', 'situacao_cadastral']])
  })
})
