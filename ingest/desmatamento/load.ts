// One deforestation build: the two DETER zips (Amazon and Cerrado) and the Receita's
// municipality table found in DIR, read once, summed (aggregate.ts) and written into one SQLite
// file with every municipality's answer whole; checked (both biomes present, a reference date,
// alerts since the cut-off) and swapped in with its manifest. Any failure leaves the data in use.
import { Database } from 'bun:sqlite'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { BIOMAS, CLASSES, CORTE, DATASET, DB_FILE, FORMAT, JANELAS, MAX_DIAS, MAX_LIMITE, PRIMEIRO_DIA, SCHEMA, UFS, type Bioma, type DesmatamentoManifest } from '../../src/datasets/desmatamento/layout'
import type { SourceRecord } from '../../src/core/stores/snapshot-layout'
import { progress } from '../lib/progress'
import { BuildError, buildSnapshot, currentManifest, sameSources } from '../lib/snapshot'
import { sha256File } from '../lib/tables'
import { listEntries } from '../lib/zip'
import { Agregador, agregar, arredondada, ESCOPOS, grupoDe, ordem, rankingsProntos, round4, somaZero, somar, somasJson, type Agregados, type Escopo, type Soma } from './aggregate'
import { dayOf, isoDay } from './dbf'
import { biomaDe, dbfEntry, DeterError, readDeterZip, type DeterLeitura } from './deter'
import { microrregiaoDe, nomeMicrorregiao, todosMunicipios, UF_POR_CODIGO } from './microrregioes'
import { MunicipiosError, parseMunicipios, type TabelaMunicipios } from './municipios'

export interface DesmatamentoBuildOptions {
  dir: string
  dataDir: string
  force?: boolean
  quiet?: boolean
  log?: (line: string) => void
  /** "Today", for the check against view dates in the future (tests). */
  now?: Date
}

export type DesmatamentoBuildResult = { built: true; manifest: DesmatamentoManifest; seconds: number } | { built: false; manifest: DesmatamentoManifest }

interface Found {
  deter: Map<Bioma, string>
  municipios: string
}

/** DIR's sources: one DETER zip per biome (recognized by the .dbf inside or the zip's name) and the municipality table (by its header). */
async function recognize(dir: string): Promise<Found> {
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    throw new BuildError(`pasta não encontrada: ${dir}`)
  }
  const deter = new Map<Bioma, string>()
  let municipios: string | undefined
  for (const name of names) {
    const path = join(dir, name)
    if (!statSync(path).isFile()) continue
    if (/\.zip$/i.test(name)) {
      let entry
      try {
        entry = dbfEntry(await listEntries(path), name)
      } catch (err) {
        throw new BuildError(err instanceof Error ? err.message : String(err))
      }
      const bioma = biomaDe(entry.name, name)
      if (bioma === 'outro') continue
      if (!bioma) throw new BuildError(`${name}: não sei de qual bioma é (nem ${entry.name} nem o nome do zip dizem deter-amz ou deter-cerrado); renomeie o zip como baixado`)
      if (deter.has(bioma)) throw new BuildError(`dois arquivos do DETER ${bioma}: ${deter.get(bioma)} e ${name}; deixe só um em ${dir}`)
      deter.set(bioma, name)
    } else if (/\.csv$/i.test(name)) {
      if (municipios) throw new BuildError(`dois arquivos .csv em ${dir} (${municipios} e ${name}); deixe só a tabela de municípios da Receita`)
      municipios = name
    }
  }
  const missing: string[] = BIOMAS.filter((b) => !deter.has(b)).map((b) => (b === 'amazonia' ? 'o zip do DETER Amazônia (deter-amz)' : 'o zip do DETER Cerrado (deter-cerrado-nb)'))
  if (!municipios) missing.push('a tabela de municípios da Receita (municipios.csv)')
  if (missing.length) throw new BuildError(`falta${missing.length > 1 ? 'm' : ''} em ${dir}: ${missing.join(', ')}`)
  return { deter, municipios: municipios! }
}

export async function desmatamentoSourceHashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BuildError(`pasta não encontrada: ${dir}`)
  for (const name of readdirSync(dir).sort()) if (/\.(zip|csv)$/i.test(name) && statSync(join(dir, name)).isFile()) out.set(name, await sha256File(join(dir, name)))
  return out
}

interface Municipio {
  ibge: string
  tom: string | null
  nome: string | null
  uf: string | null
  microrregiao: string | null
}

/** Every municipality the build knows: the Receita's table, the microregion table, and the codes in the alerts. */
function municipiosConhecidos(tabela: TabelaMunicipios, a: Agregador): Map<string, Municipio> {
  const out = new Map<string, Municipio>()
  for (const [ibge, micro] of todosMunicipios()) out.set(ibge, { ibge, tom: null, nome: null, uf: UF_POR_CODIGO[ibge.slice(0, 2)] ?? null, microrregiao: micro })
  for (const m of tabela.municipios) {
    const known = out.get(m.ibge)
    out.set(m.ibge, { ibge: m.ibge, tom: m.tom, nome: m.nome, uf: m.uf, microrregiao: known?.microrregiao ?? microrregiaoDe(m.ibge) })
  }
  for (const [code, info] of a.municipios) {
    const ibge = String(code)
    const known = out.get(ibge)
    if (known) {
      known.nome ??= info.nome
      known.uf ??= info.uf
    } else out.set(ibge, { ibge, tom: null, nome: info.nome, uf: UF_POR_CODIGO[ibge.slice(0, 2)] ?? info.uf, microrregiao: microrregiaoDe(ibge) })
  }
  return out
}

const posicao = (ag: Agregados, scope: Escopo, ibge: number) => ({ posicao: ag.posicoes.get(scope)!.get(ibge) ?? null, de: ag.ranqueados[scope] })

/** A municipality's whole answer (fonte is added by the server). */
function resposta(m: Municipio, ag: Agregados) {
  const code = Number(m.ibge)
  const scopes = ag.porMunicipio.get(code)
  const todos = scopes?.get('todos')
  const classes = [...(todos?.classes ?? new Map<string, { alertas: number; area: number }>())]
    .map(([classe, s]) => ({ classe, descricao: CLASSES[classe]?.descricao ?? null, grupo: grupoDe(classe), alertas: s.alertas, area_km2: round4(s.area) }))
    .sort((x, y) => y.area_km2 - x.area_km2 || x.classe.localeCompare(y.classe))
  return {
    ibge: m.ibge,
    municipio: m.nome,
    uf: m.uf,
    microrregiao: m.microrregiao ? { codigo: m.microrregiao, nome: nomeMicrorregiao(m.microrregiao) } : null,
    ...somasJson(todos, ag.refOffset),
    por_classe: classes,
    por_bioma: BIOMAS.filter((b) => scopes?.has(b)).map((b) => ({ bioma: b, ...arredondada(scopes!.get(b)!.desde) })),
    ranking: {
      criterio: `área de desmatamento (corte raso, com vegetação e mineração) desde ${CORTE}`,
      nacional: posicao(ag, 'todos', code),
      amazonia: posicao(ag, 'amazonia', code),
      cerrado: posicao(ag, 'cerrado', code),
    },
    nota: null as string | null,
  }
}

/** A microregion's totals: its municipalities' sums, and the worst of them. */
function regiao(codigo: string, membros: Municipio[], ag: Agregados) {
  const desde = somaZero()
  const janelas = JANELAS.map(somaZero)
  const afetados: { m: Municipio; s: Soma }[] = []
  for (const m of membros) {
    const s = ag.porMunicipio.get(Number(m.ibge))?.get('todos')
    if (!s) continue
    somar(desde, s.desde)
    s.janelas.forEach((w, i) => somar(janelas[i]!, w))
    afetados.push({ m, s: s.desde })
  }
  afetados.sort((x, y) => ordem(x.s, y.s) || x.m.ibge.localeCompare(y.m.ibge))
  return {
    codigo,
    nome: nomeMicrorregiao(codigo),
    uf: UF_POR_CODIGO[codigo.slice(0, 2)] ?? null,
    municipios: membros.length,
    municipios_com_alertas: afetados.length,
    ...somasJson({ desde, janelas }, ag.refOffset),
    mais_afetados: afetados.slice(0, 5).map(({ m, s }) => ({ ibge: m.ibge, municipio: m.nome, uf: m.uf, ...arredondada(s) })),
  }
}

function projetoRecord(leitura: DeterLeitura, path: string, sha256: string): SourceRecord {
  return {
    nome: leitura.arquivo,
    tipo: `deter-${leitura.bioma}`,
    entrada: leitura.entrada,
    data: leitura.mais_recente === null ? null : isoDay(leitura.mais_recente),
    bytes: statSync(path).size,
    sha256,
    linhas_mantidas: leitura.mantidos,
    linhas_descartadas: leitura.descartados.data + leitura.descartados.municipio + leitura.descartados.area + leitura.descartados.data_futura,
    anteriores_ao_corte: leitura.anteriores_ao_corte,
    apagados: leitura.apagados,
    descartes: leitura.descartados,
  }
}

export async function buildDesmatamento(options: DesmatamentoBuildOptions): Promise<DesmatamentoBuildResult> {
  const started = performance.now()
  const hashes = await desmatamentoSourceHashes(options.dir)
  const inUse = currentManifest<DesmatamentoManifest>(options.dataDir, DATASET)
  if (inUse && !options.force && sameSources(inUse, FORMAT, hashes)) return { built: false, manifest: inUse }
  const found = await recognize(options.dir)
  const manifest = await buildSnapshot<DesmatamentoManifest>({
    dataDir: options.dataDir,
    dataset: DATASET,
    build: async (work) => {
      // Municipality table first: a wrong file fails before the long read.
      let tabela: TabelaMunicipios
      try {
        tabela = await parseMunicipios(new Uint8Array(await Bun.file(join(options.dir, found.municipios)).arrayBuffer()), found.municipios)
      } catch (err) {
        if (err instanceof MunicipiosError) throw new BuildError(err.message)
        throw err
      }
      const today = Math.floor((options.now ?? new Date()).getTime() / 86_400_000)
      const agregador = new Agregador()
      const leituras = new Map<Bioma, DeterLeitura>()
      let total = 0
      for (const b of BIOMAS) total += dbfEntry(await listEntries(join(options.dir, found.deter.get(b)!)), found.deter.get(b)!).uncompressedSize
      const bar = progress('DETER (.dbf)', total, { quiet: options.quiet })
      for (const b of BIOMAS) {
        const path = join(options.dir, found.deter.get(b)!)
        try {
          const leitura = await readDeterZip(path, (ibge, uf, nome, day, classe, area) => agregador.add(b, ibge, uf, nome, day, classe, area), {
            firstDay: dayOf(PRIMEIRO_DIA),
            lastDay: today + 1,
            onBytes: (n) => bar.add(n),
          })
          if (leitura.bioma !== b) throw new BuildError(`${leitura.arquivo}: ${leitura.entrada} é do DETER ${leitura.bioma}, não ${b}`)
          leituras.set(b, leitura)
        } catch (err) {
          if (err instanceof DeterError) throw new BuildError(err.message)
          throw err
        }
      }
      bar.done()
      for (const b of BIOMAS) {
        const l = leituras.get(b)!
        if (!l.mantidos) throw new BuildError(`${l.arquivo}: nenhum alerta desde ${PRIMEIRO_DIA} em ${l.registros} registros (arquivo cortado ou de outro projeto?)`)
      }
      const ag = agregar(agregador)
      const municipios = municipiosConhecidos(tabela, agregador)
      const porMicro = new Map<string, Municipio[]>()
      for (const m of municipios.values()) if (m.microrregiao) porMicro.set(m.microrregiao, [...(porMicro.get(m.microrregiao) ?? []), m])
      const referencia = isoDay(ag.referencia)

      const db = new Database(join(work, DB_FILE), { create: true })
      try {
        db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;')
        db.exec(SCHEMA)
        const json = (v: unknown) => Buffer.from(JSON.stringify(v))
        db.transaction(() => {
          const insMuni = db.prepare('INSERT INTO municipios (ibge, tom, nome, uf, microrregiao, alertas, area_km2, area_desmatamento_km2) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          for (const m of [...municipios.values()].sort((x, y) => x.ibge.localeCompare(y.ibge))) {
            const s = ag.porMunicipio.get(Number(m.ibge))?.get('todos')?.desde
            insMuni.run(m.ibge, m.tom, m.nome, m.uf, m.microrregiao, s?.alertas ?? 0, round4(s?.area_km2 ?? 0), round4(s?.area_desmatamento_km2 ?? 0))
          }
          const insResp = db.prepare('INSERT INTO respostas (ibge, corpo) VALUES (?, ?)')
          for (const code of [...ag.porMunicipio.keys()].sort((x, y) => x - y)) insResp.run(String(code), json(resposta(municipios.get(String(code))!, ag)))
          const insMicro = db.prepare('INSERT INTO microrregioes (codigo, nome, uf, corpo) VALUES (?, ?, ?, ?)')
          for (const [codigo, membros] of [...porMicro].sort(([x], [y]) => x.localeCompare(y))) {
            const r = regiao(codigo, membros.sort((x, y) => x.ibge.localeCompare(y.ibge)), ag)
            insMicro.run(codigo, r.nome, r.uf, json(r))
          }
          const insRanking = db.prepare('INSERT INTO rankings (grupo, por, dias, total, itens) VALUES (?, ?, ?, ?, ?)')
          const ufIndex = (ibge: number) => {
            const uf = municipios.get(String(ibge))?.uf
            const i = uf ? UFS.indexOf(uf as (typeof UFS)[number]) : -1
            return i < 0 ? 255 : i
          }
          for (const r of rankingsProntos(ag, ufIndex, MAX_DIAS, MAX_LIMITE)) insRanking.run(r.grupo, r.por, r.dias, r.total, new Uint8Array(r.itens.buffer))
          // National totals per biome and both, and the worst municipality (the free sample).
          const totais: Record<string, Soma & { municipios_com_alertas: number }> = {}
          for (const scope of ESCOPOS) {
            const t = { ...somaZero(), municipios_com_alertas: 0 }
            for (const scopes of ag.porMunicipio.values()) {
              const s = scopes.get(scope)
              if (s) {
                somar(t, s.desde)
                t.municipios_com_alertas++
              }
            }
            totais[scope === 'todos' ? 'total' : scope] = { ...arredondada(t), municipios_com_alertas: t.municipios_com_alertas }
          }
          const pior = [...ag.posicoes.get('todos')!].find(([, p]) => p === 1)?.[0]
          const piorResp = pior === undefined ? null : resposta(municipios.get(String(pior))!, ag)
          const ins = db.prepare('INSERT INTO resumo (chave, corpo) VALUES (?, ?)')
          ins.run('totais', json({
            periodo: { inicio: PRIMEIRO_DIA, fim: referencia },
            totais,
            pior_municipio: piorResp && {
              ibge: piorResp.ibge,
              municipio: piorResp.municipio,
              uf: piorResp.uf,
              alertas: piorResp.desde_corte.alertas,
              area_km2: piorResp.desde_corte.area_km2,
              alertas_desmatamento: piorResp.desde_corte.alertas_desmatamento,
              area_desmatamento_km2: piorResp.desde_corte.area_desmatamento_km2,
              biomas: piorResp.por_bioma.map((b) => b.bioma),
            },
          }))
          ins.run('fonte', json({
            base: 'INPE/DETER',
            referencia,
            corte: CORTE,
            projetos: Object.fromEntries(BIOMAS.map((b) => [b, { arquivo: leituras.get(b)!.arquivo, alerta_mais_recente: isoDay(leituras.get(b)!.mais_recente!) }])),
          }))
          ins.run('ranqueados', json(ag.ranqueados))
          ins.run('referencia', json({ referencia, primeiro_dia: PRIMEIRO_DIA, dias: ag.refOffset }))
        })()
        db.exec('VACUUM;')
      } finally {
        db.close()
      }
      const arquivos: SourceRecord[] = BIOMAS.map((b) => projetoRecord(leituras.get(b)!, join(options.dir, found.deter.get(b)!), hashes.get(found.deter.get(b)!)!))
      arquivos.push({
        nome: found.municipios,
        tipo: 'municipios-rfb',
        bytes: statSync(join(options.dir, found.municipios)).size,
        sha256: hashes.get(found.municipios)!,
        linhas_mantidas: tabela.municipios.length - tabela.complementos.length,
        linhas_descartadas: tabela.descartadas,
      })
      return {
        base: 'INPE/DETER',
        formato: FORMAT,
        referencia,
        arquivos,
        projetos: Object.fromEntries(BIOMAS.map((b) => {
          const l = leituras.get(b)!
          return [b, { arquivo: l.arquivo, entrada: l.entrada, alerta_mais_recente: isoDay(l.mais_recente!), alertas_desde_corte: l.mantidos, anteriores_ao_corte: l.anteriores_ao_corte }]
        })) as DesmatamentoManifest['projetos'],
        municipios_com_alertas: ag.porMunicipio.size,
        complementos: tabela.complementos,
      }
    },
    check: (_work, m) => {
      if (m.referencia < PRIMEIRO_DIA) throw new BuildError(`data de referência ${m.referencia} anterior ao corte`)
      if (!m.municipios_com_alertas) throw new BuildError('nenhum município com alertas')
    },
  })
  return { built: true, manifest, seconds: (performance.now() - started) / 1000 }
}
