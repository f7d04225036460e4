// A full-size month of the Banco Central's lists for the benchmark (~2 k institutions: ~160 banks,
// ~800 credit unions, ~140 consortium administrators, ~700 other institutions, ~250 conglomerate
// members) in the published layout: XLSX in a zip per list, banner rows, padded cells, dotted and
// undotted roots, sites with schemes and paths, the FONTE footer. Every name is made up.
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeZipFiles } from '../lib/zip-write'
import { seededRandom } from '../lib/random'
import { writeXlsx } from './xlsx-write'

const BANNER = (title: string) => [['BANCO CENTRAL DO BRASIL - BACEN'], ['DEPARTAMENTO DE MONITORAMENTO DO SISTEMA FINANCEIRO - DESIG'], [], [], [title], [], ['Posição: 31.10.2026'], [], []]
const FOOTER = ['FONTE: INSTITUIÇÕES FINANCEIRAS (O TEOR DAS INFORMAÇÕES É DE RESPONSABILIDADE DA RESPECTIVA INSTITUIÇÃO/EMPRESA, DE ACORDO COM A REGULAMENTAÇÃO EM VIGOR)']

export interface BcbSynth {
  /** Roots in the lists (for the benchmark's requests). */
  raizes: string[]
}

export async function synthBcb(out: string, options: { seed?: number; month?: string } = {}): Promise<BcbSynth> {
  const next = seededRandom(options.seed ?? 7)
  const int = (n: number) => Math.floor(next() * n)
  const month = options.month ?? '202610'
  mkdirSync(out, { recursive: true })
  const tmp = join(out, '.xlsx-tmp')
  mkdirSync(tmp, { recursive: true })
  const raizes: string[] = []
  const root = (i: number) => {
    const r = String(20_000_000 + i * 37_199).padStart(8, '0')
    raizes.push(r)
    return next() < 0.6 ? `${r.slice(0, 2)}.${r.slice(2, 5)}.${r.slice(5)}` : r
  }
  const site = (i: number) => [`WWW.INSTITUICAO${i}.COM.BR`, `HTTPS://WWW.INST${i}.COM.BR/`, `www.inst${i}.b.br/portal`, '', `WWW.INST${i} ,COM.BR`][int(5)]!
  const address = (i: number) => [`RUA SINTETICA ${i}  ${int(2000)}`, next() < 0.5 ? `${int(30)} ANDAR` : '', 'CENTRO', `${String(int(99_999)).padStart(5, '0')}-${String(int(999)).padStart(3, '0')}`]
  let n = 0
  const lists: [string, string, string[], () => string[]][] = [
    ['BANCOS', 'SEDES DE INSTITUIÇÕES BANCÁRIAS SOB A SUPERVISÃO DO BACEN, EM FUNCIONAMENTO NO PAÍS',
      ['CNPJ', 'NOME INSTITUIÇÃO', 'SEGMENTO', 'ENDEREÇO', 'COMPLEMENTO', 'BAIRRO', 'CEP', 'MUNICIPIO', 'UF', 'DDD', 'FONE', 'CART COMERCIAL', 'E-MAIL', 'SÍTIO NA INTERNET', 'MUNICIPIO IBGE'],
      () => { const i = n++; return [root(i), `BANCO SINTETICO ${i} S.A.`, 'Banco Múltiplo', ...address(i), 'SAO PAULO', 'SP', '11', String(30_000_000 + i), next() < 0.8 ? 'Sim' : 'Não', `contato${i}@exemplo.invalid`, site(i), '3550308'] }],
    ['COOPERATIVAS', 'SEDES DE COOPERATIVAS DE CRÉDITO SOB A SUPERVISÃO DO BACEN, EM FUNCIONAMENTO NO PAÍS',
      ['CNPJ', 'NOME INSTITUIÇÃO', 'ENDEREÇO', 'COMPLEMENTO', 'BAIRRO', 'CEP', 'MUNICÍPIO', 'UF', 'DDD', 'TELEFONE', 'CLASSE', 'CRITÉRIO DE ASSOCIAÇÃO', 'CATEG COOP SING', 'FILIAÇÃO', 'E-MAIL', 'SÍTIO NA INTERNET', 'MUNICIPIO IBGE'],
      () => { const i = n++; return [root(i), `COOPERATIVA DE CRÉDITO SINTETICA ${i} LTDA.`, ...address(i), 'ARAGUARI', 'MG', '34', String(32_000_000 + i), next() < 0.95 ? 'Singular' : 'Central', 'Livre Admissão', 'Clássica', 'CENTRAL SINTETICA', '', site(i), '3103504'] }],
    ['CONSORCIO', 'SEDES DE ADMINISTRADORAS DE CONSÓRCIO SOB A SUPERVISÃO DO BACEN, EM FUNCIONAMENTO NO PAÍS',
      ['CNPJ', 'NOME INSTITUIÇÃO', 'ENDEREÇO', 'COMPLEMENTO', 'BAIRRO', 'CEP', 'MUNICÍPIO', 'UF', 'DDD', 'TELEFONE', 'E-MAIL', 'SÍTIO NA INTERNET', 'MUNICIPIO IBGE'],
      () => { const i = n++; return [root(i), `ADMINISTRADORA DE CONSORCIOS SINTETICA ${i} LTDA`, ...address(i), 'CURITIBA', 'PR', '41', String(33_000_000 + i), '', site(i), '4106902'] }],
    ['SOCIEDADES', 'SEDES DE INSTITUIÇÕES NÃO BANCÁRIAS SOB A SUPERVISÃO DO BACEN, EM FUNCIONAMENTO NO PAÍS',
      ['CNPJ', 'NOME INSTITUIÇÃO', 'SEGMENTO', 'ENDEREÇO', 'COMPLEMENTO', 'BAIRRO', 'CEP', 'MUNICIPIO', 'UF', 'DDD', 'FONE', 'E-MAIL', 'SÍTIO NA INTERNET', 'MUNICIPIO IBGE'],
      () => { const i = n++; return [root(i), `SOCIEDADE SINTETICA ${i} S.A.`, ['Instituição de Pagamento', 'Sociedade de Crédito Direto', 'Sociedade Distribuidora de TVM'][int(3)]!, ...address(i), 'RIO DE JANEIRO', 'RJ', '21', String(34_000_000 + i), '', site(i), '3304557'] }],
  ]
  const sizes = { BANCOS: 160, COOPERATIVAS: 800, CONSORCIO: 140, SOCIEDADES: 700 } as Record<string, number>
  const write = async (key: string, rows: string[][]) => {
    const xlsx = join(tmp, `${month}${key}.xlsx`)
    await writeXlsx(xlsx, rows)
    await writeZipFiles(join(out, `${month}${key}.zip`), [{ name: `${month}${key}.xlsx`, content: readFileSync(xlsx) }])
  }
  for (const [key, title, header, row] of lists) await write(key, [...BANNER(title), header, ...Array.from({ length: sizes[key]! }, row), [], FOOTER])
  // Conglomerates: members drawn from the banks and other institutions.
  const members = Array.from({ length: 250 }, (_, i) => {
    const r = raizes[int(160)] ?? raizes[0]!
    return [`CONGLOMERADO SINTETICO ${Math.floor(i / 5)}`, 'Conglomerado Prudencial', r, `INSTITUICAO SINTETICA ${r}`, i % 5 ? 'Participante' : 'Líder', '01/01/2020', 'SP']
  })
  await write('CONGLOMERADOS', [...BANNER('CONGLOMERADOS FINANCEIROS E PRUDENCIAIS'), ['NOME DO CONGLOMERADO', 'CLASSE DO CONGLOMERADO', 'CNPJ PARTICIPANTE', 'NOME DO PARTICIPANTE', 'TIPO PARTICIPAÇÃO', 'DATA INÍCIO', 'UF'], ...members, [], FOOTER])
  rmSync(tmp, { recursive: true, force: true })
  return { raizes }
}
