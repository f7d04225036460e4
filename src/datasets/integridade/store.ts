// The integrity build in use: every record read into memory when the build is opened, grouped by
// 8-character root and list, each already cut into the bytes a screening writes; and the lists'
// dates (fonte). Follows data/integridade/current: a new daily build is picked up without restart,
// and a request in flight finishes on the build it started with.
//
// Why in memory: the five lists hold tens of thousands of legal-entity records (~25 k at national
// size, ~17 MB of JSON), and reading a root's rows from SQLite and cutting them per request was
// most of a screening's cost (1.4 of 4.0 µs the read, most of the rest the cutting). The SQLite
// file stays the build's format: checked at build, swapped atomically, read once per open.
import type { Database } from 'bun:sqlite'
import { join } from 'node:path'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { openSnapshot, type SnapshotStore } from '../../core/stores/snapshot'
import { openImmutable } from '../../core/stores/sqlite'
import { DATASET, DB_FILE, FORMAT, LISTAS, type IntegridadeManifest, type Lista } from './layout'
import { vigenteAte } from './vigencia'

/** A record as a screening writes it. */
export interface Apontamento {
  /** The CNPJ the record was filed under. */
  cnpj: string
  /** `vigente` ⇔ today (Brasília) ≤ this date (vigencia.ts). */
  vigenteAte: string
  /** `{"correspondencia":"cnpj","cnpj":"<filed>","vigente":` and the same with "raiz", as bytes. */
  cabecaCnpj: Uint8Array
  cabecaRaiz: Uint8Array
  /** The stored fields without their opening brace: `"codigo_sancao":...}`. */
  campos: Uint8Array
}

/** The records of one root: one array per list (LISTAS order), each in build order (newest first). */
export type ApontamentosDaRaiz = Apontamento[][]

export interface IntegridadeFiles {
  db: Database
  /** Every root with a record; a root absent here (most screenings) is on no list. */
  porRaiz: Map<string, ApontamentosDaRaiz>
  fonte: { base: 'CGU/MTE'; referencia: string; listas: Record<Lista, string> }
  /** `fonte` as UTF-8 JSON (the route writes its answer as bytes). */
  fonteJson: Uint8Array
  /** The answer for a CNPJ on no list (most screenings) after its `"cnpj":"…",`, as UTF-8 JSON. */
  limpaJson: Uint8Array
}

export type IntegridadeStore = SnapshotStore<IntegridadeFiles, IntegridadeManifest>

const ascii = (s: string) => Buffer.from(s, 'latin1')

function readRecords(db: Database): Map<string, ApontamentosDaRaiz> {
  const porRaiz = new Map<string, ApontamentosDaRaiz>()
  const listIndex = new Map<string, number>(LISTAS.map((l, i) => [l, i]))
  // By the primary key (raiz, lista, ordem): each list's rows arrive in build order.
  const rows = db.query('SELECT raiz, lista, cnpj, fim, situacao, corpo FROM apontamentos ORDER BY raiz, lista, ordem').values() as [string, Lista, string, string | null, string | null, Uint8Array][]
  for (const [raiz, lista, cnpj, fim, situacao, corpo] of rows) {
    const l = listIndex.get(lista)
    if (l === undefined) throw new Error(`lista desconhecida na base: ${lista}`)
    let daRaiz = porRaiz.get(raiz)
    if (!daRaiz) porRaiz.set(raiz, (daRaiz = LISTAS.map(() => [])))
    daRaiz[l]!.push({
      cnpj,
      vigenteAte: vigenteAte(lista, fim, situacao),
      cabecaCnpj: ascii(`{"correspondencia":"cnpj","cnpj":"${cnpj}","vigente":`),
      cabecaRaiz: ascii(`{"correspondencia":"raiz","cnpj":"${cnpj}","vigente":`),
      // A view: each blob is its own buffer, so the view keeps nothing else alive.
      campos: corpo.subarray(1),
    })
  }
  return porRaiz
}

export function openIntegridadeFiles(dir: string, manifest: IntegridadeManifest): IntegridadeFiles {
  const db = openImmutable(join(dir, DB_FILE))
  try {
    const datas = new Map(db.query<{ lista: Lista; referencia: string }, []>('SELECT lista, referencia FROM listas').all().map((r) => [r.lista, r.referencia]))
    // In the answer's order.
    const listas = {} as Record<Lista, string>
    for (const l of LISTAS) {
      const d = datas.get(l)
      if (!d) throw new Error(`${dir}: lista ${l} ausente`)
      listas[l] = d
    }
    const fonte = { base: 'CGU/MTE' as const, referencia: manifest.referencia, listas }
    const limpa = { total_apontamentos: 0, ficha_limpa: true, apontamentos: Object.fromEntries(LISTAS.map((l) => [l, []])), fonte }
    return { db, porRaiz: readRecords(db), fonte, fonteJson: Buffer.from(JSON.stringify(fonte)), limpaJson: Buffer.from(JSON.stringify(limpa).slice(1)) }
  } catch (err) {
    db.close()
    throw err
  }
}

export function openIntegridadeStore(config: Config, log: Logger): Promise<IntegridadeStore> {
  return openSnapshot<IntegridadeFiles, IntegridadeManifest>(config, log, {
    dataset: DATASET,
    formato: FORMAT,
    open: (dir, manifest) => openIntegridadeFiles(dir, manifest),
    close: (files) => files.db.close(),
  })
}
