// Exact values from the real May 2024 workbooks (banks, credit unions) and the constructed lists
// in the same layout (README.md in fixtures/ says which is which).
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { hostnames, rootOf, splitSheet, xlsxRows } from '../../ingest/bcb/parse'
import { instituicao, raizDe } from '../../src/datasets/bcb/service'
import { buildAndOpen, REAL } from './helpers'

const { files, manifest } = await buildAndOpen()
afterAll(() => files.db.close())

describe('the real workbooks', () => {
  test('banner rows, the header below them, the FONTE footer dropped; "Posição: 31.5.2024" is the list\'s date', async () => {
    const sheet = splitSheet(await xlsxRows(readFileSync(join(REAL, '202405BANCOS.xlsx'))))
    expect(sheet.posicao).toBe('2024-05-31')
    expect(sheet.banner).toContain('SEDES DE INSTITUIÇÕES BANCÁRIAS SOB A SUPERVISÃO DO BACEN')
    expect(sheet.header.slice(0, 3)).toEqual(['CNPJ', 'NOME INSTITUIÇÃO', 'SEGMENTO'])
    expect(sheet.rows.length).toBe(157)
    expect(sheet.rows.at(-1)![1]).toBe('BANCO ORIGINAL S.A.')
  })

  test('every list counted in the manifest, with its date', () => {
    expect(manifest.listas).toEqual({ bancos: '2024-05-31', cooperativas: '2024-05-31', consorcios: '2024-05-31', demais_instituicoes: '2024-05-31', conglomerados: '2024-05-31' })
    expect(manifest.registros).toEqual({ bancos: 157, cooperativas: 793, consorcios: 2, demais_instituicoes: 2, conglomerados: 2 })
    expect(manifest.referencia).toBe('2024-05-31')
  })
})

describe('answers', () => {
  test('Banco do Brasil: a dotted root in the list, a site with a scheme', () => {
    expect(instituicao(files, '00000000')).toEqual({
      cnpj_basico: '00000000', autorizada: true,
      registros: [{
        lista: 'bancos', nome: 'BANCO DO BRASIL S.A.', segmento: 'Banco do Brasil - Banco Múltiplo',
        endereco: { logradouro: 'SAUN QUADRA 5 BLOCO B TORRE SUL 4 ANDAR', complemento: 'EDIFICIO BANCO DO BRASIL', bairro: 'ASA NORTE', cep: '70040-912', municipio: 'BRASILIA', uf: 'DF', municipio_ibge: '5300108' },
        telefone: '(61) 34933638', sitio: 'HTTPS://WWW.BB.COM.BR', carteira_comercial: true, cooperativa: null, conglomerado: null,
      }],
      dominios_verificados: ['www.bb.com.br'],
      fonte: { base: 'BCB', referencia: '2024-05-31', listas: manifest.listas },
    })
  })

  test('an undotted root; a site with a path: the hostname only', () => {
    const deere = instituicao(files, '91884981')
    expect([deere.registros[0]!.nome, deere.registros[0]!.sitio, deere.dominios_verificados]).toEqual(['BANCO JOHN DEERE S.A.', 'WWW.DEERE.COM.BR/PT/FINANCIAMENTO/BANCO-JOHN-DEERE/', ['www.deere.com.br']])
    expect(instituicao(files, '92894922').registros[0]!.telefone).toBe('0800 7440744')
  })

  test('a credit union: class, association criterion, category, central', () => {
    const r = instituicao(files, '00075847')
    expect(r.registros).toEqual([{
      lista: 'cooperativas', nome: 'COOPERATIVA DE CRÉDITO UNICRED CENTRO-SUL LTDA - UNICRED CENTRO-SUL', segmento: 'Cooperativa de Crédito',
      endereco: { logradouro: 'RUA ANTONIO DE LUCCA 191', complemento: null, bairro: 'PIO CORREA', cep: '88811-503', municipio: 'CRICIUMA', uf: 'SC', municipio_ibge: '4204608' },
      telefone: '(48) 34310950', sitio: 'HTTPS://WWW.UNICRED.COM.BR/CENTROSUL', carteira_comercial: null,
      cooperativa: { classe: 'Singular', criterio_associacao: 'Livre Admissão', categoria: 'Clássica', filiacao: 'CCC UNICRED CENTRAL CONEXÃO LTDA - UNICRED CENTRAL CONEXÃO' },
      conglomerado: null,
    }])
    expect(r.dominios_verificados).toEqual(['www.unicred.com.br'])
    // A central without a site: authorized, no domain.
    expect([instituicao(files, '00106180').registros[0]!.cooperativa!.classe, instituicao(files, '00106180').dominios_verificados]).toEqual(['Central', []])
  })

  test('one registro per list: an institution and its conglomerate with its role; two sites in one cell', () => {
    const eta = instituicao(files, '98765433')
    expect(eta.registros.map((r) => [r.lista, r.segmento, r.conglomerado])).toEqual([
      ['demais_instituicoes', 'Instituição de Pagamento', null],
      ['conglomerados', null, { nome: 'CONGLOMERADO FICTICIO ZETA', classe: 'Conglomerado Prudencial', tipo_participacao: 'Participante', data_inicio: '2022-06-15' }],
    ])
    expect(eta.dominios_verificados).toEqual(['app.etapag-ficticia.com.br', 'www.etapag-ficticia.com.br'])
  })

  test('malformed sites are dropped; a port is not part of the hostname', () => {
    expect(instituicao(files, '98765435').dominios_verificados).toEqual([])
    expect(instituicao(files, '98765434').dominios_verificados).toEqual(['www.thetaconsorcio-ficticio.com.br'])
  })

  test('a root on no list: not authorized, empty lists, fonte', () => {
    expect(instituicao(files, '33683111')).toEqual({ cnpj_basico: '33683111', autorizada: false, registros: [], dominios_verificados: [], fonte: { base: 'BCB', referencia: '2024-05-31', listas: manifest.listas } })
  })
})

describe('rules', () => {
  test('roots as the lists write them', () => {
    expect([rootOf('00.000.000'), rootOf('91884981'), rootOf('208'), rootOf(' 00.360.305 '), rootOf('00000000000191'), rootOf('12.ABC.345'), rootOf('123'.repeat(5)), rootOf('')]).toEqual(['00000000', '91884981', '00000208', '00360305', '00000000', '12ABC345', null, null])
  })

  test('a CNPJ or a root, punctuated or not, asks for the root', () => {
    expect([raizDe('00.000.000/0001-91'), raizDe('00000000000191'), raizDe('00.000.000'), raizDe('60701190'), raizDe('00000000000192'), raizDe('1234')]).toEqual(['00000000', '00000000', '00000000', '60701190', null, null])
  })

  test('hostnames of SÍTIO NA INTERNET', () => {
    expect(hostnames('HTTPS://WWW.BB.COM.BR')).toEqual(['www.bb.com.br'])
    expect(hostnames('http://x.com.br:8080/p?q=1')).toEqual(['x.com.br'])
    expect(hostnames('WWW.A.COM.BR / WWW.B.COM.BR')).toEqual(['www.a.com.br', 'www.b.com.br'])
    expect(hostnames('WWW.SICOOB.COM.BR.')).toEqual(['www.sicoob.com.br'])
    for (const bad of ['WWW.SICOOB,COM.BR', 'contato@banco.com.br', 'COM.BR', 'semponto', 'WWW.BANCO .COM.BR', 'http://', '']) expect(hostnames(bad)).toEqual([])
    expect(hostnames(null)).toEqual([])
  })
})
