// Exact values of the screening, from the bundled sample in the published bytes: the real MTE
// excerpt and the constructed CGU files (README.md in fixtures/ says which rows are which).
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FICTICIAS } from './fixtures/make-fixtures'
import { listEntries, readEntry } from '../../ingest/lib/zip'
import { hojeEmBrasilia, triagem } from '../../src/datasets/integridade/service'
import { vigenteAte } from '../../src/datasets/integridade/vigencia'
import { openIntegridadeFiles } from '../../src/datasets/integridade/store'
import { buildAndOpen, SAMPLE } from './helpers'

const { files, manifest, dataDir } = await buildAndOpen()
afterAll(() => files.db.close())

const HOJE = '2026-11-24'
const screen = (cnpj: string, hoje = HOJE) => triagem(files, cnpj, hoje)

describe('the published bytes of the fixtures', () => {
  test('the leniency header holds the cp1252 en dash (0x96) and the LENIÊNICA typo; CRLF and quoted fields', async () => {
    const zip = join(SAMPLE, '20261120_Acordos.zip')
    const entry = (await listEntries(zip)).find((e) => e.name.endsWith('_Acordos.csv'))!
    const parts: Uint8Array[] = []
    for await (const c of readEntry(zip, entry)) parts.push(c)
    const bytes = Buffer.concat(parts)
    const header = bytes.subarray(0, bytes.indexOf(0x0a) + 1)
    expect(header.includes(Buffer.from([0x20, 0x96, 0x20]))).toBe(true)
    expect(header.includes(Buffer.from('LENI\xcaNICA', 'latin1'))).toBe(true)
    expect(header.subarray(-2).toString('latin1')).toBe('\r\n')
    expect(header.toString('latin1').startsWith('"ID DO ACORDO";"CNPJ DO SANCIONADO";')).toBe(true)
  })

  test('the MTE excerpt: cp1252, unquoted, CRLF, no newline after the last line', () => {
    const bytes = readFileSync(join(SAMPLE, 'cadastro_de_empregadores.csv'))
    expect(bytes.toString('latin1').startsWith('ID;Ano da a\xe7\xe3o fiscal;UF;Empregador;CNPJ/CPF;')).toBe(true)
    expect(bytes.includes(Buffer.from('D\x92\xc1GUA', 'latin1'))).toBe(true)
    expect(bytes.subarray(-2).toString('latin1')).not.toContain('\n')
    expect(bytes.toString('latin1').split('\r\n').length).toBe(19)
  })
})

describe('CEIS and CNEP', () => {
  test('a sanction binds the legal entity: the head office finds the branch\'s record, marked raiz, after its own', () => {
    const r = screen(FICTICIAS.alfaMatriz)
    expect(r.apontamentos.ceis.map((a) => [a.correspondencia, a.cnpj, a.codigo_sancao, a.vigente])).toEqual([
      ['cnpj', FICTICIAS.alfaMatriz, '900102', false],
      ['raiz', FICTICIAS.alfaFilial, '900101', true],
    ])
    expect(screen(FICTICIAS.alfaFilial).apontamentos.ceis.map((a) => [a.correspondencia, a.codigo_sancao])).toEqual([['cnpj', '900101'], ['raiz', '900102']])
  })

  test('every field of a CEIS record under its key: dates ISO, the ABRAGÊNCIA column, a line break in OBSERVAÇÕES', () => {
    const [branch] = screen(FICTICIAS.alfaFilial).apontamentos.ceis
    expect(branch).toEqual({
      correspondencia: 'cnpj', cnpj: FICTICIAS.alfaFilial, vigente: true,
      codigo_sancao: '900101', categoria: 'Impedimento/proibição de contratar com prazo determinado',
      nome_sancionado: 'CONSTRUTORA FICTICIA ALFA LTDA', nome_informado_orgao: 'CONSTRUTORA ALFA (FICTICIA)',
      razao_social_receita: 'CONSTRUTORA FICTICIA ALFA LTDA', nome_fantasia_receita: 'ALFA OBRAS',
      data_inicio: '2025-03-15', data_fim: '2031-03-15', data_publicacao: '2025-03-17', data_transito_julgado: null,
      publicacao: 'Diário Oficial da União', detalhamento_publicacao: 'Seção 3, página 45', abrangencia: 'Em todos os Poderes da Esfera',
      orgao_sancionador: { nome: 'Prefeitura Municipal Ficticia de Exemplo', uf: 'MG', esfera: 'MUNICIPAL' },
      fundamentacao_legal: 'LEI 14133 - ART. 156, III', numero_processo: '00190.100001/2025-11',
      data_origem_informacao: '2025-03-18', origem_informacoes: 'Sistema Integrado de Registro do CEIS/CNEP',
      observacoes: 'Obra entregue fora do prazo;\nsegunda notificação sem resposta.',
    })
  })

  test('CNEP fines as numbers from 1.234.567,89 and 0,00; no end date = in force', () => {
    const cnep = screen(FICTICIAS.alfaMatriz).apontamentos.cnep
    expect(cnep.map((a) => [a.codigo_sancao, a.valor_multa, a.data_fim, a.vigente, a.data_transito_julgado])).toEqual([
      ['910201', 1234567.89, null, true, '2024-09-20'],
      ['910202', 0, '2025-02-20', false, '2024-09-20'],
    ])
  })

  test('"Sem informação" is null (end date, publication date, scope); an empty TIPO DE PESSOA with a CNPJ is a company; a CPF quoted in OBSERVAÇÕES is masked', () => {
    const [e] = screen(FICTICIAS.epsilon).apontamentos.ceis
    expect([e!.data_fim, e!.data_publicacao, e!.abrangencia, e!.data_transito_julgado, e!.vigente]).toEqual([null, null, null, null, true])
    expect(e!.observacoes).toBe('Sócio-administrador CPF ***.456.789-** citado no processo; "fraude" em licitação.')
  })

  test('vigente follows the end date against today in Brasília: the last day is still in force', () => {
    const fim = (hoje: string) => screen(FICTICIAS.alfaFilial, hoje).apontamentos.ceis[0]!.vigente
    expect([fim('2031-03-14'), fim('2031-03-15'), fim('2031-03-16')]).toEqual([true, true, false])
    expect(screen(FICTICIAS.alfaFilial, '2031-03-16').ficha_limpa).toBe(false) // the CNEP fine has no end date
    expect(hojeEmBrasilia(Date.UTC(2026, 10, 25, 2, 59))).toBe('2026-11-24')
    expect(hojeEmBrasilia(Date.UTC(2026, 10, 25, 3, 0))).toBe('2026-11-25')
  })
})

describe('CEPIM and leniency', () => {
  test('CEPIM: one record per agreement, numbers with their leading zeros, always in force', () => {
    expect(screen(FICTICIAS.beta).apontamentos.cepim).toEqual([
      { correspondencia: 'cnpj', cnpj: FICTICIAS.beta, vigente: true, nome_entidade: 'INSTITUTO FICTICIO BETA DE APOIO SOCIAL', numero_convenio: '039516', orgao_concedente: 'MINISTERIO FICTICIO DA CIDADANIA', motivo: 'DESCUMPRIMENTO DE CLAUSULA/CONDICAO DO INSTR.' },
      { correspondencia: 'cnpj', cnpj: FICTICIAS.beta, vigente: true, nome_entidade: 'INSTITUTO FICTICIO BETA DE APOIO SOCIAL', numero_convenio: '812345', orgao_concedente: 'MINISTERIO FICTICIO DA SAUDE', motivo: 'OMISSÃO NO DEVER DE PRESTAR CONTAS' },
    ])
  })

  test('an agreement read through the en-dash and LENIÊNICA headers, with its effects from _Efeitos; in force by its situation', () => {
    const [a, b] = screen(FICTICIAS.gama).apontamentos.acordos_leniencia
    expect(a).toEqual({
      correspondencia: 'cnpj', cnpj: FICTICIAS.gama, vigente: true, id_acordo: '9001',
      razao_social_receita: 'ENGENHARIA FICTICIA GAMA S.A.', nome_fantasia_receita: 'GAMA ENGENHARIA', situacao: 'Acordo em vigência',
      data_inicio: '2023-07-10', data_fim: '2033-07-10', data_informacao: '2023-07-15', numero_processo: '00190.400004/2021-44',
      orgao_responsavel: 'CGU/AGU', termos: 'Termo do acordo de leniência (ficticio)',
      efeitos: [
        { efeito: 'Pagamento de multa', complemento: 'R$ 120.000.000,00 em 10 parcelas anuais' },
        { efeito: 'Ressarcimento', complemento: 'Danos a empresa estatal ficticia' },
        { efeito: 'Isenção ou atenuação das sanções', complemento: null },
      ],
    })
    expect([b!.correspondencia, b!.cnpj]).toEqual(['raiz', FICTICIAS.gamaHolding])
    const delta = screen(FICTICIAS.delta)
    expect([delta.apontamentos.acordos_leniencia[0]!.vigente, delta.apontamentos.acordos_leniencia[0]!.termos, delta.ficha_limpa, delta.total_apontamentos]).toEqual([false, null, true, 1])
  })

  test('situations', () => {
    const v = (s: string | null, fim: string | null = null) => HOJE <= vigenteAte('acordos_leniencia', fim, s)
    expect([v('Acordo em vigência'), v('ACORDO EM EXECUÇÃO'), v('Acordo cumprido'), v('Acordo descumprido'), v('Rescindido'), v(null, '2020-01-01'), v('Outra', '2030-01-01')]).toEqual([true, true, false, false, false, false, true])
  })
})

describe('MTE employers list (real rows)', () => {
  test('a company as published, its inclusion date and period', () => {
    expect(screen('00638595000105').apontamentos.trabalho_escravo).toEqual([
      {
        correspondencia: 'cnpj', cnpj: '00638595000105', vigente: true, id: '552', empregador: 'VIABRAS ENGENHARIA EIRELI',
        estabelecimento: 'CANTEIRO DE OBRAS, RUA BARÃO DO SUASSUÍ, S/N, BAIRRO SANTA EFIGÊNIA, CONSELHEIRO LAFAIETE/MG', uf: 'MG',
        ano_acao_fiscal: 2022, trabalhadores_envolvidos: 2, cnae: '4391-6/00', data_decisao: '2025-07-22', data_inclusao: '2025-10-06',
        periodos_inclusao: [{ inicio: '2025-10-06', fim: null }], nota_rodape: null, observacao: null,
      },
    ])
  })

  test('inclusion periods: removed by injunction and included again, the last date is the current inclusion', () => {
    const [amafil] = screen('75784140000440').apontamentos.trabalho_escravo
    expect([amafil!.data_inclusao, amafil!.periodos_inclusao]).toEqual(['2025-04-09', [{ inicio: '2024-04-05', fim: '2024-05-10' }, { inicio: '2025-04-09', fim: null }]])
    const [ys] = screen('32264221000163').apontamentos.trabalho_escravo
    expect([ys!.empregador, ys!.data_inclusao]).toEqual(['YS COMÉRCIO DE ALIMENTOS, BEBIDAS E PRODUÇÃO DE EVENTOS LTDA', '2026-08-19'])
  })

  test('the head office finds a branch\'s inclusion by the root; the cp1252 right quote; a CPF ending a name is masked', () => {
    const r = screen('04746187000109')
    expect(r.apontamentos.trabalho_escravo.map((a) => [a.correspondencia, a.cnpj])).toEqual([['raiz', '04746187000209']])
    expect(screen('17869920000143').apontamentos.trabalho_escravo[0]!.estabelecimento).toBe('SÍTIO NOSSA SENHORA APARECIDA, ZONA RURAL, SANTA RITA D’OESTE/SP')
    expect(screen('37194000000180').apontamentos.trabalho_escravo[0]!.empregador).toBe('ARMANDO CALICHO MONTANO ***000384**')
    expect(screen('02896264000109').apontamentos.trabalho_escravo.map((a) => [a.id, a.trabalhadores_envolvidos])).toEqual([['99', 58], ['100', 53], ['101', 5]])
  })

  test('the list\'s date is its latest inclusion, an individual\'s row included (04/09/2026, the date its .txt gives)', () => {
    expect(manifest.listas.trabalho_escravo).toBe('2026-09-04')
  })
})

describe('legal entities only', () => {
  test('rows of individuals and of documents that are no CNPJ are counted per file and stored nowhere', () => {
    const byKind = Object.fromEntries(manifest.arquivos.map((a) => [a.tipo, [a.linhas_mantidas, a.linhas_descartadas, a.descartes]]))
    expect(byKind).toEqual({
      ceis: [3, 2, { pessoa_fisica: 1, sem_cnpj: 1 }],
      cnep: [2, 1, { pessoa_fisica: 1, sem_cnpj: 0 }],
      cepim: [2, 0, { pessoa_fisica: 0, sem_cnpj: 0 }],
      acordos: [3, 0, { pessoa_fisica: 0, sem_cnpj: 0 }],
      efeitos: [undefined, undefined, undefined],
      mte: [14, 4, { pessoa_fisica: 4, sem_cnpj: 0 }],
    })
    const all = files.db.query<{ corpo: string; cnpj: string }, []>('SELECT corpo, cnpj FROM apontamentos').all()
    expect(all.length).toBe(24)
    const text = JSON.stringify(all)
    const leaked = ['PESSOA FICTICIA', 'PESSOA 0', '***123456**', '***654321**', '000.000.', 'FOREIGN FICTITIOUS', '00000038407', '123.456.789-09'].filter((s) => text.includes(s))
    expect(leaked).toEqual([])
    expect(all.every((r) => /^\d{14}$/.test(r.cnpj))).toBe(true)
  })

  test('a well-formed CNPJ on no list: clean record, five empty lists, each list\'s date in fonte', () => {
    expect(screen('33683111000280')).toEqual({
      cnpj: '33683111000280', total_apontamentos: 0, ficha_limpa: true,
      apontamentos: { ceis: [], cnep: [], cepim: [], trabalho_escravo: [], acordos_leniencia: [] },
      fonte: { base: 'CGU/MTE', referencia: '2026-11-20', listas: { ceis: '2026-11-20', cnep: '2026-11-20', cepim: '2026-11-20', trabalho_escravo: '2026-09-04', acordos_leniencia: '2026-11-20' } },
    })
  })

  test('the records held in memory are exactly the build\'s, and a screening never reads SQLite', () => {
    const roots = files.db.query<{ raiz: string }, []>('SELECT DISTINCT raiz FROM apontamentos').all().map((r) => r.raiz)
    expect([...files.porRaiz.keys()].sort()).toEqual(roots.sort())
    const rows = files.db.query<{ n: number }, []>('SELECT count(*) AS n FROM apontamentos').get()!.n
    expect([...files.porRaiz.values()].flat(2).length).toBe(rows)
    const cnpjs = files.db.query<{ cnpj: string }, []>('SELECT DISTINCT cnpj FROM apontamentos').all().map((r) => r.cnpj)
    const before = cnpjs.map((c) => JSON.stringify(screen(c)))
    // The same build opened again, its SQLite file closed after the open: every answer unchanged.
    const again = openIntegridadeFiles(join(dataDir, 'integridade', 'current'), manifest)
    again.db.close()
    expect(cnpjs.map((c) => JSON.stringify(triagem(again, c, HOJE)))).toEqual(before)
    expect(triagem(again, '33683111000280', HOJE).ficha_limpa).toBe(true)
  })

  test('total counts every match, ficha_limpa only those in force', () => {
    const r = screen(FICTICIAS.alfaMatriz)
    expect([r.total_apontamentos, r.ficha_limpa]).toEqual([4, false])
    const later = screen(FICTICIAS.alfaMatriz, '2040-01-01')
    expect(later.apontamentos.ceis.map((a) => a.vigente)).toEqual([false, false])
    expect(later.ficha_limpa).toBe(false) // the fine without end date
  })
})

describe('the answer as text', () => {
  test('every root of the build: the JSON bytes the route sends parse and pass the route\'s schema', async () => {
    const { Triagem } = await import('../../src/datasets/integridade/model')
    const { triagemJson } = await import('../../src/datasets/integridade/service')
    const cnpjs = files.db.query<{ cnpj: string }, []>('SELECT DISTINCT cnpj FROM apontamentos').all().map((r) => r.cnpj)
    const { completeCnpj } = await import('../../src/core/documents')
    for (const c of [...cnpjs, '33683111000280', completeCnpj('901112220009')]) {
      const text = new TextDecoder().decode(triagemJson(files, c, HOJE))
      expect(Triagem.safeParse(JSON.parse(text)).success).toBe(true)
    }
  })
})
