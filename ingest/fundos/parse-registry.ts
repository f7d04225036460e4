// The fund registry: registro_fundo_classe.zip (RCVM 175: funds, their classes, the classes'
// subclasses; CNPJs digits only) and the legacy cad_fi.csv (one row per fund, CNPJs punctuated).
// Columns by header name. LGPD: a manager who is a person keeps the name, never the CPF, and the
// registry's director (always a person) is not read.
import { classifyDocument, dateOrNull, decimalOrNull, textOrNull } from '../lib/values'
import { columnIndex, HeaderError, pick, type ColumnSpec } from '../../src/core/text/header'
import { cnpjDigits, fileRows, findMember, memberRows, SourceError } from './files'

export interface Pessoa {
  nome: string | null
  cnpj: string | null
}

export interface FundRecord {
  id: string
  cnpj: string
  codigoCvm: string | null
  tipo: string | null
  nome: string | null
  situacao: string | null
  dataSituacao: string | null
  dataRegistro: string | null
  dataConstituicao: string | null
  dataCancelamento: string | null
  pl: number | null
  dataPl: string | null
  administrador: Pessoa | null
  gestor: Pessoa | null
}

export interface ClassRecord {
  fundId: string | null
  id: string
  cnpj: string
  codigoCvm: string | null
  tipo: string | null
  nome: string | null
  situacao: string | null
  dataSituacao: string | null
  dataRegistro: string | null
  dataConstituicao: string | null
  dataInicio: string | null
  classificacao: string | null
  anbima: string | null
  indicador: string | null
  cotas: boolean | null
  tributacaoLp: boolean | null
  condominio: string | null
  exclusivo: boolean | null
  publicoAlvo: string | null
  pl: number | null
  dataPl: string | null
}

export interface SubclassRecord {
  classId: string
  id: string
  nome: string | null
  situacao: string | null
  dataSituacao: string | null
}

/** A fund of cad_fi.csv (before RCVM 175, or never adapted). */
export interface LegacyRecord {
  cnpj: string
  codigoCvm: string | null
  tipo: string | null
  nome: string | null
  situacao: string | null
  dataSituacao: string | null
  dataRegistro: string | null
  dataConstituicao: string | null
  dataCancelamento: string | null
  dataInicio: string | null
  classe: string | null
  anbima: string | null
  cotas: boolean | null
  tributacaoLp: boolean | null
  condominio: string | null
  exclusivo: boolean | null
  publicoAlvo: string | null
  pl: number | null
  dataPl: string | null
  administrador: Pessoa | null
  gestor: Pessoa | null
}

export interface FileCount {
  tipo: string
  linhas_mantidas: number
  linhas_descartadas: number
}

const FUND_COLUMNS = {
  id: 'ID_Registro_Fundo', cnpj: 'CNPJ_Fundo', codigo: 'Codigo_CVM', registro: 'Data_Registro', constituicao: 'Data_Constituicao',
  tipo: 'Tipo_Fundo', nome: 'Denominacao_Social', cancelamento: 'Data_Cancelamento', situacao: 'Situacao', dataSituacao: 'Data_Inicio_Situacao',
  pl: 'Patrimonio_Liquido', dataPl: 'Data_Patrimonio_Liquido', cnpjAdmin: 'CNPJ_Administrador', admin: 'Administrador',
  pessoaGestor: 'Tipo_Pessoa_Gestor', docGestor: 'CPF_CNPJ_Gestor', gestor: 'Gestor',
} satisfies ColumnSpec
const FUND_REQUIRED = ['id', 'cnpj']

const CLASS_COLUMNS = {
  fundId: 'ID_Registro_Fundo', id: 'ID_Registro_Classe', cnpj: 'CNPJ_Classe', codigo: 'Codigo_CVM', registro: 'Data_Registro',
  constituicao: 'Data_Constituicao', inicio: 'Data_Inicio', tipo: 'Tipo_Classe', nome: 'Denominacao_Social', situacao: 'Situacao',
  dataSituacao: 'Data_Inicio_Situacao', classificacao: 'Classificacao', indicador: 'Indicador_Desempenho', cotas: 'Classe_Cotas',
  anbima: 'Classificacao_Anbima', tributacao: 'Tributacao_Longo_Prazo', condominio: 'Forma_Condominio', exclusivo: 'Exclusivo',
  publico: 'Publico_Alvo', pl: 'Patrimonio_Liquido', dataPl: 'Data_Patrimonio_Liquido',
} satisfies ColumnSpec
const CLASS_REQUIRED = ['id', 'cnpj']

const SUBCLASS_COLUMNS = {
  classId: 'ID_Registro_Classe', id: 'ID_Subclasse', nome: 'Denominacao_Social', situacao: 'Situacao', dataSituacao: 'Data_Inicio_Situacao',
} satisfies ColumnSpec
const SUBCLASS_REQUIRED = ['classId', 'id']

const LEGACY_COLUMNS = {
  tipo: 'TP_FUNDO', cnpj: 'CNPJ_FUNDO', nome: 'DENOM_SOCIAL', registro: 'DT_REG', constituicao: 'DT_CONST', codigo: 'CD_CVM',
  cancelamento: 'DT_CANCEL', situacao: 'SIT', dataSituacao: 'DT_INI_SIT', inicio: 'DT_INI_ATIV', classe: 'CLASSE', condominio: 'CONDOM',
  cotas: 'FUNDO_COTAS', exclusivo: 'FUNDO_EXCLUSIVO', tributacao: 'TRIB_LPRAZO', publico: 'PUBLICO_ALVO', pl: 'VL_PATRIM_LIQ',
  dataPl: 'DT_PATRIM_LIQ', cnpjAdmin: 'CNPJ_ADMIN', admin: 'ADMIN', pessoaGestor: 'PF_PJ_GESTOR', docGestor: 'CPF_CNPJ_GESTOR',
  gestor: 'GESTOR', anbima: 'CLASSE_ANBIMA',
} satisfies ColumnSpec
const LEGACY_REQUIRED = ['cnpj']

const optionalOf = (spec: ColumnSpec, required: string[]) => Object.keys(spec).filter((k) => !required.includes(k))

const yesNo = (raw: string): boolean | null => {
  const s = textOrNull(raw)?.toUpperCase()
  return s === 'S' || s === 'SIM' ? true : s === 'N' || s === 'NAO' || s === 'NÃO' ? false : null
}

/**
 * A manager or administrator: the name, and the document only when it is a CNPJ. A person (PF, or
 * any 11-digit document) keeps the name alone: the CPF is never stored (LGPD).
 */
function pessoa(nomeRaw: string, docRaw: string, tipoRaw = ''): Pessoa | null {
  const nome = textOrNull(nomeRaw)
  const doc = classifyDocument(docRaw)
  const pf = textOrNull(tipoRaw)?.toUpperCase() === 'PF'
  const cnpj = !pf && doc.kind === 'cnpj' ? cnpjDigits(doc.value) : null
  return nome || cnpj ? { nome, cnpj } : null
}

/** Reads a CSV (zip member or plain file), maps each row, counts kept and dropped rows. */
async function readTable<S extends ColumnSpec, T>(
  rows: AsyncGenerator<string[]>,
  label: string,
  spec: S,
  required: string[],
  map: (v: Record<Extract<keyof S, string>, string>) => T | null,
  onRow: (record: T) => void,
): Promise<FileCount> {
  const header = (await rows.next()).value as string[] | undefined
  if (!header) throw new SourceError(`${label} está vazio`)
  let index
  try {
    index = columnIndex(header, spec, optionalOf(spec, required))
  } catch (err) {
    throw new SourceError(`${label}: ${err instanceof HeaderError ? err.message : err}; o layout mudou? confira SOURCES.md §5`)
  }
  const count: FileCount = { tipo: label, linhas_mantidas: 0, linhas_descartadas: 0 }
  for await (const row of rows) {
    const record = map(pick(row, index))
    if (record) {
      onRow(record)
      count.linhas_mantidas++
    } else count.linhas_descartadas++
  }
  return count
}

export interface Registry {
  funds: FundRecord[]
  classes: ClassRecord[]
  subclasses: SubclassRecord[]
  legacy: LegacyRecord[]
  counts: FileCount[]
}

/** Reads the three files of registro_fundo_classe.zip (the subclass file may be absent in older copies). */
export async function readRegistryZip(path: string, into: Registry): Promise<void> {
  const fundEntry = await findMember(path, /^registro_fundo\.csv$/i)
  const classEntry = await findMember(path, /^registro_classe\.csv$/i)
  const subclassEntry = await findMember(path, /^registro_subclasse\.csv$/i)
  if (!fundEntry || !classEntry) throw new SourceError(`registro_fundo_classe.zip não tem ${!fundEntry ? 'registro_fundo.csv' : 'registro_classe.csv'}; o arquivo mudou?`)
  into.counts.push(await readTable(memberRows(path, fundEntry), 'registro_fundo', FUND_COLUMNS, FUND_REQUIRED, (v) => {
    const cnpj = cnpjDigits(v.cnpj)
    const id = textOrNull(v.id)
    if (!cnpj || !id) return null
    return {
      id, cnpj, codigoCvm: textOrNull(v.codigo), tipo: textOrNull(v.tipo), nome: textOrNull(v.nome), situacao: textOrNull(v.situacao),
      dataSituacao: dateOrNull(v.dataSituacao), dataRegistro: dateOrNull(v.registro), dataConstituicao: dateOrNull(v.constituicao),
      dataCancelamento: dateOrNull(v.cancelamento), pl: decimalOrNull(v.pl), dataPl: dateOrNull(v.dataPl),
      administrador: pessoa(v.admin, v.cnpjAdmin), gestor: pessoa(v.gestor, v.docGestor, v.pessoaGestor),
    } satisfies FundRecord
  }, (r) => into.funds.push(r)))
  into.counts.push(await readTable(memberRows(path, classEntry), 'registro_classe', CLASS_COLUMNS, CLASS_REQUIRED, (v) => {
    const cnpj = cnpjDigits(v.cnpj)
    const id = textOrNull(v.id)
    if (!cnpj || !id) return null
    return {
      fundId: textOrNull(v.fundId), id, cnpj, codigoCvm: textOrNull(v.codigo), tipo: textOrNull(v.tipo), nome: textOrNull(v.nome),
      situacao: textOrNull(v.situacao), dataSituacao: dateOrNull(v.dataSituacao), dataRegistro: dateOrNull(v.registro),
      dataConstituicao: dateOrNull(v.constituicao), dataInicio: dateOrNull(v.inicio), classificacao: textOrNull(v.classificacao),
      anbima: textOrNull(v.anbima), indicador: textOrNull(v.indicador), cotas: yesNo(v.cotas), tributacaoLp: yesNo(v.tributacao),
      condominio: textOrNull(v.condominio), exclusivo: yesNo(v.exclusivo), publicoAlvo: textOrNull(v.publico), pl: decimalOrNull(v.pl),
      dataPl: dateOrNull(v.dataPl),
    } satisfies ClassRecord
  }, (r) => into.classes.push(r)))
  if (subclassEntry)
    into.counts.push(await readTable(memberRows(path, subclassEntry), 'registro_subclasse', SUBCLASS_COLUMNS, SUBCLASS_REQUIRED, (v) => {
      const classId = textOrNull(v.classId)
      const id = textOrNull(v.id)
      if (!classId || !id) return null
      return { classId, id, nome: textOrNull(v.nome), situacao: textOrNull(v.situacao), dataSituacao: dateOrNull(v.dataSituacao) } satisfies SubclassRecord
    }, (r) => into.subclasses.push(r)))
}

/** Reads the legacy cad_fi.csv. */
export async function readLegacyRegistry(path: string, into: Registry): Promise<void> {
  into.counts.push(await readTable(fileRows(path), 'cad_fi', LEGACY_COLUMNS, LEGACY_REQUIRED, (v) => {
    const cnpj = cnpjDigits(v.cnpj)
    if (!cnpj) return null
    return {
      cnpj, codigoCvm: textOrNull(v.codigo), tipo: textOrNull(v.tipo), nome: textOrNull(v.nome), situacao: textOrNull(v.situacao),
      dataSituacao: dateOrNull(v.dataSituacao), dataRegistro: dateOrNull(v.registro), dataConstituicao: dateOrNull(v.constituicao),
      dataCancelamento: dateOrNull(v.cancelamento), dataInicio: dateOrNull(v.inicio), classe: textOrNull(v.classe), anbima: textOrNull(v.anbima),
      cotas: yesNo(v.cotas), tributacaoLp: yesNo(v.tributacao), condominio: textOrNull(v.condominio), exclusivo: yesNo(v.exclusivo),
      publicoAlvo: textOrNull(v.publico), pl: decimalOrNull(v.pl), dataPl: dateOrNull(v.dataPl),
      administrador: pessoa(v.admin, v.cnpjAdmin), gestor: pessoa(v.gestor, v.docGestor, v.pessoaGestor),
    } satisfies LegacyRecord
  }, (r) => into.legacy.push(r)))
}

export const emptyRegistry = (): Registry => ({ funds: [], classes: [], subclasses: [], legacy: [], counts: [] })
