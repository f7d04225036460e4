// The route table serves every path of the interface (SPEC §4), each at the price the interface
// states; paths beyond it (routes added later) are allowed. A typo is a 404.
import { afterAll, describe, expect, test } from 'bun:test'
import { ROUTES } from '../../src/app'
import { get, testApp } from '../helpers'

/** SPEC §4: every path and its price in USD (null: free). */
const INTERFACE: [path: string, price: number | null][] = [
  ['/v1/health', null], ['/v1/ferramentas', null], ['/v1/ferramentas/cnpj/{valor}', null], ['/v1/ferramentas/cpf/{valor}', null],
  ['/v1/cnpj/amostra', null], ['/v1/integridade/amostra', null], ['/v1/licitacoes/amostra', null], ['/v1/bcb/amostra', null],
  ['/v1/empresa/amostra', null], ['/v1/mercado/amostra', null], ['/v1/commodities/amostra', null], ['/v1/fundos/amostra', null],
  ['/v1/tributos/amostra', null], ['/v1/cadeias/amostra', null], ['/v1/desmatamento/amostra', null], ['/v1/pacotes/amostra', null],
  ['/v1/cnpj/situacao/{cnpj}', 0.001], ['/v1/cnpj/empresa/{cnpj}', 0.005], ['/v1/cnpj/empresa/{cnpj}/socios', 0.005],
  ['/v1/cnpj/empresa/{cnpj}/completo', 0.01], ['/v1/cnpj/busca', 0.01], ['/v1/cnpj/socio/busca', 0.02],
  ['/v1/integridade/consulta/{cnpj}', 0.01], ['/v1/licitacoes/fornecedor/{cnpj}', 0.01], ['/v1/licitacoes/abertas', 0.01],
  ['/v1/bcb/instituicao/{cnpj}', 0.005], ['/v1/empresa/enriquecer/{cnpj}', 0.05],
  ['/v1/mercado/noticias', 0.002], ['/v1/mercado/indicadores', 0.002], ['/v1/mercado/cambio', 0.002],
  ['/v1/commodities/clima', 0.005], ['/v1/commodities/fogo', 0.002], ['/v1/commodities/exportacoes', 0.005],
  ['/v1/commodities/hidrologia', 0.002], ['/v1/commodities/briefing', 0.1],
  ['/v1/fundos/fluxos', 0.005], ['/v1/fundos/consulta/{cnpj}', 0.005], ['/v1/fundos/ranking', 0.01],
  ['/v1/fundos/carteira/{cnpj}', 0.01], ['/v1/fundos/movimentacoes', 0.02],
  ['/v1/tributos/ncm/{codigo}', 0.005], ['/v1/tributos/busca', 0.005], ['/v1/tributos/calendario', 0.002],
  ['/v1/cadeias/energia_br', 0.05], ['/v1/cadeias/cafe_kc', 0.05], ['/v1/cadeias/soja_zs', 0.05], ['/v1/cadeias/capital_br', 0.05],
  ['/v1/desmatamento/municipio/{ibge}', 0.01], ['/v1/desmatamento/fornecedor/{cnpj}', 0.02], ['/v1/desmatamento/ranking', 0.01],
  ['/v1/commodities/pacote', 0.06], ['/v1/mercado/pacote', 0.004], ['/v1/pacotes/brasil', 0.09],
]

const { app } = await testApp()
afterAll(() => app.close())

describe('the interface', () => {
  test('all 53 paths are served, each at its price', () => {
    expect(new Set(INTERFACE.map(([p]) => p)).size).toBe(53)
    for (const [path, price] of INTERFACE) {
      const route = ROUTES.find((r) => r.path === path)
      expect(route ? [path, route.price] : [path, 'ausente']).toEqual([path, price])
    }
  })

  test('a typo is a 404', async () => {
    const r = await get(app, '/v1/integridade/consultas/33683111000280')
    expect(r.status).toBe(404)
    expect(r.body.erro.codigo).toBe('rota_inexistente')
  })
})
