// The README is for users: its examples are real answers of the bundled sample (a reader running
// `make run` finds them), it stays short, and it cites nothing outside the repository.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildSampleData, get, testApp } from '../helpers'

const ROOT = join(import.meta.dir, '..', '..')
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const { app } = await testApp({ dataDir: await buildSampleData() })
afterAll(() => app.close())

/** Each `curl <url>` block followed by a ```json block: the path and the answer shown. */
const examples = [...README.matchAll(/```sh\ncurl '?localhost:8080([^'\s]+)'?\n```\n```json\n(.+)\n```/g)].map((m) => ({ path: m[1]!, shown: JSON.parse(m[2]!) }))

describe('README', () => {
  test('shows at least five examples, among them a name search and a partner search', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5)
    expect(examples.some((e) => e.path.startsWith('/v1/cnpj/busca?nome='))).toBe(true)
    expect(examples.some((e) => e.path.startsWith('/v1/cnpj/socio/busca?nome='))).toBe(true)
  })

  for (const { path, shown } of examples)
    test(`the answer shown for ${path} is what the bundled sample answers`, async () => {
      expect((await get(app, path)).body).toEqual(shown)
    })

  test('is short, cites nothing outside the repository, and its links resolve', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(200)
    expect(README).not.toMatch(/NOTES|SPEC\b|especificação|\bopen http/)
    expect(README).toContain('abra no navegador')
    expect(README).toContain('In English')
    for (const [, link] of README.matchAll(/\]\(((?:docs|data)\/[^)#]+|LICENSE)\)/g)) expect(existsSync(join(ROOT, link!))).toBe(true)
  })
})
