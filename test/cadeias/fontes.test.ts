// The chains' own sources: ANEEL's tariff flags (the real file as published, its variants and
// breakages) and ONS's hourly energy balance (the bundled recording, the vintages' quirks, early
// January, missing years), parsed and fetched through the replay server as the server does.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FeedRunner } from '../../src/core/feeds/feed'
import { createLogger } from '../../src/core/log'
import { CADEIAS_FEEDS } from '../../src/datasets/cadeias'
import { bandeiraDe, parseBandeiras } from '../../src/datasets/cadeias/bandeira'
import { bandeiraNoMes } from '../../src/datasets/cadeias/fontes'
import { diasCompletos, parseBalanco, resumoTermica, type Balanco } from '../../src/datasets/cadeias/termica'
import { tempDir } from '../temp'
import { FIXTURES, GRAVADO_EM, startUpstreams } from './helpers'

const REAL = readFileSync(join(FIXTURES, 'formatos', 'bandeira-tarifaria-acionamento-2026-05-01.csv'))
const BALANCO_2026 = readFileSync(join(FIXTURES, 'cadeias-amostra', 'BALANCO_ENERGIA_SUBSISTEMA_2026.csv'), 'utf8')
const utf8 = (s: string) => new TextEncoder().encode(s)
const HEADER_BAL = 'id_subsistema;nom_subsistema;din_instante;val_gerhidraulica;val_gertermica;val_gereolica;val_gersolar;val_carga;val_intercambio'

describe('ANEEL flags: the file as published on 2026-05-01 (windows-1252, LF)', () => {
  test('every competence from January 2015 to April 2026, names and surcharges as written', async () => {
    expect(REAL.includes(0xed)).toBe(true) // "Escassez H\xEDdrica": one byte, not UTF-8
    const d = await parseBandeiras(REAL)
    expect(d.gerado_em).toBe('2026-05-01')
    expect(d.meses).toHaveLength(136)
    expect(d.meses[0]).toEqual({ competencia: '2015-01', bandeira: 'Vermelha P1', patamar: 2, adicional_rs_mwh: 30 })
    expect(d.meses.find((m) => m.competencia === '2016-04')).toEqual({ competencia: '2016-04', bandeira: 'Verde', patamar: 0, adicional_rs_mwh: 0 })
    expect(d.meses.find((m) => m.competencia === '2021-09')).toEqual({ competencia: '2021-09', bandeira: 'Escassez Hídrica', patamar: 4, adicional_rs_mwh: 142 })
    expect(d.meses.find((m) => m.competencia === '2024-10')).toEqual({ competencia: '2024-10', bandeira: 'Vermelha P2', patamar: 3, adicional_rs_mwh: 78.77 })
    expect(d.meses.find((m) => m.competencia === '2025-12')).toEqual({ competencia: '2025-12', bandeira: 'Amarela', patamar: 1, adicional_rs_mwh: 18.85 })
    expect(d.meses[135]).toEqual({ competencia: '2026-04', bandeira: 'Verde', patamar: 0, adicional_rs_mwh: 0 })
    const counts = Object.fromEntries(['Verde', 'Amarela', 'Vermelha P1', 'Vermelha P2', 'Escassez Hídrica'].map((b) => [b, d.meses.filter((m) => m.bandeira === b).length]))
    expect(counts).toEqual({ Verde: 67, Amarela: 20, 'Vermelha P1': 26, 'Vermelha P2': 15, 'Escassez Hídrica': 8 }) // counted with cut | sort | uniq -c
  })

  test('the same rows in UTF-8 with a BOM and CRLF read the same', async () => {
    const text = '\ufeff' + new TextDecoder('windows-1252').decode(REAL).replaceAll('\n', '\r\n')
    expect(await parseBandeiras(utf8(text))).toEqual(await parseBandeiras(REAL))
  })

  test('spellings of other versions and clients, dd/mm/yyyy dates, thousands separators, a month listed twice (the last row wins)', async () => {
    const d = await parseBandeiras(utf8('DatCompetencia;NomBandeiraAcionada;VlrAdicionalBandeira\n01/08/2021;VERMELHA - PATAMAR 2;94,92\n01/09/2021;ESCASSEZ HIDRICA;1.420,00\n01/10/2021;amarela;\n01/10/2021;Vermelha 1;41.69\n'))
    expect(d).toEqual({
      gerado_em: null,
      meses: [
        { competencia: '2021-08', bandeira: 'Vermelha P2', patamar: 3, adicional_rs_mwh: 94.92 },
        { competencia: '2021-09', bandeira: 'Escassez Hídrica', patamar: 4, adicional_rs_mwh: 1420 },
        { competencia: '2021-10', bandeira: 'Vermelha P1', patamar: 2, adicional_rs_mwh: 41.69 },
      ],
    })
    expect([bandeiraDe(' Vermelha Patamar 1 '), bandeiraDe('Escassez Hídrica'), bandeiraDe('Roxa')]).toEqual(['Vermelha P1', 'Escassez Hídrica', null])
  })

  test('a flag the rules do not know, a broken date or surcharge, another file, an empty one: refused with the line and what to do', async () => {
    const head = 'DatGeracaoConjuntoDados;DatCompetencia;NomBandeiraAcionada;VlrAdicionalBandeira\n'
    await expect(parseBandeiras(utf8(`${head}2026-05-01;2026-06-01;Vermelha P3;99,00\n`))).rejects.toThrow('linha 2: bandeira desconhecida "Vermelha P3" (conhecidas: Verde, Amarela, Vermelha P1, Vermelha P2, Escassez Hídrica); a regra da cadeia energia_br precisa dela antes de lê-la')
    await expect(parseBandeiras(utf8(`${head}2026-05-01;2026-13-01;Verde;,00\n`))).rejects.toThrow('linha 2: DatCompetencia fora do formato: "2026-13-01"')
    await expect(parseBandeiras(utf8(`${head}2026-05-01;2026-04-01;Verde;n/d\n`))).rejects.toThrow('linha 2: valor do adicional fora do formato: "n/d"')
    await expect(parseBandeiras(utf8('<html><body>Manutenção programada</body></html>'))).rejects.toThrow('não é o CSV de bandeiras acionadas da ANEEL')
    await expect(parseBandeiras(utf8(head))).rejects.toThrow('nenhuma competência no arquivo')
    await expect(parseBandeiras(utf8(''))).rejects.toThrow('arquivo vazio')
  })

  test('the flag in force in a month: the latest competence up to it, the month before, the next one once announced', async () => {
    const d = await parseBandeiras(REAL)
    expect(bandeiraNoMes(d, '2026-01')).toMatchObject({ vigente: { competencia: '2026-01', bandeira: 'Verde' }, anterior: { competencia: '2025-12', bandeira: 'Amarela' }, variacao_patamar: -1, proxima: { competencia: '2026-02' } })
    expect(bandeiraNoMes(d, '2025-08')).toMatchObject({ vigente: { bandeira: 'Vermelha P2' }, anterior: { bandeira: 'Vermelha P1' }, variacao_patamar: 1 })
    // A month past the file: the last one known (the chain reads it as stale), nothing announced.
    expect(bandeiraNoMes(d, '2026-09')).toMatchObject({ vigente: { competencia: '2026-04' }, proxima: null })
    expect(bandeiraNoMes(d, '2014-12')).toMatchObject({ vigente: null, anterior: null, variacao_patamar: null })
  })
})

async function balanco(...texts: string[]): Promise<{ b: Balanco; descartadas: number }> {
  const b: Balanco = new Map()
  let descartadas = 0
  for (const t of texts) descartadas += await parseBalanco(t, 'teste', b)
  return { b, descartadas }
}

describe('ONS energy balance', () => {
  test('the bundled January 2026: 28 complete days; the last 7 against the 7 before, recomputed here from the SIN rows', async () => {
    const { b, descartadas } = await balanco(BALANCO_2026)
    const dias = diasCompletos(b)
    expect([dias.length, dias[0]!.data, dias[27]!.data, descartadas]).toEqual([28, '2026-01-01', '2026-01-28', 0])
    const r = resumoTermica(dias)
    // Independent arithmetic over the file's SIN rows.
    const sin = BALANCO_2026.split('\n').filter((l) => l.startsWith('SIN;')).map((l) => l.split(';'))
    const media = (de: string, ate: string, col: number) => {
      const days = new Map<string, number>()
      for (const f of sin) if (f[2]!.slice(0, 10) >= de && f[2]!.slice(0, 10) <= ate) days.set(f[2]!.slice(0, 10), (days.get(f[2]!.slice(0, 10)) ?? 0) + Number(f[col]))
      return [...days.values()].map((v) => Math.round((v / 24) * 10) / 10).reduce((a, v) => a + v, 0) / days.size
    }
    const termica = media('2026-01-22', '2026-01-28', 4)
    const carga = media('2026-01-22', '2026-01-28', 7)
    expect(r.janela).toEqual({ de: '2026-01-22', ate: '2026-01-28', termica_mwmed: Math.round(termica * 10) / 10, carga_mwmed: Math.round(carga * 10) / 10, participacao_termica_pct: Math.round((termica / carga) * 10000) / 100 })
    expect(r.janela).toEqual({ de: '2026-01-22', ate: '2026-01-28', termica_mwmed: 7531.4, carga_mwmed: 76137.6, participacao_termica_pct: 9.89 })
    const [t0, c0] = [media('2026-01-15', '2026-01-21', 4), media('2026-01-15', '2026-01-21', 7)]
    expect(r.anterior).toEqual({ de: '2026-01-15', ate: '2026-01-21', termica_mwmed: Math.round(t0 * 10) / 10, carga_mwmed: Math.round(c0 * 10) / 10, participacao_termica_pct: Math.round((t0 / c0) * 10000) / 100 })
    expect(r.anterior).toEqual({ de: '2026-01-15', ate: '2026-01-21', termica_mwmed: 8080.8, carga_mwmed: 76137.6, participacao_termica_pct: 10.61 })
    expect(r.variacao_participacao_pp).toBe(-0.72)
    expect(r.dia).toBe('2026-01-28')
    expect(r.serie.map((d) => d.data)).toEqual(Array.from({ length: 14 }, (_, i) => `2026-01-${String(15 + i).padStart(2, '0')}`))
  })

  test('without SIN rows (older vintages) the four subsystems are summed: the same days', async () => {
    const semSin = BALANCO_2026.split('\n').filter((l) => !l.startsWith('SIN;')).join('\n')
    const a = resumoTermica(diasCompletos((await balanco(BALANCO_2026)).b))
    const b = resumoTermica(diasCompletos((await balanco(semSin)).b))
    expect(b.janela.de).toBe(a.janela.de)
    expect(Math.abs(b.janela.termica_mwmed - a.janela.termica_mwmed)).toBeLessThanOrEqual(0.1)
    expect(Math.abs(b.janela.participacao_termica_pct - a.janela.participacao_termica_pct)).toBeLessThanOrEqual(0.01)
  })

  test('unpadded codes, 0E-8 zeros, an empty SIN measure falling back to the subsystems; a missing hour leaves its day out', async () => {
    const day = (d: string, h: number, sinTermica: string) => {
      const t = `2000-01-${d} ${String(h).padStart(2, '0')}:00:00`
      return [`N;NORTE;${t};100;10;0E-8;0E-8;110;0`, `NE;NORDESTE;${t};100;10;0E-8;0E-8;110;0`, `S;SUL;${t};100;10;0E-8;0E-8;110;0`, `SE;SUDESTE;${t};100;10;0E-8;0E-8;110;0`, `SIN;SIN;${t};400;${sinTermica};;;440;`]
    }
    const rows: string[] = []
    for (let h = 0; h < 24; h++) rows.push(...day('01', h, h === 5 ? '' : '40'))
    for (let h = 0; h < 23; h++) rows.push(...day('02', h, '40')) // 02 lacks 23:00
    const { b } = await balanco([HEADER_BAL, ...rows].join('\n'))
    const dias = diasCompletos(b)
    expect(dias).toEqual([{ data: '2000-01-01', termica_mwmed: 40, hidraulica_mwmed: 400, eolica_mwmed: 0, solar_mwmed: 0, carga_mwmed: 440, participacao_termica_pct: 9.09 }])
  })

  test('rows with a broken date, code or number are counted and dropped, never read as zero', async () => {
    const good = BALANCO_2026.split('\n').slice(0, 6)
    const { b, descartadas } = await balanco([...good, 'SE ;SUDESTE;2026-01-01 00:00:00;1;2;3;4;n/a;6', 'SECO;SUDESTE;2026-01-01 00:00:00;1;2;3;4;5;6', 'SE ;SUDESTE;ontem;1;2;3;4;5;6', ''].join('\n'))
    expect(descartadas).toBe(3)
    expect(b.get('2026-01-01')!.get(0)!.subs.get('SE')).toEqual({ hidraulica: 27870.777, termica: 4055.163, eolica: 0, solar: 0, carga: 39226.065 })
  })

  test('another file or too few complete days: refused with what is missing', async () => {
    await expect(balanco('<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>')).rejects.toThrow('não é o CSV do balanço de energia por subsistema')
    const cinco = BALANCO_2026.split('\n').filter((l, i) => i === 0 || l.slice(4, 40).includes('2026-01-0')).join('\n')
    const dias = diasCompletos((await balanco(cinco)).b)
    expect(dias).toHaveLength(9)
    expect(resumoTermica(dias).anterior).toBeNull()
    expect(() => resumoTermica(dias.filter((d) => d.data !== '2026-01-06'))).toThrow('os 7 dias até 2026-01-09 não estão completos no arquivo')
    expect(() => resumoTermica([])).toThrow('nenhum dia com as 24 horas do SIN')
  })
})

describe('the feeds through the replay server', () => {
  const up = startUpstreams()
  afterAll(() => up.close())
  beforeEach(() => {
    for (const s of up.all) {
      s.start()
      s.fault = { kind: 'none' }
      s.requests.length = 0
    }
  })
  const runner = (now = GRAVADO_EM, dataDir = tempDir('cadeias-feeds-')) => new FeedRunner(CADEIAS_FEEDS, { dataDir, log: createLogger('silent'), now: () => now })

  test('one request each at the recording time; the copies hold the flags to January 2026 and the thermal window to 28 January', async () => {
    const r = runner()
    const bandeira = (await r.refresh('cadeias-bandeira')).dados as any
    const termica = (await r.refresh('cadeias-termica')).dados as any
    expect(up.server('ANEEL_BANDEIRAS_URL').requests.map((x) => x.path)).toEqual(['/bandeira-tarifaria-acionamento.csv'])
    expect(up.server('ONS_BALANCO_URL').requests.map((x) => x.path)).toEqual(['/BALANCO_ENERGIA_SUBSISTEMA_2026.csv'])
    expect([bandeira.gerado_em, bandeira.meses.length, bandeira.meses.at(-1)]).toEqual(['2026-01-01', 133, { competencia: '2026-01', bandeira: 'Verde', patamar: 0, adicional_rs_mwh: 0 }])
    expect([termica.dia, termica.janela.participacao_termica_pct, termica.variacao_participacao_pp]).toEqual(['2026-01-28', 9.89, -0.72])
  })

  test('early January: last year\'s file completes the two windows; a year not published (S3 403) is skipped', async () => {
    const ons = up.server('ONS_BALANCO_URL')
    const linhas = BALANCO_2026.split('\n')
    // 2026 with 4 days; 2025 with 14 December days built from the same rows, dates moved.
    const jan = linhas.filter((l, i) => i === 0 || /;2026-01-0[1-4] /.test(l)).join('\n')
    const dez = [linhas[0], ...linhas.filter((l) => /;2026-01-(0\d|1[0-4]) /.test(l)).map((l) => l.replace(/;2026-01-(\d\d) /, (_, d: string) => `;2025-12-${Number(d) + 17} `))].join('\n')
    ons.on('/BALANCO_ENERGIA_SUBSISTEMA_2026.csv', { body: jan })
    ons.on('/BALANCO_ENERGIA_SUBSISTEMA_2025.csv', { body: dez })
    const t = (await runner(Date.parse('2026-01-05T12:00:00Z')).refresh('cadeias-termica')).dados as any
    expect(ons.requests.map((x) => x.path)).toEqual(['/BALANCO_ENERGIA_SUBSISTEMA_2026.csv', '/BALANCO_ENERGIA_SUBSISTEMA_2025.csv'])
    expect([t.dia, t.janela.de, t.anterior.de, t.anterior.ate]).toEqual(['2026-01-04', '2025-12-29', '2025-12-22', '2025-12-28'])
    // New Year's Day before ONS creates the year's file.
    ons.on('/BALANCO_ENERGIA_SUBSISTEMA_2026.csv', { status: 403, body: '<Error><Code>AccessDenied</Code></Error>' })
    const t2 = (await runner(Date.parse('2026-01-01T12:00:00Z')).refresh('cadeias-termica')).dados as any
    expect([t2.dia, t2.janela.de]).toEqual(['2025-12-31', '2025-12-25'])
    ons.on('/BALANCO_ENERGIA_SUBSISTEMA_2025.csv', { status: 404, body: 'not found' })
    await expect(runner(Date.parse('2026-01-01T12:00:00Z')).refresh('cadeias-termica')).rejects.toThrow('ONS: nem BALANCO_ENERGIA_SUBSISTEMA_2026.csv nem o de 2025 foram encontrados')
    ons.routes.splice(0, 4)
  })

  test('down, 5xx or garbage: the refresh fails with the reason and the last good copy stays', async () => {
    const dir = tempDir('cadeias-feeds-')
    await runner(GRAVADO_EM, dir).refresh('cadeias-bandeira')
    const aneel = up.server('ANEEL_BANDEIRAS_URL')
    aneel.fault = { kind: 'garbage' }
    await expect(runner(GRAVADO_EM + 86_400_000, dir).refresh('cadeias-bandeira')).rejects.toThrow('não é o CSV de bandeiras acionadas da ANEEL')
    aneel.fault = { kind: 'status', status: 404 }
    await expect(runner(GRAVADO_EM + 86_400_000, dir).refresh('cadeias-bandeira')).rejects.toThrow('404')
    aneel.stop()
    const r = runner(GRAVADO_EM + 86_400_000, dir)
    await expect(r.refresh('cadeias-bandeira')).rejects.toThrow()
    const copy = r.copy<any>('cadeias-bandeira')!
    expect([copy.consultado_em, copy.dados.meses.length, copy.falhas]).toEqual(['2026-01-29T15:30:00.000Z', 133, 3])
  })
})
