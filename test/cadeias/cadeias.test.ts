// The four chains over the bundled samples (installed as `make run` does), every upstream down:
// exact readings, each reading recomputed from its links and rule alone, each link's field found
// in the live answer of its route, and the chains degrading when a link is stale or missing.
import { afterAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startReplay } from '../../ingest/lib/replay'
import { resolver } from '../../src/datasets/cadeias/caminho'
import { DATASETS } from '../../src/datasets/registry'
import { get, testApp } from '../helpers'
import { recalcular } from './recalculo'
import { SAMPLE_TIME, sampleDataDir } from './helpers'

// Every polled upstream of every dataset points at a closed port: the copies are all there is.
const closed = startReplay()
closed.stop()
const envs = [...new Set(DATASETS.flatMap((d) => (d.feeds ?? []).flatMap((f) => f.upstreams.map((u) => u.env))))]
const before = new Map(envs.map((e) => [e, process.env[e]]))
for (const e of envs) process.env[e] = closed.url

const apps: { close(): Promise<void> }[] = []
async function appOn(dataDir: string) {
  const { app } = await testApp({ dataDir })
  apps.push(app)
  return app
}
afterAll(async () => {
  for (const a of apps) await a.close()
  for (const [e, v] of before) {
    if (v === undefined) delete process.env[e]
    else process.env[e] = v
  }
})

const full = await appOn(await sampleDataDir())
const CHAINS = ['energia_br', 'cafe_kc', 'soja_zs', 'capital_br']
/** Every chain answer the tests see, recomputed at the end. */
const seen: any[] = []
async function chain(app: Awaited<ReturnType<typeof appOn>>, id: string) {
  const r = await get(app, `/v1/cadeias/${id}`)
  expect(r.status).toBe(200)
  seen.push(r.body)
  return r.body
}
const elo = (body: any, id: string) => body.elos.find((e: any) => e.id === id)

describe('the chains on the bundled samples (copies of 2026-01-29 15:30 UTC)', () => {
  test('energia_br: every link ok; pressure low (0 points), easing (−3): rain forecast, reservoirs rising, the flag back to green', async () => {
    const b = await chain(full, 'energia_br')
    expect([b.cadeia, b.avaliada_em, b.mes_da_regra]).toEqual(['energia_br', SAMPLE_TIME, 1])
    expect(b.elos.map((e: any) => [e.id, e.valor, e.data, e.status, e.pontos.nivel, e.pontos.direcao])).toEqual([
      ['chuva_bacias_30d', 262.88, '2026-01-29', 'ok', 0, null],
      ['chuva_bacias_prevista_7d', 93.35, '2026-01-29', 'ok', null, -1],
      ['ear_sin', 60.17, '2026-01-28', 'ok', 0, null],
      ['ear_sin_variacao_7d', 1.89, '2026-01-28', 'ok', null, -1],
      ['termica_participacao_7d', 9.89, '2026-01-28', 'ok', 0, null],
      ['termica_variacao_7d', -0.72, '2026-01-28', 'ok', null, 0],
      ['bandeira', 'Verde', '2026-01', 'ok', 0, null],
      ['bandeira_variacao', -1, '2026-01', 'ok', null, -1],
    ])
    expect(b.leitura).toMatchObject({ nivel: { valor: 'baixa', pontos: 0, possiveis: ['baixa'] }, direcao: { valor: 'aliviando', pontos: -3 }, completa: true, elos_sem_valor_atual: [] })
    expect(b.leitura.texto).toBe(
      'Pressão sobre o custo da energia: baixa (0 pontos). Tendência: aliviando (−3 pontos). Pesaram: chuva prevista para 7 dias nas mesmas bacias (média dos 4 pontos), 93,35 mm (−1 na direção); variação da EAR do SIN em 7 dias, 1,89 p.p. (−1 na direção); mudança da bandeira contra o mês anterior (degraus de Verde a Escassez Hídrica), -1 degraus (−1 na direção).',
    )
    expect(elo(b, 'bandeira').detalhe).toEqual({ adicional_rs_mwh: 0, proxima: null, proxima_competencia: null })
    expect(elo(b, 'bandeira_variacao').detalhe).toEqual({ anterior: 'Amarela', anterior_competencia: '2025-12' })
    // The four parcels, and the days observed of each (30 of 30: the link is complete).
    expect(elo(b, 'chuva_bacias_30d').detalhe).toEqual({
      'cinturoes[id=mg-sul].chuva_observada_30d_mm': 208.4,
      'cinturoes[id=sp-cana].chuva_observada_30d_mm': 232.5,
      'cinturoes[id=mg-cerrado].chuva_observada_30d_mm': 263.7,
      'cinturoes[id=go-sudoeste].chuva_observada_30d_mm': 346.9,
      'cinturoes[id=mg-sul].dias_observados_30d': 30,
      'cinturoes[id=sp-cana].dias_observados_30d': 30,
      'cinturoes[id=mg-cerrado].dias_observados_30d': 30,
      'cinturoes[id=go-sudoeste].dias_observados_30d': 30,
    })
    expect(elo(b, 'termica_participacao_7d').fonte).toMatchObject({ de: 'cadeias/termica', rota: null, campo: 'janela.participacao_termica_pct', base: 'ONS (balanço de energia horário por subsistema)', consultado_em: SAMPLE_TIME, status: 'amostra' })
    // Every copy read is the bundled sample (each refresh failed: the upstreams are down).
    expect(b.fonte).toMatchObject({ consultado_em: SAMPLE_TIME, cache: true, status: 'amostra', atualiza_a_cada_minutos: 720 })
    expect(b.fonte.defasagem_segundos).toBeGreaterThan(0)
    expect(b.limites).toHaveLength(5)
    expect(b.regra.elos).toHaveLength(8)
  })

  test('cafe_kc: no dry spell and no frost in the coffee belts: risk low, easing with rain forecast in both', async () => {
    const b = await chain(full, 'cafe_kc')
    expect(b.elos.map((e: any) => [e.id, e.valor, e.status])).toEqual([
      ['dias_secos_mg_sul', 0, 'ok'],
      ['dias_secos_mg_cerrado', 0, 'ok'],
      ['temp_min_72h_mg_sul', 16, 'ok'],
      ['temp_min_72h_mg_cerrado', 17.2, 'ok'],
      ['chuva_prevista_7d_mg_sul', 95.4, 'ok'],
      ['chuva_prevista_7d_mg_cerrado', 84.3, 'ok'],
    ])
    expect([b.leitura.nivel.valor, b.leitura.direcao.valor, b.leitura.direcao.pontos]).toEqual(['baixo', 'aliviando', -2])
    expect(elo(b, 'temp_min_72h_mg_sul').detalhe).toEqual({ em: '2026-01-30T03:00', alerta_de_geada: false })
  })

  test('soja_zs: Mato Grosso wet, risk low; December soybean shipments +2.5 % on a year before: steady', async () => {
    const b = await chain(full, 'soja_zs')
    expect(elo(b, 'embarques_soja_variacao_anual')).toMatchObject({ valor: 2.5, data: '2025-12', status: 'ok', pontos: { nivel: null, direcao: 0 }, detalhe: { kg_liquido: 5102019333, kg_liquido_ano_anterior: 4979725110 } })
    expect(elo(b, 'embarques_soja_variacao_anual').fonte).toMatchObject({ de: 'commodities/exportacoes', rota: '/v1/commodities/exportacoes', campo: 'grupos[id=soja].ultimo_mes.variacao_kg_pct', referencia: '2025-12', consultado_em: null })
    expect([b.leitura.nivel.valor, b.leitura.direcao.valor, b.leitura.completa]).toEqual(['baixo', 'estáveis', true])
  })

  test('capital_br: the funds sample (September 2026) is newer than the market copies (January): the reading is of September and the FX links are stale', async () => {
    const b = await chain(full, 'capital_br')
    expect(b.avaliada_em).toBe('2026-09-30T02:59:59.999Z')
    expect(elo(b, 'fluxo_fundos_30d')).toMatchObject({ valor: 0.183, data: '2026-09-29', status: 'ok', pontos: { nivel: 0 }, detalhe: { soma: 14081649.02, divisor: 7705552983.51, de: '2026-08-31', ate: '2026-09-29', patrimonio_liquido: 7705552983.51 } })
    expect(elo(b, 'ptax_variacao')).toMatchObject({ valor: -2.434, data: '2026-01-28', status: 'defasado', motivo: 'dado de 2026-01-28; a regra aceita até 5 dias antes de 2026-09-29' })
    expect(elo(b, 'premio_usdt_ptax')).toMatchObject({ valor: 0.602, status: 'defasado', motivo: 'dado de 2026-01-29T15:30Z; a regra aceita até 2 h antes de avaliada_em' })
    expect(b.leitura.nivel).toEqual({ nome: 'pressão cambial', valor: null, pontos: null, pontos_min: 0, pontos_max: 4, possiveis: ['baixa', 'moderada', 'alta'] })
    expect(b.leitura.direcao).toMatchObject({ valor: null, possiveis: ['em queda', 'estável', 'em alta'] })
    expect(b.leitura.texto).toStartWith('Pressão cambial: sem leitura (com os elos que faltam, ficaria entre baixa e alta, de 0 a +4 pontos).')
    expect(b.leitura.texto).toContain('Sem valor atual (2 de 3 elos): premio_usdt_ptax, defasado: dado de 2026-01-29T15:30Z')
  })

  test('every link read from a route is that route\'s field, in its live answer', async () => {
    for (const id of CHAINS) {
      const b = await chain(full, id)
      for (const e of b.elos) {
        if (!e.fonte.rota || e.valor === null) continue
        const route = await get(full, e.fonte.rota + (e.fonte.rota === '/v1/fundos/fluxos' ? '?dias=30' : ''))
        const regra = b.regra.elos.find((r: any) => r.id === e.id).origem
        if (regra.campo) expect({ id: e.id, v: resolver(route.body, regra.campo) }).toEqual({ id: e.id, v: e.valor })
        if (regra.media_de) {
          const vs = regra.media_de.map((c: string) => resolver(route.body, c) as number)
          expect({ id: e.id, v: Math.round((vs.reduce((a: number, x: number) => a + x, 0) / vs.length) * 100) / 100 }).toEqual({ id: e.id, v: e.valor })
        }
        if (regra.razao_pct) {
          const soma = (resolver(route.body, regra.razao_pct.soma_de) as number[]).reduce((a, x) => a + x, 0)
          expect(Math.round((soma / (resolver(route.body, regra.razao_pct.dividido_por) as number)) * 100_000) / 1000).toBe(e.valor)
        }
        expect({ id: e.id, data: resolver(route.body, regra.data) }).toEqual({ id: e.id, data: e.data })
      }
    }
  })
})

describe('degrading: a stale or missing link is said, and the reading states only what any value of it would give', () => {
  test('without the chains\' own copies (thermal balance, flags): those links absent, the level and direction left open with their possible words', async () => {
    const app = await appOn(await sampleDataDir({ sem: ['cadeias'] }))
    const b = await chain(app, 'energia_br')
    expect(b.elos.filter((e: any) => e.status !== 'ok').map((e: any) => [e.id, e.status, e.motivo])).toEqual([
      ['termica_participacao_7d', 'ausente', 'nenhuma cópia de balanço de energia do ONS obtida ainda (ONS (balanço de energia horário por subsistema))'],
      ['termica_variacao_7d', 'ausente', 'nenhuma cópia de balanço de energia do ONS obtida ainda (ONS (balanço de energia horário por subsistema))'],
      ['bandeira', 'ausente', 'nenhuma cópia de bandeiras da ANEEL obtida ainda (ANEEL (bandeiras tarifárias acionadas, dados abertos))'],
      ['bandeira_variacao', 'ausente', 'nenhuma cópia de bandeiras da ANEEL obtida ainda (ANEEL (bandeiras tarifárias acionadas, dados abertos))'],
    ])
    expect(elo(b, 'bandeira').fonte).toMatchObject({ base: 'ANEEL (bandeiras tarifárias acionadas, dados abertos)', status: 'fonte_indisponivel', consultado_em: null })
    expect(b.leitura.nivel).toMatchObject({ valor: null, pontos_min: 0, pontos_max: 5, possiveis: ['baixa', 'moderada', 'alta'] })
    expect(b.leitura.direcao).toMatchObject({ valor: null, pontos_min: -4, pontos_max: 0, possiveis: ['aliviando', 'estável'] })
    expect(b.leitura.completa).toBe(false)
  })

  test('a flag file that stops at December 2025: the flag is shown but stale (January asked), and the level is open between low and moderate', async () => {
    const dataDir = await sampleDataDir()
    const copy = join(dataDir, 'feeds', 'cadeias-bandeira', '_.json')
    const c = JSON.parse(await Bun.file(copy).text())
    c.dados.meses = c.dados.meses.filter((m: any) => m.competencia <= '2025-12')
    writeFileSync(copy, JSON.stringify(c))
    const b = await chain(await appOn(dataDir), 'energia_br')
    expect(elo(b, 'bandeira')).toMatchObject({ valor: 'Amarela', data: '2025-12', status: 'defasado', motivo: 'dado de 2025-12; a regra pede o mês de avaliada_em (2026-01)', pontos: { nivel: null } })
    expect(elo(b, 'bandeira_variacao')).toMatchObject({ valor: -1, data: '2025-12', status: 'defasado' })
    expect(b.leitura.nivel).toMatchObject({ valor: null, pontos_min: 0, pontos_max: 3, possiveis: ['baixa', 'moderada'] })
    // The direction holds: −2 from the others, and the flag's change can only add −1 to +1.
    expect(b.leitura.direcao).toMatchObject({ valor: 'aliviando', pontos: null, pontos_min: -3, pontos_max: -1 })
    expect(b.leitura.texto).toContain('Tendência: aliviando (de −3 a −1 pontos conforme os elos que faltam, o mesmo resultado com qualquer valor deles).')
  })

  test('no exports build: the shipments link absent with the command to run; the yield risk still stated', async () => {
    const b = await chain(await appOn(await sampleDataDir({ sem: ['exportacoes'] })), 'soja_zs')
    expect(elo(b, 'embarques_soja_variacao_anual')).toMatchObject({ status: 'ausente', valor: null })
    expect(elo(b, 'embarques_soja_variacao_anual').motivo).toEndWith("; rode 'dadosbr ingest exportacoes'")
    expect([b.leitura.nivel.valor, b.leitura.direcao.valor, b.leitura.direcao.possiveis]).toEqual(['baixo', null, ['em queda', 'estáveis', 'em alta']])
  })

  test('capital_br without the funds base: read at the market copies\' time, the premium and the PTAX ok, the flows missing', async () => {
    const b = await chain(await appOn(await sampleDataDir({ sem: ['fundos'] })), 'capital_br')
    expect(b.avaliada_em).toBe(SAMPLE_TIME)
    expect(b.elos.map((e: any) => [e.id, e.status, e.pontos.nivel, e.pontos.direcao])).toEqual([
      ['premio_usdt_ptax', 'ok', 1, null],
      ['ptax_variacao', 'ok', 0, -1],
      ['fluxo_fundos_30d', 'ausente', null, null],
    ])
    expect(elo(b, 'fluxo_fundos_30d').motivo).toContain("rode 'dadosbr ingest fundos'")
    expect(b.leitura.nivel).toMatchObject({ valor: null, pontos_min: 1, pontos_max: 3, possiveis: ['baixa', 'moderada'] })
    expect(b.leitura.direcao).toMatchObject({ valor: 'em queda', pontos: -1 })
  })

  test('nothing loaded at all: the paid chain is a 503 (no data, never charged); the free sample shows every link absent, no reference time, the reading open on every word', async () => {
    const vazio = await appOn(join(await sampleDataDir({ sem: ['mercado', 'exportacoes', 'commodities', 'fundos', 'cadeias'] })))
    const pago = await get(vazio, '/v1/cadeias/energia_br')
    expect([pago.status, pago.body.erro.codigo]).toEqual([503, 'dados_indisponiveis'])
    const r = await get(vazio, '/v1/cadeias/amostra')
    expect(r.status).toBe(200)
    const { amostra: _, aviso: __, outras_cadeias: ___, ...b } = r.body
    seen.push(b)
    expect([b.avaliada_em, b.mes_da_regra, b.fonte.status, b.fonte.consultado_em]).toEqual([null, null, 'fonte_indisponivel', null])
    expect(b.elos.every((e: any) => e.status === 'ausente')).toBe(true)
    expect(b.leitura.nivel).toMatchObject({ valor: null, pontos_min: 0, pontos_max: 9, possiveis: ['baixa', 'moderada', 'alta'] })
  })
})

describe('routes', () => {
  test('/v1/cadeias/amostra: the energy chain whole, as the paid route gives it, with amostra: true and the other chains', async () => {
    const a = await get(full, '/v1/cadeias/amostra')
    const p = await get(full, '/v1/cadeias/energia_br')
    expect(a.status).toBe(200)
    const { amostra, aviso, outras_cadeias, ...rest } = a.body
    expect(amostra).toBe(true)
    expect(aviso).toStartWith('Amostra grátis: a cadeia energia_br completa')
    expect(outras_cadeias.map((c: any) => [c.rota, c.preco])).toEqual([['/v1/cadeias/cafe_kc', 0.05], ['/v1/cadeias/soja_zs', 0.05], ['/v1/cadeias/capital_br', 0.05]])
    const noAge = (x: any) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'defasagem_segundos' ? undefined : v)))
    expect(noAge(rest)).toEqual(noAge(p.body))
    seen.push(a.body)
  })

  test('no parameters: any is 400 parametro_desconhecido; HEAD answers the headers; other methods 405', async () => {
    for (const id of [...CHAINS, 'amostra']) {
      const r = await get(full, `/v1/cadeias/${id}?x=1`)
      expect([r.status, r.body.erro.codigo]).toEqual([400, 'parametro_desconhecido'])
      const h = await get(full, `/v1/cadeias/${id}`, { method: 'HEAD' })
      expect([h.status, h.text]).toEqual([200, ''])
      expect((await get(full, `/v1/cadeias/${id}`, { method: 'POST' })).status).toBe(405)
    }
  })

  test('with payments on: the chains and the brasil pack answer 402 with their price and nothing is served; the samples are free', async () => {
    const { app: paid } = await testApp({ free: false, payTo: '0x000000000000000000000000000000000000dEaD', facilitatorUrl: 'http://127.0.0.1:9' })
    apps.push(paid)
    for (const [path, price] of [...CHAINS.map((c) => [`/v1/cadeias/${c}`, 0.05] as const), ['/v1/pacotes/brasil', 0.09] as const]) {
      const r = await get(paid, path)
      expect([path, r.status, r.body.erro.codigo, r.body.preco_usd, r.body.elos, r.headers.get('payment-required') !== null]).toEqual([path, 402, 'pagamento_exigido', price, undefined, true])
    }
    for (const path of ['/v1/cadeias/amostra', '/v1/pacotes/amostra']) expect((await get(paid, path)).status).toBe(200)
  })

  test('every answer seen above recomputes from its links and rule alone', () => {
    expect(seen.length).toBeGreaterThanOrEqual(12)
    for (const b of seen) recalcular(b)
  })
})
