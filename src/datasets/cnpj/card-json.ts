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

/** Characters a JSON string must escape. */
const ESCAPE = /["\\\u0000-\u001f]/
/** A text value as JSON; blank is null (the card store keeps null as blank). Most values need no escaping: quoted as they are. */
const q = (v: string | null | undefined) => (v ? (ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`) : 'null')

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

/** The `fonte` of a month's answers, as JSON. */
const fonteCache = new WeakMap<CardView, string>()
export const fonteJson = (files: CardView) => {
  let json = fonteCache.get(files)
  if (json === undefined) fonteCache.set(files, (json = JSON.stringify({ base: 'RFB/CNPJ', referencia: files.referencia })))
  return json
}

/**
 * One establishment's card as JSON, in the key order of the Empresa schema (model.ts), from its
 * fields as CardStoreReader.card gives them (blank for null).
 */
export function cardJson(files: CardView, cnpj: string, v: readonly (string | null)[]): string {
  const { lookups } = files
  const cnaes = cacheOf(lookups.cnaes)
  const situacao = v[F.situacao]
  const motivo = v[F.motivo]
  const tipo = v[F.tipo_logradouro]
  const rua = v[F.logradouro]
  const logradouro = tipo && rua ? `${tipo} ${rua}` : tipo || rua
  const uf = v[F.uf] || null
  const municipio = v[F.municipio] || null
  const primeiro = telefone(v[F.ddd1], v[F.telefone1])
  const segundo = telefone(v[F.ddd2], v[F.telefone2])
  const especial = v[F.situacao_especial] || v[F.data_situacao_especial] ? `{"descricao":${q(v[F.situacao_especial])},"data":${q(v[F.data_situacao_especial])}}` : 'null'
  const capital = v[F.capital_social]
  const secundarios = v[F.cnaes_secundarios]
  const porte = v[F.porte] ? PORTE[v[F.porte]!] : undefined
  const matriz = matrizFilial(v[F.matriz_filial])
  return (
    `{"cnpj":${JSON.stringify(cnpj)},"razao_social":${q(v[F.razao_social])},"nome_fantasia":${q(v[F.nome_fantasia])},` +
    `"matriz_filial":${matriz ? `"${matriz}"` : 'null'},` +
    `"situacao_cadastral":{"codigo":${q(situacao)},"descricao":${q(situacao ? SITUACAO_DESCRICAO[situacao] : null)},"data":${q(v[F.data_situacao])},` +
    `"motivo":${motivo && motivo !== '00' ? q(lookups.motivos.get(motivo) ?? motivo) : 'null'}},` +
    `"situacao_especial":${especial},"data_inicio_atividade":${q(v[F.data_inicio])},` +
    `"natureza_juridica":${codeJson(v[F.natureza_juridica], lookups.naturezas, cacheOf(lookups.naturezas))},` +
    `"qualificacao_responsavel":${codeJson(v[F.qualificacao_responsavel], lookups.qualificacoes, cacheOf(lookups.qualificacoes))},` +
    `"ente_federativo_responsavel":${q(v[F.ente_federativo])},"porte":${porte ? `"${porte}"` : 'null'},` +
    `"capital_social":${capital ? JSON.stringify(Number(capital)) : 'null'},` +
    `"cnae_principal":${codeJson(v[F.cnae_principal], lookups.cnaes, cnaes)},` +
    `"cnae_secundarios":[${secundarios ? secundarios.split(',').filter(Boolean).map((c) => codeJson(c.padStart(7, '0'), lookups.cnaes, cnaes)).join(',') : ''}],` +
    `"endereco":{"logradouro":${q(logradouro)},"numero":${q(v[F.numero])},"complemento":${q(v[F.complemento])},"bairro":${q(v[F.bairro])},` +
    `"municipio":${q(municipioDe(files, uf, municipio, v[F.cidade_exterior] || null))},"uf":${q(uf)},"cep":${q(v[F.cep])},` +
    `"codigo_municipio_ibge":${q(ibgeDe(files, uf, municipio))},"pais":${v[F.pais] ? codeJson(v[F.pais], lookups.paises, cacheOf(lookups.paises)) : 'null'}},` +
    // telefone is the first phone, or the second when the first is blank (as before); telefone_2
    // is the second only when the first is there, so no number shows twice.
    `"contato":{"email":${q(v[F.email])},"telefone":${q(primeiro ?? segundo)},"telefone_2":${q(primeiro ? segundo : null)},"fax":${q(telefone(v[F.ddd_fax], v[F.fax]))}},` +
    `"simples":{"optante":${v[F.opcao_simples] === 'true'},"mei":${v[F.opcao_mei] === 'true'},"data_opcao":${q(v[F.data_opcao_simples])},` +
    `"data_exclusao":${q(v[F.data_exclusao_simples])},"mei_data_opcao":${q(v[F.data_opcao_mei])},"mei_data_exclusao":${q(v[F.data_exclusao_mei])}},` +
    `"fonte":${fonteJson(files)}}`
  )
}
