// The card's answer (the SPEC's Empresa and the fields added since: docs/cnpj.md, "O cartão") as
// JSON text, written straight from the card store's fields: the one place the card is put together.
// /v1/cnpj/empresa sends this text; /completo, /v1/cnpj/lote and `dadosbr consultar` put it inside
// theirs; routes that need the object parse it. Building the object and stringifying it was most of
// a lookup's CPU once the card grew (measured: docs/desempenho.md, "Lotes, filtros e campos novos").
import { FICHA, type FichaField } from './layout'
import type { CnpjFiles, Lookup, MunicipiosIbge } from './store'

/**
 * What rendering a card reads: the month's code tables, its TOM ↔ IBGE table and its reference
 * month. The served month's files are one; the history renders a card of an earlier month with
 * that month's tables (historico.ts).
 */
export type CardView = Pick<CnpjFiles, 'lookups' | 'referencia' | 'ibge'>

/** The TOM ↔ IBGE table from its (TOM, IBGE) pairs. */
export function municipiosIbge(pairs: Iterable<readonly [string, string | null]>): MunicipiosIbge {
  const ibge: MunicipiosIbge = { porTom: new Map(), tomsPorIbge: new Map() }
  for (const [tom, code] of pairs) {
    if (!code) continue
    ibge.porTom.set(tom, code)
    ibge.tomsPorIbge.set(code, [...(ibge.tomsPorIbge.get(code) ?? []), tom])
  }
  return ibge
}

/** Where each FICHA field is in a card's fields (CardStoreReader.card). */
export const F = Object.fromEntries(FICHA.map((f, i) => [f, i])) as Record<FichaField, number>

export const SITUACAO_DESCRICAO: Record<string, string> = { '01': 'Nula', '02': 'Ativa', '03': 'Suspensa', '04': 'Inapta', '08': 'Baixada' }
export const PORTE: Record<string, 'nao_informado' | 'micro_empresa' | 'empresa_pequeno_porte' | 'demais'> = { '00': 'nao_informado', '01': 'micro_empresa', '03': 'empresa_pequeno_porte', '05': 'demais' }
export const matrizFilial = (v: string | null | undefined) => (v === '1' ? 'matriz' : v === '2' ? 'filial' : null)

export function telefone(ddd: string | null | undefined, numero: string | null | undefined): string | null {
  if (!numero) return null
  return ddd ? `(${ddd.trim()}) ${numero.trim()}` : numero.trim()
}

/** The Receita's municipality code of every establishment abroad (its table says EXTERIOR). */
const MUNICIPIO_EXTERIOR = '9707'

/**
 * An establishment's city, the same on every route that shows one (card, search results,
 * filiais): abroad (UF EX or municipality 9707 EXTERIOR) the Receita puts the foreign city in
 * cidade_exterior, and that is the city (null when blank: "EXTERIOR" is no city); in Brazil, the
 * name of its municipality code (null for a code the month's table lacks).
 */
export function municipioDe(files: CardView, uf: string | null, codigo: string | null, exterior: string | null): string | null {
  if (uf === 'EX' || codigo === MUNICIPIO_EXTERIOR) return exterior || null
  return codigo ? (files.lookups.municipios.get(codigo) ?? null) : null
}

/**
 * The IBGE code of an establishment's municipality, the same on every route that shows one: its
 * TOM code through the Receita's table (the build's `municipios.codigo_ibge`); null abroad and for a
 * code the table lacks (docs/cnpj.md).
 */
export function ibgeDe(files: CardView, uf: string | null, codigo: string | null): string | null {
  if (uf === 'EX' || !codigo || codigo === MUNICIPIO_EXTERIOR) return null
  return files.ibge.porTom.get(codigo) ?? null
}

/** Whether a text needs JSON escaping (a quote, a backslash or a control character). */
function needsEscape(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i)
    if (c < 0x20 || c === 0x22 || c === 0x5c) return true
  }
  return false
}
/**
 * A text value as JSON; blank is null (the card store keeps null as blank). Most values need no
 * escaping: quoted as they are. A character loop, not a regular expression: a card quotes ~25
 * values, and the expression's call was most of this function's cost (profiled at 1 M).
 */
const q = (v: string | null | undefined) => (v ? (needsEscape(v) ? JSON.stringify(v) : '"' + v + '"') : 'null')

/** `{"codigo":...,"descricao":...}` of each code of a lookup table, made once each (the table is the key: a new month brings new tables). */
const codeJsonCache = new WeakMap<Lookup, Map<string, string>>()
function codeJson(code: string | null | undefined, lookup: Lookup, cache: Map<string, string>): string {
  if (!code) return '{"codigo":null,"descricao":null}'
  let json = cache.get(code)
  if (json === undefined) cache.set(code, (json = `{"codigo":${JSON.stringify(code)},"descricao":${q(lookup.get(code))}}`))
  return json
}
const cacheOf = (lookup: Lookup) => {
  let cache = codeJsonCache.get(lookup)
  if (!cache) codeJsonCache.set(lookup, (cache = new Map()))
  return cache
}

/** The start of `situacao_cadastral` up to its date, for a situação code and its description. */
const situacaoHead = (codigo: string | null | undefined) => `{"codigo":${q(codigo)},"descricao":${q(codigo ? SITUACAO_DESCRICAO[codigo] : null)},"data":`
/** That start for each code the Receita defines, written once (another code, never seen in a dump, is written per card). */
const SITUACAO_HEAD: Record<string, string> = Object.fromEntries(Object.keys(SITUACAO_DESCRICAO).map((c) => [c, situacaoHead(c)]))

/** The `fonte` of a month's answers, as JSON. */
const fonteCache = new WeakMap<CardView, string>()
export const fonteJson = (files: CardView) => {
  let json = fonteCache.get(files)
  if (json === undefined) fonteCache.set(files, (json = JSON.stringify({ base: 'RFB/CNPJ', referencia: files.referencia })))
  return json
}

/** A card's raw fields as CardStoreReader.card gives them (blank for null) or as the history keeps them (null). */
type Values = readonly (string | null | undefined)[]
type FieldWriter = (files: CardView, v: Values) => string

const phoneOne = (v: Values) => telefone(v[F.ddd1], v[F.telefone1])
const phoneTwo = (v: Values) => telefone(v[F.ddd2], v[F.telefone2])
const code = (lookup: (l: CardView['lookups']) => Lookup, at: number): FieldWriter => (files, v) => {
  const table = lookup(files.lookups)
  return codeJson(v[at], table, cacheOf(table))
}

/**
 * Each field of the card as JSON, by its path in the card (the history's CAMPOS name these paths:
 * historico-layout.ts), written from the card's raw fields. The card is these put together
 * (cardJson); the history compares and shows a changed field through its writer alone, so a value
 * in a change is what the card of that month showed, without rendering the whole card.
 */
export const FIELD_JSON = {
  razao_social: (_, v) => q(v[F.razao_social]),
  nome_fantasia: (_, v) => q(v[F.nome_fantasia]),
  matriz_filial: (_, v) => {
    const m = matrizFilial(v[F.matriz_filial])
    return m ? `"${m}"` : 'null'
  },
  situacao_cadastral: (files, v) => {
    const situacao = v[F.situacao]
    const motivo = v[F.motivo]
    const head = (situacao && SITUACAO_HEAD[situacao]) || situacaoHead(situacao)
    return head + q(v[F.data_situacao]) + `,"motivo":${motivo && motivo !== '00' ? q(files.lookups.motivos.get(motivo) ?? motivo) : 'null'}}`
  },
  situacao_especial: (_, v) =>
    v[F.situacao_especial] || v[F.data_situacao_especial] ? `{"descricao":${q(v[F.situacao_especial])},"data":${q(v[F.data_situacao_especial])}}` : 'null',
  data_inicio_atividade: (_, v) => q(v[F.data_inicio]),
  natureza_juridica: code((l) => l.naturezas, F.natureza_juridica),
  qualificacao_responsavel: code((l) => l.qualificacoes, F.qualificacao_responsavel),
  ente_federativo_responsavel: (_, v) => q(v[F.ente_federativo]),
  porte: (_, v) => {
    const porte = v[F.porte] ? PORTE[v[F.porte]!] : undefined
    return porte ? `"${porte}"` : 'null'
  },
  capital_social: (_, v) => {
    const capital = v[F.capital_social]
    return capital ? JSON.stringify(Number(capital)) : 'null'
  },
  cnae_principal: code((l) => l.cnaes, F.cnae_principal),
  cnae_secundarios: (files, v) => {
    const secundarios = v[F.cnaes_secundarios]
    if (!secundarios) return '[]'
    const { cnaes } = files.lookups
    const cache = cacheOf(cnaes)
    // One pass over the list, each code's JSON from the cache (split, filter, map and join made four arrays a card).
    let out = '['
    let start = 0
    while (start <= secundarios.length) {
      let end = secundarios.indexOf(',', start)
      if (end < 0) end = secundarios.length
      if (end > start) {
        const c = secundarios.slice(start, end)
        out += (out.length > 1 ? ',' : '') + codeJson(c.padStart(7, '0'), cnaes, cache)
      }
      start = end + 1
    }
    return out + ']'
  },
  'endereco.logradouro': (_, v) => {
    const tipo = v[F.tipo_logradouro]
    const rua = v[F.logradouro]
    return q(tipo && rua ? `${tipo} ${rua}` : tipo || rua)
  },
  'endereco.numero': (_, v) => q(v[F.numero]),
  'endereco.complemento': (_, v) => q(v[F.complemento]),
  'endereco.bairro': (_, v) => q(v[F.bairro]),
  'endereco.municipio': (files, v) => q(municipioDe(files, v[F.uf] || null, v[F.municipio] || null, v[F.cidade_exterior] || null)),
  'endereco.uf': (_, v) => q(v[F.uf]),
  'endereco.cep': (_, v) => q(v[F.cep]),
  'endereco.codigo_municipio_ibge': (files, v) => q(ibgeDe(files, v[F.uf] || null, v[F.municipio] || null)),
  'endereco.pais': (files, v) => (v[F.pais] ? codeJson(v[F.pais], files.lookups.paises, cacheOf(files.lookups.paises)) : 'null'),
  'contato.email': (_, v) => q(v[F.email]),
  // telefone is the first phone, or the second when the first is blank (as before); telefone_2
  // is the second only when the first is there, so no number shows twice.
  'contato.telefone': (_, v) => q(phoneOne(v) ?? phoneTwo(v)),
  'contato.telefone_2': (_, v) => q(phoneOne(v) ? phoneTwo(v) : null),
  'contato.fax': (_, v) => q(telefone(v[F.ddd_fax], v[F.fax])),
  'simples.optante': (_, v) => String(v[F.opcao_simples] === 'true'),
  'simples.mei': (_, v) => String(v[F.opcao_mei] === 'true'),
  'simples.data_opcao': (_, v) => q(v[F.data_opcao_simples]),
  'simples.data_exclusao': (_, v) => q(v[F.data_exclusao_simples]),
  'simples.mei_data_opcao': (_, v) => q(v[F.data_opcao_mei]),
  'simples.mei_data_exclusao': (_, v) => q(v[F.data_exclusao_mei]),
} satisfies Record<string, FieldWriter>
export type CardPath = keyof typeof FIELD_JSON

/**
 * One establishment's card as JSON, in the key order of the Empresa schema (model.ts), from its
 * fields as CardStoreReader.card gives them (blank for null): its fields' writers put together.
 */
export function cardJson(files: CardView, cnpj: string, v: Values): string {
  const W = FIELD_JSON
  return (
    `{"cnpj":${JSON.stringify(cnpj)},"razao_social":${W.razao_social(files, v)},"nome_fantasia":${W.nome_fantasia(files, v)},` +
    `"matriz_filial":${W.matriz_filial(files, v)},"situacao_cadastral":${W.situacao_cadastral(files, v)},` +
    `"situacao_especial":${W.situacao_especial(files, v)},"data_inicio_atividade":${W.data_inicio_atividade(files, v)},` +
    `"natureza_juridica":${W.natureza_juridica(files, v)},"qualificacao_responsavel":${W.qualificacao_responsavel(files, v)},` +
    `"ente_federativo_responsavel":${W.ente_federativo_responsavel(files, v)},"porte":${W.porte(files, v)},` +
    `"capital_social":${W.capital_social(files, v)},"cnae_principal":${W.cnae_principal(files, v)},"cnae_secundarios":${W.cnae_secundarios(files, v)},` +
    `"endereco":{"logradouro":${W['endereco.logradouro'](files, v)},"numero":${W['endereco.numero'](files, v)},"complemento":${W['endereco.complemento'](files, v)},` +
    `"bairro":${W['endereco.bairro'](files, v)},"municipio":${W['endereco.municipio'](files, v)},"uf":${W['endereco.uf'](files, v)},"cep":${W['endereco.cep'](files, v)},` +
    `"codigo_municipio_ibge":${W['endereco.codigo_municipio_ibge'](files, v)},"pais":${W['endereco.pais'](files, v)}},` +
    `"contato":{"email":${W['contato.email'](files, v)},"telefone":${W['contato.telefone'](files, v)},"telefone_2":${W['contato.telefone_2'](files, v)},"fax":${W['contato.fax'](files, v)}},` +
    `"simples":{"optante":${W['simples.optante'](files, v)},"mei":${W['simples.mei'](files, v)},"data_opcao":${W['simples.data_opcao'](files, v)},` +
    `"data_exclusao":${W['simples.data_exclusao'](files, v)},"mei_data_opcao":${W['simples.mei_data_opcao'](files, v)},"mei_data_exclusao":${W['simples.mei_data_exclusao'](files, v)}},` +
    `"fonte":${fonteJson(files)}}`
  )
}

/** A leaf's JSON text as a CSV cell: a string unquoted, null blank, a number or boolean as written. */
function leafCell(json: string): string {
  if (json === 'null') return ''
  if (json.charCodeAt(0) === 34) return json.includes('\\') ? (JSON.parse(json) as string) : json.slice(1, -1)
  return json
}

/** A value of the parsed card as a CSV cell (what the card's JSON holds at a column). */
function valueCell(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' && 'codigo' in x ? String((x as { codigo: unknown }).codigo) : JSON.stringify(x))).join(' ')
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/**
 * The card's values at `columns` (dotted paths of the Empresa schema) as CSV cells, from its raw
 * fields through the same field writers as the card (`dadosbr consultar --saida x.csv`): a leaf
 * writer's text is the cell; an object's (situação, a code and its description) is parsed alone,
 * once per card; a list of codes is its codes joined by spaces. Parsing the whole card into
 * objects for each line cost ~25 µs a card more than its JSON (profiled on 200 k cards at 10 M
 * companies). A column no writer gives is an error of the caller's list.
 */
export function cardCells(columns: readonly string[]): (files: CardView, v: Values) => string[] {
  const writers = Object.keys(FIELD_JSON) as CardPath[]
  const steps = columns.map((c) => {
    const key = writers.filter((w) => c === w || c.startsWith(`${w}.`)).sort((a, b) => b.length - a.length)[0]
    if (!key) throw new Error(`cardCells: nenhum campo do cartão dá a coluna ${c}`)
    return { key, rest: c === key ? null : c.slice(key.length + 1).split('.') }
  })
  return (files, v) => {
    const parsed = new Map<CardPath, unknown>()
    return steps.map(({ key, rest }) => {
      if (rest === null) {
        const text = FIELD_JSON[key](files, v)
        return text.charCodeAt(0) === 91 ? valueCell(JSON.parse(text)) : leafCell(text)
      }
      let value = parsed.get(key)
      if (value === undefined) parsed.set(key, (value = JSON.parse(FIELD_JSON[key](files, v))))
      for (const k of rest) value = value === null || value === undefined ? undefined : (value as Record<string, unknown>)[k]
      return valueCell(value)
    })
  }
}
