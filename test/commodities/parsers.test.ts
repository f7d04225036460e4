// The parsers of each upstream on real-format bytes (fixtures/formatos and the bundled sample),
// with exact values, and what each does with garbage.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { novasSomas, somarArquivo, exportacoesDe } from '../../ingest/commodities/exportacoes'
import { BuildError } from '../../ingest/lib/snapshot'
import { CINTUROES } from '../../src/datasets/commodities/cinturoes'
import { climaDoCinturao, parseOpenMeteo } from '../../src/datasets/commodities/clima'
import { decodeInpe, numeroInpe, parseFocosDia, resumoFogo } from '../../src/datasets/commodities/fogo'
import { grupoDoNcm, GRUPOS } from '../../src/datasets/commodities/grupos'
import { parseEar, resumoEar } from '../../src/datasets/commodities/hidrologia'

const F = join(import.meta.dir, 'fixtures')
const bytes = (p: string) => new Uint8Array(readFileSync(join(F, p)))
const json = (p: string) => JSON.parse(readFileSync(join(F, p), 'utf8'))
async function* once(b: Uint8Array) {
  yield b
}

describe('Open-Meteo', () => {
  test('one location answers an object: snapped grid point, nulls; frost flagged by the crop threshold', () => {
    const [loc] = parseOpenMeteo(json('formatos/open-meteo-geada-um-local.json'), 1, ['precipitation_sum', 'temperature_2m_min'], ['temperature_2m'], 'Open-Meteo forecast')
    expect([loc!.latitude, loc!.longitude, loc!.elevation, loc!.utcOffsetSeconds]).toEqual([-21.55, -45.45, 960, -10800])
    const mgSul = CINTUROES.find((c) => c.id === 'mg-sul')!
    // 12:00 in Brasília on 21 July: the next 72 hours run into the 23rd, where the recording ends.
    const c = climaDoCinturao(mgSul, loc!, null, Date.parse('2026-07-21T15:00:00Z'))
    expect(c.grade).toEqual({ latitude: -21.55, longitude: -45.45, elevacao_m: 960 })
    expect(c.temp_min_72h_c).toBe(1.6)
    expect(c.temp_min_72h_em).toBe('2026-07-22T03:00')
    expect(c.geada).toEqual({ alerta: true, limiar_c: 3, culturas_em_risco: ['cafe'] })
    // No archive: observed = the forecast's past days (14-20 July), 3.3 mm; the 18th (3.1 mm) ends the dry spell.
    expect([c.chuva_observada_7d_mm, c.chuva_observada_30d_mm, c.dias_observados_30d]).toEqual([3.3, 3.3, 7])
    expect([c.dias_secos_consecutivos, c.ultima_chuva, c.dias_secos_no_limite]).toEqual([2, '2026-07-18', false])
    expect(c.previsao).toEqual([
      { data: '2026-07-21', chuva_mm: 0, temp_min_c: 4.8 },
      { data: '2026-07-22', chuva_mm: 0, temp_min_c: 1.6 },
      { data: '2026-07-23', chuva_mm: null, temp_min_c: null },
    ])
    expect(c.chuva_prevista_7d_mm).toBe(0)
  })

  test('a frost-free minimum above the threshold: no alert; every belt is in the data file with real coordinates', () => {
    const [loc] = parseOpenMeteo(json('formatos/open-meteo-geada-um-local.json'), 1, ['precipitation_sum', 'temperature_2m_min'], ['temperature_2m'], 'x')
    const soy = CINTUROES.find((c) => c.id === 'rs-noroeste')!
    expect(climaDoCinturao(soy, loc!, null, Date.parse('2026-07-21T15:00:00Z')).geada).toEqual({ alerta: true, limiar_c: 2, culturas_em_risco: ['soja'] })
    expect(climaDoCinturao(soy, loc!, null, Date.parse('2026-07-23T01:00:00Z')).geada.alerta).toBe(false)
    expect(CINTUROES.length).toBeGreaterThanOrEqual(8)
    for (const c of CINTUROES) expect(c.latitude < -5 && c.latitude > -34 && c.longitude < -34 && c.longitude > -74).toBe(true)
  })

  test('the API error body, a wrong count, broken parallel arrays: errors that say what came', () => {
    expect(() => parseOpenMeteo(json('formatos/open-meteo-erro-400.json'), 9, ['precipitation_sum'], [], 'Open-Meteo forecast')).toThrow('Open-Meteo forecast: Latitude must be in range of -90 to 90°. Given: -120.0.')
    const sample = json('commodities-amostra/open-meteo-forecast.json')
    expect(() => parseOpenMeteo(sample, 10, ['precipitation_sum'], [], 'F')).toThrow('F: 9 locais na resposta, 10 pedidos')
    const broken = structuredClone(sample)
    broken[2].daily.precipitation_sum.pop()
    expect(() => parseOpenMeteo(broken, 9, ['precipitation_sum'], [], 'F')).toThrow('F (local 3) daily: precipitation_sum ausente ou de tamanho diferente de time')
    broken[2].daily.precipitation_sum.push('12,3')
    expect(() => parseOpenMeteo(broken, 9, ['precipitation_sum'], [], 'F')).toThrow('precipitation_sum com valor que não é número nem null')
    expect(() => parseOpenMeteo({ latitude: 1 }, 1, [], [], 'F')).toThrow('F (local 1): sem latitude/longitude')
  })
})

describe('INPE daily hotspots', () => {
  test('a latin-1 file: leading spaces, -.878200, empty met fields and FRP, -999, a blank last line; only the reference satellite counts', async () => {
    const b = bytes('formatos/inpe-latin1.csv')
    expect(decodeInpe(b)).toContain('MARANHÃO')
    const dia = await parseFocosDia(b, '2026-09-26')
    expect(dia).toEqual({
      data: '2026-09-26',
      linhas: 5,
      focos_referencia: 3,
      por_bioma: { 'Amazônia': [2, 45.1, 1], Cerrado: [1, 142.6, 1] },
      por_estado: { 'PARÁ': 1, 'MARANHÃO': 1, BAHIA: 1 },
      dias_sem_chuva: [42, 2],
    })
    expect([numeroInpe('   -.878200'), numeroInpe(''), numeroInpe('-999'), numeroInpe(' 12 ')]).toEqual([-0.8782, null, null, 12])
  })

  // Values checked against an independent reading of the files (Python csv module).
  test('the 7-day summary: series per biome with mean FRP, leading states with their UF, mean days without rain', async () => {
    const dias = []
    for (let d = 22; d <= 28; d++) dias.push(await parseFocosDia(bytes(`commodities-amostra/focos_diario_br_202601${d}.csv`), `2026-01-${d}`))
    const r = resumoFogo(dias)
    expect(r.periodo).toEqual({ inicio: '2026-01-22', fim: '2026-01-28' })
    expect(r.biomas.map((b) => [b.bioma, b.focos_7d, b.frp_medio_7d_mw])).toEqual([
      ['Amazônia', 42, 64.4],
      ['Cerrado', 13, 54.9],
      ['Caatinga', 9, 75.4],
      ['Mata Atlântica', 4, 98.4],
      ['Pantanal', 1, 82.3],
    ])
    expect(r.biomas[0]!.serie.map((s) => s.focos)).toEqual([7, 4, 7, 5, 7, 7, 5])
    expect(r.estados.slice(0, 3)).toEqual([
      { estado: 'RORAIMA', uf: 'RR', focos_7d: 22 },
      { estado: 'MARANHÃO', uf: 'MA', focos_7d: 14 },
      { estado: 'PARÁ', uf: 'PA', focos_7d: 12 },
    ])
    expect([r.focos_referencia_7d, r.focos_todos_satelites_7d, r.dias_sem_chuva_medio]).toEqual([69, 353, 12])
  })

  test('an HTML page or an empty body is refused with what it was', async () => {
    await expect(parseFocosDia(new TextEncoder().encode('<html><body>502 Bad Gateway</body></html>'), '2026-01-28')).rejects.toThrow('INPE 2026-01-28: não é o CSV de focos (colunas ausentes: satelite, estado, bioma, frp; começa com "<html><body>502 Bad Gateway</body></html>")')
    await expect(parseFocosDia(new Uint8Array(), '2026-01-28')).rejects.toThrow('INPE 2026-01-28: arquivo vazio')
  })
})

describe('ONS stored energy', () => {
  test('ids with a trailing space, the SIN as Σ MWmês ÷ Σ máximo, the 7-day delta', async () => {
    const rows = await parseEar(readFileSync(join(F, 'commodities-amostra/EAR_DIARIO_SUBSISTEMA_2026.csv'), 'utf8'), 'ONS')
    expect(rows).toHaveLength(112)
    expect(rows[0]).toEqual({ id: 'N', data: '2026-01-01', max_mwmes: 15302.1, mwmes: 9363.72, percentual: 61.1924 })
    const r = resumoEar(rows)
    expect(r.data).toBe('2026-01-28')
    // 175731.62 / 292068 = 60.168 %; 7 days before: 170204.55 / 292068 = 58.276 %.
    expect(r.sin).toEqual({ id: 'SIN', nome: 'Sistema Interligado Nacional (Σ MWmês ÷ Σ máximo)', ear_percentual: 60.17, ear_mwmes: 175731.6, ear_max_mwmes: 292068, delta_7d_pp: 1.89, ear_percentual_7d_antes: 58.28 })
    expect(r.subsistemas.map((s) => [s.id, s.ear_percentual, s.delta_7d_pp])).toEqual([
      ['SE', 58.44, 2.35],
      ['S', 68.45, -1.49],
      ['NE', 59.04, 0.84],
      ['N', 76.07, 3.88],
    ])
    expect(r.serie_sin).toHaveLength(8)
  })

  test('a day missing one subsystem is not the latest; garbage is refused', async () => {
    const text = readFileSync(join(F, 'commodities-amostra/EAR_DIARIO_SUBSISTEMA_2026.csv'), 'utf8').trimEnd().split('\n')
    const cut = text.slice(0, -1).join('\n') // 2026-01-28 without SE
    expect(resumoEar(await parseEar(cut, 'ONS')).data).toBe('2026-01-27')
    await expect(parseEar('{"message":"Access Denied"}', 'ONS EAR 2026')).rejects.toThrow('ONS EAR 2026: não é o CSV de EAR por subsistema')
    await expect(parseEar(`${text[0]}\nXX;NORTE;2026-01-01;1;1;1\n`, 'ONS EAR 2026')).rejects.toThrow('ONS EAR 2026: linha fora do formato: XX;NORTE;2026-01-01;1;1;1')
  })
})

describe('ComexStat EXP files', () => {
  test('groups by NCM prefix (longest wins), codes as strings with their leading zeros', () => {
    const id = (ncm: string) => (grupoDoNcm(ncm) === null ? null : GRUPOS[grupoDoNcm(ncm)!]!.id)
    expect([id('12019000'), id('23040010'), id('02023000'), id('02071400'), id('02073600'), id('09011110'), id('09012100'), id('20091200'), id('84295190')]).toEqual([
      'soja', 'farelo_soja', 'carne_bovina', 'frango', null, 'cafe_verde', null, 'suco_laranja', null,
    ])
    expect(GRUPOS.length).toBeGreaterThanOrEqual(13)
  })

  test('quoted codes, unquoted metrics: sums per group and month, 13 months, the year-earlier month and the change', async () => {
    const somas = novasSomas()
    await somarArquivo(once(bytes('exportacoes-amostra/EXP_2025.csv')), 'EXP_2025.csv', somas)
    await somarArquivo(once(bytes('exportacoes-amostra/EXP_2024.csv')), 'EXP_2024.csv', somas)
    expect([somas.linhas, somas.noGrupo, somas.descartadas, somas.ultimo]).toEqual([813, 765, 0, 202512])
    const d = exportacoesDe(somas, new Set([2024, 2025]))
    expect(d.referencia).toBe('2025-12')
    expect(d.meses).toEqual(['2024-12', '2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12'])
    const soja = d.grupos.find((g) => g.id === 'soja')!
    expect(soja.ultimo_mes).toEqual({ mes: '2025-12', fob_usd: 2069389135, kg_liquido: 5102019333, fob_usd_ano_anterior: 2010966912, kg_liquido_ano_anterior: 4979725110, variacao_fob_pct: 2.9, variacao_kg_pct: 2.5 })
    // December 2024's year-earlier month is in EXP_2023.csv, not read: no change, not a false 0.
    expect(soja.serie[0]).toMatchObject({ mes: '2024-12', fob_usd_ano_anterior: null, variacao_kg_pct: null })
    expect(() => exportacoesDe(somas, new Set([2025]))).toThrow('os últimos 13 meses vão até 2025-12 e pedem EXP_2024.csv, que não foi lido')
  })

  test('broken rows are counted and dropped; an HTML page is not an EXP file', async () => {
    const text =
      '"CO_ANO";"CO_MES";"CO_NCM";"CO_UNID";"CO_PAIS";"SG_UF_NCM";"CO_VIA";"CO_URF";"QT_ESTAT";"KG_LIQUIDO";"VL_FOB"\r\n' +
      '"2026";"01";"02023000";"10";"589";"MT";"07";"0230154";22356;22356;89125\r\n' +
      '"2026";"13";"02023000";"10";"589";"MT";"07";"0230154";1;1;1\r\n' +
      '"2026";"01";"0202300";"10";"589";"MT";"07";"0230154";1;1;1\r\n' +
      '"2026";"01";"02023000";"10";"589";"MT";"07";"0230154";1;x;1\r\n' +
      '"2026";"01";"02023000";"10"\r\n'
    const somas = novasSomas()
    await somarArquivo(once(new TextEncoder().encode(text)), 'EXP_2026.csv', somas)
    expect([somas.linhas, somas.noGrupo, somas.descartadas]).toEqual([4, 1, 4])
    expect(somas.fob.get(GRUPOS.findIndex((g) => g.id === 'carne_bovina') * 100000 + 202601)).toBe(89125)
    await expect(somarArquivo(once(new TextEncoder().encode('<html>404</html>')), 'EXP_2026.csv', novasSomas())).rejects.toBeInstanceOf(BuildError)
  })
})
