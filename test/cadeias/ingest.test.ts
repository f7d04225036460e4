// `dadosbr ingest cadeias`: one refresh of the two sources the chains poll themselves, through the
// replay server; one failing keeps its last copy and the command says so; both failing is an error.
// --amostra installs the recordings with their true age; --help names the settings.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { cadeiasIngest } from '../../ingest/cadeias/command'
import { ingest } from '../../src/cli/ingest'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { CADEIAS_FEEDS } from '../../src/datasets/cadeias'
import { tempDir } from '../temp'
import { SAMPLE_TIME, startUpstreams } from './helpers'

const up = startUpstreams()
afterAll(() => up.close())
beforeEach(() => {
  for (const s of up.all) {
    s.start()
    s.fault = { kind: 'none' }
  }
})
const ctx = (dataDir: string) => ({ flags: {}, dataDir, quiet: true, log: () => {} })
const copies = (dataDir: string) => {
  const r = new FeedRunner(CADEIAS_FEEDS, { dataDir, log: createLogger('silent') })
  return { termica: r.copy<any>('cadeias-termica'), bandeira: r.copy<any>('cadeias-bandeira') }
}

describe('dadosbr ingest cadeias', () => {
  test('both sources fetched once; one down keeps its copy and says so; both down is an error', async () => {
    const dataDir = tempDir('cadeias-ingest-')
    expect(await cadeiasIngest.run(ctx(dataDir))).toBe('cadeias: 2 de 2 fontes atualizadas')
    const first = copies(dataDir)
    expect([first.termica?.dados.dia, first.bandeira?.dados.meses.at(-1).competencia]).toEqual(['2026-01-28', '2026-01'])
    up.server('ANEEL_BANDEIRAS_URL').stop()
    const lines: string[] = []
    expect(await cadeiasIngest.run({ ...ctx(dataDir), quiet: false, log: (l) => lines.push(l) })).toBe('cadeias: 1 de 2 fontes atualizadas')
    expect(lines[1]).toStartWith('cadeias-bandeira: falhou: ')
    expect(lines[1]).toEndWith(`(fica a cópia de ${first.bandeira!.consultado_em})`)
    up.server('ONS_BALANCO_URL').fault = { kind: 'status', status: 503 }
    await expect(cadeiasIngest.run(ctx(dataDir))).rejects.toThrow('nenhuma fonte das cadeias respondeu: cadeias-termica: falhou: ')
    expect(copies(dataDir).termica?.dados.dia).toBe('2026-01-28')
  })

  test('--amostra: the recordings installed with the time they were recorded; again with --se-preciso: nothing to do', async () => {
    for (const s of up.all) s.stop()
    const dataDir = tempDir('cadeias-amostra-cli-')
    expect(await cadeiasIngest.sample(ctx(dataDir), false)).toBe('fontes cadeias-termica, cadeias-bandeira: amostra gravada em 2026-01-29T15:30:00Z instalada')
    expect([copies(dataDir).termica?.consultado_em, copies(dataDir).bandeira?.consultado_em]).toEqual([SAMPLE_TIME, SAMPLE_TIME])
    expect(await cadeiasIngest.sample(ctx(dataDir), true)).toBe('fontes cadeias-termica, cadeias-bandeira: cópias já presentes, nada a fazer')
  })

  test('--help names the two settings with their real defaults', async () => {
    const out: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write
    try {
      expect(await ingest(['cadeias', '--help'])).toBe(0)
    } finally {
      process.stdout.write = write
    }
    const text = out.join('')
    expect(text).toContain('ANEEL_BANDEIRAS_URL')
    expect(text).toContain('https://dadosabertos.aneel.gov.br/dataset/7f43a020-6dc5-44b8-80b4-d97eaa94436c/resource/0591b8f6-fe54-437b-b72b-1aa2efd46e42/download')
    expect(text).toContain('ONS_BALANCO_URL')
    expect(text).toContain('https://ons-aws-prod-opendata.s3.amazonaws.com/dataset/balanco_energia_subsistema_ho')
  })
})
