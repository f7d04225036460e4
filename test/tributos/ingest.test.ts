// `dadosbr ingest tributos`: --from a folder with the table as downloaded, and the download against
// a local server standing in for the Portal Único (the real path and query), with its faults.
import { afterAll, describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tributosIngest } from '../../ingest/tributos/command'
import { buildTributos, MIN_SUBITENS } from '../../ingest/tributos/load'
import { downloadTabelaNcm, TABELA_FILE } from '../../ingest/tributos/sources'
import { startReplay } from '../../ingest/lib/replay'
import { currentManifest } from '../../ingest/lib/snapshot'
import { DATASET, type TributosManifest } from '../../src/datasets/tributos/layout'
import { openTributosFiles } from '../../src/datasets/tributos/store'
import { tempDir } from '../temp'

const SAMPLE = join(import.meta.dir, 'fixtures', 'tributos-amostra')
const SAMPLE_FILE = join(SAMPLE, 'Tabela_NCM_Vigente_20250513.json')
const PATH = '/classif/api/publico/nomenclatura/download/json'

function copySample(name = 'Tabela_NCM_Vigente_20250513.json'): string {
  const dir = tempDir('dadosbr-tributos-src-')
  copyFileSync(SAMPLE_FILE, join(dir, name))
  return dir
}

const open = (dataDir: string) => openTributosFiles(join(dataDir, DATASET, 'current'), currentManifest<TributosManifest>(dataDir, DATASET)!)

describe('--from DIR', () => {
  test('builds the table and records what it read, and the annex codes this table lacks', async () => {
    const dataDir = tempDir('dadosbr-tributos-')
    const r = await buildTributos({ dir: copySample('qualquer nome.json'), dataDir, minSubitens: 1 })
    expect(r.built).toBe(true)
    const m = r.manifest
    expect([m.base, m.formato, m.referencia, m.tabela_ncm]).toEqual(['Siscomex/NCM', 1, '2025-05-13', { vigencia: 'Vigente em 13/05/2025', ato: 'Resolução Camex nº 641/2024', codigos: 196, subitens: 127 }])
    expect(m.arquivos).toEqual([{ nome: 'qualquer nome.json', tipo: 'tabela_ncm', data: '2025-05-13', bytes: 41687, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), linhas_mantidas: 196, linhas_descartadas: 0, descartadas: { codigo_invalido: 0, fora_de_vigencia: 0, repetidas: 0 } }])
    // An excerpt lacks most of what the annexes cite; the rice of Annex I item 1 it has.
    expect(m.anexos.fora_da_tabela.some((f) => f.codigo === '1006.30')).toBe(false)
    expect(m.anexos.fora_da_tabela).toContainEqual({ anexo: 'I', item: '7', codigo: '0713.33.19' })
    const f = open(dataDir)
    expect([f.porCodigo.size, f.subitens.length, f.porCodigo.get('10063021')!.descricao]).toEqual([196, 127, 'Polido ou brunido'])
  })

  test('nothing to do when the table and the annex data are those of the build in use; --forcar rebuilds', async () => {
    const dataDir = tempDir('dadosbr-tributos-')
    const dir = copySample()
    await buildTributos({ dir, dataDir, minSubitens: 1 })
    const inUse = readlinkSync(join(dataDir, DATASET, 'current'))
    expect((await buildTributos({ dir, dataDir, minSubitens: 1 })).built).toBe(false)
    expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBe(inUse)
    expect((await buildTributos({ dir, dataDir, minSubitens: 1, force: true })).built).toBe(true)
    expect(readlinkSync(join(dataDir, DATASET, 'current'))).not.toBe(inUse)
  })

  test('refusals keep the build in use and say what to do', async () => {
    const dataDir = tempDir('dadosbr-tributos-')
    await buildTributos({ dir: copySample(), dataDir, minSubitens: 1 })
    const inUse = readlinkSync(join(dataDir, DATASET, 'current'))
    const refused = async (dir: string, message: RegExp, minSubitens?: number) => {
      const err = await buildTributos({ dir, dataDir, force: true, minSubitens }).then(() => null, (e: Error) => e)
      expect(err?.message).toMatch(message)
      expect(err!.message).not.toContain('\n')
      expect(readlinkSync(join(dataDir, DATASET, 'current'))).toBe(inUse)
      expect(readdirSync(join(dataDir, DATASET)).filter((e) => e.endsWith('.tmp'))).toEqual([])
    }
    // An excerpt is not a whole table: refused without the sample's explicit allowance.
    await refused(copySample(), new RegExp(`127 códigos de 8 dígitos .*cerca de 10 mil`), MIN_SUBITENS)
    const cut = copySample()
    writeFileSync(join(cut, 'Tabela_NCM_Vigente_20250513.json'), readFileSync(SAMPLE_FILE).subarray(0, 30_000))
    await refused(cut, /Tabela_NCM_Vigente_20250513\.json: não é JSON válido/, 1)
    const two = copySample()
    copyFileSync(SAMPLE_FILE, join(two, 'outra.json'))
    await refused(two, /mais de um \.json .*deixe só a Tabela NCM/, 1)
    await refused(tempDir('dadosbr-tributos-vazio-'), /nenhum arquivo \.json .*Portal Único Siscomex/, 1)
    await refused('/nao/existe/dadosbr', /pasta não encontrada/, 1)
  })
})

describe('download from the Portal Único (local stand-in)', () => {
  const server = startReplay()
  afterAll(() => server.close())
  const env = () => ({ SISCOMEX_CLASSIF_URL: `${server.url}/classif/api/publico` })
  const fast = { retries: 1, retryDelayMs: 10, quiet: true }

  test('the real path and query; ETag sent back; a 304 keeps the copy', async () => {
    server.routes.length = 0
    server.requests.length = 0
    server.fault = { kind: 'none' }
    server.on(PATH, (_url, req) => (req.headers.get('if-none-match') === '"v1"' ? { status: 304 } : { headers: { etag: '"v1"', 'content-type': 'application/json' }, file: SAMPLE_FILE }), { perfil: 'PUBLICO' })
    const dir = tempDir('dadosbr-tributos-dl-')
    expect(await downloadTabelaNcm(dir, fast, env())).toEqual({ dir, changed: true })
    expect(readFileSync(join(dir, TABELA_FILE))).toEqual(readFileSync(SAMPLE_FILE))
    expect(await downloadTabelaNcm(dir, fast, env())).toEqual({ dir, changed: false })
    expect(server.requests.map((r) => r.path)).toEqual([`${PATH}?perfil=PUBLICO`, `${PATH}?perfil=PUBLICO`])
    expect(server.requests[1]!.headers.get('if-none-match')).toBe('"v1"')
  })

  test('a cut answer is resumed with Range; an HTML page served with 200 is refused and set aside', async () => {
    server.routes.length = 0
    server.on(PATH, { file: SAMPLE_FILE })
    server.fault = { kind: 'truncate', bytes: 10_000 }
    const dir = tempDir('dadosbr-tributos-dl-')
    const got = downloadTabelaNcm(dir, fast, env())
    await Bun.sleep(50)
    server.fault = { kind: 'none' }
    expect((await got).changed).toBe(true)
    expect(readFileSync(join(dir, TABELA_FILE))).toEqual(readFileSync(SAMPLE_FILE))

    server.routes.length = 0
    server.on(PATH, { body: '<html><body>Sistema em manutenção</body></html>', headers: { 'content-type': 'text/html' } })
    const bad = tempDir('dadosbr-tributos-dl-')
    const err = await downloadTabelaNcm(bad, fast, env()).then(() => null, (e: Error) => e)
    expect(err?.message).toMatch(/o Siscomex respondeu algo que não é a Tabela NCM \(não é JSON válido.*tente mais tarde ou use --from DIR/)
    expect(existsSync(join(bad, TABELA_FILE))).toBe(false)
    expect(existsSync(join(bad, `${TABELA_FILE}.recusado`))).toBe(true)
  })

  test('an upstream down or failing: one line saying what to do', async () => {
    server.routes.length = 0
    server.on(PATH, { file: SAMPLE_FILE })
    server.fault = { kind: 'status', status: 503 }
    const err = await downloadTabelaNcm(tempDir('dadosbr-tributos-dl-'), fast, env()).then(() => null, (e: Error) => e)
    expect(err?.message).toMatch(/HTTP 503; tente mais tarde .*--from DIR/)
    server.fault = { kind: 'none' }
  })

  test('the command: download, build, then nothing to do', async () => {
    server.routes.length = 0
    server.on(PATH, (_url, req) => (req.headers.get('if-none-match') === '"v2"' ? { status: 304 } : { headers: { etag: '"v2"' }, file: SAMPLE_FILE }))
    const dataDir = tempDir('dadosbr-tributos-')
    const before = process.env.SISCOMEX_CLASSIF_URL
    process.env.SISCOMEX_CLASSIF_URL = env().SISCOMEX_CLASSIF_URL
    try {
      const ctx = { flags: {}, dataDir, quiet: true, log: () => {} }
      // A whole-table check refuses the excerpt through the command too: the real table must be whole.
      expect(await tributosIngest.run(ctx).then(() => null, (e: Error) => e.message)).toMatch(/cerca de 10 mil/)
      expect(existsSync(join(dataDir, 'downloads', 'tributos', TABELA_FILE))).toBe(true)
    } finally {
      if (before === undefined) delete process.env.SISCOMEX_CLASSIF_URL
      else process.env.SISCOMEX_CLASSIF_URL = before
    }
  })
})

describe('bundled sample', () => {
  test('ingest tributos --amostra builds the excerpt; asked again only if needed, it does nothing', async () => {
    const dataDir = tempDir('dadosbr-tributos-')
    const ctx = { flags: {}, dataDir, quiet: true, log: () => {} }
    expect(await tributosIngest.sample(ctx, false)).toMatch(/^base tributos 2025-05-13 pronta em .* 196 códigos NCM \(127 de 8 dígitos\), Vigente em 13\/05\/2025; anexos 2026-11-24/)
    expect(await tributosIngest.sample(ctx, true)).toMatch(/já foi construída desta tabela/)
    expect(tributosIngest.sampleAssets).toEqual(['test/tributos/fixtures/tributos-amostra'])
  })
})
