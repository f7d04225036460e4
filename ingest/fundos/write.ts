// Writes fundos.sqlite (the tables of src/datasets/fundos/layout.ts) in one transaction, then
// compacts it: a finished build is never written again (the server opens it immutable).
import { Database } from 'bun:sqlite'
import { cents, packCarteira, SCHEMA, type CompetenciaInfo, type FundosMeta } from '../../src/datasets/fundos/layout'
import type { ConsultaCorpo } from '../../src/datasets/fundos/layout'
import type { DailyResult } from './daily'
import type { PortfolioMonth } from './portfolio'
import type { RankingResult } from './ranking'

/** Byte order, as SQLite compares text keys. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export interface WriteInput {
  path: string
  daily: DailyResult
  consolidated: number
  consultas: Iterable<ConsultaCorpo>
  rankings: RankingResult
  months: PortfolioMonth[]
  competencias: CompetenciaInfo[]
  coverageStart: string
}

export function writeDatabase(input: WriteInput): { consultas: number; carteiras: number; movimentacoes: number; listas: number } {
  const { daily, consolidated: T } = input
  const db = new Database(input.path, { create: true })
  try {
    db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 8192; PRAGMA cache_size = -262144;')
    db.exec(SCHEMA)
    let consultas = 0
    let carteiras = 0
    let movimentacoes = 0
    db.transaction(() => {
      const meta: FundosMeta & { inicio_cobertura: string } = {
        dias: daily.dates.slice(0, T + 1),
        dia_consolidado: daily.dates[T]!,
        ultimo_dia: daily.dates[daily.dates.length - 1]!,
        classes_no_dia: daily.reporting[T]!,
        classificacoes: input.rankings.classificacoes,
        competencias: input.competencias,
        inicio_cobertura: input.coverageStart,
      }
      const putMeta = db.prepare('INSERT INTO meta VALUES (?, ?)')
      for (const [k, v] of Object.entries(meta)) putMeta.run(k, JSON.stringify(v))

      const putFlow = db.prepare('INSERT INTO fluxo_dia VALUES (?, ?, ?, ?, ?, ?)')
      const groups = daily.groups.map((g, i) => ({ g, i })).sort((a, b) => cmp(a.g, b.g))
      for (let t = 0; t <= T; t++) {
        const row = daily.byGroup[t]!
        groups.forEach(({ g, i }) => {
          const count = row[i * 4 + 3]!
          if (count > 0) putFlow.run(daily.dates[t]!, g, cents(row[i * 4 + 1]!), cents(row[i * 4 + 2]!), cents(row[i * 4]!), count)
        })
      }

      const putConsulta = db.prepare('INSERT INTO consulta VALUES (?, ?)')
      for (const body of input.consultas) {
        putConsulta.run(body.cnpj, JSON.stringify(body))
        consultas++
      }

      // Every table is written in its key order, so the file needs no VACUUM afterwards.
      const putClass = db.prepare('INSERT INTO classe VALUES (?, ?, ?, ?)')
      input.rankings.classes.forEach((c, id) => putClass.run(id, c.corpo.cnpj, JSON.stringify(c.corpo), new Uint8Array(c.fluxos.buffer)))
      const putList = db.prepare('INSERT INTO ranking VALUES (?, ?, ?, ?, ?)')
      const lists = [...input.rankings.lists].sort((a, b) => cmp(a.por, b.por) || cmp(a.classificacao, b.classificacao) || a.inicio - b.inicio)
      for (const list of lists) list.classes.forEach((id, i) => putList.run(list.por, list.classificacao, list.inicio, i + 1, id))

      const putCarteira = db.prepare('INSERT INTO carteira VALUES (?, ?, ?)')
      const byFund = input.months.flatMap((m) => [...m.funds].map(([cnpj, body]) => ({ cnpj, competencia: m.competencia, body })))
      byFund.sort((a, b) => cmp(a.cnpj, b.cnpj) || cmp(a.competencia, b.competencia))
      for (const { cnpj, competencia, body } of byFund) {
        putCarteira.run(cnpj, competencia, packCarteira(body))
        carteiras++
      }
      const putMov = db.prepare('INSERT INTO movimentacao VALUES (?, ?, ?)')
      for (const m of input.months) {
        m.movements.forEach((mv, i) => {
          putMov.run(m.competencia, i + 1, JSON.stringify(mv))
          movimentacoes++
        })
      }
    })()
    db.exec('ANALYZE;')
    return { consultas, carteiras, movimentacoes, listas: input.rankings.lists.length }
  } finally {
    db.close()
  }
}
