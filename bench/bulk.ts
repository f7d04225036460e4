// The goals of issue 31 on a built registry (docs/desempenho.md, "Lotes, filtros e campos novos"):
// /v1/cnpj/empresa with never-asked CNPJs beside bare Bun; /v1/cnpj/lote with 100 never-asked CNPJs
// (latency alone, CNPJs/s under load); every new search filter and every pair of them, with and
// without uf, under 16 connections (p95); the partner document; `dadosbr consultar cnpj` on a list
// of N CNPJs (time, peak memory). Every figure with the machine's load.
//   bun bench/bulk.ts --data DIR [--so empresa,lote,filtros,consultar] [--cli src/cli.ts] [--linhas 1000000] [--pausar-damon | --damon-pausado]
// --data: a data folder with data/cnpj/current (bench/registry.ts --so-ingestao builds one);
// --cli: another checkout's src/cli.ts, to measure its server on the same data (the figures of
// the card before and after a change).
import { DuckDBInstance } from '@duckdb/node-api'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { alone, haveWrk, machineLoad, opt, startWarmServer, timed, treeRss, withBareBun, wrk, type WrkResult } from './lib'

const data = resolve(opt('--data', '/tmp/dadosbr-bench/data-1000000'))
const only = new Set(opt('--so', 'empresa,lote,filtros,consultar').split(','))
const cli = opt('--cli', '')
const lines = Number(opt('--linhas', '1000000'))
const seconds = Number(opt('--segundos', '10'))
const dir = join(data, 'cnpj', 'current')
const fmt = (n: number) => n.toFixed(2)
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`
const line = (name: string, r: WrkResult) =>
  console.log(`${name}: ${r.rps} req/s, p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, p99 ${fmt(r.p99)} ms${r.errors || r.non2xx ? `, erros ${r.errors}, não 2xx ${r.non2xx}` : ''}`)

// ---- samples, read before the server opens the files ----
const db = await DuckDBInstance.create(join(dir, 'cnpj.duckdb'), { access_mode: 'READ_ONLY' })
const c = await db.connect()
const rows = async (sql: string) => (await c.runAndReadAll(sql)).getRows()
// Every request takes CNPJs never asked before: /empresa twice with --pausar-damon (2 x 250 000), the
// lote's 300 alone and four wrk runs (4 x 200 000), a little over 1.3 M; with fewer, the last lotes
// were empty and answered 400.
const cnpjs = (await rows('SELECT cnpj FROM estabelecimentos USING SAMPLE 1500000')).map((r) => String(r[0]))
const top = async (sql: string) => String((await rows(sql))[0]![0])
// The filter values are the same in every run on the same dump (a seeded sample, ties broken by code), so two runs, or two indexes, compare line by line.
const cnaeSecundario = await top("SELECT c FROM (SELECT unnest(string_split(cnaes_secundarios, ',')) AS c FROM estabelecimentos USING SAMPLE reservoir(200000 ROWS) REPEATABLE (42)) GROUP BY c ORDER BY count(*) DESC, c LIMIT 1")
const cnaeRaro = await top("SELECT cnae_principal FROM estabelecimentos WHERE situacao = '02' GROUP BY 1 ORDER BY count(*) ASC, 1 LIMIT 1")
const hasIbge = (await rows("SELECT count(*) FROM information_schema.columns WHERE table_name = 'municipios' AND column_name = 'codigo_ibge'"))[0]![0]
const ibge = hasIbge ? (await rows("SELECT m.codigo_ibge FROM estabelecimentos e JOIN municipios m ON m.codigo = e.municipio WHERE m.codigo_ibge IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 3")).map((r) => String(r[0])) : []
// (A sample taken before the filter can come out empty: sample among the rows that pass it.)
const partnerCpf = await top("SELECT cpf_cnpj FROM (SELECT cpf_cnpj FROM socios WHERE cpf_cnpj LIKE '***%' AND cpf_cnpj <> '***999999**' LIMIT 100000) USING SAMPLE 1")
const partnerCnpj = await top("SELECT cpf_cnpj FROM socios WHERE length(cpf_cnpj) = 14 AND cpf_cnpj NOT LIKE '*%' LIMIT 1")
const partnerName = await top(`SELECT nome FROM socios WHERE cpf_cnpj = '${partnerCpf}' LIMIT 1`)
c.closeSync()
db.closeSync()

const take = (() => {
  let at = 0
  return (n: number) => {
    // Past the sample, a lote would be short or empty (a 400), and a lookup asked before: refused.
    if (at + n > cnpjs.length) throw new Error(`a amostra de ${cnpjs.length} CNPJs acabou; aumente-a em bench/bulk.ts`)
    return cnpjs.slice(at, (at += n))
  }
})()

/** The server as shipped, once its prewarm has read what fits (bench/lib.ts). */
async function server() {
  const s = await startWarmServer(data, cli ? resolve(cli) : undefined)
  console.log(`servidor: ${s.processes} processos, pronto em ${fmt(s.startSeconds)} s${cli ? ` (${cli})` : ''}; pré-leitura: ${s.warm.join('; ')}`)
  return s
}

/** This VM pages out file pages idle for 60 s (DAMON: docs/desempenho.md); --pausar-damon measures /empresa again with it paused, as on an ordinary server. */
const DAMON = '/sys/kernel/mm/damon/admin/kdamonds/0/state'
const damonOn = () => { try { return readFileSync(DAMON, 'utf8').trim() === 'on' } catch { return false } }

// ---- /v1/cnpj/empresa, never-asked CNPJs, beside bare Bun ----
const pauseDamon = process.argv.includes('--pausar-damon') && damonOn()
// --damon-pausado: every section with DAMON paused, as on an ordinary server (it is turned back on
// when the bench ends, however it ends). Without it, on this VM, the card pages a prewarm read and
// no request touched within 60 s go back to disk while the sections run.
if (process.argv.includes('--damon-pausado') && damonOn()) {
  writeFileSync(DAMON, 'off')
  const restore = () => { try { writeFileSync(DAMON, 'on') } catch {} }
  process.on('exit', restore)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))
}
console.log(`DAMON desta VM: ${damonOn() ? 'ligado (devolve ao disco páginas sem acesso há 60 s)' : 'pausado ou ausente'}`)
for (const paused of only.has('empresa') && haveWrk() ? (pauseDamon ? [false, true] : [false]) : []) {
  if (paused) {
    writeFileSync(DAMON, 'off')
    console.log('-- de novo, com o DAMON do kernel pausado --')
  }
  const s = await server()
  try {
    const paths = take(250_000).map((x) => `/v1/cnpj/empresa/${x}`)
    console.log(`-- /v1/cnpj/empresa, CNPJs nunca pedidos, 32 conexões, ${seconds} s (${machineLoad()}) --`)
    const cold = await wrk(s.base, paths, { connections: 32, seconds })
    const warm = await wrk(s.base, paths.slice(0, 1000), { connections: 32, seconds })
    // The same wrk list mode (a Lua call a request) against bare Bun, 1 process and the server's count.
    const bare1 = await withBareBun(1, (b) => wrk(b.base, paths.slice(0, 1000), { connections: 32, seconds }))
    const bareN = await withBareBun(s.processes, (b) => wrk(b.base, paths.slice(0, 1000), { connections: 32, seconds }))
    const bare = Math.max(bare1.rps, bareN.rps)
    line('nunca pedidos', cold)
    line('1000 repetidos', warm)
    console.log(`Bun puro: ${bare1.rps} req/s (1 processo), ${bareN.rps} (${s.processes}); nunca pedidos ${((100 * cold.rps) / bare).toFixed(1)} %, repetidos ${((100 * warm.rps) / bare).toFixed(1)} % (${machineLoad()})`)
    console.log(`RSS do servidor: ${mb([...treeRss(s.pid).values()].reduce((a, b) => a + b, 0))}`)
  } finally {
    await s.stop()
    if (paused) writeFileSync(DAMON, 'on')
  }
}

// ---- /v1/cnpj/lote, 100 never-asked CNPJs a request ----
if (only.has('lote')) {
  const s = await server()
  try {
    const lote = () => `/v1/cnpj/lote?cnpjs=${take(100).join(',')}`
    console.log(`-- /v1/cnpj/lote, 100 CNPJs nunca pedidos por pedido (${machineLoad()}) --`)
    const one = await alone(s.base, Array.from({ length: 300 }, lote))
    console.log(`1 cliente, 300 pedidos: p50 ${fmt(one.p50)} ms, p99 ${fmt(one.p99)} ms, máx. ${fmt(one.max)} ms, resposta ${(one.bytes / 1e3).toFixed(0)} kB`)
    // One connection per serving process is the concurrency the goals (p99 and CNPJs/s) are read
    // at together: past it, requests wait in a process's queue and the p99 is that wait. One more
    // connection than processes: where a process's idle gaps between requests fill before the queue grows.
    if (haveWrk())
      for (const connections of [...new Set([s.processes, s.processes + 1, 4, 16])]) {
        const r = await wrk(s.base, Array.from({ length: 2000 }, lote), { connections, seconds })
        line(`wrk ${connections} conexões`, r)
        console.log(`  = ${(r.rps * 100).toLocaleString('pt-BR')} CNPJs/s (${machineLoad()})`)
      }
  } finally {
    await s.stop()
  }
}

// ---- the new filters, alone and two by two, with and without uf, 16 connections ----
if (only.has('filtros') && haveWrk()) {
  const s = await server()
  try {
    const filters: [string, string[]][] = [
      ['natureza_juridica', ['natureza_juridica=2062', 'natureza_juridica=2135', 'natureza_juridica=2011']],
      ['cnae_secundario', [`cnae_secundario=${cnaeSecundario}`, `cnae_secundario=${cnaeRaro}`]],
      ['cnae_qualquer', [`cnae_qualquer=${cnaeSecundario}`, `cnae_qualquer=${cnaeRaro}`]],
      ['municipio_ibge', ibge.map((x) => `municipio_ibge=${x}`)],
      ['capital', ['capital_min=1000000', 'capital_max=50000', 'capital_min=100000&capital_max=500000', 'capital_min=12345.67&capital_max=23456.78']],
      ['simples', ['simples=true', 'simples=false']],
      ['mei', ['mei=true', 'mei=false']],
      ['abertura', ['abertura_de=2020-01-01', 'abertura_ate=1999-12-31', 'abertura_de=2015-03-01&abertura_ate=2015-05-31', 'abertura_de=2010-06-15&abertura_ate=2010-06-15']],
    ]
    const sets: [string, string[]][] = []
    for (const [name, values] of filters) sets.push([name, values])
    for (let i = 0; i < filters.length; i++)
      for (let j = i + 1; j < filters.length; j++) {
        const [a, av] = filters[i]!
        const [b, bv] = filters[j]!
        sets.push([`${a} + ${b}`, av.flatMap((x) => bv.map((y) => `${x}&${y}`))])
      }
    console.log(`-- filtros da busca, wrk 16 conexões, ${seconds} s por linha, sem e com uf=SP (${machineLoad()}); CNAE secundário ${cnaeSecundario}, CNAE raro ${cnaeRaro}, municípios ${ibge.join(', ')} --`)
    const worst = { sem: 0, com: 0 }
    for (const [name, queries] of sets) {
      const sem = await wrk(s.base, queries.map((q) => `/v1/cnpj/busca?${q}`), { connections: 16, seconds })
      const com = await wrk(s.base, queries.map((q) => `/v1/cnpj/busca?${q}&uf=SP`), { connections: 16, seconds })
      worst.sem = Math.max(worst.sem, sem.p95)
      worst.com = Math.max(worst.com, com.p95)
      console.log(`${name}: sem uf p50 ${fmt(sem.p50)} / p95 ${fmt(sem.p95)} ms (${sem.rps} req/s${sem.non2xx ? `, não 2xx ${sem.non2xx}` : ''}); com uf p50 ${fmt(com.p50)} / p95 ${fmt(com.p95)} ms (${com.rps} req/s${com.non2xx ? `, não 2xx ${com.non2xx}` : ''})`)
    }
    console.log(`pior p95: sem uf ${fmt(worst.sem)} ms, com uf ${fmt(worst.com)} ms (${machineLoad()})`)
    const socio = [`documento=${encodeURIComponent(partnerCpf)}`, `documento=${partnerCnpj}`, `documento=${encodeURIComponent(partnerCpf)}&nome=${encodeURIComponent(partnerName.split(' ')[0]!)}`, `documento=${encodeURIComponent('***999999**')}&nome=JOAO`]
    line('socio/busca por documento (CPF, CNPJ, CPF + nome, ***999999** + nome)', await wrk(s.base, socio.map((q) => `/v1/cnpj/socio/busca?${q}`), { connections: 16, seconds }))
    const bare = await withBareBun(1, (b) => wrk(b.base, ['/'], { connections: 16, seconds }))
    line('Bun puro, mesma carga', bare)
  } finally {
    await s.stop()
  }
}

// ---- dadosbr consultar cnpj on a list of `lines` CNPJs ----
if (only.has('consultar')) {
  const list = join(data, `lista-${lines}.txt`)
  // Mostly CNPJs of the month, some not in it, some invalid, blank lines, repeats and punctuation.
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const x = cnpjs[i % cnpjs.length]!
    out.push(i % 50 === 0 ? '' : i % 97 === 0 ? 'lixo' : i % 13 === 0 ? `${x.slice(0, 2)}.${x.slice(2, 5)}.${x.slice(5, 8)}/${x.slice(8, 12)}-${x.slice(12)}` : x)
  }
  writeFileSync(list, out.join('\n') + '\n')
  console.log(`-- dadosbr consultar cnpj, ${lines.toLocaleString('pt-BR')} linhas (${machineLoad()}) --`)
  for (const saida of ['jsonl', 'csv']) {
    const target = join(data, `saida.${saida}`)
    const r = await timed([process.execPath, resolve(import.meta.dir, '..', 'src', 'cli.ts'), 'consultar', 'cnpj', '--arquivo', list, '--saida', target, '--data', data])
    console.log(`--saida .${saida}: ${fmt(r.seconds)} s (${Math.round(lines / r.seconds).toLocaleString('pt-BR')} linhas/s), CPU ${fmt(r.cpu)} s, pico de memória ${mb(r.peak)}: ${r.line} (${machineLoad()})`)
    rmSync(target, { force: true })
  }
  rmSync(list, { force: true })
}
