// The contracts sync against a local PNCP that misbehaves: every page read, a rectified contract
// replacing its earlier version, 5xx, 429, 204, malformed JSON, a list changing between two calls,
// a slow or refusing PNCP, a sync killed midway; the index in use never claims a day it lacks.
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { IndexError, SyncFile } from '../../ingest/licitacoes/db'
import { syncContracts, type SyncOptions } from '../../ingest/licitacoes/sync'
import { createLogger } from '../../src/core/log'
import { loadConfig } from '../../src/core/config'
import { openContractsStore } from '../../src/datasets/licitacoes/store'
import { fornecedor } from '../../src/datasets/licitacoes/service'
import { tempDir } from '../temp'
import { contract, fakePncp } from './fake-pncp'

const fake = fakePncp()
process.env.PNCP_URL = fake.server.url
afterAll(() => fake.server.close())

// "Today" is 2024-03-10 in Brasília: every day before it can be finished.
const NOW = Date.parse('2024-03-10T15:00:00Z')
const A = '11222333000181'
const A2 = '11222333000262'
const B = '48061037000156'

function options(dataDir: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return { dataDir, desde: '2024-03-01', ate: '2024-03-05', pageSize: 2, quiet: true, log: () => {}, now: () => NOW, retries: 2, backoffMs: 5, timeoutMs: 2000, ...over }
}

function fill() {
  fake.days.clear()
  fake.updates.clear()
  fake.queue.length = 0
  fake.refuse.clear()
  fake.onPage = undefined
  fake.server.fault = { kind: 'none' }
  fake.days.set('2024-03-01', [contract(1, A, { valorGlobal: 100, dataAssinatura: '2024-02-20' }), contract(2, A2, { valorGlobal: 50.25, dataAssinatura: '2024-02-25' }), contract(3, B, { valorGlobal: 10 })])
  fake.days.set('2024-03-04', [contract(4, A, { valorGlobal: 1, dataAssinatura: '2024-03-03', orgaoEntidade: { cnpj: '46522991000173', razaoSocial: 'MUNICIPIO DE JANDIRA', poderId: 'N', esferaId: 'M' } }), contract(5, '123.456.789-09', { tipoPessoa: 'PF' })])
}

/** A query on the served index (current build) or, with `file` sync.sqlite, on the sync's working file. */
const count = (dataDir: string, sql: string, file = 'current/contratos.sqlite') => {
  const db = new Database(join(dataDir, 'licitacoes', file), { readonly: true })
  try {
    return db.query(sql).all()
  } finally {
    db.close()
  }
}

async function store(dataDir: string) {
  const s = await openContractsStore(loadConfig({ free: true, dataDir }, {}), createLogger('silent'))
  return { ...s, lookup: (cnpj: string) => s.use((g) => fornecedor(g.files, cnpj)) }
}

describe('contracts sync', () => {
  test("an objeto on several lines reaches the answer with its line breaks, trimmed only at the ends", async () => {
    fill()
    fake.days.set('2024-03-05', [contract(9, B, { objetoContrato: 'FORNECIMENTO DE MERENDA ESCOLAR:\r\nITEM 1 - ARROZ\r\nITEM 2 - FEIJÃO\r\n' })])
    const dir = tempDir('lic-sync-')
    await syncContracts(options(dir))
    const st = await store(dir)
    const b = await st.lookup(B)
    expect(b.contratos.find((c) => c.numero_controle_pncp === '99887766000105-2-000009/2024')!.objeto).toBe('FORNECIMENTO DE MERENDA ESCOLAR:\nITEM 1 - ARROZ\nITEM 2 - FEIJÃO')
    await st.close()
  })

  test('every page of every day; PF dropped; days finished; a second run reads no day again', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    const s = await syncContracts(options(dir))
    expect(s).toMatchObject({ dias_lidos: 5, dias_pendentes: [], contratos_lidos: 4, contratos_no_indice: 4, descartados: { fornecedor_nao_pj: 1, sem_numero: 0 }, sincronizado_ate: '2024-03-05', desde: '2024-03-01' })
    expect(s.compactacao?.modo).toBe('completa')
    // 2024-03-01: 3 records in pages of 2 = 2 pages; 2024-03-04: 2 records = 1 page; 3 empty days (204); updates of today (204).
    expect(s.paginas).toBe(2 + 1 + 3 + 1)
    const st = await store(dir)
    const a = await st.lookup(A2)
    expect(a.resumo).toEqual({ total_contratos: 3, valor_total: 151.25, orgaos_distintos: 2 })
    expect(a.contratos.map((c) => c.numero_controle_pncp)).toEqual(['99887766000105-2-000004/2024', '99887766000105-2-000002/2024', '99887766000105-2-000001/2024'])
    expect(a.fonte).toMatchObject({ referencia: '2024-03-05', desde: '2024-03-01' })
    await st.close()
    fake.asked.length = 0
    const again = await syncContracts(options(dir))
    expect(again.dias_lidos).toBe(0)
    expect(fake.asked).toEqual(['2024-03-10']) // only today's updates
    expect(again.compactacao?.modo).toBe('nada') // nothing new: the build in use stays
  })

  test('a rectified contract replaces its earlier version (key numeroControlePNCP), even moved to another supplier; never a duplicate', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    await syncContracts(options(dir))
    // Rectified on 2024-03-11: contract 1 now worth 300 and signed by B; contract 3 worth 20.
    fake.updates.set('2024-03-11', [contract(1, B, { valorGlobal: 300, numeroRetificacao: 1 }), contract(3, B, { valorGlobal: 20, numeroRetificacao: 1 })])
    const s = await syncContracts(options(dir, { now: () => Date.parse('2024-03-11T15:00:00Z'), fullShare: 1 }))
    expect(s.atualizacoes).toBe(2)
    expect(s.compactacao?.modo).toBe('incremental')
    expect(count(dir, 'SELECT count(*) AS n, count(DISTINCT numero) AS d FROM contratos')).toEqual([{ n: 4, d: 4 }])
    const st = await store(dir)
    expect((await st.lookup(A)).resumo).toEqual({ total_contratos: 2, valor_total: 51.25, orgaos_distintos: 2 })
    expect((await st.lookup(B)).resumo).toEqual({ total_contratos: 2, valor_total: 320, orgaos_distintos: 1 })
    // Rebuilt whole (1 staged contract is more than 5 % of 4): the same rules.
    fake.updates.set('2024-03-12', [contract(2, A2, { valorGlobal: 60 })])
    const full = await syncContracts(options(dir, { now: () => Date.parse('2024-03-12T15:00:00Z'), cacheMb: 64 }))
    expect(full.compactacao?.modo).toBe('completa')
    await st.reload()
    expect((await st.lookup(A)).resumo).toEqual({ total_contratos: 2, valor_total: 61, orgaos_distintos: 2 })
    await st.close()
    // The updates read up to today; the next run starts from today again; the staged contracts are gone.
    expect(count(dir, "SELECT valor FROM meta WHERE chave = 'atualizacoes_desde'", 'sync.sqlite')).toEqual([{ valor: '2024-03-12' }])
    expect(count(dir, 'SELECT count(*) AS n FROM novos', 'sync.sqlite')).toEqual([{ n: 0 }])
  })

  test('5xx and 429 (Retry-After) are retried; 204 is an empty day; malformed JSON is read again', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    fake.queue.push({ status: 503 }, { status: 502 }, { status: 429, headers: { 'retry-after': '0' } }, { status: 200, body: '<html>Bad Gateway', headers: { 'content-type': 'text/html' } }, { status: 200, body: '{"data":[{"numeroControle' })
    const s = await syncContracts(options(dir, { concurrency: 1, retries: 6 }))
    expect(s).toMatchObject({ dias_lidos: 5, dias_pendentes: [], contratos_no_indice: 4, sincronizado_ate: '2024-03-05' })
    expect(s.repeticoes).toBe(5)
  })

  test('a day PNCP keeps failing stays pending: later days are written but not claimed; the next run finishes it', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    fake.refuse.set('2024-03-02', 422)
    const logs: string[] = []
    const s = await syncContracts(options(dir, { log: (l) => logs.push(l) }))
    expect(s.dias_pendentes).toEqual(['2024-03-02'])
    expect(s.sincronizado_ate).toBe('2024-03-01')
    expect(logs.join('\n')).toContain('2024-03-02: ')
    expect(logs.join('\n')).toContain('HTTP 422')
    const st = await store(dir)
    expect((await st.lookup(A)).fonte.referencia).toBe('2024-03-01')
    // The days after the gap are read and served, but not claimed.
    expect((await st.lookup(A)).resumo.total_contratos).toBe(3)
    fake.refuse.clear()
    const again = await syncContracts(options(dir))
    expect(again).toMatchObject({ dias_lidos: 1, sincronizado_ate: '2024-03-05' })
    await st.reload() // the server follows `current` by itself every 2 s
    expect((await st.lookup(A)).fonte.referencia).toBe('2024-03-05')
    await st.close()
  })

  test('a list that changes between two calls: the day is read again; when it keeps changing it is left unfinished', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    let grew = false
    // Once: a new contract lands on 2024-03-01 between its page 1 and page 2.
    fake.onPage = (day, pagina) => {
      if (day === '2024-03-01' && pagina === 2 && !grew) {
        grew = true
        fake.days.get(day)!.unshift(contract(9, A, { valorGlobal: 7 }))
      }
    }
    const s = await syncContracts(options(dir, { concurrency: 1 }))
    expect(s).toMatchObject({ dias_lidos: 5, contratos_no_indice: 5, sincronizado_ate: '2024-03-05' })
    // Always changing: never claimed.
    const dir2 = tempDir('lic-sync-')
    let n = 100
    fake.days.get('2024-03-04')!.push(contract(n++, A))
    fake.onPage = (day, pagina) => {
      if (day === '2024-03-04' && pagina === 2) fake.days.get(day)!.push(contract(n++, A))
    }
    const logs: string[] = []
    const s2 = await syncContracts(options(dir2, { concurrency: 1, log: (l) => logs.push(l) }))
    expect(s2.dias_pendentes).toEqual(['2024-03-04'])
    expect(s2.sincronizado_ate).toBe('2024-03-03')
    expect(logs.join('\n')).toContain('2024-03-04: as páginas do PNCP mudaram durante a leitura')
    // The list settles: the day is read whole next time; its contracts replace the ones read in part, never twice.
    fake.onPage = undefined
    const s3 = await syncContracts(options(dir2, { concurrency: 1 }))
    expect(s3).toMatchObject({ dias_lidos: 1, sincronizado_ate: '2024-03-05' })
    const [served] = count(dir2, 'SELECT count(*) AS n, count(DISTINCT numero) AS d FROM contratos') as { n: number; d: number }[]
    expect(served!.n).toBe(served!.d)
    expect(served!.n).toBe([...fake.days.values()].flat().filter((c) => c.tipoPessoa !== 'PF').length)
  })

  test('PNCP slow (past the timeout) or down: nothing claimed, the data in use stays and keeps answering', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    await syncContracts(options(dir, { ate: '2024-03-02' }))
    const st = await store(dir)
    const before = await st.lookup(A)
    fake.server.fault = { kind: 'slow', delayMs: 30_000 }
    const slow = await syncContracts(options(dir, { ate: '2024-03-04', timeoutMs: 150, retries: 1 }))
    expect(slow.dias_pendentes).toEqual(['2024-03-03', '2024-03-04'])
    expect(slow.sincronizado_ate).toBe('2024-03-02')
    fake.server.fault = { kind: 'none' }
    fake.server.stop()
    const down = await syncContracts(options(dir, { ate: '2024-03-04', retries: 1 }))
    expect(down.sincronizado_ate).toBe('2024-03-02')
    expect(await st.lookup(A)).toEqual(before)
    expect(down.compactacao?.modo).toBe('nada')
    fake.server.start()
    process.env.PNCP_URL = fake.server.url
    expect((await syncContracts(options(dir, { ate: '2024-03-04' }))).sincronizado_ate).toBe('2024-03-04')
    await st.close()
  })

  test('a sync killed midway keeps whole days only; run again, it finishes where it stopped', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    for (let d = 1; d <= 28; d++) fake.days.set(`2024-02-${String(d).padStart(2, '0')}`, Array.from({ length: 3 }, (_, i) => contract(1000 + d * 10 + i, A, { valorGlobal: 1 })))
    fake.server.fault = { kind: 'slow', delayMs: 40 }
    const child = Bun.spawn([process.execPath, join(import.meta.dir, '..', '..', 'src', 'cli.ts'), 'ingest', 'licitacoes', '--desde', '2024-02-01', '--ate', '2024-02-28', '--concorrencia', '2', '--tamanho-pagina', '2', '--data', dir, '--quiet'], {
      env: { ...process.env, PNCP_URL: fake.server.url, UV_THREADPOOL_SIZE: '4' },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    for (let i = 0; i < 300; i++) {
      await Bun.sleep(50)
      try {
        if ((count(dir, 'SELECT count(*) AS n FROM dias', 'sync.sqlite') as { n: number }[])[0]!.n >= 5) break
      } catch {} // not created yet
    }
    child.kill('SIGKILL')
    await child.exited
    fake.server.fault = { kind: 'none' }
    const days = (count(dir, 'SELECT dia FROM dias ORDER BY dia', 'sync.sqlite') as { dia: string }[]).map((r) => r.dia)
    expect(days.length).toBeGreaterThanOrEqual(5)
    expect(days.length).toBeLessThan(28)
    // Only whole days: 3 contracts for each finished day, none of a day not finished; nothing served (no build claims a day yet).
    expect(count(dir, 'SELECT count(*) AS n FROM novos', 'sync.sqlite')).toEqual([{ n: days.length * 3 }])
    expect(existsSync(join(dir, 'licitacoes', 'current'))).toBe(false)
    const s = await syncContracts(options(dir, { desde: '2024-02-01', ate: '2024-02-28' }))
    expect(s.dias_lidos).toBe(28 - days.length)
    expect(s.sincronizado_ate).toBe('2024-02-28')
    expect(count(dir, 'SELECT count(*) AS n, count(DISTINCT numero) AS d FROM contratos')).toEqual([{ n: 84, d: 84 }])
    expect(count(dir, "SELECT total, valor, orgaos FROM fornecedores WHERE raiz = '11222333'")).toEqual([{ total: 84, valor: 840000, orgaos: 1 }])
  })

  test('one sync at a time; an index of another layout is refused unless rebuilt', async () => {
    fill()
    const dir = tempDir('lic-sync-')
    // Another live process holds the lock.
    const other = Bun.spawn(['sleep', '30'])
    mkdirSync(join(dir, 'licitacoes'), { recursive: true })
    writeFileSync(join(dir, 'licitacoes', '.ingest.lock'), String(other.pid))
    await expect(syncContracts(options(dir))).rejects.toThrow(`outro ingest (pid ${other.pid}) está construindo`)
    other.kill()
    await other.exited
    await syncContracts(options(dir, { ate: '2024-03-01' }))
    const ix = new SyncFile(dir)
    ix.metaSet('formato', '999')
    ix.close()
    expect(() => new SyncFile(dir)).toThrow(IndexError)
    expect(() => new SyncFile(dir)).toThrow("rode 'dadosbr ingest licitacoes --refazer'")
    const s = await syncContracts(options(dir, { rebuild: true, ate: '2024-03-01' }))
    expect(s.contratos_no_indice).toBe(3)
  })

  test('bad dates are refused with the flag named', async () => {
    const dir = tempDir('lic-sync-')
    await expect(syncContracts(options(dir, { desde: '2024-02-30' }))).rejects.toThrow('--desde precisa ser uma data AAAA-MM-DD válida (veio 2024-02-30)')
    await expect(syncContracts(options(dir, { desde: '2024-03-05', ate: '2024-03-01' }))).rejects.toThrow('--ate (2024-03-01) é anterior a --desde (2024-03-05)')
  })
})
