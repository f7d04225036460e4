// Safe retries with the x402 `payment-identifier` extension: a client that sends the same payment
// again with the same id (its answer was lost) gets the stored answer without a second charge; the
// same id with another payment is a conflict (409). The record lives in one SQLite file under the
// data directory, so every serving process (`--processos`) sees the same ids.
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** How long an answer is kept for a retry: a lost answer is retried in seconds or minutes. */
const KEEP_MS = 24 * 3600_000
/** A claim older than this whose process never finished (killed) is taken over. */
const STALE_CLAIM_MS = 10 * 60_000
const PRUNE_EVERY_MS = 60_000

export interface StoredAnswer {
  status: number
  headers: Record<string, string>
  body: Uint8Array
}

export type Claim =
  | { kind: 'new' }
  | { kind: 'repeat'; answer: StoredAnswer }
  | { kind: 'conflict' }
  | { kind: 'pending' }

export interface IdentifierStore {
  /** Takes the id for this payment, or says what holds it. */
  claim(id: string, fingerprint: string): Claim
  /** Keeps the answer served for a claimed id. */
  complete(id: string, answer: StoredAnswer): void
  /** Frees a claimed id whose request was not charged (4xx, refusal, outage): a retry runs again. */
  release(id: string): void
  close(): void
  /** Where the ids are kept: a file, or only this process's memory. */
  where: string
}

export function identifierFile(dataDir: string): string {
  return join(dataDir, 'pagamentos', 'identificadores.sqlite')
}

function open(path: string | null): Database {
  if (path) mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path ?? ':memory:', { create: true })
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL')
  db.exec(`CREATE TABLE IF NOT EXISTS identificadores (
    id TEXT PRIMARY KEY,
    impressao TEXT NOT NULL,
    concluido INTEGER NOT NULL DEFAULT 0,
    criado INTEGER NOT NULL,
    status INTEGER, cabecalhos TEXT, corpo BLOB
  )`)
  return db
}

/**
 * Opens the ids' file under the data directory; where it cannot be written, the ids are kept in
 * this process's memory (one process answers retries right; the warning says so).
 */
export function openIdentifierStore(dataDir: string, warn: (msg: string, fields: Record<string, unknown>) => void): IdentifierStore {
  let db: Database
  let where: string
  try {
    where = identifierFile(dataDir)
    db = open(where)
  } catch (err) {
    warn('identificadores de pagamento só na memória deste processo: a pasta de dados não aceita escrita', { erro: err instanceof Error ? err.message : String(err) })
    db = open(null)
    where = 'memória'
  }
  const insert = db.prepare('INSERT OR IGNORE INTO identificadores (id, impressao, criado) VALUES (?, ?, ?)')
  const read = db.prepare('SELECT impressao, concluido, criado, status, cabecalhos, corpo FROM identificadores WHERE id = ?')
  const takeOver = db.prepare('UPDATE identificadores SET criado = ? WHERE id = ? AND concluido = 0 AND criado = ?')
  const finish = db.prepare('UPDATE identificadores SET concluido = 1, status = ?, cabecalhos = ?, corpo = ? WHERE id = ?')
  const remove = db.prepare('DELETE FROM identificadores WHERE id = ? AND concluido = 0')
  const prune = db.prepare('DELETE FROM identificadores WHERE criado < ?')
  let pruned = 0

  return {
    where,
    claim(id, fingerprint) {
      const now = Date.now()
      if (now - pruned > PRUNE_EVERY_MS) {
        pruned = now
        prune.run(now - KEEP_MS)
      }
      if (insert.run(id, fingerprint, now).changes === 1) return { kind: 'new' }
      const row = read.get(id) as { impressao: string; concluido: number; criado: number; status: number; cabecalhos: string; corpo: Uint8Array } | null
      // Freed between the insert and the read: try once more.
      if (!row) return insert.run(id, fingerprint, now).changes === 1 ? { kind: 'new' } : { kind: 'pending' }
      if (row.impressao !== fingerprint) return { kind: 'conflict' }
      if (row.concluido) return { kind: 'repeat', answer: { status: row.status, headers: JSON.parse(row.cabecalhos), body: row.corpo } }
      if (now - row.criado > STALE_CLAIM_MS && takeOver.run(now, id, row.criado).changes === 1) return { kind: 'new' }
      return { kind: 'pending' }
    },
    complete(id, answer) {
      finish.run(answer.status, JSON.stringify(answer.headers), answer.body, id)
    },
    release(id) {
      remove.run(id)
    },
    close: () => db.close(),
  }
}
