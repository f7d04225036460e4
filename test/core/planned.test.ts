// Every path of the interface is declared: one whose dataset is not served yet answers 501
// nao_implementado naming the dataset (not the 404 of a typo), charges nothing, and the documents say so.
import { afterAll, describe, expect, test } from 'bun:test'
import { ROUTES } from '../../src/app'
import { PLANNED } from '../../src/datasets/planned'
import { DATASETS } from '../../src/datasets/registry'
import { get, testApp } from '../helpers'

const { app } = await testApp()
const paid = await testApp({ free: false, payTo: '0x000000000000000000000000000000000000dEaD', facilitatorUrl: 'http://127.0.0.1:9' })
afterAll(async () => {
  await app.close()
  await paid.app.close()
})

const planned = ROUTES.filter((r) => r.planned)
const concrete = (path: string) => path.replace('{cnpj}', '33683111000280').replace('{ibge}', '5107925').replace('{codigo}', '10063021')

describe('paths of the interface not served yet', () => {
  test('the route table covers all 53 paths of the interface', () => {
    expect(new Set(ROUTES.map((r) => r.path)).size).toBe(53)
    for (const ds of PLANNED) for (const r of ds.routes) expect(ROUTES.some((x) => x.path === r.path)).toBe(true)
  })

  test('each answers 501 nao_implementado naming its dataset, with any query, and charges nothing', async () => {
    for (const route of planned) {
      for (const a of [app, paid.app]) {
        const r = await get(a, concrete(route.path) + '?uf=SP&x=1')
        expect(r.status).toBe(501)
        expect(r.body.erro.codigo).toBe('nao_implementado')
        expect(r.body.erro.mensagem).toContain(`'${route.dataset}'`)
        expect(r.headers.get('payment-required')).toBeNull()
      }
    }
  })

  test('a typo is still a 404', async () => {
    const r = await get(app, '/v1/integridade/consultas/33683111000280')
    expect(r.status).toBe(404)
    expect(r.body.erro.codigo).toBe('rota_inexistente')
  })

  test('/llms.txt, /openapi.json and /termos say which datasets are served and which are not', async () => {
    const llms = (await get(app, '/llms.txt')).text
    // Once every dataset is served (cadeias and pacotes were the last), the section is gone.
    if (planned.length) expect(llms).toContain('## Ainda não servidas por esta versão')
    else expect(llms).not.toContain('## Ainda não servidas por esta versão')
    const openapi = (await get(app, '/openapi.json')).body
    expect(openapi.info.description).toContain('Bases servidas por esta versão: ferramentas, cnpj')
    const termos = (await get(app, '/termos')).text
    expect(termos).toContain('Servidas: ferramentas')
    for (const route of planned) {
      expect(llms).toContain(route.path)
      expect(openapi.paths[route.path].get['x-planejada']).toBe(true)
      expect(Object.keys(openapi.paths[route.path].get.responses)).toEqual(['501'])
      expect(termos).toContain(route.dataset)
    }
  })
})
