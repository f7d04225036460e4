// The served SQLite files open read-only and immutable, from any path.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileUri, openImmutable } from '../../src/core/stores/sqlite'

describe('openImmutable', () => {
  test('fileUri escapes the characters that would end or escape the path', () => {
    expect(fileUri('/dados/mês 10?#%/f.sqlite')).toBe('file:/dados/mês 10%3F%23%25/f.sqlite')
  })

  test('reads a file whose folder name holds ?, # and %', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dadosbr-sqlite-')), 'a?b#c%d e')
    mkdirSync(dir)
    const path = join(dir, 'f.sqlite')
    const w = new Database(path, { create: true })
    w.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID; INSERT INTO t VALUES ('33683111000280', 'SERPRO')")
    w.close()
    const db = openImmutable(path)
    expect(db.query('SELECT v FROM t WHERE k = ?').get('33683111000280')).toEqual({ v: 'SERPRO' })
    expect(() => db.exec("INSERT INTO t VALUES ('x', 'y')")).toThrow(/readonly/)
    db.close()
  })

  test('a missing file names itself', () => {
    expect(() => openImmutable('/nonexistent-dadosbr/fichas.sqlite')).toThrow('arquivo ausente: /nonexistent-dadosbr/fichas.sqlite')
  })
})
