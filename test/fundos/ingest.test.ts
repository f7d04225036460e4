// The fund ingest end to end: the manifest, both daily layouts (detected by header), bare and
// punctuated CNPJs, line ends and cp1252 bytes, missing and corrupt files (a clear message, the
// data in use kept), malformed rows, downloads from a local CVM stand-in (only changed files),
// and the live pickup of a new build.
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { writeZipEntries } from '../../ingest/lib/zip-write'
import { startReplay, type ReplayServer } from '../../ingest/lib/replay'
import { downloadSources, monthsBack } from '../../ingest/fundos/sources'
import { fundosIngest } from '../../ingest/fundos/command'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { openFundosStore } from '../../src/datasets/fundos/store'
import * as service from '../../src/datasets/fundos/service'
import { get, tempDir, testApp } from '../helpers'
import { ANTIGO, FUNDOS, latin1 } from './fixtures/make'
import { buildFrom, copyFixtures, FIXTURES } from './helpers'

const sha256 = (path: string) => new Bun.CryptoHasher('sha256').update(readFileSync(path)).digest('hex')

/** The text of a zip's single member. */
async function memberText(path: string): Promise<{ name: string; text: string }> {
  const [entry] = await listEntries(path)
  const chunks: Uint8Array[] = []
  for await (const c of readEntry(path, entry!)) chunks.push(c)
  return { name: entry!.name, text: Buffer.concat(chunks).toString('latin1') }
}

/** Rewrites the single member of a daily zip through `edit` (lines without their CRLF). */
async function rewriteDaily(dir: string, month: string, edit: (lines: string[]) => string[], eol = '\r\n') {
  const path = join(dir, `inf_diario_fi_${month}.zip`)
  const { name, text } = await memberText(path)
  const lines = edit(text.split('\r\n').filter(Boolean))
  const bytes = Buffer.from(lines.join(eol) + eol, 'latin1')
  await writeZipEntries(path, [{ name, content: new Uint8Array(bytes) }])
}

const acoes = FUNDOS[1]!.classes[0]!

describe('a build from a folder', () => {
  test('manifest: files with size and sha256, layout, rows kept and dropped, the days and months loaded', async () => {
    const { manifest, dataDir } = await buildFrom(FIXTURES)
    expect(manifest.referencia).toBe('2026-09-29')
    expect(manifest.formato).toBe(1)
    expect(manifest.informes).toEqual({ meses: ['2026-08', '2026-09'], dias: 42, primeiro_dia: '2026-08-03', ultimo_dia: '2026-09-30', dia_consolidado: '2026-09-29', classes: 10, linhas: 375 })
    const aug = manifest.arquivos.find((a) => a.nome === 'inf_diario_fi_202608.zip')!
    expect(aug).toEqual({ nome: 'inf_diario_fi_202608.zip', bytes: statSync(join(FIXTURES, aug.nome)).size, sha256: sha256(join(FIXTURES, aug.nome)), tipo: 'inf_diario', layout: 'rcvm175', linhas_mantidas: 190, linhas_descartadas: 0 })
    expect(manifest.arquivos.map((a) => a.nome)).toEqual(['registro_fundo_classe.zip', 'cad_fi.csv', 'inf_diario_fi_202608.zip', 'inf_diario_fi_202609.zip', 'cda_fi_202606.zip', 'cda_fi_202607.zip'])
    expect(manifest.cadastro).toEqual({ fundos: 7, classes: 9, subclasses: 2, legado: 3 })
    expect(manifest.carteiras.competencias.map((c) => [c.competencia, c.fundos_informantes, c.consolidada])).toEqual([['2026-06', 6, true], ['2026-07', 2, false]])
    expect(manifest.rejeitadas).toEqual({ total: 0, exemplos: [] })
    expect(readlinkSync(join(dataDir, 'fundos', 'current'))).toMatch(/^2026-09-29_/)
  })

  test('the header before RCVM 175 (TP_FUNDO, CNPJ_FUNDO, no ID_SUBCLASSE) is recognized by name, in any column order', async () => {
    const dir = copyFixtures()
    await rewriteDaily(dir, '202608', (lines) => [
      'CNPJ_FUNDO;TP_FUNDO;DT_COMPTC;VL_QUOTA;VL_TOTAL;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST',
      ...lines.slice(1).filter((l) => l.split(';')[2] === '').map((l) => {
        const [, cnpj, , date, total, cota, pl, cap, res, cot] = l.split(';')
        return [cnpj, 'FI', date, cota, total, pl, cap, res, cot].join(';')
      }),
    ])
    const { manifest, dataDir } = await buildFrom(dir)
    expect(manifest.arquivos.find((a) => a.nome === 'inf_diario_fi_202608.zip')).toMatchObject({ layout: 'legado', linhas_mantidas: 190 - 2 * 21 })
    const original = await buildFrom(FIXTURES)
    const [a, b] = [await testApp({ dataDir }), await testApp({ dataDir: original.dataDir })]
    try {
      // August of the stock class is the same whichever header the month came with.
      const day = (r: { body: { classificacoes: { classificacao: string; serie: { data: string }[] }[] } }) => r.body.classificacoes.find((c) => c.classificacao === 'Ações')!.serie
      expect(day(await get(a.app, '/v1/fundos/fluxos?dias=60'))).toEqual(day(await get(b.app, '/v1/fundos/fluxos?dias=60')))
    } finally {
      await a.app.close()
      await b.app.close()
    }
  })

  test('bare CNPJs and LF line ends give the same answers as punctuated ones and CRLF', async () => {
    const dir = copyFixtures()
    await rewriteDaily(dir, '202609', (lines) => lines.map((l, i) => (i === 0 ? l : l.replace(/(\d{2})\.(\d{3})\.(\d{3})\/(\d{4})-(\d{2})/, '$1$2$3$4$5'))), '\n')
    const bare = await buildFrom(dir)
    const original = await buildFrom(FIXTURES)
    const [a, b] = [await testApp({ dataDir: bare.dataDir }), await testApp({ dataDir: original.dataDir })]
    try {
      for (const path of [`/v1/fundos/consulta/${acoes.cnpj}`, '/v1/fundos/fluxos?dias=10', '/v1/fundos/ranking?por=captacao']) {
        const [x, y] = [await get(a.app, path), await get(b.app, path)]
        expect(x.body).toEqual(y.body)
      }
    } finally {
      await a.app.close()
      await b.app.close()
    }
  })

  test('ISO-8859-1 names: accents and º come through; a cp1252-only byte (0x96) is read as the en dash', async () => {
    const dir = copyFixtures()
    const cad = readFileSync(join(dir, 'cad_fi.csv'))
    const name = Buffer.from(ANTIGO.nome, 'latin1')
    const at = cad.indexOf(name)
    expect(at).toBeGreaterThan(0)
    writeFileSync(join(dir, 'cad_fi.csv'), Buffer.concat([cad.subarray(0, at), Buffer.from('FUNDO EXEMPLO ANTIGO \x96 FI (FICTÍCIO, CANCELADO)', 'latin1'), cad.subarray(at + name.length)]))
    const { dataDir } = await buildFrom(dir)
    const { app } = await testApp({ dataDir })
    try {
      expect((await get(app, `/v1/fundos/consulta/${ANTIGO.cnpj}`)).body.nome).toBe('FUNDO EXEMPLO ANTIGO – FI (FICTÍCIO, CANCELADO)')
      expect((await get(app, `/v1/fundos/consulta/${FUNDOS[5]!.classes[0]!.cnpj}`)).body.nome).toBe('FUNDO EXEMPLO ÍNDICE IBOVESPA Nº 1 (FICTÍCIO)')
    } finally {
      await app.close()
    }
  })

  test('an alphanumeric CNPJ (issued from July 2026) is a CNPJ, punctuated or not', async () => {
    const dir = copyFixtures()
    await rewriteDaily(dir, '202609', (lines) => [...lines, 'CLASSES - FIF;12.ABC.345/01DE-35;;2026-09-29;1000.00;1.000000000000;990.00;10.00;0.00;3'])
    const { dataDir } = await buildFrom(dir)
    const { app } = await testApp({ dataDir })
    try {
      const r = await get(app, '/v1/fundos/consulta/12abc34501de35')
      expect(r.body).toMatchObject({ cnpj: '12ABC34501DE35', tipo: 'sem_cadastro', cota: { valor: 1, data: '2026-09-29' }, patrimonio_liquido: { valor: 990, data: '2026-09-29', origem: 'informe_diario' }, cotistas: { quantidade: 3, data: '2026-09-29' } })
    } finally {
      await app.close()
    }
  })

  test('malformed rows are counted with file and line, and the build fails past --max-rejeitadas', async () => {
    const dir = copyFixtures()
    await rewriteDaily(dir, '202609', (lines) => [...lines, 'CLASSES - FIF;12.345;;2026-09-10;1;1;1;0;0;1', 'CLASSES - FIF;00.017.024/0001-53;;2026-10-01;1;1;1;0;0;1'])
    const { manifest } = await buildFrom(dir)
    expect(manifest.rejeitadas).toEqual({
      total: 2,
      exemplos: [
        { arquivo: 'inf_diario_fi_202609.zip', linha: 187, motivo: 'CNPJ inválido: "12.345"' },
        { arquivo: 'inf_diario_fi_202609.zip', linha: 188, motivo: 'DT_COMPTC "2026-10-01" fora de 2026-09' },
      ],
    })
    const { buildFundos, sourcesInDir } = await import('../../ingest/fundos/load')
    await expect(buildFundos({ sources: sourcesInDir(dir), dataDir: tempDir('dadosbr-fundos-data-'), quiet: true, maxRejects: 1 })).rejects.toThrow(/2 linhas malformadas nos informes diários \(limite 1, --max-rejeitadas\)/)
  })
})

describe('missing and corrupt files: a clear message, the data in use kept', () => {
  const current = (dataDir: string) => readlinkSync(join(dataDir, 'fundos', 'current'))

  test('a month missing between two others, the registry missing, no portfolio month', async () => {
    const { dataDir } = await buildFrom(FIXTURES)
    const before = current(dataDir)
    const gap = copyFixtures()
    // A lone June file before them: July is missing in between.
    await writeZipEntries(join(gap, 'inf_diario_fi_202606.zip'), [{ name: 'inf_diario_fi_202606.csv', content: latin1(['TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;ID_SUBCLASSE;DT_COMPTC;VL_TOTAL;VL_QUOTA;VL_PATRIM_LIQ;CAPTC_DIA;RESG_DIA;NR_COTST', 'CLASSES - FIF;00.017.024/0001-53;;2026-06-01;1127873.60;43.453590600000;1191031.59;0.00;0.00;1']) }])
    await expect(buildFrom(gap, dataDir)).rejects.toThrow('arquivos ausentes: falta o informe diário de 2026-07 (inf_diario_fi_202607.zip) entre 2026-06 e 2026-08; a base em uso foi mantida')
    const noRegistry = copyFixtures()
    rmSync(join(noRegistry, 'registro_fundo_classe.zip'))
    rmSync(join(noRegistry, 'cda_fi_202606.zip'))
    rmSync(join(noRegistry, 'cda_fi_202607.zip'))
    await expect(buildFrom(noRegistry, dataDir)).rejects.toThrow('arquivos ausentes: falta o cadastro registro_fundo_classe.zip; nenhuma carteira mensal (cda_fi_AAAAMM.zip); a base em uso foi mantida')
    expect(current(dataDir)).toBe(before)
    // --parcial builds anyway, and says what is missing in the answers (no portfolio: 503 on /movimentacoes).
    const partial = await buildFrom(noRegistry, tempDir('dadosbr-fundos-data-'), { allowPartial: true })
    const { app } = await testApp({ dataDir: partial.dataDir })
    try {
      // A class in neither registry file: known from the daily reports alone.
      expect((await get(app, `/v1/fundos/consulta/${FUNDOS[6]!.classes[0]!.cnpj}`)).body.tipo).toBe('sem_cadastro')
      const mov = await get(app, '/v1/fundos/movimentacoes')
      expect(mov.status).toBe(503)
      expect(mov.body.erro.codigo).toBe('dados_indisponiveis')
    } finally {
      await app.close()
    }
  })

  test('a truncated or corrupt zip names the file and what to do', async () => {
    const { dataDir } = await buildFrom(FIXTURES)
    const before = current(dataDir)
    const cut = copyFixtures()
    truncateSync(join(cut, 'inf_diario_fi_202609.zip'), 3000)
    await expect(buildFrom(cut, dataDir)).rejects.toThrow(/^inf_diario_fi_202609\.zip está corrompido ou incompleto \(.+\); apague-o e baixe de novo \(a base em uso foi mantida\)$/)
    const flipped = copyFixtures()
    const bytes = readFileSync(join(flipped, 'cda_fi_202606.zip'))
    // A byte inside block 4's compressed data (a flip in a block the ingest does not read would not matter).
    const block4 = (await listEntries(join(flipped, 'cda_fi_202606.zip'))).find((e) => e.name.includes('BLC_4'))!
    const at = block4.localHeaderOffset + 30 + block4.name.length + 40
    bytes[at] = bytes[at]! ^ 0xff
    writeFileSync(join(flipped, 'cda_fi_202606.zip'), bytes)
    await expect(buildFrom(flipped, dataDir)).rejects.toThrow(/^cda_fi_202606\.zip está corrompido ou incompleto/)
    expect(current(dataDir)).toBe(before)
  })

  test('a portfolio zip without block 4, a daily file whose header lost a column', async () => {
    const noBlock = copyFixtures()
    await writeZipEntries(join(noBlock, 'cda_fi_202607.zip'), [{ name: 'cda_fi_PL_202607.csv', content: latin1(['TP_FUNDO_CLASSE;CNPJ_FUNDO_CLASSE;DENOM_SOCIAL;DT_COMPTC;VL_PATRIM_LIQ']) }])
    await expect(buildFrom(noBlock)).rejects.toThrow('cda_fi_202607.zip: não tem o bloco 4 (cda_fi_BLC_4_202607.csv); a base em uso foi mantida')
    const header = copyFixtures()
    await rewriteDaily(header, '202609', (lines) => [lines[0]!.replace(';CAPTC_DIA', ''), ...lines.slice(1)])
    await expect(buildFrom(header)).rejects.toThrow('inf_diario_fi_202609.zip: cabeçalho do informe diário não reconhecido (colunas ausentes: CAPTC_DIA); o layout mudou? confira SOURCES.md §5; a base em uso foi mantida')
  })
})

describe('live pickup', () => {
  test('a running server answers from a new build without restart', async () => {
    const { dataDir } = await buildFrom(FIXTURES)
    const store = await openFundosStore(loadConfig({ free: true, dataDir }, {}), createLogger('silent'))
    try {
      expect(await store.use((s) => service.fluxos(s.files, { dias: 1 }).dia.data)).toBe('2026-09-29')
      // A new build where the last day is complete (every class reported on 2026-09-30).
      const dir = copyFixtures()
      await rewriteDaily(dir, '202609', (lines) => [...lines, ...lines.filter((l) => l.includes(';2026-09-29;') && !l.includes('99.110.001')).map((l) => l.replace(';2026-09-29;', ';2026-09-30;'))])
      await buildFrom(dir, dataDir)
      expect(await store.reload()).toBe(true)
      expect(await store.use((s) => service.fluxos(s.files, { dias: 1 }).dia.data)).toBe('2026-09-30')
    } finally {
      await store.close()
    }
  })
})

describe('downloads from the CVM (a local stand-in with its directory listings)', () => {
  /** Serves a folder of files at /dados/FI/... as the CVM lays them out, each with an ETag that changes when the file does. */
  function cvm(source: string, options: { listings?: boolean } = {}): ReplayServer & { etags: Map<string, string> } {
    const etags = new Map<string, string>()
    const folderOf = (name: string) => (name.startsWith('inf_diario') ? 'DOC/INF_DIARIO/DADOS' : name.startsWith('cda_fi') ? 'DOC/CDA/DADOS' : 'CAD/DADOS')
    const server = startReplay() as ReplayServer & { etags: Map<string, string> }
    server.etags = etags
    const names = () => [...new Bun.Glob('*').scanSync(source)].sort()
    server.on('/dados/FI/DOC/INF_DIARIO/DADOS/', () => listing('DOC/INF_DIARIO/DADOS', names().filter((n) => n.startsWith('inf_diario'))))
    server.on('/dados/FI/DOC/CDA/DADOS/', () => listing('DOC/CDA/DADOS', names().filter((n) => n.startsWith('cda_fi'))))
    const listing = (folder: string, files: string[]) =>
      options.listings === false
        ? { status: 404, body: 'not found' }
        : {
            headers: { 'content-type': 'text/html;charset=ISO-8859-1' },
            body: `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n  <title>Index of /dados/FI/${folder}</title>\n </head>\n <body>\n<h1>Index of /dados/FI/${folder}</h1>\n  <table>\n   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th></tr>\n   <tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/dados/FI/${folder.split('/').slice(0, -1).join('/')}/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td></tr>\n${files.map((f) => `<tr><td valign="top"><img src="/icons/compressed.gif" alt="[   ]"></td><td><a href="${f}">${f}</a></td><td align="right">2026-10-05 08:04  </td><td align="right"> 10K</td></tr>`).join('\n')}\n  </table>\n</body></html>\n`,
          }
    for (const name of names()) {
      etags.set(name, `"${sha256(join(source, name)).slice(0, 12)}"`)
      // As Apache answers: 304 to a request whose If-None-Match is the file's current ETag.
      server.on(`/dados/FI/${folderOf(name)}/${name}`, (_url, request) => {
        if (!existsSync(join(source, name))) return { status: 404 }
        const headers = { etag: etags.get(name)!, 'last-modified': 'Mon, 05 Oct 2026 11:04:00 GMT' }
        return request.headers.get('if-none-match') === etags.get(name) ? { status: 304, headers } : { file: join(source, name), headers }
      })
    }
    return server
  }

  test('the first run downloads every file; the next ones only what changed; --se-preciso builds nothing when nothing did', async () => {
    const source = copyFixtures()
    const server = cvm(source)
    const dataDir = tempDir('dadosbr-fundos-data-')
    const downloads = join(dataDir, 'downloads', 'fundos')
    const run = (flags: Record<string, string | boolean> = {}) => fundosIngest.run({ flags: { '--fonte': `${server.url}/dados/FI`, ...flags }, dataDir, quiet: true, log: () => {} })
    try {
      expect(await run()).toMatch(/^base de fundos pronta em .* s: informes 2026-08 a 2026-09 .*; baixados 6, inalterados 0$/)
      // The validators of each copy sit beside it (ingest/lib/conditional.ts) and go back with the next request.
      expect(JSON.parse(readFileSync(join(downloads, 'inf_diario_fi_202609.zip.http.json'), 'utf8'))).toEqual({ url: `${server.url}/dados/FI/DOC/INF_DIARIO/DADOS/inf_diario_fi_202609.zip`, etag: server.etags.get('inf_diario_fi_202609.zip'), last_modified: 'Mon, 05 Oct 2026 11:04:00 GMT' })
      expect(await run({ '--se-preciso': true })).toMatch(/destes mesmos arquivos, no formato desta versão: nada a fazer; baixados 0, inalterados 6$/)
      // The CVM rewrites the current month in place.
      await rewriteDaily(source, '202609', (lines) => [...lines, ...lines.filter((l) => l.includes(';2026-09-29;') && !l.includes('99.110.001')).map((l) => l.replace(';2026-09-29;', ';2026-09-30;'))])
      server.etags.set('inf_diario_fi_202609.zip', '"nova-versao"')
      expect(await run({ '--se-preciso': true })).toMatch(/dia consolidado 2026-09-30\).*; baixados 1, inalterados 5$/)
      expect(sha256(join(downloads, 'inf_diario_fi_202609.zip'))).toBe(sha256(join(source, 'inf_diario_fi_202609.zip')))
      const manifest = JSON.parse(readFileSync(join(dataDir, 'fundos', 'current', 'manifest.json'), 'utf8'))
      expect(manifest.arquivos.find((a: { nome: string }) => a.nome === 'inf_diario_fi_202609.zip')).toMatchObject({ etag: '"nova-versao"', ultima_modificacao: 'Mon, 05 Oct 2026 11:04:00 GMT' })
    } finally {
      server.close()
    }
  })

  test('a downloaded file that does not open is dropped, so the next run downloads it again instead of keeping it (304)', async () => {
    const source = copyFixtures()
    const server = cvm(source)
    const dataDir = tempDir('dadosbr-fundos-data-')
    const downloads = join(dataDir, 'downloads', 'fundos')
    const run = () => fundosIngest.run({ flags: { '--fonte': `${server.url}/dados/FI` }, dataDir, quiet: true, log: () => {} })
    try {
      const good = readFileSync(join(source, 'cda_fi_202607.zip'))
      writeFileSync(join(source, 'cda_fi_202607.zip'), good.subarray(0, good.length - 40))
      await expect(run()).rejects.toThrow(/^cda_fi_202607\.zip está corrompido ou incompleto .*; a cópia baixada foi apagada e a próxima rodada a baixa de novo$/)
      expect(existsSync(join(downloads, 'cda_fi_202607.zip'))).toBe(false)
      expect(existsSync(join(downloads, 'inf_diario_fi_202609.zip'))).toBe(true)
      // The CVM fixes the file (same ETag: the stand-in would answer 304 to a request that had kept it).
      writeFileSync(join(source, 'cda_fi_202607.zip'), good)
      expect(await run()).toMatch(/carteiras 2026-06, 2026-07 \(parcial\).*; baixados 1, inalterados 5$/)
    } finally {
      server.close()
    }
  })

  test('without a listing, the months come from the clock; a missing newest month is normal', async () => {
    const source = copyFixtures()
    const server = cvm(source, { listings: false })
    try {
      const r = await downloadSources({ baseUrl: `${server.url}/dados/FI`, dir: tempDir('dadosbr-fundos-dl-'), dailyMonths: 12, portfolioMonths: 3, quiet: true, now: new Date('2026-10-02T12:00:00Z'), retryDelayMs: 1 })
      // 2026-10 is not there yet; 2026-09 and 2026-08 are; 2026-07 is not (the window ends there).
      expect(r.sources.daily.map((f) => f.month)).toEqual(['2026-08', '2026-09'])
      expect(r.sources.portfolios.map((f) => f.month)).toEqual(['2026-06', '2026-07'])
      expect(r.sources.legacy?.name).toBe('cad_fi.csv')
      expect(monthsBack(new Date('2026-01-01T02:00:00Z'), 3)).toEqual(['2025-12', '2025-11', '2025-10'])
    } finally {
      server.close()
    }
  })

  test('a listed file that is gone, a server that fails: one line saying what to do, nothing built', async () => {
    const source = copyFixtures()
    const server = cvm(source)
    const dataDir = tempDir('dadosbr-fundos-data-')
    try {
      rmSync(join(source, 'inf_diario_fi_202608.zip'))
      server.on('/dados/FI/DOC/INF_DIARIO/DADOS/', () => ({ body: '<a href="inf_diario_fi_202608.zip">x</a> <a href="inf_diario_fi_202609.zip">y</a>' }))
      await expect(fundosIngest.run({ flags: { '--fonte': `${server.url}/dados/FI` }, dataDir, quiet: true, log: () => {} })).rejects.toThrow(/inf_diario_fi_202608\.zip não existe \(HTTP 404\), embora listado; a base em uso foi mantida/)
      server.fault = { kind: 'status', status: 503 }
      await expect(downloadSources({ baseUrl: `${server.url}/dados/FI`, dir: tempDir('dadosbr-fundos-dl-'), dailyMonths: 12, portfolioMonths: 3, quiet: true, retryDelayMs: 1 }))
        .rejects.toThrow(/registro_fundo_classe\.zip: HTTP 503; a CVM está fora do ar\? tente de novo mais tarde \(a base em uso foi mantida\)/)
      expect(existsSync(join(dataDir, 'fundos', 'current'))).toBe(false)
    } finally {
      server.close()
    }
  })

})
