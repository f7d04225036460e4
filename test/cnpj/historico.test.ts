// The registry's history on the bundled sample's two real-format months (fixtures/rfb-2026-07 and
// rfb, 2026-08; the changes between them are listed in fixtures/make-earlier-month.ts): every
// change exactly once in the feed and in each CNPJ's history, with its kind and its values as each
// month's card showed them; the cards of July rebuilt from August equal July's own; bad input.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { buildCnpj } from '../../ingest/cnpj/load'
import { get, testApp } from '../helpers'
import { buildHistoryData, EARLIER_FIXTURES } from './helpers'
import { tempDir } from '../temp'

setDefaultTimeout(60_000)

const data = await buildHistoryData()
const { app } = await testApp({ dataDir: data })
// July alone, as its own build: what its cards were.
const july = tempDir('dadosbr-julho-')
await buildCnpj({ sourceDir: EARLIER_FIXTURES, month: '2026-07', dataDir: july, quiet: true, log: () => {} })
const { app: julyApp } = await testApp({ dataDir: july })
afterAll(async () => {
  await app.close()
  await julyApp.close()
})

const ALFA = 'CONSTRUTORA FICTICIA ALFA LTDA'
const REDE = 'REDE NACIONAL DE FARMÁCIAS S.A.'
const CAFE = 'CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA'
const at = (uf: string, municipio: string, cnae: string, razao: string) => ({ uf, municipio, cnae_principal: cnae, razao_social: razao })
const GO = at('GO', 'GOIANIA', '4120400', ALFA)
const SP = at('SP', 'SAO PAULO', '4771701', REDE)
const PR = at('PR', 'CURITIBA', '4771701', REDE)
const DF = at('DF', 'BRASILIA', '4120400', ALFA)
const socio = (nome: string, doc: string, codigo: string, descricao: string, data: string | null, faixa: string) => ({
  nome, tipo: 'pessoa_fisica', documento_mascarado: doc, qualificacao: { codigo, descricao }, data_entrada: data, faixa_etaria: faixa, representante_legal: null,
})
const BELTRANA = socio('BELTRANA FICTICIA DE SOUZA', '***333444**', '22', 'Sócio', '2012-03-05', '41-50')
const MARCOS = socio('MARCOS FICTICIO DE ALMEIDA', '***777888**', '10', 'Diretor', '2018-01-05', '51-60')
const JOAO = socio('JOÃO CAFÉ', '***111222**', '49', 'Sócio-Administrador', null, '31-40')
const change = (tipo: string, campo: string | null, antes: unknown, depois: unknown) => ({ tipo, campo, antes, depois })

/** August's changes, in feed order (tipo, UF, município, CNAE, CNPJ, field). */
const FEED = [
  { cnpj: '12ABC34501DE35', ...change('abertura', null, null, null), ...at('SP', 'SAO PAULO', '4721102', CAFE) },
  {
    cnpj: '11222333000181',
    ...change('situacao_cadastral', 'situacao_cadastral', { codigo: '02', descricao: 'Ativa', data: '2010-03-15', motivo: null }, { codigo: '08', descricao: 'Baixada', data: '2021-12-31', motivo: 'EXTINCAO POR ENCERRAMENTO LIQUIDACAO VOLUNTARIA' }),
    ...at('MG', 'BELO HORIZONTE', '4722901', 'AÇOUGUE E MERCEARIA IRMÃOS ARAÚJO LTDA'),
  },
  { cnpj: '44555666000181', ...change('nome_fantasia', 'nome_fantasia', 'FARMACIA NACIONAL', 'FARMA NACIONAL'), ...PR },
  // A move to another city: the city's name as each month's table gives it (July's has ANAPOLIS).
  { cnpj: '90111222000255', ...change('endereco', 'endereco.logradouro', 'RUA BARAO DO RIO BRANCO', 'AVENIDA GOIAS'), ...GO },
  { cnpj: '90111222000255', ...change('endereco', 'endereco.numero', '300', '500'), ...GO },
  { cnpj: '90111222000255', ...change('endereco', 'endereco.municipio', 'ANAPOLIS', 'GOIANIA'), ...GO },
  { cnpj: '90111222000255', ...change('endereco', 'endereco.cep', '75024000', '74005010'), ...GO },
  { cnpj: '90111222000255', ...change('endereco', 'endereco.codigo_municipio_ibge', '5201108', '5208707'), ...GO },
  { cnpj: '44555666000262', ...change('endereco', 'endereco.logradouro', 'AVENIDA PAULISTA', 'RUA AUGUSTA'), ...SP },
  { cnpj: '44555666000262', ...change('endereco', 'endereco.numero', '1000', '200'), ...SP },
  { cnpj: '44555666000262', ...change('endereco', 'endereco.complemento', 'CONJ 12', null), ...SP },
  { cnpj: '44555666000262', ...change('endereco', 'endereco.bairro', 'BELA VISTA', 'CONSOLAÇÃO'), ...SP },
  { cnpj: '44555666000262', ...change('endereco', 'endereco.cep', '01310100', '01305000'), ...SP },
  { cnpj: '90111222000174', ...change('cnae_secundarios', 'cnae_secundarios', [], [{ codigo: '4211101', descricao: 'Construção de rodovias e ferrovias' }]), ...DF },
  // A company's field, once, under its headquarters.
  { cnpj: '44555666000181', ...change('capital_social', 'capital_social', 20000000, 25000000), ...PR },
  { cnpj: '90111222000174', ...change('contato', 'contato.telefone', '(61) 30001001', '(61) 30001000'), ...DF },
  { cnpj: '12ABC34501DE35', ...change('socio_entrada', 'socios', null, JOAO), ...at('SP', 'SAO PAULO', '4721102', CAFE) },
  { cnpj: '90111222000174', ...change('socio_saida', 'socios', BELTRANA, null), ...DF },
  { cnpj: '33683111000280', ...change('socio_saida', 'socios', MARCOS, null), ...at('DF', 'BRASILIA', '6204000', 'SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)') },
  { cnpj: '90111222000336', ...change('saiu_do_cadastro', null, null, null), ...DF },
]
const FONTE = (referencia: string) => ({ base: 'RFB/CNPJ', referencia })
const AUGUST = { referencia: '2026-08', referencia_anterior: '2026-07' }

describe('/v1/cnpj/mudancas', () => {
  test("August's changes: each once, with its kind, field, and values as each month's card showed them", async () => {
    const r = await get(app, '/v1/cnpj/mudancas?por_pagina=100')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ referencia: '2026-08', referencia_anterior: '2026-07', lacuna: false, total: 20, pagina: 1, mudancas: FEED, fonte: FONTE('2026-08') })
    expect((await get(app, '/v1/cnpj/mudancas?referencia=2026-08&por_pagina=100')).body).toEqual(r.body)
  })

  test('the first month held has no changes (nothing to compare it with)', async () => {
    expect((await get(app, '/v1/cnpj/mudancas?referencia=2026-07')).body).toEqual({ referencia: '2026-07', referencia_anterior: null, lacuna: false, total: 0, pagina: 1, mudancas: [], fonte: FONTE('2026-07') })
  })

  test('every filter and combination gives exactly the feed items that match it, in feed order, page after page', async () => {
    const values = {
      tipo: [undefined, 'abertura', 'endereco', 'socio_saida', 'porte'],
      uf: [undefined, 'SP', 'DF', 'GO', 'RJ'],
      municipio: [undefined, '7107', '9701', '9373', '0001'],
      cnae: [undefined, '4771701', '4120400', '6204000', '0000001'],
    }
    const municipioDe: Record<string, string> = { 7107: 'SAO PAULO', 9701: 'BRASILIA', 9373: 'GOIANIA' }
    let checked = 0
    for (const tipo of values.tipo)
      for (const uf of values.uf)
        for (const municipio of values.municipio)
          for (const cnae of values.cnae) {
            const expected = FEED.filter((i) => (!tipo || i.tipo === tipo) && (!uf || i.uf === uf) && (!municipio || i.municipio === municipioDe[municipio]) && (!cnae || i.cnae_principal === cnae))
            const query = Object.entries({ tipo, uf, municipio, cnae }).filter(([, v]) => v).map(([k, v]) => `${k}=${v}`).join('&')
            for (const porPagina of [1, 3, 100]) {
              const got: unknown[] = []
              for (let pagina = 1; pagina <= Math.max(1, Math.ceil(expected.length / porPagina)); pagina++) {
                const r = await get(app, `/v1/cnpj/mudancas?${query}&pagina=${pagina}&por_pagina=${porPagina}`)
                expect(r.status).toBe(200)
                expect(r.body.total).toBe(expected.length)
                got.push(...r.body.mudancas)
              }
              expect(got).toEqual(expected)
              checked++
            }
          }
    expect(checked).toBe(5 * 5 * 5 * 5 * 3)
  })

  test('municipio_ibge gives what the Receita code of that município gives (the month\'s TOM ↔ IBGE table), alone, with the other filters and with municipio', async () => {
    const pairs = [['7107', '3550308'], ['9701', '5300108'], ['9373', '5208707']] as const
    for (const [tom, ibge] of pairs)
      for (const tipo of [undefined, 'abertura', 'endereco'])
        for (const uf of [undefined, 'SP', 'GO'])
          for (const cnae of [undefined, '4771701', '4120400']) {
            const rest = Object.entries({ tipo, uf, cnae }).filter(([, v]) => v).map(([k, v]) => `&${k}=${v}`).join('')
            const byTom = await get(app, `/v1/cnpj/mudancas?municipio=${tom}${rest}&por_pagina=100`)
            expect(byTom.status).toBe(200)
            expect((await get(app, `/v1/cnpj/mudancas?municipio_ibge=${ibge}${rest}&por_pagina=100`)).body).toEqual(byTom.body)
            expect((await get(app, `/v1/cnpj/mudancas?municipio=${tom}&municipio_ibge=${ibge}${rest}&por_pagina=100`)).body).toEqual(byTom.body)
          }
    expect((await get(app, '/v1/cnpj/mudancas?municipio_ibge=3550308')).body.total).toBe(FEED.filter((i) => i.municipio === 'SAO PAULO').length)
    expect((await get(app, '/v1/cnpj/mudancas?municipio=7107&municipio_ibge=5300108')).body).toMatchObject({ total: 0, mudancas: [] })
    // A município of the table with no change this month, and a valid code outside the table: no change, not an error.
    expect((await get(app, '/v1/cnpj/mudancas?municipio_ibge=3304557')).body).toMatchObject({ total: 0, mudancas: [] })
    expect((await get(app, '/v1/cnpj/mudancas?municipio_ibge=1500602')).body).toMatchObject({ total: 0, mudancas: [] })
  })

  test('"companies opened in SP in CNAE 4721102 last month" is one call', async () => {
    const r = await get(app, '/v1/cnpj/mudancas?tipo=abertura&uf=sp&cnae=4721102')
    expect(r.body.mudancas.map((m: { cnpj: string; razao_social: string }) => [m.cnpj, m.razao_social])).toEqual([['12ABC34501DE35', CAFE]])
  })

  test('bad input: 400 naming what is allowed', async () => {
    const bad = async (query: string) => {
      const r = await get(app, `/v1/cnpj/mudancas?${query}`)
      expect(r.status).toBe(400)
      return r.body.erro
    }
    expect(await bad('referencia=2026-13')).toEqual({ codigo: 'parametro_invalido', mensagem: "parâmetro de consulta 'referencia': use AAAA-MM (ex.: 2026-07)" })
    expect(await bad('referencia=julho')).toEqual({ codigo: 'parametro_invalido', mensagem: "parâmetro de consulta 'referencia': use AAAA-MM (ex.: 2026-07)" })
    expect(await bad('referencia=2026-06')).toEqual({ codigo: 'parametro_invalido', mensagem: "parâmetro de consulta 'referencia': o histórico não tem 2026-06; os meses guardados são 2026-07 a 2026-08" })
    expect((await bad('tipo=fechamento')).mensagem).toBe(
      "parâmetro de consulta 'tipo': deve ser um destes valores: abertura, situacao_cadastral, razao_social, nome_fantasia, endereco, cnae_principal, cnae_secundarios, natureza_juridica, capital_social, porte, contato, simples, mei, socio_entrada, socio_saida, socio_alteracao, saiu_do_cadastro, voltou_ao_cadastro",
    )
    expect(await bad('pagina=2')).toEqual({ codigo: 'parametro_invalido', mensagem: "parâmetro de consulta 'pagina': a página 2 passa do fim; com estes filtros há 20 mudanças em 2026-08, 1 página de 20" })
    expect((await bad('tipo=porte&pagina=2')).mensagem).toBe("parâmetro de consulta 'pagina': a página 2 passa do fim; com estes filtros há 0 mudanças em 2026-08, 1 página de 20")
    expect((await bad('por_pagina=101')).mensagem).toBe("parâmetro de consulta 'por_pagina': deve ser um número inteiro de 1 a 100")
    expect((await bad('uf=XX')).mensagem).toBe("parâmetro de consulta 'uf': deve ser a sigla de uma das 27 UFs (duas letras: AC, AL, AM, AP, BA, CE, DF, ES, GO, MA, MG, MS, MT, PA, PB, PE, PI, PR, RJ, RN, RO, RR, RS, SC, SE, SP, TO) ou EX (estabelecimento no exterior)")
    expect((await bad('municipio=71')).mensagem).toBe("parâmetro de consulta 'municipio': código de 4 dígitos da Receita")
    expect((await bad('cnae=47717')).mensagem).toBe("parâmetro de consulta 'cnae': sete dígitos, sem pontuação (ex. 4711302)")
    expect((await bad('cnae=6201-5/01')).mensagem).toBe("parâmetro de consulta 'cnae': sete dígitos, sem pontuação (ex. 4711302)")
    expect((await bad('municipio_ibge=3550309')).mensagem).toBe("parâmetro de consulta 'municipio_ibge': código IBGE com dígito verificador inválido (o 7º dígito não confere com os seis primeiros): confira o código (ex. 1500602, Altamira/PA)")
  })
})

/** Each CNPJ's own changes, and its company's (and partners') while it was in the dump. */
const HISTORY: Record<string, { meses: string[]; mudancas: unknown[] }> = {
  '44555666000181': { meses: ['2026-07', '2026-08'], mudancas: [FEED[2], FEED[14]] },
  '44555666000262': { meses: ['2026-07', '2026-08'], mudancas: [...FEED.slice(8, 13), FEED[14]] },
  '44555666000343': { meses: ['2026-07', '2026-08'], mudancas: [FEED[14]] },
  '90111222000174': { meses: ['2026-07', '2026-08'], mudancas: [FEED[13], FEED[15], FEED[17]] },
  '90111222000255': { meses: ['2026-07', '2026-08'], mudancas: [...FEED.slice(3, 8), FEED[17]] },
  // Gone in August: its own departure only (its company's August changes are on the cards still in the dump).
  '90111222000336': { meses: ['2026-07'], mudancas: [FEED[19]] },
  '12ABC34501DE35': { meses: ['2026-08'], mudancas: [FEED[0], FEED[16]] },
  '11222333000181': { meses: ['2026-07', '2026-08'], mudancas: [FEED[1]] },
  '33683111000280': { meses: ['2026-07', '2026-08'], mudancas: [FEED[18]] },
  '77888999000181': { meses: ['2026-07', '2026-08'], mudancas: [] },
  // A valid CNPJ never in the registry: no history, 200.
  '99999999000191': { meses: [], mudancas: [] },
}

describe('/v1/cnpj/empresa/{cnpj}/historico', () => {
  for (const [cnpj, expected] of Object.entries(HISTORY))
    test(`${cnpj}: its changes, newest first`, async () => {
      const r = await get(app, `/v1/cnpj/empresa/${cnpj}/historico`)
      expect(r.status).toBe(200)
      const mudancas = expected.mudancas.map((m) => {
        const { tipo, campo, antes, depois } = m as ReturnType<typeof change>
        return { ...AUGUST, tipo, campo, antes, depois }
      })
      expect(r.body).toEqual({ cnpj, meses: expected.meses, mudancas, fonte: FONTE('2026-08') })
    })

  test('every change of the feed is in the history of its CNPJ exactly once', async () => {
    for (const item of FEED) {
      const { mudancas } = (await get(app, `/v1/cnpj/empresa/${item.cnpj}/historico`)).body
      const same = mudancas.filter((m: ReturnType<typeof change>) => JSON.stringify([m.tipo, m.campo, m.antes, m.depois]) === JSON.stringify([item.tipo, item.campo, item.antes, item.depois]))
      expect(same).toHaveLength(1)
    }
  })

  test('an invalid CNPJ is 400', async () => {
    expect((await get(app, '/v1/cnpj/empresa/123/historico')).body.erro.codigo).toBe('cnpj_invalido')
  })
})

describe('?referencia= on /empresa, /completo and /socios', () => {
  const CNPJS = ['33683111000280', '12ABC34501DE35', '11222333000181', '44555666000181', '44555666000262', '44555666000343', '44555666000424', '77888999000181', '90111222000174', '90111222000255', '90111222000336']
  for (const route of ['', '/completo', '/socios'])
    test(`/empresa/{cnpj}${route}?referencia=2026-07 is July's own answer, for every CNPJ (404 where July had none)`, async () => {
      for (const cnpj of CNPJS) {
        const past = await get(app, `/v1/cnpj/empresa/${cnpj}${route}?referencia=2026-07`)
        const own = await get(julyApp, `/v1/cnpj/empresa/${cnpj}${route}`)
        expect(`${cnpj} ${past.status}`).toBe(`${cnpj} ${own.status}`)
        expect(past.body).toEqual(own.body)
      }
    })

  test("July's card shows July's values, and its code tables (CNAE 4771701 had another wording)", async () => {
    const r = (await get(app, '/v1/cnpj/empresa/44555666000262?referencia=2026-07')).body
    expect(r.endereco).toEqual({ logradouro: 'AVENIDA PAULISTA', numero: '1000', complemento: 'CONJ 12', bairro: 'BELA VISTA', municipio: 'SAO PAULO', uf: 'SP', cep: '01310100', codigo_municipio_ibge: '3550308', pais: null })
    expect(r.capital_social).toBe(20000000)
    expect(r.cnae_principal).toEqual({ codigo: '4771701', descricao: 'Comércio varejista de produtos farmacêuticos sem manipulação de fórmulas' })
    expect(r.fonte).toEqual(FONTE('2026-07'))
    expect((await get(app, '/v1/cnpj/empresa/44555666000262')).body.cnae_principal.descricao).toBe('Comércio varejista de produtos farmacêuticos, sem manipulação de fórmulas')
    expect((await get(app, '/v1/cnpj/empresa/12ABC34501DE35?referencia=2026-07')).body.erro).toEqual({ codigo: 'nao_encontrado', mensagem: 'CNPJ 12ABC34501DE35 não consta na base de 2026-07.' })
  })

  test('the month in use, asked by name, is the plain answer', async () => {
    for (const route of ['', '/completo', '/socios'])
      expect((await get(app, `/v1/cnpj/empresa/33683111000280${route}?referencia=2026-08`)).body).toEqual((await get(app, `/v1/cnpj/empresa/33683111000280${route}`)).body)
  })

  test('a month the history does not hold, or a malformed one: 400 naming the months held', async () => {
    for (const route of ['', '/completo', '/socios']) {
      const r = await get(app, `/v1/cnpj/empresa/33683111000280${route}?referencia=2025-01`)
      expect(r.status).toBe(400)
      expect(r.body.erro).toEqual({ codigo: 'parametro_invalido', mensagem: "parâmetro de consulta 'referencia': o histórico não tem 2025-01; os meses guardados são 2026-07 a 2026-08" })
      expect((await get(app, `/v1/cnpj/empresa/33683111000280${route}?referencia=2026-7`)).body.erro.mensagem).toBe("parâmetro de consulta 'referencia': use AAAA-MM (ex.: 2026-07)")
    }
  })
})
