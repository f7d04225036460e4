// The packs over every bundled sample (as `make run` serves them: offline, --sem-fontes), every polled upstream down:
// the parts derived from the route table (and a route added later joining), each part exactly the
// route's own answer, a failing or hanging part marked while the rest is served, and the savings.
import { afterAll, describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { startReplay } from '../../ingest/lib/replay'
import type { AppContext } from '../../src/core/context'
import type { Dataset } from '../../src/core/dataset'
import { ApiError } from '../../src/core/errors'
import { defineRoute, semFonte, type RouteDef } from '../../src/core/route'
import { intParam } from '../../src/core/validate'
import { catalogo, partesDoBrasil, semParametros } from '../../src/datasets/pacotes/catalogo'
import * as service from '../../src/datasets/pacotes/service'
import { DATASETS } from '../../src/datasets/registry'
import { buildSampleData, get, testApp } from '../helpers'
import { tempDir } from '../temp'
import contagem from './fixtures/contagem.json'

const closed = startReplay()
closed.stop()
const envs = [...new Set(DATASETS.flatMap((d) => (d.feeds ?? []).flatMap((f) => f.upstreams.map((u) => u.env))))]
const before = new Map(envs.map((e) => [e, process.env[e]]))
for (const e of envs) process.env[e] = closed.url

const { app, logs } = await testApp({ dataDir: await buildSampleData(), semFontes: true })
const { app: empty } = await testApp({ dataDir: tempDir('pacotes-vazio-') })
afterAll(async () => {
  await app.close()
  await empty.close()
  for (const [e, v] of before) {
    if (v === undefined) delete process.env[e]
    else process.env[e] = v
  }
})

/** What the route table of this version holds (fixtures/contagem.json, README there). */
const CONTAGEM: Record<string, { preco: number; partes: string[]; soma_das_partes: number; economia: number; economia_pct: number }> = contagem
const BRASIL = CONTAGEM['/v1/pacotes/brasil']!.partes

/** Ages move by the second between two calls; everything else must match. */
const semIdade = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'defasagem_segundos' || k === 'status' ? undefined : v)))

describe('/v1/pacotes/amostra: what each pack holds and saves, from the route table', () => {
  test('brasil: the 15 parameter-free paid routes, US$ 0.187 one by one, US$ 0.097 saved (51.9 %); commodities 47.4 %; markets 33.3 %', async () => {
    const r = await get(app, '/v1/pacotes/amostra')
    expect(r.status).toBe(200)
    expect(r.body.amostra).toBe(true)
    expect(Object.fromEntries(r.body.pacotes.map((p: any) => [p.rota, { preco: p.preco, partes: p.partes.map((x: any) => x.rota), soma_das_partes: p.soma_das_partes, economia: p.economia, economia_pct: p.economia_pct }]))).toEqual(CONTAGEM)
    expect(r.body.pacotes.map((p: any) => [p.rota, p.quantidade])).toEqual([['/v1/pacotes/brasil', 15], ['/v1/commodities/pacote', 5], ['/v1/mercado/pacote', 3]])
    expect(r.body.pacotes[1].partes.map((p: any) => p.nome)).toEqual(['clima', 'fogo', 'exportacoes', 'hidrologia', 'briefing'])
    expect(r.body.pacotes[2].partes.map((p: any) => p.nome)).toEqual(['noticias', 'indicadores', 'cambio'])
    expect(r.body.pacotes[0].partes[4]).toEqual({ familia: 'fundos', nome: 'movimentacoes', rota: '/v1/fundos/movimentacoes', preco: 0.02 })
    // The sums are the route table's prices.
    const price = new Map(DATASETS.flatMap((d) => d.routes).map((x) => [x.path, x.price!]))
    for (const p of r.body.pacotes) expect(Math.round(p.partes.reduce((a: number, x: any) => a + price.get(x.rota)!, 0) * 1e6) / 1e6).toBe(p.soma_das_partes)
  })

  test('#29.7: the pack and its sample say the same count and list, the parts the pack answers (15 here: every route the rule takes, docs/decisoes.md)', async () => {
    const amostra = (await get(app, '/v1/pacotes/amostra')).body
    const pack = (await get(app, '/v1/pacotes/brasil')).body
    const answered = Object.entries(pack)
      .filter(([k]) => k !== 'pacote' && k !== 'indisponiveis')
      .flatMap(([familia, partes]) => Object.keys(partes as object).map((nome) => `/v1/${familia}/${nome}`))
    expect(BRASIL).toHaveLength(15)
    expect(answered.sort()).toEqual([...BRASIL].sort())
    expect(pack.pacote.partes.map((p: any) => p.rota)).toEqual(BRASIL)
    expect(amostra.pacotes[0].partes.map((p: any) => p.rota)).toEqual(BRASIL)
    expect([pack.pacote.quantidade, amostra.pacotes[0].quantidade]).toEqual([15, 15])
    expect(amostra.aviso).toContain('O pacote /v1/pacotes/brasil traz as 15 rotas pagas sem parâmetros deste servidor numa chamada')
  })

  test('the rule: no path parameter, an empty query accepted, no filter demanded; never packs, chains, free or planned routes', () => {
    const all = DATASETS.flatMap((d) => d.routes)
    const chosen = partesDoBrasil(all).map((x) => x.path)
    expect(chosen).toEqual(BRASIL)
    const byPath = (p: string) => all.find((x) => x.path === p)!
    expect(['/v1/cnpj/busca', '/v1/cnpj/socio/busca', '/v1/tributos/busca', '/v1/fundos/consulta/{cnpj}'].map((p) => [p, semParametros(byPath(p))])).toEqual([
      ['/v1/cnpj/busca', false], // its handler demands a filter (filtro_obrigatorio)
      ['/v1/cnpj/socio/busca', false], // nome required by the schema
      ['/v1/tributos/busca', false], // termo required
      ['/v1/fundos/consulta/{cnpj}', false],
    ])
    for (const p of ['/v1/mercado/pacote', '/v1/commodities/pacote', '/v1/pacotes/brasil', '/v1/cadeias/energia_br', '/v1/tributos/calendario']) expect(semParametros(byPath(p))).toBe(true)
    expect(chosen.some((p) => p.endsWith('/pacote') || p.startsWith('/v1/pacotes/') || p.startsWith('/v1/cadeias/') || p.endsWith('/amostra'))).toBe(false)
  })
})

/** A dataset added later, with a parameter-free paid route, one with a required parameter, and two misbehaving ones. */
function withNew(ctx: AppContext, extra: RouteDef[]): AppContext {
  const novo: Dataset = { name: 'novo', titulo: 'Novo', descricao: 'teste', ingested: false, routes: extra }
  return { ...ctx, datasets: [...ctx.datasets, novo] }
}
const route = (path: string, handler: RouteDef['handler'], query?: z.ZodType) => defineRoute({ path, dataset: 'novo', summary: 's', price: 0.003, response: z.any(), errors: [], handler, ...(query ? { query } : {}) })

describe('/v1/pacotes/brasil', () => {
  test('keyed by family then name; each part is that route\'s own answer, with its fonte', async () => {
    const r = await get(app, '/v1/pacotes/brasil')
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(['cnpj', 'commodities', 'desmatamento', 'fundos', 'indisponiveis', 'licitacoes', 'mercado', 'pacote', 'tributos'])
    expect(r.body.indisponiveis).toEqual([])
    expect(r.body.pacote).toMatchObject({ rota: '/v1/pacotes/brasil', preco: 0.09, quantidade: 15, soma_das_partes: 0.187, economia: 0.097, economia_pct: 51.9 })
    expect(r.body.pacote.criterio).toContain('uma rota nova que atenda a regra entra sozinha')
    for (const path of BRASIL) {
      const [, , familia, nome] = path.split('/')
      const alone = await get(app, path)
      expect(alone.status).toBe(200)
      expect({ path, body: semIdade(r.body[familia!][nome!]) }).toEqual({ path, body: semIdade(alone.body) })
      const own = r.body[familia!][nome!]
      expect({ path, fonte: own.fonte !== undefined || own.fontes !== undefined }).toEqual({ path, fonte: true })
    }
  })

  test('a route added to the table joins the pack, the count and the sums; a part that fails, throws or hangs is null and listed, the rest served', async () => {
    const ctx = withNew(app.ctx, [
      route('/v1/novo/serie', () => ({ valores: [1, 2], fonte: { base: 'teste' } }), z.object({ dias: intParam(1, 9).default(3) })),
      route('/v1/novo/falha', () => {
        throw new ApiError('dados_indisponiveis', "A base 'novo' não está carregada; rode 'dadosbr ingest novo'.")
      }),
      route('/v1/novo/quebra', () => {
        throw new TypeError('undefined is not an object')
      }),
      route('/v1/novo/lenta', () => Bun.sleep(2_000).then(() => ({}))),
      route('/v1/novo/{id}', () => ({})),
      route('/v1/novo/exige', () => ({}), z.object({ termo: z.string().min(3) })),
    ])
    const cat = catalogo(ctx)[0]!
    expect([cat.quantidade, cat.soma_das_partes, cat.economia]).toEqual([19, 0.199, 0.109])
    expect(cat.partes.slice(15).map((p) => p.rota)).toEqual(['/v1/novo/serie', '/v1/novo/falha', '/v1/novo/quebra', '/v1/novo/lenta'])
    const t = performance.now()
    const body = (await service.brasil(ctx, new Request('http://localhost/v1/pacotes/brasil'), 'http://localhost', 300)).parse() as any
    expect(performance.now() - t).toBeLessThan(1_900)
    expect(body.novo).toEqual({ serie: { valores: [1, 2], fonte: { base: 'teste' } }, falha: null, quebra: null, lenta: null })
    expect(body.indisponiveis).toEqual([
      { familia: 'novo', nome: 'falha', rota: '/v1/novo/falha', status: 503, codigo: 'dados_indisponiveis', mensagem: "A base 'novo' não está carregada; rode 'dadosbr ingest novo'." },
      { familia: 'novo', nome: 'quebra', rota: '/v1/novo/quebra', status: 500, codigo: 'erro_interno', mensagem: 'falha inesperada nesta parte (registrada no log do servidor)' },
      { familia: 'novo', nome: 'lenta', rota: '/v1/novo/lenta', status: null, codigo: 'tempo_esgotado', mensagem: 'a parte não respondeu em 0.3 s; o pacote seguiu sem ela' },
    ])
    expect(body.commodities.clima.cinturoes).toHaveLength(9)
    expect(body.pacote.quantidade).toBe(19)
    expect(logs.some((l) => l.includes('falha interna numa parte do pacote') && l.includes('/v1/novo/quebra'))).toBe(true)
  })

  test('never paid for nothing: a part whose answer has no data counts as missing; with every part missing the pack is a 503', async () => {
    // Only these parts: one answers, one has a feed never fetched (semFonte), one base not built.
    const only = (extra: RouteDef[]): AppContext => ({ ...app.ctx, datasets: [{ name: 'novo', titulo: 'Novo', descricao: 'teste', ingested: false, routes: extra }] })
    const semCopia = defineRoute({ path: '/v1/novo/feed', dataset: 'novo', summary: 's', price: 0.003, response: z.any(), errors: [], semDados: semFonte, handler: () => ({ itens: [], fonte: { base: 'Fonte de teste', status: 'fonte_indisponivel' } }) })
    const falha = route('/v1/novo/falha', () => {
      throw new ApiError('dados_indisponiveis', "A base 'novo' não está carregada; rode 'dadosbr ingest novo'.")
    })
    const parcial = (await service.brasil(only([route('/v1/novo/serie', () => ({ valores: [1] })), semCopia, falha]), new Request('http://localhost/v1/pacotes/brasil'), 'http://localhost')).parse() as any
    expect(parcial.novo).toEqual({ serie: { valores: [1] }, feed: null, falha: null })
    expect(parcial.indisponiveis[0]).toEqual({
      familia: 'novo',
      nome: 'feed',
      rota: '/v1/novo/feed',
      status: 503,
      codigo: 'dados_indisponiveis',
      mensagem: 'Esta resposta não teria nenhum dado: nenhuma cópia de Fonte de teste foi obtida ainda. Nada foi cobrado; tente de novo em alguns minutos.',
    })
    const err = await service.brasil(only([semCopia, falha]), new Request('http://localhost/v1/pacotes/brasil'), 'http://localhost').catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect([err.status, err.codigo, err.message]).toEqual([
      503,
      'dados_indisponiveis',
      'Esta resposta não teria nenhum dado: nenhuma das 2 partes respondeu (/v1/novo/feed: dados_indisponiveis; /v1/novo/falha: dados_indisponiveis). Nada foi cobrado; tente de novo em alguns minutos.',
    ])
  })

  test('a dataset\'s own pack added later is listed by /v1/pacotes/amostra with the routes its answer names, and is not a part of brasil', () => {
    const pacote = defineRoute({ path: '/v1/novo/pacote', dataset: 'novo', summary: 'Série e falha numa chamada', price: 0.004, response: z.object({ serie: z.any(), falha: z.any(), indisponiveis: z.array(z.string()) }), errors: [], handler: () => ({}) })
    const ctx = withNew(app.ctx, [route('/v1/novo/serie', () => ({})), route('/v1/novo/falha', () => ({})), route('/v1/novo/outra', () => ({})), pacote])
    const cat = catalogo(ctx)
    expect(cat.map((p) => p.rota)).toEqual(['/v1/pacotes/brasil', '/v1/commodities/pacote', '/v1/mercado/pacote', '/v1/novo/pacote'])
    expect(cat[3]).toMatchObject({ preco: 0.004, quantidade: 2, soma_das_partes: 0.006, economia: 0.002, economia_pct: 33.3, descricao: 'Série e falha numa chamada' })
    expect(cat[3]!.partes.map((p) => p.nome)).toEqual(['serie', 'falha'])
    expect(cat[0]!.partes.map((p) => p.rota)).not.toContain('/v1/novo/pacote')
    expect(cat[0]!.partes.map((p) => p.rota).slice(15)).toEqual(['/v1/novo/serie', '/v1/novo/falha', '/v1/novo/outra'])
  })

  test('on an empty data directory: the parts whose base is not built, and the feed parts with no copy (nothing to charge for), are listed with their 503', async () => {
    const r = await get(empty, '/v1/pacotes/brasil')
    expect(r.status).toBe(200)
    expect(r.body.indisponiveis.map((x: any) => [x.rota, x.status, x.codigo])).toEqual(
      [
        '/v1/cnpj/mudancas',
        '/v1/licitacoes/abertas',
        '/v1/fundos/fluxos',
        '/v1/fundos/ranking',
        '/v1/fundos/movimentacoes',
        '/v1/mercado/noticias',
        '/v1/mercado/indicadores',
        '/v1/mercado/cambio',
        '/v1/commodities/clima',
        '/v1/commodities/fogo',
        '/v1/commodities/exportacoes',
        '/v1/commodities/hidrologia',
        '/v1/commodities/briefing',
        '/v1/desmatamento/ranking',
      ].map((rota) => [rota, 503, 'dados_indisponiveis']),
    )
    expect([r.body.fundos.fluxos, r.body.commodities.exportacoes]).toEqual([null, null])
    expect(r.body.commodities.clima).toBeNull()
    // The calendar is law kept as data in the code: no base to build, served anyway.
    expect(r.body.tributos.calendario.anos.length).toBeGreaterThan(0)
    expect(r.body.pacote.quantidade).toBe(15)
  })

  test('no parameters; HEAD; and the pack answers from one build per second', async () => {
    expect((await get(app, '/v1/pacotes/brasil?dias=3')).body.erro.codigo).toBe('parametro_desconhecido')
    expect((await get(app, '/v1/pacotes/amostra?x')).body.erro.codigo).toBe('parametro_desconhecido')
    const h = await get(app, '/v1/pacotes/brasil', { method: 'HEAD' })
    expect([h.status, h.text]).toEqual([200, ''])
    const [a, b] = await Promise.all([get(app, '/v1/pacotes/brasil'), get(app, '/v1/pacotes/brasil')])
    expect(a.text.length).toBeGreaterThan(50_000)
    expect(semIdade(a.body)).toEqual(semIdade(b.body))
  })
})
