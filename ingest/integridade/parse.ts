// Rows of the five lists into records under the answer's keys. Legal entities only: a row of an
// individual (TIPO DE PESSOA F, or a CPF, masked or not) is counted and dropped, never stored; so
// is a row whose document is not a CNPJ (foreign or placeholder ids), which no CNPJ could match.
import type { Lista } from '../../src/datasets/integridade/layout'
import { pick } from '../../src/core/text/header'
import { brDecimalOrNull, classifyDocument, dateOrNull, intOrNull, maskTrailingCpf, textOrNull } from '../lib/values'
import { indexFor, type Kind } from './kinds'

export class ParseError extends Error {}

/** One record to store: who it binds (root and CNPJ), what `vigente` is computed from, and its fields. */
export interface Apontamento {
  lista: Lista
  cnpj: string
  /** End date (CEIS, CNEP): in force while absent or not past. */
  fim: string | null
  /** Leniency agreements: in force by their situation. */
  situacao: string | null
  /** Newest first within a root and list. */
  ordenarPor: string
  corpo: Record<string, unknown>
}

export interface Counts {
  kept: number
  /** Rows of individuals (CPF or TIPO DE PESSOA F). */
  pessoaFisica: number
  /** Rows whose document is no CNPJ (foreign ids, placeholders). */
  semCnpj: number
}

export const emptyCounts = (): Counts => ({ kept: 0, pessoaFisica: 0, semCnpj: 0 })

/** A CNPJ that binds a company: 14 characters and not a placeholder of one repeated digit (00000000000000 would be Banco do Brasil's root). */
function companyCnpj(raw: string | undefined): { kind: 'cnpj'; cnpj: string } | { kind: 'cpf' | 'outro' } {
  const doc = classifyDocument(raw)
  if (doc.kind === 'cpf') return { kind: 'cpf' }
  if (doc.kind !== 'cnpj' || /^(.)\1{13}$/.test(doc.value)) return { kind: 'outro' }
  return { kind: 'cnpj', cnpj: doc.value }
}

/** Free text can quote an individual's CPF (observations): the formatted ones and lone 11-digit runs are masked (LGPD). */
export function maskCpfsInText(s: string | null): string | null {
  if (!s) return s
  return s
    .replace(/\b(\d{3})\.(\d{3})\.(\d{3})-(\d{2})\b/g, '***.$2.$3-**')
    .replace(/(^|[^\d.\/-])(\d{3})(\d{6})(\d{2})(?![\d])/g, '$1***$3**')
}

/** A text that may span lines (OBSERVAÇÕES): line breaks as \n. */
const multiline = (raw: string | undefined) => textOrNull(raw?.replace(/\r\n?/g, '\n'))

const name = (raw: string | undefined) => {
  const s = textOrNull(raw)
  return s === null ? null : maskTrailingCpf(s)
}

/** Every field of a row by its column key ('' for an absent optional column). */
type Row = Record<string, string>

function rowsOf<K extends Kind>(kind: K, header: string[]) {
  const index = indexFor(kind, header)
  return (row: string[]) => pick(row, index) as Row
}

/** CEIS and CNEP share a layout; CNEP adds the fine. */
export function sanctionParser(kind: 'ceis' | 'cnep', header: string[], counts: Counts, label: string) {
  const get = rowsOf(kind, header)
  const expected = kind.toUpperCase()
  return (row: string[], line: number): Apontamento | null => {
    const r = get(row)
    const cadastro = textOrNull(r.cadastro)?.toUpperCase()
    if (cadastro && cadastro !== expected) throw new ParseError(`${label}, linha ${line}: CADASTRO "${cadastro}" num arquivo do ${expected}`)
    const tipo = textOrNull(r.tipo_pessoa)?.toUpperCase()
    const doc = companyCnpj(r.documento)
    if (tipo === 'F' || doc.kind === 'cpf') return counts.pessoaFisica++, null
    if (doc.kind !== 'cnpj') return counts.semCnpj++, null
    counts.kept++
    const inicio = dateOrNull(r.inicio)
    const fim = dateOrNull(r.fim)
    const corpo: Record<string, unknown> = {
      codigo_sancao: textOrNull(r.codigo),
      categoria: textOrNull(r.categoria),
      nome_sancionado: name(r.nome),
      nome_informado_orgao: name(r.nome_orgao),
      razao_social_receita: name(r.razao_social),
      nome_fantasia_receita: name(r.nome_fantasia),
    }
    if (kind === 'cnep') corpo.valor_multa = brDecimalOrNull(r.valor_multa)
    Object.assign(corpo, {
      data_inicio: inicio,
      data_fim: fim,
      data_publicacao: dateOrNull(r.data_publicacao),
      data_transito_julgado: dateOrNull(r.transito),
      publicacao: textOrNull(r.publicacao),
      detalhamento_publicacao: textOrNull(r.detalhamento),
      abrangencia: textOrNull(r.abrangencia),
      orgao_sancionador: { nome: textOrNull(r.orgao), uf: textOrNull(r.orgao_uf), esfera: textOrNull(r.orgao_esfera) },
      fundamentacao_legal: textOrNull(r.fundamentacao),
      numero_processo: textOrNull(r.processo),
      data_origem_informacao: dateOrNull(r.origem_data),
      origem_informacoes: textOrNull(r.origem),
      observacoes: maskCpfsInText(multiline(r.observacoes)),
    })
    return { lista: kind, cnpj: doc.cnpj, fim, situacao: null, ordenarPor: inicio ?? '', corpo }
  }
}

export function cepimParser(header: string[], counts: Counts) {
  const get = rowsOf('cepim', header)
  return (row: string[]): Apontamento | null => {
    const r = get(row)
    const doc = companyCnpj(r.cnpj)
    if (doc.kind === 'cpf') return counts.pessoaFisica++, null
    if (doc.kind !== 'cnpj') return counts.semCnpj++, null
    counts.kept++
    return {
      lista: 'cepim',
      cnpj: doc.cnpj,
      fim: null,
      situacao: null,
      ordenarPor: '',
      corpo: {
        nome_entidade: name(r.nome),
        // Kept as text: agreement numbers carry leading zeros (039516).
        numero_convenio: textOrNull(r.convenio),
        orgao_concedente: textOrNull(r.orgao),
        motivo: textOrNull(r.motivo),
      },
    }
  }
}

export interface Efeito {
  efeito: string | null
  complemento: string | null
}

export function efeitosParser(header: string[], into: Map<string, Efeito[]>) {
  const get = rowsOf('efeitos', header)
  return (row: string[]) => {
    const r = get(row)
    const id = textOrNull(r.id)
    if (!id) return
    const list = into.get(id) ?? []
    list.push({ efeito: textOrNull(r.efeito), complemento: textOrNull(r.complemento) })
    into.set(id, list)
  }
}

/** Agreements; their effects (the _Efeitos file) are attached by id once both files are read. */
export function acordosParser(header: string[], counts: Counts) {
  const get = rowsOf('acordos', header)
  return (row: string[]): Apontamento | null => {
    const r = get(row)
    const doc = companyCnpj(r.cnpj)
    if (doc.kind === 'cpf') return counts.pessoaFisica++, null
    if (doc.kind !== 'cnpj') return counts.semCnpj++, null
    counts.kept++
    const inicio = dateOrNull(r.inicio)
    const situacao = textOrNull(r.situacao)
    return {
      lista: 'acordos_leniencia',
      cnpj: doc.cnpj,
      fim: dateOrNull(r.fim),
      situacao,
      ordenarPor: inicio ?? '',
      corpo: {
        id_acordo: textOrNull(r.id),
        razao_social_receita: name(r.razao_social),
        nome_fantasia_receita: name(r.nome_fantasia),
        situacao,
        data_inicio: inicio,
        data_fim: dateOrNull(r.fim),
        data_informacao: dateOrNull(r.data_informacao),
        numero_processo: textOrNull(r.processo),
        orgao_responsavel: textOrNull(r.orgao),
        termos: multiline(r.termos),
        efeitos: [] as Efeito[],
      },
    }
  }
}

/** `05/10/2022 a 13/01/2023, 11/11/2024`: periods on the list; the last date is the current inclusion. */
export function inclusionPeriods(raw: string | undefined): { inicio: string; fim: string | null }[] {
  const out: { inicio: string; fim: string | null }[] = []
  for (const part of (raw ?? '').split(/[,;]/)) {
    const [from, to] = part.split(/\s+a\s+/i)
    const inicio = dateOrNull(from?.trim())
    if (!inicio) continue
    out.push({ inicio, fim: to === undefined ? null : dateOrNull(to.trim()) })
  }
  return out
}

/** A footnote marker ending an employer's name, `(*1)`; its text is in the notes after the table. */
const MARKER = /\s*\((\*\d+)\)\s*$/

/**
 * The MTE rows. `latest` gets the latest date of the inclusion column over every row, individuals
 * included (the list's date when its title does not say it; dates are no personal data).
 */
export function mteParser(header: string[], counts: Counts, notes: Map<string, string>, latest: { date: string | null }) {
  const get = rowsOf('mte', header)
  return (row: string[]): Apontamento | null | 'nota' => {
    const r = get(row)
    // Below the table come notes ("(*1) Decisão judicial..."), not records: their ID is no number.
    if (!/^\s*\d+\s*$/.test(r.id ?? '')) {
      const m = /^\s*\((\*\d+)\)\s*(.+)$/s.exec(row.filter((c) => c.trim()).join(' '))
      if (m) notes.set(m[1]!, m[2]!.replace(/\s+/g, ' ').trim())
      return 'nota'
    }
    const periods = inclusionPeriods(r.inclusao)
    for (const p of periods) for (const d of [p.inicio, p.fim]) if (d && (!latest.date || d > latest.date)) latest.date = d
    const doc = companyCnpj(r.documento)
    if (doc.kind === 'cpf') return counts.pessoaFisica++, null
    if (doc.kind !== 'cnpj') return counts.semCnpj++, null
    counts.kept++
    const employer = textOrNull(r.empregador) ?? ''
    const marker = MARKER.exec(employer)?.[1] ?? null
    const current = periods.length ? periods[periods.length - 1]!.inicio : null
    return {
      lista: 'trabalho_escravo',
      cnpj: doc.cnpj,
      fim: null,
      situacao: null,
      ordenarPor: current ?? '',
      corpo: {
        id: textOrNull(r.id),
        empregador: maskTrailingCpf(employer.replace(MARKER, '')) || null,
        estabelecimento: textOrNull(r.estabelecimento),
        uf: textOrNull(r.uf),
        ano_acao_fiscal: intOrNull(r.ano),
        trabalhadores_envolvidos: intOrNull(r.trabalhadores),
        cnae: textOrNull(r.cnae),
        data_decisao: dateOrNull(r.decisao),
        data_inclusao: current,
        periodos_inclusao: periods,
        nota: marker,
      },
    }
  }
}
