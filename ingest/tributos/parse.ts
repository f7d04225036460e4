// The official NCM table as the Portal Único Siscomex publishes it ("Tabela NCM Vigente", JSON):
//   {"Data_Ultima_Atualizacao_NCM":"Vigente em 13/05/2025","Ato":"Resolução Gecex nº ...",
//    "Nomenclaturas":[{"Codigo":"0101.21.00","Descricao":"-- Reprodutores de raça pura",
//      "Data_Inicio":"01/04/2022","Data_Fim":"31/12/9999","Tipo_Ato_Ini":"Res Camex",
//      "Numero_Ato_Ini":"272","Ano_Ato_Ini":"2021"}, ...]}
// Codes at every level with their dots (01, 01.01, 0101.2, 0101.21, 0102.29.1, 0101.21.00); the
// description's leading dashes mark the level; HTML tags (<i>Gallus domesticus</i>) inside it;
// dates dd/mm/yyyy with 31/12/9999 for "no end". Older files (2022) name the act fields Tipo_Ato,
// Numero_Ato, Ano_Ato and have no "Ato"; both are read. SOURCES/docs: docs/tributos.md.
import { nivelNcm } from '../../src/datasets/tributos/codigos'

export class TabelaNcmError extends Error {}

export interface LinhaNcm {
  /** Digits only. */
  codigo: string
  descricao: string
  descricao_original: string
  inicio: string | null
  fim: string | null
  ato: string | null
}

export interface TabelaNcm {
  /** The header as published ("Vigente em 13/05/2025", or a bare date in older files). */
  vigencia: string
  /** The header's date, YYYY-MM-DD. */
  referencia: string
  ato: string | null
  linhas: LinhaNcm[]
  descartadas: { codigo_invalido: number; fora_de_vigencia: number; repetidas: number }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** The description without HTML tags, entities decoded, without the level dashes, spaces collapsed. */
export function limparDescricao(raw: string): string {
  return raw
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e: string) =>
      e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e.toLowerCase()] ?? m),
    )
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:[-–]+\s*)+/, '')
    .trim()
}

/** dd/mm/yyyy -> YYYY-MM-DD; 31/12/9999 (no end) and anything malformed -> null. */
export function dataBr(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value.trim())
  if (!m || m[3] === '9999') return null
  const iso = `${m[3]}-${m[2]}-${m[1]}`
  const d = new Date(`${iso}T00:00:00Z`)
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? null : iso
}

function ato(e: Record<string, unknown>): string | null {
  const tipo = (e.Tipo_Ato_Ini ?? e.Tipo_Ato) as unknown
  const numero = (e.Numero_Ato_Ini ?? e.Numero_Ato) as unknown
  const ano = (e.Ano_Ato_Ini ?? e.Ano_Ato) as unknown
  if (typeof tipo !== 'string' || !tipo.trim()) return null
  const n = typeof numero === 'string' || typeof numero === 'number' ? String(numero).replace(/^0+(?=\d)/, '') : ''
  const a = typeof ano === 'string' || typeof ano === 'number' ? String(ano) : ''
  return `${tipo.trim()}${n ? ` ${n}` : ''}${a ? `/${a}` : ''}`
}

function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw new TabelaNcmError('o arquivo não é texto UTF-8 (a Tabela NCM do Siscomex é JSON em UTF-8)')
  }
}

/**
 * Reads the table. Codes that are not 2, 4, 5, 6, 7 or 8 digits are dropped and counted; so are
 * entries whose Data_Fim is before `hoje` (the file is "vigente" but a code may carry an end date)
 * and repeated codes (the later Data_Inicio wins).
 */
export function lerTabelaNcm(bytes: Uint8Array, hoje = new Date().toISOString().slice(0, 10)): TabelaNcm {
  const text = decode(bytes)
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    const start = text.trimStart().slice(0, 40).replace(/\s+/g, ' ')
    throw new TabelaNcmError(`não é JSON válido (${err instanceof Error ? err.message : err}); começa com: ${JSON.stringify(start)}`)
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new TabelaNcmError('o JSON não é a Tabela NCM: esperado um objeto com a lista "Nomenclaturas"')
  const root = doc as Record<string, unknown>
  const lista = root.Nomenclaturas
  if (!Array.isArray(lista)) throw new TabelaNcmError('o JSON não é a Tabela NCM: falta a lista "Nomenclaturas"')
  const vigencia = typeof root.Data_Ultima_Atualizacao_NCM === 'string' ? root.Data_Ultima_Atualizacao_NCM.trim() : ''
  const m = /(\d{2}\/\d{2}\/\d{4})/.exec(vigencia)
  const referencia = m ? dataBr(m[1]) : null
  if (!referencia) throw new TabelaNcmError(`data da tabela ilegível em Data_Ultima_Atualizacao_NCM (${JSON.stringify(vigencia || null)}); esperado "Vigente em dd/mm/aaaa"`)
  const descartadas = { codigo_invalido: 0, fora_de_vigencia: 0, repetidas: 0 }
  const porCodigo = new Map<string, LinhaNcm>()
  for (const raw of lista) {
    if (!raw || typeof raw !== 'object') {
      descartadas.codigo_invalido++
      continue
    }
    const e = raw as Record<string, unknown>
    const codigoOriginal = typeof e.Codigo === 'string' ? e.Codigo.trim() : ''
    const codigo = /^[\d.]+$/.test(codigoOriginal) ? codigoOriginal.replace(/\./g, '') : ''
    if (!nivelNcm(codigo)) {
      descartadas.codigo_invalido++
      continue
    }
    const original = typeof e.Descricao === 'string' ? e.Descricao : ''
    const linha: LinhaNcm = { codigo, descricao: limparDescricao(original), descricao_original: original, inicio: dataBr(e.Data_Inicio), fim: dataBr(e.Data_Fim), ato: ato(e) }
    if (linha.fim !== null && linha.fim < hoje) {
      descartadas.fora_de_vigencia++
      continue
    }
    const seen = porCodigo.get(codigo)
    if (seen) {
      descartadas.repetidas++
      if ((seen.inicio ?? '') >= (linha.inicio ?? '')) continue
    }
    porCodigo.set(codigo, linha)
  }
  const linhas = [...porCodigo.values()].sort((a, b) => (a.codigo < b.codigo ? -1 : a.codigo > b.codigo ? 1 : 0))
  return { vigencia, referencia, ato: typeof root.Ato === 'string' && root.Ato.trim() ? root.Ato.trim() : null, linhas, descartadas }
}
