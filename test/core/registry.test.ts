// A dataset is one folder under src/datasets/ (and ingest/ when it is rebuilt from dumps);
// this test fails when one lacks its routes, prices, fixtures or README line.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROUTES } from '../../src/app'
import { DATASETS } from '../../src/datasets/registry'

const ROOT = join(import.meta.dir, '..', '..')
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')

describe('dataset registry', () => {
  test('every folder under src/datasets is registered', () => {
    const folders = readdirSync(join(ROOT, 'src/datasets'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)
    expect(folders.sort()).toEqual(DATASETS.map((d) => d.name).sort())
  })

  for (const ds of DATASETS) {
    describe(ds.name, () => {
      test('declares routes, each with a price (a number, or null for free)', () => {
        expect(ds.routes.length).toBeGreaterThan(0)
        for (const r of ds.routes) {
          expect(r.dataset).toBe(ds.name)
          expect(r.price === null || (typeof r.price === 'number' && r.price > 0)).toBe(true)
          expect(r.path.startsWith('/v1/')).toBe(true)
        }
      })

      test('has real-format fixtures under test/<name>/fixtures', () => {
        const dir = join(ROOT, 'test', ds.name, 'fixtures')
        expect(existsSync(dir)).toBe(true)
        expect(readdirSync(dir).length).toBeGreaterThan(0)
      })

      test('has its line in the README datasets table', () => {
        expect(README).toMatch(new RegExp(`^\\| \`${ds.name}\` \\|`, 'm'))
      })

      test('ingested datasets have an ingest folder and can open their files', () => {
        if (!ds.ingested) return
        expect(existsSync(join(ROOT, 'ingest', ds.name))).toBe(true)
        expect(typeof ds.open).toBe('function')
      })

      test('a dataset with paid routes links a free sample that exists', () => {
        if (!ds.routes.some((r) => r.price !== null)) return
        expect(ds.amostra).toBeDefined()
        expect(ROUTES.some((r) => r.path === ds.amostra && r.price === null)).toBe(true)
      })
    })
  }

  test('bundled samples have folder names unique across datasets (the executable embeds each under its last name)', async () => {
    const { INGESTS } = await import('../../ingest/registry')
    const names = INGESTS.flatMap((i) => i.sampleAssets).map((p) => p.split('/').pop())
    expect(new Set(names).size).toBe(names.length)
  })

  test("each ingest folder depends only on ingest/lib and src, never on a sibling's folder or the registry", () => {
    const crossings: string[] = []
    for (const folder of readdirSync(join(ROOT, 'ingest'), { withFileTypes: true })) {
      if (!folder.isDirectory() || folder.name === 'lib') continue
      for (const file of readdirSync(join(ROOT, 'ingest', folder.name)).filter((f) => f.endsWith('.ts'))) {
        const text = readFileSync(join(ROOT, 'ingest', folder.name, file), 'utf8')
        for (const [, target] of text.matchAll(/from '(\.\.\/[^']+)'/g))
          if (!target!.startsWith('../lib/') && !target!.startsWith('../../src/')) crossings.push(`ingest/${folder.name}/${file} -> ${target}`)
      }
    }
    expect(crossings).toEqual([])
  })

  test('paths are unique across the route table', () => {
    const paths = ROUTES.map((r) => r.path)
    expect(new Set(paths).size).toBe(paths.length)
  })
})
