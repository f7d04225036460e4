// A whole-size NCM table in the layout the Portal Único serves (compact JSON, HTML and apostrophes
// escaped as \u003c...), for the benchmark: every code the annexes of LC 214/2025 cite, with the levels
// above it and some subitems under the shorter ones, then made-up codes in every chapter up to the
// real table's size (about 10 400 subitems, 15 000 codes). Deterministic for a seed; every
// description outside the annexes' codes is made up from a list of words.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ANEXOS } from '../../src/datasets/tributos/anexos'
import { formatarNcm } from '../../src/datasets/tributos/codigos'
import { seededRandom } from '../lib/random'

export interface TributosSynthOptions {
  out: string
  /** 8-digit codes in all (the real table: ~10 400). */
  subitens?: number
  seed?: number
  /** Validity date of the table, dd/mm/aaaa. */
  vigencia?: string
}

export interface TributosSynth {
  file: string
  codigos: number
  subitens: number
  /** Codes cited by the annexes (digits), with subitems under the shorter ones: the benchmark's hits. */
  citados: string[]
  /** 8-digit codes no annex cites (standard regime). */
  outros: string[]
}

const PALAVRAS = (
  'carnes miudezas peixes crustáceos leite laticínios ovos mel produtos animais plantas vivas flores legumes hortícolas raízes tubérculos frutas cascas ' +
  'café chá mate especiarias cereais farinhas sêmolas amidos malte sementes oleaginosas gomas resinas gorduras óleos preparações açúcares cacau massas ' +
  'bebidas vinagres resíduos alimentos tabaco sal enxofre pedras gesso cal cimento minérios combustíveis minerais químicos inorgânicos orgânicos ' +
  'farmacêuticos adubos tintas vernizes óleos essenciais perfumaria sabões ceras velas albuminoides pólvoras explosivos fotográficos plásticos borracha ' +
  'peles couros peleteria madeira carvão cortiça cestaria pastas papel cartão livros jornais seda lã algodão linho filamentos sintéticos artificiais ' +
  'tecidos malha vestuário acessórios calçados chapéus guarda-chuvas penas obras pedra cerâmica vidro pérolas metais preciosos ferro fundido aço cobre ' +
  'níquel alumínio chumbo zinco estanho ferramentas cutelaria reatores caldeiras máquinas aparelhos elétricos veículos ferroviários automóveis tratores ' +
  'aeronaves embarcações instrumentos ópticos médicos relógios musicais armas munições móveis colchões iluminação brinquedos jogos desporto manufaturados ' +
  'arte antiguidades frescos refrigerados congelados secos salgados defumados cozidos inteiros pedaços desossados crus torrados moídos descafeinados ' +
  'polidos brunidos parboilizados integrais refinados em bruto para uso doméstico industrial de uso médico partes componentes acabados semiacabados'
).split(' ')

const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '=': '\\u003d', "'": '\\u0027' }

export function synthTributos(o: TributosSynthOptions): TributosSynth {
  const next = seededRandom(o.seed ?? 214)
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)]!
  const target = o.subitens ?? 10_400
  const subitens = new Set<string>()
  const curtos = new Set<string>()
  const citados = new Set<string>()

  /**
   * Subitems under a shorter code (the whole subtree is what an annex reference covers), grouped as
   * the table groups them: a few subpositions, each a single subitem ending in 00 or a few of them.
   */
  const under = (prefix: string, n: number) => {
    for (let k = 0; k < n; k++) {
      let sub = prefix.slice(0, 6)
      if (sub.length === 2) sub += String(1 + int(20)).padStart(2, '0')
      if (sub.length === 4) sub += String(1 + int(9)) + (int(3) ? String(int(10)) : '0')
      else if (sub.length === 5) sub += String(int(10))
      if (prefix.length <= 6 && int(2)) {
        subitens.add(sub + '00')
        continue
      }
      const item = prefix.length === 7 ? prefix[6]! : String(1 + int(3))
      for (let j = 1 + int(4); j > 0; j--) subitens.add(sub + item + String(int(10)))
    }
  }
  for (const a of ANEXOS.anexos) {
    for (const it of a.itens) {
      for (const r of it.ncm) {
        if (r.codigo.length === 8) subitens.add(r.codigo)
        else {
          curtos.add(r.codigo)
          under(r.codigo, r.codigo.length <= 4 ? 2 + int(3) : 1)
        }
        citados.add(r.codigo)
      }
    }
  }
  for (const c of [...subitens]) citados.add(c)
  // Made-up codes over every chapter (77 is reserved) until the table has its real size.
  const capitulos = Array.from({ length: 97 }, (_, i) => String(i + 1).padStart(2, '0')).filter((c) => c !== '77')
  while (subitens.size < target) {
    const posicao = pick(capitulos) + String(1 + int(20)).padStart(2, '0')
    under(posicao, 1 + int(6))
  }
  // The levels above each subitem, as the table has them: chapter and position always, a subposition
  // or an item only where it splits (a subposition with one subitem is that subitem, 0201.10.00).
  const filhos = new Map<string, Set<string>>()
  const add = (pai: string, filho: string) => { let f = filhos.get(pai); if (!f) filhos.set(pai, (f = new Set())); f.add(filho) }
  for (const s of subitens) {
    add(s.slice(0, 7), s)
    add(s.slice(0, 6), s.slice(0, 7))
    add(s.slice(0, 5), s.slice(0, 6))
  }
  const todos = new Set<string>([...curtos])
  for (const s of subitens) {
    todos.add(s.slice(0, 2))
    todos.add(s.slice(0, 4))
    for (const n of [5, 6, 7]) if (filhos.get(s.slice(0, n))!.size > 1 || (n === 6 && filhos.get(s.slice(0, 7))!.size > 1)) todos.add(s.slice(0, n))
    todos.add(s)
  }
  const ordem = [...todos].sort((a, b) => (a.padEnd(8, ' ') < b.padEnd(8, ' ') ? -1 : 1))
  const descricao = (c: string) => {
    const n = 2 + int(c.length <= 4 ? 8 : 4)
    let d = Array.from({ length: n }, () => pick(PALAVRAS)).join(' ')
    d = d[0]!.toUpperCase() + d.slice(1)
    if (int(40) === 0) d += ` <i>${pick(PALAVRAS)}</i>`
    if (int(60) === 0) d += ` d'${pick(PALAVRAS)}`
    if (c.length === 2 || c.length === 4) return d + '.'
    const dashes = c.length === 5 ? '- ' : c.length === 6 ? (c[4] === '0' ? '- ' : '-- ') : c.length === 7 ? '-- ' : int(3) ? '' : '--- '
    return dashes + d
  }
  const rows = ordem.map((c) => ({
    Codigo: formatarNcm(c),
    Descricao: descricao(c),
    Data_Inicio: '01/04/2022',
    Data_Fim: '31/12/9999',
    Tipo_Ato_Ini: 'Res Gecex',
    Numero_Ato_Ini: '272',
    Ano_Ato_Ini: '2021',
  }))
  const vigencia = o.vigencia ?? '05/10/2026'
  const [d, m, y] = vigencia.split('/')
  mkdirSync(o.out, { recursive: true })
  const file = join(o.out, `Tabela_NCM_Vigente_${y}${m}${d}.json`)
  const body = JSON.stringify({ Data_Ultima_Atualizacao_NCM: `Vigente em ${vigencia}`, Ato: 'Resolução Gecex nº 926/2026', Nomenclaturas: rows })
  writeFileSync(file, body.replace(/[<>&=']/g, (ch) => ESCAPES[ch]!))
  const outros = [...subitens].filter((s) => ![...citados].some((c) => s.startsWith(c)))
  return { file, codigos: rows.length, subitens: subitens.size, citados: [...citados], outros }
}
