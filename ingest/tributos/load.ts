// One tax-reform build: the NCM table of DIR (the one JSON file there, as downloaded from the
// Siscomex) into SQLite, checked (chapters present, a plausible number of subitems unless it is a
// declared excerpt) and swapped in with its manifest, which also records the annex codes this
// table no longer has. Any failure leaves the data in use.
import { Database } from 'bun:sqlite'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ANEXOS } from '../../src/datasets/tributos/anexos'
import { DATASET, DB_FILE, FORMAT, SCHEMA, SUBITENS_TABELA_INTEIRA, type TributosManifest } from '../../src/datasets/tributos/layout'
import { BuildError, buildSnapshot, currentManifest, sameSources } from '../lib/snapshot'
import { sha256File } from '../lib/tables'
import { lerTabelaNcm, TabelaNcmError, type TabelaNcm } from './parse'

export interface TributosBuildOptions {
  dir: string
  dataDir: string
  force?: boolean
  /** Fewest 8-digit codes a whole table has (the real one has about 10 400); the bundled excerpt passes 1. */
  minSubitens?: number
  log?: (line: string) => void
  /** "Today" for the validity of codes (tests). */
  hoje?: string
}

export type TributosBuildResult = { built: true; manifest: TributosManifest; seconds: number } | { built: false; manifest: TributosManifest }

/** A whole table has some 10 000 subitems; a file with far fewer was cut or is not the table. */
export const MIN_SUBITENS = SUBITENS_TABELA_INTEIRA

/** The JSON file of DIR (one, of any name). */
export function tabelaEm(dir: string): string {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.toLowerCase().endsWith('.json') && !n.endsWith('.http.json') && statSync(join(dir, n)).isFile())
  } catch {
    throw new BuildError(`pasta não encontrada: ${dir}`)
  }
  if (!names.length) throw new BuildError(`nenhum arquivo .json em ${dir}: ponha ali a Tabela NCM baixada do Portal Único Siscomex (Tabela_NCM_Vigente_AAAAMMDD.json)`)
  if (names.length > 1) throw new BuildError(`mais de um .json em ${dir} (${names.sort().join(', ')}); deixe só a Tabela NCM a usar`)
  return join(dir, names[0]!)
}

/** Codes the annexes cite (inclusions and exceptions) that the table does not have. */
export function foraDaTabela(codigos: Set<string>): TributosManifest['anexos']['fora_da_tabela'] {
  const out: TributosManifest['anexos']['fora_da_tabela'] = []
  for (const a of ANEXOS.anexos) for (const it of a.itens) for (const r of it.ncm) if (!codigos.has(r.codigo)) out.push({ anexo: a.anexo, item: it.item, codigo: r.texto })
  return out
}

export async function buildTributos(options: TributosBuildOptions): Promise<TributosBuildResult> {
  const started = performance.now()
  const file = tabelaEm(options.dir)
  const name = file.slice(options.dir.length).replace(/^[\\/]+/, '')
  const sha256 = await sha256File(file)
  const inUse = currentManifest<TributosManifest>(options.dataDir, DATASET)
  if (inUse && !options.force && sameSources(inUse, FORMAT, new Map([[name, sha256]])) && inUse.anexos?.versao === ANEXOS.versao) return { built: false, manifest: inUse }
  const manifest = await buildSnapshot<TributosManifest>({
    dataDir: options.dataDir,
    dataset: DATASET,
    build: async (work) => {
      let tabela: TabelaNcm
      try {
        tabela = lerTabelaNcm(new Uint8Array(await Bun.file(file).arrayBuffer()), options.hoje)
      } catch (err) {
        if (err instanceof TabelaNcmError) throw new BuildError(`${name}: ${err.message}`)
        throw err
      }
      const capitulos = tabela.linhas.filter((l) => l.codigo.length === 2).length
      const subitens = tabela.linhas.filter((l) => l.codigo.length === 8).length
      const min = options.minSubitens ?? MIN_SUBITENS
      if (!capitulos || subitens < min)
        throw new BuildError(`${name}: ${subitens} códigos de 8 dígitos e ${capitulos} capítulos; a Tabela NCM completa tem cerca de 10 mil (arquivo cortado, ou não é a tabela?)`)
      const db = new Database(join(work, DB_FILE), { create: true })
      try {
        db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;')
        db.exec(SCHEMA)
        const insert = db.prepare('INSERT INTO ncm (codigo, descricao, descricao_original, inicio, fim, ato) VALUES (?, ?, ?, ?, ?, ?)')
        db.transaction(() => {
          for (const l of tabela.linhas) insert.run(l.codigo, l.descricao, l.descricao_original, l.inicio, l.fim, l.ato)
          const meta = db.prepare('INSERT INTO meta (chave, valor) VALUES (?, ?)')
          meta.run('Data_Ultima_Atualizacao_NCM', tabela.vigencia)
          meta.run('Ato', tabela.ato)
        })()
      } finally {
        db.close()
      }
      const codigos = new Set(tabela.linhas.map((l) => l.codigo))
      const fora = foraDaTabela(codigos)
      if (fora.length) options.log?.(`${fora.length} códigos citados nos anexos não estão nesta tabela (reclassificados depois da Resolução Gecex 272/2021, ou tabela parcial); veja o manifesto`)
      const descartadas = tabela.descartadas.codigo_invalido + tabela.descartadas.fora_de_vigencia + tabela.descartadas.repetidas
      return {
        base: 'Siscomex/NCM',
        formato: FORMAT,
        referencia: tabela.referencia,
        arquivos: [{ nome: name, tipo: 'tabela_ncm', data: tabela.referencia, bytes: statSync(file).size, sha256, linhas_mantidas: tabela.linhas.length, linhas_descartadas: descartadas, descartadas: tabela.descartadas }],
        tabela_ncm: { vigencia: tabela.vigencia, ato: tabela.ato, codigos: tabela.linhas.length, subitens },
        anexos: { versao: ANEXOS.versao, referencias: ANEXOS.anexos.reduce((n, a) => n + a.itens.reduce((m, i) => m + i.ncm.length, 0), 0), fora_da_tabela: fora },
      }
    },
  })
  return { built: true, manifest, seconds: (performance.now() - started) / 1000 }
}
