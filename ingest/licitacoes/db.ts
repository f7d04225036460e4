// The writer of the contracts index (layout in src/datasets/licitacoes/layout.ts). One day of
// PNCP publications is written in one transaction together with its "finished" mark, so a sync
// killed at any moment leaves whole days and a `sincronizado_ate` that claims only those; the
// server reads the same file at the same time (WAL: readers see the last committed day).
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BASE, DATASET_DIR, DB_FILE, FORMAT, META, SCHEMA, VALUE_SCALE } from '../../src/datasets/licitacoes/layout'
import { addDays, controlParts, day, documento, esfera, money, poder, supplierCnpj, text, type PncpContrato } from '../../src/datasets/licitacoes/pncp'

export class IndexError extends Error {}

/** A contract as stored, before its descriptions are turned into ids. */
export interface ContractRow {
  numero: string
  cnpj: string
  orgao: { cnpj: string; razao_social: string | null; esfera: string | null; poder: string | null } | null
  unidade: { chave: string; nome: string | null; municipio: string | null; uf: string | null } | null
  tipo: string | null
  objeto: string | null
  valor_inicial: number | null
  valor_global: number | null
  data_assinatura: string | null
  vigencia_inicio: string | null
  vigencia_fim: string | null
}

export type DropReason = 'sem_numero' | 'fornecedor_nao_pj'

/** A PNCP contract as a row; a reason instead when it is not kept (no control number; supplier not a company). */
export function contractRow(c: PncpContrato): ContractRow | DropReason {
  const numero = text(c.numeroControlePNCP)
  if (!numero) return 'sem_numero'
  const cnpj = supplierCnpj(c)
  if (!cnpj) return 'fornecedor_nao_pj'
  const orgaoCnpj = documento(c.orgaoEntidade?.cnpj) || controlParts(numero)?.cnpj || ''
  const codigoUnidade = text(c.unidadeOrgao?.codigoUnidade)
  const unidade = c.unidadeOrgao
    ? { nome: text(c.unidadeOrgao.nomeUnidade), municipio: text(c.unidadeOrgao.municipioNome), uf: text(c.unidadeOrgao.ufSigla)?.toUpperCase() ?? null }
    : null
  return {
    numero,
    cnpj,
    orgao: orgaoCnpj
      ? { cnpj: orgaoCnpj, razao_social: text(c.orgaoEntidade?.razaoSocial), esfera: esfera(c.orgaoEntidade?.esferaId), poder: poder(c.orgaoEntidade?.poderId) }
      : null,
    // A unit is identified by its body and code; without a code, by its description.
    unidade: unidade && (codigoUnidade || unidade.nome) ? { chave: `${orgaoCnpj}|${codigoUnidade ?? `${unidade.nome}|${unidade.municipio}|${unidade.uf}`}`, ...unidade } : null,
    tipo: text(c.tipoContrato?.nome),
    objeto: text(c.objetoContrato),
    valor_inicial: money(c.valorInicial),
    valor_global: money(c.valorGlobal),
    data_assinatura: day(c.dataAssinatura),
    vigencia_inicio: day(c.dataVigenciaInicio),
    vigencia_fim: day(c.dataVigenciaFim),
  }
}

/** The value a contract adds to its supplier's total: the global value (with amendments), else the initial one. */
const scaled = (r: { valor_global: number | null; valor_inicial: number | null }) => Math.round((r.valor_global ?? r.valor_inicial ?? 0) * VALUE_SCALE)

export interface WriteResult {
  inseridos: number
  substituidos: number
}

export const dbPath = (dataDir: string) => join(dataDir, DATASET_DIR, DB_FILE)

export class ContractIndex {
  readonly db: Database
  private readonly orgaos = new Map<string, { id: number; razao_social: string | null; esfera: string | null; poder: string | null }>()
  private readonly unidades = new Map<string, { id: number; nome: string | null; municipio: string | null; uf: string | null }>()
  private readonly tipos = new Map<string, number>()
  private readonly st

  /** Opens (creating when absent) the index under dataDir; an index of another layout is refused unless `rebuild`. */
  constructor(dataDir: string, options: { rebuild?: boolean; cacheMb?: number } = {}) {
    const path = dbPath(dataDir)
    mkdirSync(join(dataDir, DATASET_DIR), { recursive: true })
    if (options.rebuild) for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
    const fresh = !existsSync(path)
    this.db = new Database(path, { create: true })
    this.db.exec('PRAGMA journal_mode = WAL')
    // A crash may lose the last day written (it is fetched again); it never corrupts the file.
    this.db.exec('PRAGMA synchronous = NORMAL')
    this.db.exec(`PRAGMA cache_size = -${(options.cacheMb ?? 1024) * 1024}`)
    this.db.exec('PRAGMA temp_store = MEMORY')
    this.db.exec('PRAGMA busy_timeout = 10000')
    if (!fresh) {
      const formato = this.metaGet(META.formato)
      if (formato !== String(FORMAT))
        throw new IndexError(`${path} foi construído por outra versão do dadosbr (formato ${formato ?? '?'}, esta usa o ${FORMAT}); rode 'dadosbr ingest licitacoes --refazer' para reconstruí-lo do zero`)
    }
    this.db.exec(SCHEMA)
    if (fresh) this.metaSet(META.formato, String(FORMAT))
    for (const r of this.db.query('SELECT id, cnpj, razao_social, esfera, poder FROM orgaos').all() as { id: number; cnpj: string; razao_social: string | null; esfera: string | null; poder: string | null }[])
      this.orgaos.set(r.cnpj, r)
    for (const r of this.db.query('SELECT id, chave, nome, municipio, uf FROM unidades').all() as { id: number; chave: string; nome: string | null; municipio: string | null; uf: string | null }[])
      this.unidades.set(r.chave, r)
    for (const r of this.db.query('SELECT id, nome FROM tipos').all() as { id: number; nome: string }[]) this.tipos.set(r.nome, r.id)
    this.st = {
      insert: this.db.query(
        'INSERT OR IGNORE INTO contratos (numero, cnpj_fornecedor, orgao, unidade, tipo, objeto, valor_inicial, valor_global, data_assinatura, vigencia_inicio, vigencia_fim) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)',
      ),
      old: this.db.query('SELECT cnpj_fornecedor, valor_inicial, valor_global FROM contratos WHERE numero = ?1'),
      update: this.db.query(
        'UPDATE contratos SET cnpj_fornecedor = ?2, orgao = ?3, unidade = ?4, tipo = ?5, objeto = ?6, valor_inicial = ?7, valor_global = ?8, data_assinatura = ?9, vigencia_inicio = ?10, vigencia_fim = ?11 WHERE numero = ?1',
      ),
      supplier: this.db.query(
        'INSERT INTO fornecedores (raiz, total, valor) VALUES (?1, ?2, ?3) ON CONFLICT (raiz) DO UPDATE SET total = total + excluded.total, valor = valor + excluded.valor',
      ),
      supplierBody: this.db.query('INSERT OR IGNORE INTO fornecedor_orgaos (raiz, orgao) VALUES (?1, ?2)'),
      dropEmpty: this.db.query('DELETE FROM fornecedores WHERE raiz = ?1 AND total <= 0'),
      clearBodies: this.db.query('DELETE FROM fornecedor_orgaos WHERE raiz = ?1'),
      refillBodies: this.db.query(
        'INSERT OR IGNORE INTO fornecedor_orgaos (raiz, orgao) SELECT ?1, orgao FROM contratos WHERE substr(cnpj_fornecedor, 1, 8) = ?1 AND orgao IS NOT NULL',
      ),
      orgaoIns: this.db.query('INSERT INTO orgaos (cnpj, razao_social, esfera, poder) VALUES (?1, ?2, ?3, ?4)'),
      orgaoUpd: this.db.query('UPDATE orgaos SET razao_social = ?2, esfera = ?3, poder = ?4 WHERE id = ?1'),
      unidadeIns: this.db.query('INSERT INTO unidades (chave, nome, municipio, uf) VALUES (?1, ?2, ?3, ?4)'),
      unidadeUpd: this.db.query('UPDATE unidades SET nome = ?2, municipio = ?3, uf = ?4 WHERE id = ?1'),
      tipoIns: this.db.query('INSERT INTO tipos (nome) VALUES (?1)'),
      dayDone: this.db.query('INSERT OR REPLACE INTO dias (dia, registros, concluido_em) VALUES (?1, ?2, ?3)'),
    }
  }

  metaGet(chave: string): string | null {
    try {
      return (this.db.query('SELECT valor FROM meta WHERE chave = ?1').get(chave) as { valor: string } | null)?.valor ?? null
    } catch {
      return null // no meta table: not an index of this service
    }
  }

  metaSet(chave: string, valor: string | null): void {
    if (valor === null) this.db.query('DELETE FROM meta WHERE chave = ?1').run(chave)
    else this.db.query('INSERT OR REPLACE INTO meta (chave, valor) VALUES (?1, ?2)').run(chave, valor)
  }

  /** The publication days already read whole. */
  finishedDays(): Set<string> {
    return new Set((this.db.query('SELECT dia FROM dias').all() as { dia: string }[]).map((r) => r.dia))
  }

  private orgaoId(o: NonNullable<ContractRow['orgao']>): number {
    const known = this.orgaos.get(o.cnpj)
    if (known) {
      // The newest description wins (a body renamed in PNCP is shown by its current name).
      if (o.razao_social !== null && (known.razao_social !== o.razao_social || known.esfera !== o.esfera || known.poder !== o.poder)) {
        this.st.orgaoUpd.run(known.id, o.razao_social, o.esfera, o.poder)
        Object.assign(known, { razao_social: o.razao_social, esfera: o.esfera, poder: o.poder })
      }
      return known.id
    }
    const id = Number(this.st.orgaoIns.run(o.cnpj, o.razao_social, o.esfera, o.poder).lastInsertRowid)
    this.orgaos.set(o.cnpj, { id, razao_social: o.razao_social, esfera: o.esfera, poder: o.poder })
    return id
  }

  private unidadeId(u: NonNullable<ContractRow['unidade']>): number {
    const known = this.unidades.get(u.chave)
    if (known) {
      if (u.nome !== null && (known.nome !== u.nome || known.municipio !== u.municipio || known.uf !== u.uf)) {
        this.st.unidadeUpd.run(known.id, u.nome, u.municipio, u.uf)
        Object.assign(known, { nome: u.nome, municipio: u.municipio, uf: u.uf })
      }
      return known.id
    }
    const id = Number(this.st.unidadeIns.run(u.chave, u.nome, u.municipio, u.uf).lastInsertRowid)
    this.unidades.set(u.chave, { id, nome: u.nome, municipio: u.municipio, uf: u.uf })
    return id
  }

  private tipoId(nome: string): number {
    let id = this.tipos.get(nome)
    if (id === undefined) {
      id = Number(this.st.tipoIns.run(nome).lastInsertRowid)
      this.tipos.set(nome, id)
    }
    return id
  }

  /**
   * Writes contracts (new ones inserted, known ones replaced: the key is numeroControlePNCP) and,
   * in the same transaction, marks `finishedDay` as read whole. The supplier totals move with the
   * rows: a replacement takes its old value (and count, when its supplier changed) off first.
   */
  write(rows: ContractRow[], finishedDay?: { dia: string; registros: number }): WriteResult {
    const result: WriteResult = { inseridos: 0, substituidos: 0 }
    const tx = this.db.transaction(() => {
      const deltas = new Map<string, { n: number; v: number }>()
      const add = (raiz: string, n: number, v: number) => {
        const d = deltas.get(raiz)
        if (d) {
          d.n += n
          d.v += v
        } else deltas.set(raiz, { n, v })
      }
      const bodies = new Set<string>()
      const lostBodies = new Set<string>()
      for (const r of rows) {
        const orgao = r.orgao ? this.orgaoId(r.orgao) : null
        const unidade = r.unidade ? this.unidadeId(r.unidade) : null
        const tipo = r.tipo ? this.tipoId(r.tipo) : null
        const values = [r.numero, r.cnpj, orgao, unidade, tipo, r.objeto, r.valor_inicial, r.valor_global, r.data_assinatura, r.vigencia_inicio, r.vigencia_fim] as const
        const raiz = r.cnpj.slice(0, 8)
        if (this.st.insert.run(...values).changes > 0) {
          result.inseridos++
          add(raiz, 1, scaled(r))
        } else {
          const old = this.st.old.get(r.numero) as { cnpj_fornecedor: string; valor_inicial: number | null; valor_global: number | null }
          this.st.update.run(...values)
          result.substituidos++
          const oldRaiz = old.cnpj_fornecedor.slice(0, 8)
          add(oldRaiz, -1, -scaled(old))
          add(raiz, 1, scaled(r))
          if (oldRaiz !== raiz) lostBodies.add(oldRaiz)
        }
        if (orgao !== null) bodies.add(`${raiz}\u0000${orgao}`)
      }
      for (const [raiz, d] of deltas) {
        if (d.n === 0 && d.v === 0) continue
        this.st.supplier.run(raiz, d.n, d.v)
        if (d.n < 0) this.st.dropEmpty.run(raiz)
      }
      for (const key of bodies) {
        const [raiz, orgao] = key.split('\u0000') as [string, string]
        this.st.supplierBody.run(raiz, Number(orgao))
      }
      // A contract moved to another supplier (a rectified CNPJ): its old supplier's bodies are recounted.
      for (const raiz of lostBodies) {
        this.st.clearBodies.run(raiz)
        this.st.refillBodies.run(raiz)
        this.st.dropEmpty.run(raiz)
      }
      if (finishedDay) {
        this.st.dayDone.run(finishedDay.dia, finishedDay.registros, new Date().toISOString())
        this.advanceSynced()
      }
    })
    tx()
    return result
  }

  /** Moves `sincronizado_ate` to the last day of the unbroken run of finished days from `desde`. */
  advanceSynced(): void {
    const desde = this.metaGet(META.desde)
    if (!desde) return
    const done = this.finishedDays()
    let last: string | null = null
    for (let d = desde; done.has(d); d = addDays(d, 1)) last = d
    this.metaSet(META.sincronizadoAte, last)
  }

  /** Folds the write-ahead log into the file (end of a sync; readers keep going). */
  checkpoint(): void {
    try {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    } catch {}
  }

  close(): void {
    this.checkpoint()
    this.db.close()
  }
}

export { BASE }
