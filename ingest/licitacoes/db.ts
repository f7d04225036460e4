// The sync's working file, sync.sqlite (layout in src/datasets/licitacoes/layout.ts): one day of
// PNCP publications is appended in one transaction together with its "finished" mark, so a sync
// killed at any moment leaves whole days; the contracts wait there (appended, no index to keep in
// order) until compact.ts folds them into a new build of the served index.
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { CONTRACT_COLUMNS, DATASET_DIR, FORMAT, META, SYNC_FILE, SYNC_SCHEMA } from '../../src/datasets/licitacoes/layout'
import { addDays, controlParts, day, documento, esfera, money, poder, supplierCnpj, text, textoLivre, type PncpContrato } from '../../src/datasets/licitacoes/pncp'

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
    objeto: textoLivre(c.objetoContrato),
    valor_inicial: money(c.valorInicial),
    valor_global: money(c.valorGlobal),
    data_assinatura: day(c.dataAssinatura),
    vigencia_inicio: day(c.dataVigenciaInicio),
    vigencia_fim: day(c.dataVigenciaFim),
  }
}

export const syncPath = (dataDir: string) => join(dataDir, DATASET_DIR, SYNC_FILE)

export class SyncFile {
  readonly db: Database
  readonly path: string
  private readonly orgaos = new Map<string, { id: number; razao_social: string | null; esfera: string | null; poder: string | null }>()
  private readonly unidades = new Map<string, { id: number; nome: string | null; municipio: string | null; uf: string | null }>()
  private readonly tipos = new Map<string, number>()
  private readonly st

  /** Opens (creating when absent) the sync file under dataDir; one of another layout is refused unless `rebuild`. */
  constructor(dataDir: string, options: { rebuild?: boolean } = {}) {
    this.path = syncPath(dataDir)
    mkdirSync(join(dataDir, DATASET_DIR), { recursive: true })
    if (options.rebuild) for (const suffix of ['', '-wal', '-shm']) rmSync(this.path + suffix, { force: true })
    const fresh = !existsSync(this.path)
    this.db = new Database(this.path, { create: true })
    this.db.exec('PRAGMA journal_mode = WAL')
    // A crash may lose the last day appended (it is fetched again); it never corrupts the file.
    this.db.exec('PRAGMA synchronous = NORMAL')
    this.db.exec('PRAGMA busy_timeout = 10000')
    if (!fresh) {
      const formato = this.metaGet(META.formato)
      if (formato !== String(FORMAT))
        throw new IndexError(`${this.path} foi criado por outra versão do dadosbr (formato ${formato ?? '?'}, esta usa o ${FORMAT}); rode 'dadosbr ingest licitacoes --refazer' para recomeçar do zero`)
    }
    this.db.exec(SYNC_SCHEMA)
    if (fresh) this.metaSet(META.formato, String(FORMAT))
    for (const r of this.db.query('SELECT id, cnpj, razao_social, esfera, poder FROM orgaos').all() as { id: number; cnpj: string; razao_social: string | null; esfera: string | null; poder: string | null }[])
      this.orgaos.set(r.cnpj, r)
    for (const r of this.db.query('SELECT id, chave, nome, municipio, uf FROM unidades').all() as { id: number; chave: string; nome: string | null; municipio: string | null; uf: string | null }[])
      this.unidades.set(r.chave, r)
    for (const r of this.db.query('SELECT id, nome FROM tipos').all() as { id: number; nome: string }[]) this.tipos.set(r.nome, r.id)
    this.st = {
      stage: this.db.query(`INSERT INTO novos (${CONTRACT_COLUMNS}, substitui) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      orgaoIns: this.db.query('INSERT INTO orgaos (cnpj, razao_social, esfera, poder) VALUES (?1, ?2, ?3, ?4)'),
      orgaoUpd: this.db.query('UPDATE orgaos SET razao_social = ?2, esfera = ?3, poder = ?4 WHERE id = ?1'),
      unidadeIns: this.db.query('INSERT INTO unidades (chave, nome, municipio, uf) VALUES (?1, ?2, ?3, ?4)'),
      unidadeUpd: this.db.query('UPDATE unidades SET nome = ?2, municipio = ?3, uf = ?4 WHERE id = ?1'),
      tipoIns: this.db.query('INSERT INTO tipos (nome) VALUES (?1)'),
      dayDone: this.db.query('INSERT OR REPLACE INTO dias (dia, registros, concluido_em) VALUES (?1, ?2, ?3)'),
      partial: this.db.query('INSERT OR IGNORE INTO parciais (dia) VALUES (?1)'),
      partialDone: this.db.query('DELETE FROM parciais WHERE dia = ?1'),
      wasPartial: this.db.query('SELECT 1 AS sim FROM parciais WHERE dia = ?1'),
    }
  }

  metaGet(chave: string): string | null {
    try {
      return (this.db.query('SELECT valor FROM meta WHERE chave = ?1').get(chave) as { valor: string } | null)?.valor ?? null
    } catch {
      return null // no meta table: not a file of this service
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

  /** The last day of the unbroken run of finished days from `desde` (null when the first is not finished). */
  syncedUpTo(): string | null {
    const desde = this.metaGet(META.desde)
    if (!desde) return null
    const done = this.finishedDays()
    let last: string | null = null
    for (let d = desde; done.has(d); d = addDays(d, 1)) last = d
    return last
  }

  /** Contracts waiting for the next compaction: how many, and the last id. */
  staged(): { n: number; last: number } {
    const r = this.db.query('SELECT count(*) AS n, coalesce(max(id), 0) AS last FROM novos').get() as { n: number; last: number }
    return r
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
   * Appends contracts (a later one replaces an earlier one of the same numeroControlePNCP when
   * compacted) and, in the same transaction, marks the day read whole (or read in part: its
   * contracts, read again later, replace these).
   */
  stage(rows: ContractRow[], day?: { dia: string; registros: number; whole: boolean }): void {
    this.db.transaction(() => {
      // A finished day read for the first time holds only contracts never seen: the others may replace a version.
      const substitui = day?.whole && !this.st.wasPartial.get(day.dia) ? 0 : 1
      for (const r of rows) {
        const orgao = r.orgao ? this.orgaoId(r.orgao) : null
        const unidade = r.unidade ? this.unidadeId(r.unidade) : null
        const tipo = r.tipo ? this.tipoId(r.tipo) : null
        this.st.stage.run(r.numero, r.cnpj, orgao, unidade, tipo, r.objeto, r.valor_inicial, r.valor_global, r.data_assinatura, r.vigencia_inicio, r.vigencia_fim, substitui)
      }
      if (day?.whole) {
        this.st.dayDone.run(day.dia, day.registros, new Date().toISOString())
        this.st.partialDone.run(day.dia)
      } else if (day) this.st.partial.run(day.dia)
    })()
  }

  /** Drops the contracts folded into a build (ids up to `last`); an emptied file gives its pages back. */
  unstage(last: number): void {
    this.db.query('DELETE FROM novos WHERE id <= ?1').run(last)
    if (this.staged().n === 0) {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      this.db.exec('VACUUM')
    }
  }

  close(): void {
    try {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    } catch {}
    this.db.close()
  }
}
