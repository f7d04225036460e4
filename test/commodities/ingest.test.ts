// `dadosbr ingest exportacoes`: from ComexStat through the replay server (this year and last, only
// what changed, a current year not published yet), from --from DIR, and a broken file that keeps
// the build in use. The server picks a new build up without restart.
import { afterAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { exportacoesIngest } from '../../ingest/commodities/command'
import { downloadExp } from '../../ingest/commodities/sources'
import { startReplay } from '../../ingest/lib/replay'
import { currentManifest } from '../../ingest/lib/snapshot'
import { ingest } from '../../src/cli/ingest'
import type { ExportacoesManifest } from '../../src/datasets/commodities/exportacoes'
import { get, testApp } from '../helpers'
import { tempDir } from '../temp'

const SAMPLE = join(import.meta.dir, 'fixtures', 'exportacoes-amostra')
const comex = startReplay()
let etagHits = 0
for (const ano of [2023, 2024, 2025]) {
  const body = readFileSync(join(SAMPLE, `EXP_${ano}.csv`))
  comex.on(`/EXP_${ano}.csv`, (_url, request) => {
    if (request.headers.get('if-none-match') === `"exp-${ano}"`) {
      etagHits++
      return { status: 304 }
    }
    return { status: 200, headers: { etag: `"exp-${ano}"`, 'content-type': 'text/csv' }, body: new Uint8Array(body) }
  })
}
const before = process.env.COMEXSTAT_URL
process.env.COMEXSTAT_URL = comex.url
afterAll(() => {
  comex.close()
  if (before === undefined) delete process.env.COMEXSTAT_URL
  else process.env.COMEXSTAT_URL = before
})

const ctx = (dataDir: string, flags: Record<string, string | boolean> = {}) => ({ flags, dataDir, quiet: true, log: () => {} })

describe('dadosbr ingest exportacoes', () => {
  test('downloads three years back from this one; this year not published yet (404): the three before', async () => {
    const dir = tempDir('exp-dl-')
    // "Now" is 10 January 2026: EXP_2026.csv does not exist yet.
    const got = await downloadExp(dir, { now: Date.parse('2026-01-10T12:00:00Z'), quiet: true, retryDelayMs: 1 })
    expect(got).toEqual({ anos: [2025, 2024, 2023], baixados: ['EXP_2025.csv', 'EXP_2024.csv', 'EXP_2023.csv'] })
    expect(comex.requests.map((r) => r.path)).toEqual(['/EXP_2026.csv', '/EXP_2025.csv', '/EXP_2024.csv', '/EXP_2023.csv'])
    const again = await downloadExp(dir, { now: Date.parse('2026-01-10T12:00:00Z'), quiet: true, retryDelayMs: 1 })
    expect([again.baixados, etagHits]).toEqual([[], 3])
    // --anos 2: this year and last only.
    expect((await downloadExp(tempDir('exp-dl-'), { anos: 2, now: Date.parse('2026-03-10T12:00:00Z'), quiet: true, retryDelayMs: 1 })).anos).toEqual([2025, 2024])
  })

  test('builds the 13 months, says nothing changed on a second run, and a running server follows the new build', async () => {
    const dataDir = tempDir('exp-build-')
    const dir = tempDir('exp-from-')
    for (const f of ['EXP_2024.csv', 'EXP_2025.csv']) copyFileSync(join(SAMPLE, f), join(dir, f))
    const first = await exportacoesIngest.run(ctx(dataDir, { '--from': dir }))
    expect(first).toMatch(/^exportações até 2025-12 prontas em [\d.]+ s \(de .+\): EXP_2025\.csv 404 linhas, EXP_2024\.csv 409 linhas; 765 linhas nos grupos$/)
    const m = currentManifest<ExportacoesManifest>(dataDir, 'exportacoes')!
    expect([m.base, m.formato, m.referencia, m.linhas_lidas, m.linhas_nos_grupos]).toEqual(['MDIC/ComexStat (EXP_AAAA.csv por NCM)', 1, '2025-12', 813, 765])
    expect(m.arquivos.map((a) => [a.nome, a.linhas_mantidas, a.linhas_descartadas, a.sha256.length])).toEqual([['EXP_2025.csv', 404, 0, 64], ['EXP_2024.csv', 409, 0, 64]])
    expect(await exportacoesIngest.run(ctx(dataDir, { '--from': dir }))).toBe('exportações já construídas desses arquivos (EXP_2025.csv 404 linhas, EXP_2024.csv 409 linhas): nada a fazer')

    const { app } = await testApp({ dataDir })
    try {
      expect((await get(app, '/v1/commodities/exportacoes')).body.referencia).toBe('2025-12')
      // A revised current-year file with January 2026: rebuilt, picked up live.
      writeFileSync(join(dir, 'EXP_2026.csv'), '"CO_ANO";"CO_MES";"CO_NCM";"CO_UNID";"CO_PAIS";"SG_UF_NCM";"CO_VIA";"CO_URF";"QT_ESTAT";"KG_LIQUIDO";"VL_FOB"\n"2026";"01";"12019000";"10";"160";"MT";"01";"0817600";6000000000;6000000000;2400000000\n')
      await exportacoesIngest.run(ctx(dataDir, { '--from': dir }))
      await (app.ctx.stores.get('commodities') as any).reload()
      // Answers are written once a second: the next second has the new build.
      await Bun.sleep(1100)
      const r = await get(app, '/v1/commodities/exportacoes')
      expect(r.body.referencia).toBe('2026-01')
      expect(r.body.grupos[0].ultimo_mes).toMatchObject({ mes: '2026-01', kg_liquido: 6000000000, fob_usd: 2400000000 })
    } finally {
      await app.close()
    }
  })

  test('a cut or foreign file fails the build with what to do; the build in use stays', async () => {
    const dataDir = tempDir('exp-bad-')
    const dir = tempDir('exp-from-')
    for (const f of ['EXP_2024.csv', 'EXP_2025.csv']) copyFileSync(join(SAMPLE, f), join(dir, f))
    await exportacoesIngest.run(ctx(dataDir, { '--from': dir }))
    const inUse = currentManifest<ExportacoesManifest>(dataDir, 'exportacoes')!.construido_em
    writeFileSync(join(dir, 'EXP_2025.csv'), '<html><head><title>503 Service Unavailable</title></head></html>')
    await expect(exportacoesIngest.run(ctx(dataDir, { '--from': dir }))).rejects.toThrow('EXP_2025.csv: não é um arquivo EXP da ComexStat (colunas ausentes: CO_ANO, CO_MES, CO_NCM, KG_LIQUIDO, VL_FOB)')
    writeFileSync(join(dir, 'EXP_2025.csv'), readFileSync(join(SAMPLE, 'EXP_2025.csv'), 'utf8').replaceAll(';"01";', ';"1";'))
    await expect(exportacoesIngest.run(ctx(dataDir, { '--from': dir }))).rejects.toThrow(/linhas fora do formato \(de \d+\): arquivo truncado ou de outro layout\? A base em uso foi mantida/)
    expect(currentManifest<ExportacoesManifest>(dataDir, 'exportacoes')!.construido_em).toBe(inUse)
    const empty = tempDir('exp-empty-')
    mkdirSync(join(empty, 'x'))
    await expect(exportacoesIngest.run(ctx(dataDir, { '--from': empty }))).rejects.toThrow(`nenhum arquivo EXP_AAAA.csv em ${empty}`)
  })

  test('the command line: --help names the setting; a bad --anos is a usage error', async () => {
    const out: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write
    try {
      expect(await ingest(['exportacoes', '--help'])).toBe(0)
    } finally {
      process.stdout.write = write
    }
    expect(out.join('')).toContain('COMEXSTAT_URL')
    await expect(ingest(['exportacoes', '--anos', '9', '--data', tempDir('exp-cli-'), '--quiet'])).rejects.toThrow('--anos precisa ser um número de 1 a 5')
  })
})
