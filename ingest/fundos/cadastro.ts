// The registry merged with the daily reports: which fund or class a CNPJ is, its classification,
// manager and administrator, and its latest quota, net assets and shareholders, as the /consulta
// answer (without `fonte`, added when served). RCVM 175's registry wins; the legacy cad_fi.csv
// fills what it lacks and names the funds that never adapted.
import { consultaNaoEncontrada, SEM_CLASSIFICACAO, type ConsultaCorpo } from '../../src/datasets/fundos/layout'
import type { ClassDaily, ClassTraits, DailyResult, Latest } from './daily'
import type { ClassRecord, FundRecord, LegacyRecord, Pessoa, Registry, SubclassRecord } from './parse-registry'

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toUpperCase().trim()

const CANONICAL = new Map([
  ['RENDA FIXA', 'Renda Fixa'],
  ['ACOES', 'Ações'],
  ['MULTIMERCADO', 'Multimercado'],
  ['CAMBIAL', 'Cambial'],
])

/** One spelling per CVM classification: cad_fi writes `Fundo de Ações`, the RCVM 175 registry `Ações`. */
export function canonicalClassification(raw: string | null | undefined): string | null {
  if (!raw?.trim()) return null
  const bare = raw.trim().replace(/^fundos?\s+(de\s+|do\s+)?/i, '')
  return CANONICAL.get(fold(bare)) ?? bare
}

export const isCancelled = (situacao: string | null | undefined) => !!situacao && /CANCELAD/.test(fold(situacao))

/** The row to keep when a CNPJ appears more than once: one in operation before a cancelled one, then the latest status. */
function better<T extends { situacao: string | null; dataSituacao: string | null }>(a: T | undefined, b: T): T {
  if (!a) return b
  const ca = isCancelled(a.situacao)
  const cb = isCancelled(b.situacao)
  if (ca !== cb) return ca ? b : a
  return (b.dataSituacao ?? '') > (a.dataSituacao ?? '') ? b : a
}

/** The registry indexed by CNPJ and id, with the rules that pick one row per CNPJ. */
export class Cadastro {
  readonly fundById = new Map<string, FundRecord>()
  readonly fundByCnpj = new Map<string, FundRecord>()
  readonly classByCnpj = new Map<string, ClassRecord>()
  readonly classesOfFund = new Map<string, ClassRecord[]>()
  readonly subclassesOfClass = new Map<string, SubclassRecord[]>()
  readonly legacyByCnpj = new Map<string, LegacyRecord>()

  constructor(registry: Registry) {
    for (const f of registry.funds) {
      this.fundById.set(f.id, f)
      this.fundByCnpj.set(f.cnpj, better(this.fundByCnpj.get(f.cnpj), f))
    }
    for (const c of registry.classes) {
      this.classByCnpj.set(c.cnpj, better(this.classByCnpj.get(c.cnpj), c))
      if (c.fundId) {
        const list = this.classesOfFund.get(c.fundId) ?? []
        list.push(c)
        this.classesOfFund.set(c.fundId, list)
      }
    }
    for (const s of registry.subclasses) {
      const list = this.subclassesOfClass.get(s.classId) ?? []
      list.push(s)
      this.subclassesOfClass.set(s.classId, list)
    }
    for (const l of registry.legacy) this.legacyByCnpj.set(l.cnpj, better(this.legacyByCnpj.get(l.cnpj), l))
  }

  /** Classification and fund-of-funds flag of a class CNPJ, for the daily aggregates. */
  traits = (cnpj: string): ClassTraits => {
    const c = this.classByCnpj.get(cnpj)
    const l = this.legacyByCnpj.get(cnpj)
    return {
      classificacao: canonicalClassification(c?.classificacao) ?? canonicalClassification(l?.classe) ?? SEM_CLASSIFICACAO,
      cotasDeFundos: c?.cotas ?? l?.cotas ?? false,
    }
  }

  /** The fund a class belongs to. */
  fundOf(c: ClassRecord): FundRecord | undefined {
    return c.fundId ? this.fundById.get(c.fundId) : undefined
  }

  /** Name, parent fund and manager of a class CNPJ, for the rankings. */
  identity(cnpj: string): { nome: string | null; fundo: { cnpj: string; nome: string | null } | null; gestor: Pessoa | null; situacao: string | null } {
    const c = this.classByCnpj.get(cnpj)
    const f = c ? this.fundOf(c) : this.fundByCnpj.get(cnpj)
    const l = this.legacyByCnpj.get(cnpj)
    return {
      nome: c?.nome ?? f?.nome ?? l?.nome ?? null,
      fundo: c && f && f.cnpj !== cnpj ? { cnpj: f.cnpj, nome: f.nome } : null,
      gestor: f?.gestor ?? l?.gestor ?? null,
      situacao: c?.situacao ?? f?.situacao ?? l?.situacao ?? null,
    }
  }

  /** Every CNPJ the registry and the daily reports name, with its /consulta body. */
  *consultas(daily: DailyResult): Generator<ConsultaCorpo> {
    const dailyByCnpj = new Map(daily.classes.map((c) => [c.cnpj, c]))
    const all = new Set([...this.classByCnpj.keys(), ...this.fundByCnpj.keys(), ...this.legacyByCnpj.keys(), ...dailyByCnpj.keys()])
    for (const cnpj of [...all].sort()) yield this.consulta(cnpj, dailyByCnpj.get(cnpj), daily.dates)
  }

  private consulta(cnpj: string, daily: ClassDaily | undefined, dates: string[]): ConsultaCorpo {
    const c = this.classByCnpj.get(cnpj)
    const f = c ? this.fundOf(c) : this.fundByCnpj.get(cnpj)
    const l = this.legacyByCnpj.get(cnpj)
    const at = (latest: Latest | null | undefined) => (latest ? dates[latest.day]! : null)
    const valorData = (valor: number | null | undefined, data: string | null) => (valor !== null && valor !== undefined && data ? { valor, data } : null)
    const latest = daily?.latest ?? null
    const dia = at(latest)
    const body = consultaNaoEncontrada(cnpj, '')
    body.encontrado = true
    body.mensagem = null
    body.cota = valorData(latest?.cota, dia)
    body.cotistas = latest?.cotistas !== null && latest?.cotistas !== undefined && dia ? { quantidade: latest.cotistas, data: dia } : null
    const registryPl = c ? { valor: c.pl, data: c.dataPl } : f && f.cnpj === cnpj ? { valor: f.pl, data: f.dataPl } : l ? { valor: l.pl, data: l.dataPl } : null
    const fromDaily = valorData(latest?.pl, dia)
    const fromRegistry = valorData(registryPl?.valor, registryPl?.data ?? null)
    body.patrimonio_liquido = fromDaily && (!fromRegistry || fromDaily.data >= fromRegistry.data)
      ? { ...fromDaily, origem: 'informe_diario' }
      : fromRegistry ? { ...fromRegistry, origem: 'cadastro' } : null
    const classSummary = (k: ClassRecord) => ({ cnpj: k.cnpj, nome: k.nome, situacao: k.situacao, classificacao_cvm: canonicalClassification(k.classificacao) })

    if (c) {
      body.tipo = 'classe'
      body.nome = c.nome ?? f?.nome ?? l?.nome ?? null
      body.tipo_fundo = c.tipo ?? f?.tipo ?? l?.tipo ?? null
      body.codigo_cvm = c.codigoCvm
      body.situacao = { descricao: c.situacao, data: c.dataSituacao }
      body.datas = { registro: c.dataRegistro, constituicao: c.dataConstituicao ?? f?.dataConstituicao ?? null, inicio: c.dataInicio, cancelamento: f && f.cnpj === cnpj ? f.dataCancelamento : null }
      body.gestor = f?.gestor ?? l?.gestor ?? null
      body.administrador = f?.administrador ?? l?.administrador ?? null
      body.classificacao = { cvm: canonicalClassification(c.classificacao) ?? canonicalClassification(l?.classe), anbima: c.anbima ?? l?.anbima ?? null }
      body.caracteristicas = {
        forma_condominio: c.condominio, exclusivo: c.exclusivo, publico_alvo: c.publicoAlvo, cotas_de_fundos: c.cotas,
        indicador_desempenho: c.indicador, tributacao_longo_prazo: c.tributacaoLp,
      }
      body.fundo = f ? { cnpj: f.cnpj, nome: f.nome, tipo_fundo: f.tipo, situacao: f.situacao } : null
      const siblings = f ? (this.classesOfFund.get(f.id) ?? []) : []
      if (f && f.cnpj === cnpj && siblings.length > 1) body.classes = siblings.map(classSummary)
      const registered = this.subclassesOfClass.get(c.id) ?? []
      const dailySubs = new Map((daily?.subclasses ?? []).map((s) => [s.id, s.latest]))
      const ids = [...new Set([...registered.map((s) => s.id), ...dailySubs.keys()])]
      body.subclasses = ids.map((id) => {
        const reg = registered.find((s) => s.id === id)
        const sl = dailySubs.get(id) ?? null
        const day = at(sl)
        return {
          id, nome: reg?.nome ?? null, situacao: reg?.situacao ?? null, cota: valorData(sl?.cota, day),
          patrimonio_liquido: valorData(sl?.pl, day), cotistas: sl?.cotistas !== null && sl?.cotistas !== undefined && day ? { quantidade: sl.cotistas, data: day } : null,
        }
      })
    } else if (f) {
      body.tipo = 'fundo'
      body.nome = f.nome ?? l?.nome ?? null
      body.tipo_fundo = f.tipo ?? l?.tipo ?? null
      body.codigo_cvm = f.codigoCvm ?? l?.codigoCvm ?? null
      body.situacao = { descricao: f.situacao, data: f.dataSituacao }
      body.datas = { registro: f.dataRegistro, constituicao: f.dataConstituicao, inicio: l?.dataInicio ?? null, cancelamento: f.dataCancelamento }
      body.gestor = f.gestor ?? l?.gestor ?? null
      body.administrador = f.administrador ?? l?.administrador ?? null
      body.classificacao = { cvm: canonicalClassification(l?.classe), anbima: l?.anbima ?? null }
      body.caracteristicas = l ? legacyTraits(l) : null
      body.classes = (this.classesOfFund.get(f.id) ?? []).map(classSummary)
    } else if (l) {
      body.tipo = 'fundo_legado'
      body.nome = l.nome
      body.tipo_fundo = l.tipo
      body.codigo_cvm = l.codigoCvm
      body.situacao = { descricao: l.situacao, data: l.dataSituacao }
      body.datas = { registro: l.dataRegistro, constituicao: l.dataConstituicao, inicio: l.dataInicio, cancelamento: l.dataCancelamento }
      body.gestor = l.gestor
      body.administrador = l.administrador
      body.classificacao = { cvm: canonicalClassification(l.classe), anbima: l.anbima }
      body.caracteristicas = legacyTraits(l)
    } else {
      body.tipo = 'sem_cadastro'
      body.tipo_fundo = daily?.tipo ?? null
      body.classificacao = { cvm: null, anbima: null }
      body.mensagem = 'consta nos informes diários da CVM, mas não no cadastro carregado (registro_fundo_classe.zip e cad_fi.csv)'
      body.subclasses = (daily?.subclasses ?? []).map((s) => {
        const day = at(s.latest)
        return {
          id: s.id, nome: null, situacao: null, cota: valorData(s.latest?.cota, day), patrimonio_liquido: valorData(s.latest?.pl, day),
          cotistas: s.latest?.cotistas !== null && s.latest?.cotistas !== undefined && day ? { quantidade: s.latest.cotistas, data: day } : null,
        }
      })
    }
    return body
  }
}

function legacyTraits(l: LegacyRecord): NonNullable<ConsultaCorpo['caracteristicas']> {
  return {
    forma_condominio: l.condominio, exclusivo: l.exclusivo, publico_alvo: l.publicoAlvo, cotas_de_fundos: l.cotas,
    indicador_desempenho: null, tributacao_longo_prazo: l.tributacaoLp,
  }
}
