// Full-size lists in the published format, for the benchmark: CEIS ~25 k rows, CNEP ~3 k, CEPIM
// ~4 k, leniency ~200 agreements with their effects, MTE ~800 employers, with the real quirks
// (individuals' rows with masked CPFs, Sem informação, multi-line observations, fines with thousands
// dots, inclusion periods, punctuated documents). Deterministic for a seed. Every name is made up.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { completeCnpj } from '../../src/core/documents'
import { seededRandom } from '../lib/random'
import { encodeCp1252 } from '../lib/cp1252'
import { writeZipFiles } from '../lib/zip-write'
import { ACORDOS_HEADER, br, CEIS_HEADER, cguCsv, CNEP_HEADER, CEPIM_HEADER, EFEITOS_HEADER, mteCsv, punctuated } from './format'

export interface IntegridadeSynthOptions {
  out: string
  ceis?: number
  cnep?: number
  cepim?: number
  acordos?: number
  mte?: number
  seed?: number
  /** The CGU files' date, AAAAMMDD. */
  date?: string
}

export interface IntegridadeSynth {
  /** CNPJs with records (for the benchmark's requests), and roots sanctioned in several lists. */
  sancionados: string[]
}

const CATEGORIAS = ['Impedimento/proibição de contratar com prazo determinado', 'Suspensão', 'Declaração de Inidoneidade sem prazo determinado', 'Proibição - Lei de Improbidade', 'Impedimento - Lei do Pregão']
const UFS = ['SP', 'RJ', 'MG', 'RS', 'PR', 'BA', 'PE', 'GO', 'DF', 'SC', 'PA', 'MA']
const ESFERAS = ['FEDERAL', 'ESTADUAL', 'MUNICIPAL']

export async function synthIntegridade(o: IntegridadeSynthOptions): Promise<IntegridadeSynth> {
  const next = seededRandom(o.seed ?? 42)
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)]!
  const date = o.date ?? '20261120'
  mkdirSync(o.out, { recursive: true })
  // A pool of companies: about one in five sanctioned more than once (several lists, several branches).
  const roots = Array.from({ length: 20_000 }, (_, i) => String(10_000_000 + i * 4_391 + int(4_000)).padStart(8, '0'))
  const cnpjOf = (root: string, order = 1) => completeCnpj(root + String(order).padStart(4, '0'))
  const company = () => {
    const root = pick(roots)
    return cnpjOf(root, next() < 0.2 ? 2 + int(5) : 1)
  }
  const isoDay = (from: number, span: number) => new Date(Date.UTC(from, 0, 1) + int(span * 365) * 86_400_000).toISOString().slice(0, 10)
  const sancionados = new Set<string>()
  const sanction = (cadastro: 'CEIS' | 'CNEP', i: number): string[] => {
    const individual = next() < 0.3
    const doc = individual ? `***${String(int(1_000_000)).padStart(6, '0')}**` : company()
    if (!individual) sancionados.add(doc)
    const name = individual ? `PESSOA SINTETICA ${i}` : `EMPRESA SINTETICA ${doc.slice(0, 8)} LTDA`
    const inicio = isoDay(2015, 10)
    const fim = next() < 0.2 ? 'Sem informação' : br(isoDay(2020, 12))
    const obs = next() < 0.1 ? `Observação da linha ${i};\r\nsegunda linha com "aspas"` : ''
    const row = [cadastro, String(100_000 + i), individual ? 'F' : next() < 0.05 ? '' : 'J', doc, name, name, individual ? '' : name, '', `${int(99_999)}.${int(999_999)}/20${10 + int(16)}-${int(99)}`,
      pick(CATEGORIAS), br(inicio), fim, br(inicio), 'Diário Oficial da União', 'Seção 3', next() < 0.3 ? br(inicio) : '', next() < 0.1 ? 'Sem Informação' : 'Em todos os Poderes da Esfera',
      `ÓRGÃO SINTÉTICO ${int(500)}`, pick(UFS), pick(ESFERAS), 'LEI 14133 - ART. 156', br(inicio), 'Sistema Integrado de Registro do CEIS/CNEP', obs]
    if (cadastro === 'CNEP') row.splice(10, 0, next() < 0.2 ? '0,00' : `${int(9_999).toLocaleString('pt-BR')}.${String(int(1000)).padStart(3, '0')},${String(int(100)).padStart(2, '0')}`)
    return row
  }
  const ceis = Array.from({ length: o.ceis ?? 25_000 }, (_, i) => sanction('CEIS', i))
  const cnep = Array.from({ length: o.cnep ?? 3_000 }, (_, i) => sanction('CNEP', i))
  const cepim = Array.from({ length: o.cepim ?? 4_000 }, () => {
    const doc = company()
    sancionados.add(doc)
    return [doc, `ASSOCIACAO SINTETICA ${doc.slice(0, 8)}`, String(int(999_999)).padStart(6, '0'), `MINISTERIO SINTETICO ${int(30)}`, 'DESCUMPRIMENTO DE CLAUSULA/CONDICAO DO INSTR.']
  })
  const acordos: string[][] = []
  const efeitos: string[][] = []
  for (let i = 0; i < (o.acordos ?? 200); i++) {
    const id = String(1_000 + i)
    for (let k = 0; k < 1 + (next() < 0.3 ? 1 : 0); k++) {
      const doc = company()
      sancionados.add(doc)
      const inicio = isoDay(2017, 9)
      acordos.push([id, doc, `EMPREITEIRA SINTETICA ${doc.slice(0, 8)} S.A.`, '', br(inicio), br(isoDay(2027, 10)), pick(['Acordo em vigência', 'Acordo cumprido', 'Acordo descumprido']), br(inicio), `00190.${int(999_999)}/2019-11`, 'Termo sintético', 'CGU/AGU'])
    }
    efeitos.push([id, 'Pagamento de multa', `R$ ${int(900)}.000.000,00`], [id, 'Ressarcimento', ''])
  }
  const mte = Array.from({ length: o.mte ?? 800 }, (_, i) => {
    const individual = next() < 0.5
    const doc = individual ? `${String(int(1000)).padStart(3, '0')}.${String(int(1000)).padStart(3, '0')}.${String(int(1000)).padStart(3, '0')}-${String(int(100)).padStart(2, '0')}` : punctuated(company())
    if (!individual) sancionados.add(doc.replace(/\D/g, ''))
    const inclusao = next() < 0.05 ? `${br(isoDay(2023, 1))} a ${br(isoDay(2024, 1))}, ${br(isoDay(2025, 1))}` : br(isoDay(2024, 2))
    return [String(i + 1), String(2020 + int(6)), pick(UFS), individual ? `PESSOA SINTETICA ${i}` : `EMPREGADOR SINTETICO ${i} LTDA`, doc, `FAZENDA SINTETICA ${i}, ZONA RURAL`, String(1 + int(60)), '0151-2/01', br(isoDay(2023, 2)), inclusao]
  })
  const cp = (s: string) => encodeCp1252(s)
  await writeZipFiles(join(o.out, `${date}_CEIS.zip`), [{ name: `${date}_CEIS.csv`, content: cp(cguCsv(CEIS_HEADER, ceis)) }])
  await writeZipFiles(join(o.out, `${date}_CNEP.zip`), [{ name: `${date}_CNEP.csv`, content: cp(cguCsv(CNEP_HEADER, cnep)) }])
  await writeZipFiles(join(o.out, `${date}_CEPIM.zip`), [{ name: `${date}_CEPIM.csv`, content: cp(cguCsv(CEPIM_HEADER, cepim)) }])
  await writeZipFiles(join(o.out, `${date}_Acordos.zip`), [
    { name: `${date}_Acordos.csv`, content: cp(cguCsv(ACORDOS_HEADER, acordos)) },
    { name: `${date}_Efeitos.csv`, content: cp(cguCsv(EFEITOS_HEADER, efeitos)) },
  ])
  await Bun.write(join(o.out, 'cadastro_de_empregadores.csv'), cp(mteCsv(mte)))
  return { sancionados: [...sancionados] }
}
