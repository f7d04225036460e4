// The history's answers (docs/historico.md): a CNPJ's changes (/historico), a month's change feed
// (/mudancas), and the card, partners and /completo as they were in a month (?referencia=). A
// change holds the raw card values of its field before and after; it is shown through the card's
// own writer of that field (card-json.ts) with the code tables of the month that showed it, and a past card is
// the current one with the changes of every later month undone, newest first.
import type { z } from 'zod'
import { ApiError } from '../../core/errors'
import {
  CAMPO_BRUTOS, CAMPO_EMPRESA, CAMPO_JSON, CAMPO_PRESENCA, CAMPO_SOCIOS, CAMPOS, cnaeCodeOf, compareSocios, ficha, I, key1, key2, MAX, municipioCodeOf,
  monthRanges, ROTULOS_ANTERIOR, ROTULOS_MES, TIPOS, tipoCode, ufSlotOf, type Item, type Registro, type RegistroSocio,
} from './historico-layout'
import type { HistoryMonth } from './historico-store'
import { CARD_SEPARATOR, FICHA, PARTNER_SEPARATOR, rootKey } from './layout'
import type { Mudancas, MudancasQuery, MudancaDoMes, Socios } from './model'
import { JsonText } from '../../core/errors'
import { cardJson, fonteJson } from './card-json'
import { completoText, municipio, notFound, socio, socioRow, sociosAnswer, type CardView, type Ficha } from './service'
import type { CnpjFiles } from './store'

type Out<T extends z.ZodType> = z.output<T>

const TIPO = { abertura: tipoCode('abertura'), voltou: tipoCode('voltou_ao_cadastro'), saiu: tipoCode('saiu_do_cadastro'), entrada: tipoCode('socio_entrada'), saida: tipoCode('socio_saida'), alteracao: tipoCode('socio_alteracao') }

/**
 * 400 naming the months held, for a month the history does not hold; without a month asked (the
 * feed's default, on a build that holds no history), 503: there is no feed to give.
 */
function notHeld(files: CnpjFiles, referencia: string | undefined): ApiError {
  const held = files.historico.held
  if (referencia === undefined)
    return new ApiError('dados_indisponiveis', `A base do cadastro em uso (${files.referencia}) não guarda histórico (foi construída antes dele); a próxima 'dadosbr ingest cnpj' o começa.`)
  return new ApiError(
    'parametro_invalido',
    held.length
      ? `parâmetro de consulta 'referencia': o histórico não tem ${referencia}; os meses guardados são ${monthRanges(held)}`
      : `parâmetro de consulta 'referencia': esta base não guarda histórico (foi construída antes dele); a próxima 'dadosbr ingest cnpj' o começa`,
  )
}

/** The month files after `referencia` (exclusive) that compared it with something, newest first. */
function laterMonths(files: CnpjFiles, referencia: string): HistoryMonth[] {
  return files.historico.months.filter((m) => m.referencia > referencia && m.meta.referencia_anterior !== null).reverse()
}

/** A field item's raw values on a card record of its CNPJ (or, for a company field, of its root). */
function setBrutos(record: Registro, campo: number, values: (string | null)[] | null) {
  const idx = CAMPO_BRUTOS[campo]!
  for (let i = 0; i < idx.length; i++) record[idx[i]!] = values?.[i] ?? null
}

export const isCompanyItem = (it: Item) => it[I.campo] >= 0 && CAMPO_EMPRESA[it[I.campo]]!

/**
 * Undoes one month's items of a root on a map CNPJ -> card record (null: not in that month's
 * dump): the state of the month it was compared with.
 */
export function undoEstablishments(records: Map<string, Registro | null>, items: Item[]) {
  for (const it of items) {
    const tipo = it[I.tipo]
    const cnpj = it[I.cnpj]
    if (it[I.campo] === CAMPO_SOCIOS) continue
    if (isCompanyItem(it)) {
      for (const r of records.values()) if (r) setBrutos(r, it[I.campo], it[I.antes])
    } else if (tipo === TIPO.abertura || tipo === TIPO.voltou) records.set(cnpj, null)
    else if (tipo === TIPO.saiu) records.set(cnpj, [...(it[I.antes] ?? [])])
    else {
      const r = records.get(cnpj)
      if (r) setBrutos(r, it[I.campo], it[I.antes])
    }
  }
}

const sameRecord = (a: RegistroSocio, b: RegistroSocio) => a.length === b.length && a.every((v, i) => (v ?? null) === (b[i] ?? null))

/** Undoes one month's partner items of a root on its partner records. */
export function undoPartners(partners: RegistroSocio[], items: Item[]) {
  const remove = (rec: RegistroSocio | null) => {
    if (!rec) return
    const i = partners.findIndex((p) => sameRecord(p, rec))
    if (i >= 0) partners.splice(i, 1)
  }
  for (const it of items) {
    if (it[I.campo] !== CAMPO_SOCIOS) continue
    const tipo = it[I.tipo]
    if (tipo === TIPO.entrada) remove(it[I.depois])
    else if (tipo === TIPO.saida) partners.push([...(it[I.antes] ?? [])])
    else if (tipo === TIPO.alteracao) {
      remove(it[I.depois])
      partners.push([...(it[I.antes] ?? [])])
    }
  }
}

/** A card's values as the card store gives them (blank for null) as a record. */
const record = (values: readonly string[]): Registro => values.map((v) => v || null)
/** A partner's values joined by CARD_SEPARATOR (the card store's partners) as a record. */
const fields = (dados: string): Registro => dados.split(CARD_SEPARATOR).map((v) => v || null)

/**
 * The root's establishments and partners as they were in `referencia` (a month held), from the
 * current ones: every establishment of the root (`/completo`), or the one asked only (its card,
 * `only`), and the partners when `partners` (`/socios`, `/completo`).
 */
function rootAt(files: CnpjFiles, root: string, referencia: string, o: { only?: string; partners: boolean }) {
  let records: Map<string, Registro | null>
  if (o.only !== undefined) {
    const values = files.cards.card(o.only)
    records = new Map([[o.only, values === null ? null : record(values)]])
  } else records = new Map(files.cards.cardsOfRoot(root).map((c) => [c.cnpj, record(c.campos)]))
  const dados = o.partners ? files.cards.partners(root) : null
  const partners: RegistroSocio[] = dados === null ? [] : dados.split(PARTNER_SEPARATOR).map(fields)
  const key = rootKey(root)
  for (const month of laterMonths(files, referencia)) {
    let items = month.itemsOfRoot(key)
    if (!items.length) continue
    if (o.only !== undefined) items = items.filter((it) => it[I.cnpj] === o.only || isCompanyItem(it) || (o.partners && it[I.campo] === CAMPO_SOCIOS))
    undoEstablishments(records, items)
    if (o.partners) undoPartners(partners, items)
  }
  partners.sort(compareSocios)
  return { records, partners }
}

/** The month asked (?referencia=), checked; null for the month in use (the plain answer). */
function monthAsked(files: CnpjFiles, referencia: string | undefined): CardView | null {
  if (referencia === undefined || referencia === files.referencia) return null
  const month = files.historico.sound().month(referencia)
  if (!month) throw notHeld(files, referencia)
  return month.view(ROTULOS_MES)
}

/** The card of `cnpj` as it was in `referencia`; null for the month in use. */
export function empresaEm(files: CnpjFiles, cnpj: string, referencia: string | undefined): JsonText | null {
  const view = monthAsked(files, referencia)
  if (!view) return null
  const card = rootAt(files, cnpj.slice(0, 8), view.referencia, { only: cnpj, partners: false }).records.get(cnpj)
  if (!card) throw notFound(view, cnpj)
  return new JsonText(cardJson(view, cnpj, card))
}

export function completoEm(files: CnpjFiles, cnpj: string, referencia: string | undefined): JsonText | null {
  const view = monthAsked(files, referencia)
  if (!view) return null
  const { records, partners } = rootAt(files, cnpj.slice(0, 8), view.referencia, { partners: true })
  const main = records.get(cnpj)
  if (!main) throw notFound(view, cnpj)
  const outros = [...records].filter(([c, r]) => r && c !== cnpj).sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, r]) => ficha(c, r!))
  return completoText(view, cnpj, main, outros, partners.map((p) => socio(view, socioRow(p))))
}

export function sociosEm(files: CnpjFiles, cnpj: string, referencia: string | undefined): Out<typeof Socios> | null {
  const view = monthAsked(files, referencia)
  if (!view) return null
  const { records, partners } = rootAt(files, cnpj.slice(0, 8), view.referencia, { only: cnpj, partners: true })
  if (!records.get(cnpj)) throw notFound(view, cnpj)
  return sociosAnswer(view, cnpj, partners.map((p) => socio(view, socioRow(p))))
}

// ---- showing a change ----

const EMPTY: Registro = Array(FICHA.length).fill(null)

/** A field item's raw values as JSON text, as the card shows them, with the tables of the month that showed them. */
function shownJson(it: Item, values: (string | null)[] | null, view: CardView): string {
  const campo = it[I.campo]
  if (campo === CAMPO_PRESENCA || values === null) return 'null'
  if (campo === CAMPO_SOCIOS) return JSON.stringify(socio(view, socioRow(values)))
  const idx = CAMPO_BRUTOS[campo]!
  const record = EMPTY.slice()
  for (let i = 0; i < idx.length; i++) record[idx[i]!] = values[i] ?? null
  return CAMPO_JSON[campo]!(view, record)
}

/** The same value (for `dadosbr exportar` and the feed). */
const shown = (it: Item, values: (string | null)[] | null, view: CardView): unknown => JSON.parse(shownJson(it, values, view))

const campoName = (campo: number) => (campo >= 0 ? CAMPOS[campo]!.campo : campo === CAMPO_SOCIOS ? 'socios' : null)

/** A stored change as the API shows it (also what `dadosbr exportar` writes): its kind, field, and values as each month's card showed them. */
export function change(month: HistoryMonth, it: Item) {
  return {
    tipo: TIPOS[it[I.tipo]]!,
    campo: campoName(it[I.campo]),
    antes: shown(it, it[I.antes], month.view(ROTULOS_ANTERIOR)),
    depois: shown(it, it[I.depois], month.view(ROTULOS_MES)),
  }
}

const fonte = (referencia: string) => ({ base: 'RFB/CNPJ' as const, referencia })

/** A stored change's members (tipo, campo, antes, depois) as JSON text: the values straight from the field writers. */
function changeJson(month: HistoryMonth, it: Item): string {
  const campo = campoName(it[I.campo])
  return `"tipo":${JSON.stringify(TIPOS[it[I.tipo]]!)},"campo":${campo === null ? 'null' : JSON.stringify(campo)},"antes":${shownJson(it, it[I.antes], month.view(ROTULOS_ANTERIOR))},"depois":${shownJson(it, it[I.depois], month.view(ROTULOS_MES))}`
}

/**
 * A CNPJ's changes in every month held, newest first; `meses`: the months it was in the dump.
 * Written as JSON text (Historico): each value goes from its field writer to the answer, where an
 * object would be parsed from the writer's text and written again.
 */
export function historico(files: CnpjFiles, cnpj: string): JsonText {
  const root = cnpj.slice(0, 8)
  const key = rootKey(root)
  const months = files.historico.sound().months
  // Whether the CNPJ is in the month in use: an establishment change of its own in that month says
  // so (it left, or it is there: opened, back, or changed between two dumps holding it), without
  // reading its card (a page of the card store: ~10 % of this route's CPU at 10 M companies).
  const newest = months.at(-1)
  const newestItems = newest && newest.referencia === files.referencia && newest.meta.referencia_anterior !== null ? newest.itemsOfRoot(key) : null
  const ownChange = newestItems?.find((it) => it[I.cnpj] === cnpj && !isCompanyItem(it) && it[I.campo] !== CAMPO_SOCIOS)
  let present = ownChange ? ownChange[I.tipo] !== TIPO.saiu : files.cards.hasCard(cnpj)
  const meses: string[] = []
  const mudancas: string[] = []
  for (let k = months.length - 1; k >= 0; k--) {
    const month = months[k]!
    if (present) meses.push(month.referencia)
    if (month.meta.referencia_anterior === null) continue
    // The company's changes (and its partners') show on the cards of the establishments in the dump that month.
    const inDump = present
    for (const it of k === months.length - 1 && newestItems ? newestItems : month.itemsOfRoot(key)) {
      const own = it[I.cnpj] === cnpj
      if (!own && !(inDump && (isCompanyItem(it) || it[I.campo] === CAMPO_SOCIOS))) continue
      if (own && (it[I.tipo] === TIPO.abertura || it[I.tipo] === TIPO.voltou)) present = false
      else if (own && it[I.tipo] === TIPO.saiu) present = true
      mudancas.push(`{"referencia":${JSON.stringify(month.referencia)},"referencia_anterior":${JSON.stringify(month.meta.referencia_anterior)},${changeJson(month, it)}}`)
    }
  }
  return new JsonText(`{"cnpj":${JSON.stringify(cnpj)},"meses":${JSON.stringify(meses.reverse())},"mudancas":[${mudancas.join(',')}],"fonte":${fonteJson(files)}}`)
}

// ---- the change feed ----

type Interval = [lo: number, hi: number]

/**
 * A filter as key intervals of one ordering (historico-layout.ts): the feed (tipo, UF, município,
 * CNAE) or, for a CNAE without município, the CNAE ordering (CNAE, tipo, UF, município). A
 * dimension left out before one that is given spreads a filter over one interval per tipo (and per
 * UF of the município), in feed order.
 */
function intervals(f: { tipo?: number; ufs?: number[]; municipio?: number; cnae?: number }): { ordering: 'feed' | 'cnae'; list: Interval[] } {
  const tipos = f.tipo === undefined ? [...TIPOS.keys()] : [f.tipo]
  const ufs = f.ufs ?? []
  if (f.cnae !== undefined && f.municipio === undefined) {
    const c = f.cnae
    if (f.tipo === undefined && f.ufs === undefined) return { ordering: 'cnae', list: [[key2(c, 0, 0, 0), key2(c, MAX.tipo, MAX.uf, MAX.municipio)]] }
    if (f.ufs === undefined) return { ordering: 'cnae', list: [[key2(c, f.tipo!, 0, 0), key2(c, f.tipo!, MAX.uf, MAX.municipio)]] }
    return { ordering: 'cnae', list: tipos.flatMap((t) => ufs.map((u): Interval => [key2(c, t, u, 0), key2(c, t, u, MAX.municipio)])) }
  }
  if (f.ufs === undefined) {
    if (f.tipo === undefined) return { ordering: 'feed', list: [[key1(0, 0, 0, 0), key1(MAX.tipo, MAX.uf, MAX.municipio, MAX.cnae)]] }
    return { ordering: 'feed', list: [[key1(f.tipo, 0, 0, 0), key1(f.tipo, MAX.uf, MAX.municipio, MAX.cnae)]] }
  }
  const [m0, m1] = f.municipio === undefined ? [0, MAX.municipio] : [f.municipio, f.municipio]
  const [c0, c1] = f.cnae === undefined ? [0, MAX.cnae] : [f.cnae, f.cnae]
  return { ordering: 'feed', list: tipos.flatMap((t) => ufs.map((u): Interval => [key1(t, u, m0, c0), key1(t, u, m1, c1)])) }
}

/** A month's change feed, filtered and paged: counted and read by position (never by scanning). */
export function mudancas(files: CnpjFiles, q: Out<typeof MudancasQuery>): Out<typeof Mudancas> {
  const held = files.historico.sound().months
  const month = q.referencia === undefined ? held.at(-1) : files.historico.month(q.referencia)
  if (!month) throw notHeld(files, q.referencia)
  const base = { referencia: month.referencia, referencia_anterior: month.meta.referencia_anterior, lacuna: month.meta.lacuna, pagina: q.pagina, fonte: fonte(month.referencia) }
  const tipo = q.tipo === undefined ? undefined : tipoCode(q.tipo)
  const cnae = q.cnae === undefined ? undefined : cnaeCodeOf(q.cnae)
  const slots = (ufs: string[]) => ufs.map(ufSlotOf).sort((a, b) => a - b)
  // The Receita's município codes asked: `municipio`, and those the month's TOM ↔ IBGE table gives `municipio_ibge` (both: the ones in both).
  let toms = q.municipio === undefined ? undefined : [q.municipio]
  if (q.municipio_ibge !== undefined) {
    const of = month.view(ROTULOS_MES).ibge.tomsPorIbge.get(q.municipio_ibge) ?? []
    toms = toms ? toms.filter((t) => of.includes(t)) : of
  }
  let ordering: 'feed' | 'cnae'
  let list: Interval[]
  if (toms === undefined) ({ ordering, list } = intervals({ tipo, ufs: q.uf === undefined ? undefined : slots([q.uf]), cnae }))
  else {
    // A município is in one UF (more where the dump's rows disagree): the month's changes say which.
    ordering = 'feed'
    list = toms
      .flatMap((m) => intervals({ tipo, ufs: slots(month.ufsOfMunicipio(m).filter((u) => q.uf === undefined || u === q.uf)), municipio: municipioCodeOf(m), cnae }).list)
      .sort((a, b) => a[0] - b[0])
  }
  const ranges = list.map(([lo, hi]) => [month.lowerBound(ordering, lo), month.lowerBound(ordering, hi + 1)] as const).filter(([a, b]) => b > a)
  const total = ranges.reduce((n, [a, b]) => n + (b - a), 0)
  const offset = (q.pagina - 1) * q.por_pagina
  const positions: number[] = []
  let skip = offset
  for (const [a, b] of ranges) {
    if (positions.length >= q.por_pagina) break
    if (skip >= b - a) {
      skip -= b - a
      continue
    }
    for (let p = a + skip; p < b && positions.length < q.por_pagina; p++) positions.push(ordering === 'feed' ? p : month.feedPosition(p))
    skip = 0
  }
  return page(base, total, q, positions.map((p) => feedItem(month, month.item(p))))
}

function page(base: Omit<Out<typeof Mudancas>, 'total' | 'mudancas'>, total: number, q: Out<typeof MudancasQuery>, items: Out<typeof MudancaDoMes>[]): Out<typeof Mudancas> {
  const pages = Math.max(1, Math.ceil(total / q.por_pagina))
  if (q.pagina > pages)
    throw new ApiError('parametro_invalido', `parâmetro de consulta 'pagina': a página ${q.pagina} passa do fim; com estes filtros há ${total} mudanças em ${base.referencia}, ${pages} página${pages === 1 ? '' : 's'} de ${q.por_pagina}`)
  return { ...base, total, mudancas: items }
}

function feedItem(month: HistoryMonth, it: Item): Out<typeof MudancaDoMes> {
  const mes = month.view(ROTULOS_MES)
  const anterior = month.view(ROTULOS_ANTERIOR)
  // saiu_do_cadastro is shown where the establishment was, with the tables of that month.
  const place = it[I.tipo] === TIPO.saiu ? anterior : mes
  return {
    cnpj: it[I.cnpj],
    tipo: TIPOS[it[I.tipo]]!,
    campo: campoName(it[I.campo]),
    antes: shown(it, it[I.antes], anterior),
    depois: shown(it, it[I.depois], mes),
    uf: it[I.uf],
    municipio: municipio(place, { uf: it[I.uf], municipio: it[I.municipio], cidade_exterior: it[I.exterior] } as Ficha),
    cnae_principal: it[I.cnae],
    razao_social: it[I.razao],
  }
}
