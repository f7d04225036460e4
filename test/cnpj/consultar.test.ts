// `dadosbr consultar cnpj|integridade --arquivo`: a list answered from the local data, a row per
// input line, each equal to the single route's answer; messy files (BOM, CRLF, blank lines,
// punctuation, duplicates, garbage, a CSV cut inside quotes) answered or reported, never a crash.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildIntegridade } from '../../ingest/integridade/load'
import { get, tempDir, testApp } from '../helpers'
import { SAMPLE as INTEGRIDADE_SAMPLE } from '../integridade/helpers'
import { buildFixtureData } from './helpers'
import { partAnswers } from '../../src/cli/consultar-parts'
import { cnpjBase } from '../../src/cli/consultar-bases'
import { defaultHelpers, readsWholeFirst } from '../../src/cli/consultar'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const dataDir = await buildFixtureData()
await buildIntegridade({ dir: INTEGRIDADE_SAMPLE, dataDir, force: true })
const { app } = await testApp({ dataDir })
afterAll(() => app.close())
const dir = tempDir('dadosbr-consultar-')

function run(args: string[], data = dataDir) {
  const r = Bun.spawnSync([process.execPath, CLI, 'consultar', ...args, '--data', data], { env: { ...process.env, DADOSBR_LOG_FORMATO: 'texto' } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}
const file = (name: string, bytes: string | Uint8Array) => {
  const path = join(dir, name)
  writeFileSync(path, bytes)
  return path
}
const jsonl = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l))

// BOM, CRLF, a blank line, punctuation, a repeat, a valid CNPJ not in the month, garbage, a line of
// spaces, a wrong check digit, an accented garbage line, no newline at the end.
const MESSY = '\uFEFF33.683.111/0002-80\r\n\r\n12abc34501de35\r\n33683111000107\r\nlixo;;\r\n   \r\n33683111000280\r\n33683111000281\r\nrazão\r\n44.555.666/0004-24'

describe('dadosbr consultar cnpj', () => {
  test('a row per line, in order, each the card /v1/cnpj/empresa/{cnpj} answers or its error; the summary', async () => {
    const r = run(['cnpj', '--arquivo', file('lista.txt', MESSY), '--quiet'])
    expect([r.code, r.err]).toEqual([0, ''])
    const rows = jsonl(r.out)
    expect(rows.map((x) => [x.linha, x.entrada, x.cnpj, x.encontrado, x.erro?.codigo ?? null, x.repete_linha ?? null])).toEqual([
      [1, '33.683.111/0002-80', '33683111000280', true, null, null],
      [2, '', null, false, 'linha_vazia', null],
      [3, '12abc34501de35', '12ABC34501DE35', true, null, null],
      [4, '33683111000107', '33683111000107', false, 'nao_encontrado', null],
      [5, 'lixo;;', null, false, 'cnpj_invalido', null],
      [6, '', null, false, 'linha_vazia', null],
      [7, '33683111000280', '33683111000280', true, null, 1],
      [8, '33683111000281', null, false, 'cnpj_invalido', null],
      [9, 'razão', null, false, 'cnpj_invalido', null],
      [10, '44.555.666/0004-24', '44555666000424', true, null, null],
    ])
    for (const row of rows.filter((x) => x.cnpj)) {
      const single = await get(app, `/v1/cnpj/empresa/${row.cnpj}`)
      expect({ cnpj: row.cnpj, resultado: row.resultado, erro: row.erro }).toEqual(single.status === 200 ? { cnpj: row.cnpj, resultado: single.body, erro: undefined } : { cnpj: row.cnpj, resultado: undefined, erro: single.body.erro })
    }
    expect(rows[7].erro.mensagem).toBe('CNPJ com dígitos verificadores inválidos; confira o número em /v1/ferramentas/cnpj/{valor} (grátis)')
    const summary = run(['cnpj', '--arquivo', join(dir, 'lista.txt'), '--saida', join(dir, 'saida.jsonl')])
    expect(summary.code).toBe(0)
    expect(summary.err.trim().split('\n').at(-1)).toMatch(/^10 linhas em [\d.]+ s: 4 encontrados, 1 não encontrados, 3 inválidos, 2 em branco \(1 repetidas\) -> .*saida\.jsonl$/)
    expect(jsonl(readFileSync(join(dir, 'saida.jsonl'), 'utf8'))).toEqual(rows)
  })

  test('CSV in and out: the column named CNPJ of a spreadsheet with ; and quotes; flat columns', async () => {
    const csv = file('fornecedores.csv', 'Razão;"CNPJ do fornecedor";Valor\r\n"SERPRO; regional";33.683.111/0002-80;10,5\r\nCafé;12ABC34501DE35;3\r\nNinguém;;0\r\n')
    const r = run(['cnpj', '--arquivo', csv, '--saida', join(dir, 'saida.csv'), '--quiet'])
    expect(r.code).toBe(0)
    const lines = readFileSync(join(dir, 'saida.csv'), 'utf8').trimEnd().split('\n')
    const header = lines[0]!.split(',')
    expect(header.slice(0, 8)).toEqual(['linha', 'entrada', 'cnpj', 'encontrado', 'erro_codigo', 'erro_mensagem', 'repete_linha', 'razao_social'])
    const at = (line: string, column: string) => {
      // The sample's values hold no comma inside quotes in these columns.
      const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"(.*)"$/, '$1').replace(/""/g, '"'))
      return cells[header.indexOf(column)]
    }
    expect(lines.length).toBe(4)
    expect([at(lines[1]!, 'linha'), at(lines[1]!, 'cnpj'), at(lines[1]!, 'endereco.codigo_municipio_ibge'), at(lines[1]!, 'cnae_secundarios'), at(lines[1]!, 'natureza_juridica.codigo')])
      .toEqual(['2', '33683111000280', '5300108', '6201501 6202300 6203100 6209100 6311900', '2011'])
    expect([at(lines[2]!, 'linha'), at(lines[2]!, 'cnpj'), at(lines[2]!, 'razao_social')]).toEqual(['3', '12ABC34501DE35', 'CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA'])
    expect([at(lines[3]!, 'linha'), at(lines[3]!, 'encontrado'), at(lines[3]!, 'erro_codigo')]).toEqual(['4', 'false', 'linha_vazia'])
  })

  test('--excel: a CSV Excel in Portuguese opens as columns with accents: ;, UTF-8 BOM, CRLF, masked CNPJ and CEP, decimal comma', () => {
    const out = join(dir, 'excel.csv')
    const r = run(['cnpj', '--arquivo', file('excel.txt', '33683111000280\n12.ABC.345/01DE-35\nlixo\n'), '--saida', out, '--excel', '--quiet'])
    expect([r.code, r.err]).toEqual([0, ''])
    const bytes = readFileSync(out)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const lines = bytes.toString('utf8').slice(1).split('\r\n')
    expect(lines.at(-1)).toBe('')
    const header = lines[0]!.split(';')
    expect(header.slice(0, 8)).toEqual(['linha', 'entrada', 'cnpj', 'encontrado', 'erro_codigo', 'erro_mensagem', 'repete_linha', 'razao_social'])
    const cells = (line: string) => line.match(/("([^"]|"")*"|[^;]*)(;|$)/g)!.map((c) => c.replace(/;$/, '').replace(/^"(.*)"$/, '$1').replace(/""/g, '"'))
    const at = (line: string, column: string) => cells(line)[header.indexOf(column)]
    const pick = (line: string) => ['linha', 'cnpj', 'razao_social', 'capital_social', 'endereco.cep', 'endereco.municipio', 'natureza_juridica.descricao'].map((c) => at(line, c))
    expect(pick(lines[1]!)).toEqual(['1', '33.683.111/0002-80', 'SERVICO FEDERAL DE PROCESSAMENTO DE DADOS (SERPRO)', '1061004829,23', '70836-900', 'BRASILIA', 'Empresa Pública'])
    // A value holding the separator is quoted; the alphanumeric CNPJ keeps its mask's letters.
    expect(pick(lines[2]!)).toEqual(['2', '12.ABC.345/01DE-35', 'CAFÉ SÃO JOÃO; COMÉRCIO DE "GRÃOS" LTDA', '150000,5', '01001-000', 'SAO PAULO', 'Sociedade Empresária Limitada'])
    expect(cells(lines[2]!).length).toBe(header.length)
    expect([at(lines[3]!, 'cnpj'), at(lines[3]!, 'erro_codigo')]).toEqual(['', 'cnpj_invalido'])
    // Without --saida x.csv, --excel is a usage error.
    expect(run(['cnpj', '--arquivo', join(dir, 'excel.txt'), '--excel'])).toMatchObject({ code: 2, err: 'dadosbr consultar: --excel vale para um CSV: use --saida com um nome terminado em .csv\n' })
  })

  test("--excel past Excel's 1 048 576 lines: the file is whole, and a warning says Excel would drop the rest (even with --quiet)", () => {
    const out = join(dir, 'grande.csv')
    // Blank lines are answered without a lookup: the list's size is what this is about.
    const atLimit = run(['cnpj', '--arquivo', file('limite.txt', '\n'.repeat(1_048_575)), '--saida', out, '--excel', '--quiet'])
    expect([atLimit.code, atLimit.err]).toEqual([0, ''])
    const past = run(['cnpj', '--arquivo', file('alem.txt', '\n'.repeat(1_048_576)), '--saida', out, '--excel', '--quiet'])
    expect([past.code, past.err]).toEqual([0, `aviso: ${out} tem 1.048.577 linhas e o Excel abre só as primeiras 1.048.576: divida a lista (split -l 1000000) ou use --saida x.jsonl\n`])
    expect(readFileSync(out, 'utf8').split('\r\n').length - 1).toBe(1_048_577)
    // A CSV for tools has no such limit: no warning.
    expect(run(['cnpj', '--arquivo', join(dir, 'alem.txt'), '--saida', join(dir, 'grande-rfc.csv'), '--quiet']).err).toBe('')
  }, 60_000)

  test('a CSV without a header: the first column; a CSV cut inside quotes: what came before is answered, the summary says where it stopped', () => {
    const plain = run(['cnpj', '--arquivo', file('sem-cabecalho.csv', '33683111000280,x\n12ABC34501DE35,y\n'), '--quiet'])
    expect(jsonl(plain.out).map((x) => x.cnpj)).toEqual(['33683111000280', '12ABC34501DE35'])
    const cut = run(['cnpj', '--arquivo', file('cortado.csv', 'cnpj\n33683111000280\n"12ABC34501DE35\n')])
    expect(cut.code).toBe(0)
    expect(jsonl(cut.out).map((x) => x.cnpj)).toEqual(['33683111000280'])
    expect(cut.err).toContain('aspas abertas na linha 3 não se fecham até o fim do arquivo (arquivo truncado?): o resto do arquivo não foi lido')
  })

  test("a CSV whose header does not name CNPJ, or that has none: the column holding CNPJs; a spreadsheet's lost leading zeros put back when the check digits hold", () => {
    const named = run(['cnpj', '--arquivo', file('documento.csv', 'Razão;Documento;UF\r\nPETROBRAS;33.683.111/0002-80;RJ\r\nCAFÉ;12ABC34501DE35;SP\r\nX;lixo;SP\r\n'), '--quiet'])
    expect(jsonl(named.out).map((x) => [x.linha, x.entrada, x.cnpj])).toEqual([[2, '33.683.111/0002-80', '33683111000280'], [3, '12ABC34501DE35', '12ABC34501DE35'], [4, 'lixo', null]])
    const second = run(['cnpj', '--arquivo', file('segunda.csv', 'PETROBRAS,33683111000280\nCAFÉ,12ABC34501DE35\n'), '--quiet'])
    expect(jsonl(second.out).map((x) => [x.linha, x.cnpj])).toEqual([[1, '33683111000280'], [2, '12ABC34501DE35']])
    // A first record blank in that column is a blank line of the list, not a header.
    const blank = run(['cnpj', '--arquivo', file('branco.csv', 'EMPRESA X;;SP\nPETROBRAS;33683111000280;RJ\n'), '--quiet'])
    expect(jsonl(blank.out).map((x) => [x.linha, x.cnpj, x.erro?.codigo ?? null])).toEqual([[1, null, 'linha_vazia'], [2, '33683111000280', null]])
    // 00638595000105 as Excel shows it (638595000105), and with its text mark; 12 digits whose padding fails the check digits stay invalid.
    const zeros = run(['cnpj', '--arquivo', file('zeros.txt', "638595000105\n'00638595000105\n638595000106\n"), '--quiet'])
    expect(jsonl(zeros.out).map((x) => [x.entrada, x.cnpj, x.erro?.codigo ?? null])).toEqual([
      ['638595000105', '00638595000105', 'nao_encontrado'], ["'00638595000105", '00638595000105', 'nao_encontrado'], ['638595000106', null, 'cnpj_invalido'],
    ])
  })

  test('a list saved as UTF-16 (Windows "Unicode" text, PowerShell 5): read as such', () => {
    const text = 'razão social\r\n33683111000280\r\n12ABC34501DE35\r\n'
    const le = run(['cnpj', '--arquivo', file('utf16le.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])), '--quiet'])
    const be = Buffer.from(text, 'utf16le').swap16()
    const big = run(['cnpj', '--arquivo', file('utf16be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), be])), '--quiet'])
    for (const r of [le, big]) expect(jsonl(r.out).map((x) => [x.entrada, x.cnpj])).toEqual([['razão social', null], ['33683111000280', '33683111000280'], ['12ABC34501DE35', '12ABC34501DE35']])
    // A CSV in UTF-16: its delimiter and header read from the decoded text.
    const csv = run(['cnpj', '--arquivo', file('utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Razão;CNPJ\r\nCAFÉ;12.ABC.345/01DE-35\r\n', 'utf16le')])), '--quiet'])
    expect(jsonl(csv.out).map((x) => [x.linha, x.cnpj])).toEqual([[2, '12ABC34501DE35']])
  })

  test('the output: an older, longer file is replaced whole; the list itself, a folder or a folder that does not exist is a usage error, before the base is read', () => {
    const out = join(dir, 'sobrescrita.jsonl')
    writeFileSync(out, 'x'.repeat(100_000))
    expect(run(['cnpj', '--arquivo', file('curta.txt', '33683111000280\n'), '--saida', out, '--quiet']).code).toBe(0)
    expect(jsonl(readFileSync(out, 'utf8')).map((x) => x.cnpj)).toEqual(['33683111000280'])
    const list = file('propria.csv', 'cnpj\n33683111000280\n')
    expect(run(['cnpj', '--arquivo', list, '--saida', list])).toMatchObject({ code: 2, err: `dadosbr consultar: --saida ${list}: é o próprio arquivo da lista; escolha outro nome\n` })
    expect(readFileSync(list, 'utf8')).toBe('cnpj\n33683111000280\n')
    // A hard link to the list is the list too (the same inode), and is left whole.
    const linked = join(dir, 'ligada.csv')
    linkSync(list, linked)
    expect(run(['cnpj', '--arquivo', list, '--saida', linked]).code).toBe(2)
    expect(readFileSync(list, 'utf8')).toBe('cnpj\n33683111000280\n')
    // A name that is not a regular file (a link to /dev/null): written to, not truncated.
    const nulo = join(dir, 'nulo.jsonl')
    symlinkSync('/dev/null', nulo)
    expect(run(['cnpj', '--arquivo', list, '--saida', nulo, '--quiet'])).toMatchObject({ code: 0, err: '' })
    const missing = join(dir, 'nao', 'existe', 'x.csv')
    expect(run(['cnpj', '--arquivo', list, '--saida', missing])).toMatchObject({ code: 2, err: `dadosbr consultar: --saida ${missing}: a pasta ${join(dir, 'nao', 'existe')} não existe; crie-a ou escolha outra\n` })
    // Checked before the base: the same message with no data built.
    expect(run(['cnpj', '--arquivo', list, '--saida', missing], tempDir('dadosbr-vazio-')).code).toBe(2)
  })

  test("a spreadsheet in Excel's or LibreOffice's own format: a usage error saying to save it as CSV", () => {
    const xlsx = file('planilha.xlsx', Buffer.from('PK\x03\x04 not really a zip', 'latin1'))
    expect(run(['cnpj', '--arquivo', xlsx])).toMatchObject({ code: 2, err: `dadosbr consultar: --arquivo ${xlsx}: é uma planilha no formato do Excel ou do LibreOffice; salve-a como CSV (ou a coluna de CNPJs como .txt) e rode de novo\n` })
    // Named .csv, but an xls (OLE) inside: the same.
    const xls = file('renomeada.csv', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))
    expect(run(['cnpj', '--arquivo', xls]).code).toBe(2)
  })

  test('a list saved as cp1252 (Excel): read as such', () => {
    const r = run(['cnpj', '--arquivo', file('cp1252.txt', Buffer.from('raz\xe3o social\r\n33683111000280\r\n', 'latin1')), '--quiet'])
    expect(jsonl(r.out).map((x) => [x.entrada, x.cnpj])).toEqual([['razão social', null], ['33683111000280', '33683111000280']])
  })

  test('an empty file, a file of garbage bytes: rows or nothing, exit 0', () => {
    const empty = run(['cnpj', '--arquivo', file('vazia.txt', '')])
    expect([empty.code, empty.out]).toEqual([0, ''])
    expect(empty.err).toContain('0 linhas em')
    const junk = run(['cnpj', '--arquivo', file('lixo.bin', new Uint8Array(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256))), '--quiet'])
    expect(junk.code).toBe(0)
    expect(jsonl(junk.out).every((x) => x.encontrado === false)).toBe(true)
  })

  test('usage errors: exit 2 with one line that says what to do', () => {
    const list = join(dir, 'lista.txt')
    expect(run(['cnpj'])).toMatchObject({ code: 2, err: 'dadosbr consultar: --arquivo LISTA é obrigatório (um CNPJ por linha, .txt, ou uma planilha .csv)\n' })
    expect(run(['cnpj', '--arquivo', join(dir, 'nao-existe.txt')])).toMatchObject({ code: 2, err: `dadosbr consultar: --arquivo ${join(dir, 'nao-existe.txt')}: arquivo não encontrado\n` })
    expect(run(['cnpj', '--arquivo', list, '--saida', join(dir, 'x.xlsx')])).toMatchObject({ code: 2, err: `dadosbr consultar: --saida ${join(dir, 'x.xlsx')}: use um nome terminado em .csv ou .jsonl\n` })
    expect(run(['empresas', '--arquivo', list]).code).toBe(2)
    const noData = run(['cnpj', '--arquivo', list], tempDir('dadosbr-vazio-'))
    expect(noData.code).toBe(2)
    expect(noData.err).toContain("rode 'dadosbr ingest cnpj'")
  })
})

describe('dadosbr consultar integridade', () => {
  test('each row the screening /v1/integridade/consulta/{cnpj} gives; encontrado when the root has a record', async () => {
    const r = run(['integridade', '--arquivo', file('triagem.txt', '00.638.595/0001-05\n33683111000280\nabc\n00638595000105\n'), '--quiet'])
    expect(r.code).toBe(0)
    const rows = jsonl(r.out)
    expect(rows.map((x) => [x.linha, x.cnpj, x.encontrado, x.erro?.codigo ?? null, x.repete_linha ?? null])).toEqual([
      [1, '00638595000105', true, null, null], [2, '33683111000280', false, null, null], [3, null, false, 'cnpj_invalido', null], [4, '00638595000105', true, null, 1],
    ])
    for (const row of rows.filter((x) => x.cnpj)) expect(row.resultado).toEqual((await get(app, `/v1/integridade/consulta/${row.cnpj}`)).body)
    const csv = run(['integridade', '--arquivo', join(dir, 'triagem.txt'), '--saida', join(dir, 'triagem.csv'), '--quiet'])
    expect(csv.code).toBe(0)
    const lines = readFileSync(join(dir, 'triagem.csv'), 'utf8').trimEnd().split('\n')
    expect(lines[0]).toBe('linha,entrada,cnpj,encontrado,erro_codigo,erro_mensagem,repete_linha,ficha_limpa,total_apontamentos,ceis,ceis_vigentes,cnep,cnep_vigentes,cepim,cepim_vigentes,trabalho_escravo,trabalho_escravo_vigentes,acordos_leniencia,acordos_leniencia_vigentes')
    const first = rows[0].resultado
    expect(lines[1]).toBe(`1,00.638.595/0001-05,00638595000105,true,,,,${first.ficha_limpa},${first.total_apontamentos},0,0,0,0,0,0,${first.apontamentos.trabalho_escravo.length},${first.apontamentos.trabalho_escravo.filter((a: { vigente: boolean }) => a.vigente).length},0,0`)
  })
})

describe('dadosbr consultar with helper processes (--processos, the default for a list over 1 MB)', () => {
  // Every kind of line, over several batches of 1024 lines.
  const MANY = Array.from({ length: 400 }, () => MESSY.replace(/^\uFEFF/, '')).join('\r\n')
  const children = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    } catch {
      return []
    }
  }
  const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))

  test('the same bytes as one process, for both bases and every output', () => {
    const list = file('muitas.txt', MANY)
    // A list this long has the card file read whole while it is answered (readsWholeFirst): the answers do not change.
    expect(readsWholeFirst(statSync(list).size, statSync(join(dataDir, 'cnpj', 'current', 'fichas.sqlite')).size)).toBe(true)
    for (const which of ['cnpj', 'integridade'])
      for (const [ext, ...extra] of [['csv'], ['csv', '--excel'], ['jsonl']]) {
        const outputs = [1, 3].map((n) => {
          const out = join(dir, `muitas-${which}-${n}${extra.join('')}.${ext}`)
          const r = run([which, '--arquivo', list, '--saida', out, '--processos', String(n), ...extra])
          expect(r.code).toBe(0)
          expect(r.err).toContain('4.000 linhas em')
          return readFileSync(out)
        })
        expect(outputs[1]!.equals(outputs[0]!)).toBe(true)
      }
  })

  test('by default, one process for a list up to 1 MB, else two helpers per core, up to 4', () => {
    expect([defaultHelpers(1 << 20, 8), defaultHelpers((1 << 20) + 1, 1), defaultHelpers((1 << 20) + 1, 2), defaultHelpers(50 << 20, 3), defaultHelpers(50 << 20, 64)]).toEqual([1, 2, 4, 4, 4])
  })

  test('a list whose CNPJs would read at random more than a 16th of the card file has it read whole first (a page of 4 KB a CNPJ, ~15 bytes a line)', () => {
    // Nationally, 13.5 GB of cards: from ~206 000 lines (3.1 MB).
    expect([readsWholeFirst(15 * 1000, 4096 * 16_000), readsWholeFirst(15 * 999, 4096 * 16_000), readsWholeFirst(3.1e6, 13.5e9), readsWholeFirst(3.0e6, 13.5e9), readsWholeFirst(0, 1)]).toEqual([true, false, true, false, false])
  })

  test('--processos takes a number from 1 to 99', () => {
    for (const bad of ['0', 'dois', '100']) expect(run(['cnpj', '--arquivo', join(dir, 'lista.txt'), '--processos', bad])).toMatchObject({ code: 2, err: `dadosbr consultar: --processos ${bad}: um número de 1 a 99\n` })
  })

  /** A long list answered by 2 helpers into a file, started without waiting: its pid and the helpers' once both answer. */
  async function longRun(name: string) {
    const list = file(`${name}.txt`, Array.from({ length: 150 }, () => MANY).join('\r\n'))
    const out = join(dir, `${name}.jsonl`)
    const proc = Bun.spawn([process.execPath, CLI, 'consultar', 'cnpj', '--arquivo', list, '--saida', out, '--processos', '2', '--quiet', '--data', dataDir], { stderr: 'pipe', stdout: 'ignore' })
    for (let i = 0; i < 400 && (children(proc.pid).length < 2 || !existsSync(out) || statSync(out).size < 100_000); i++) await Bun.sleep(25)
    const helpers = children(proc.pid)
    expect(helpers.length).toBe(2)
    expect(proc.exitCode).toBeNull()
    return { proc, helpers, out }
  }

  test('a helper killed midway: exit 1 with one line saying so; every row written is whole and in order', async () => {
    const { proc, helpers, out } = await longRun('morte-ajudante')
    process.kill(helpers[1]!, 'SIGKILL')
    expect(await proc.exited).toBe(1)
    // One line: the batches the dead helper held fail once, with no trace of each.
    const err = (await new Response(proc.stderr).text()).trim().split('\n')
    expect(err).toHaveLength(1)
    expect(err[0]).toMatch(/^dadosbr consultar: um processo de consulta saiu \(SIGKILL\); rode de novo, ou com --processos 1$/)
    const rows = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.map((r) => r.linha)).toEqual(rows.map((_, i) => i + 1))
    for (const r of rows) expect(r.cnpj === null || r.resultado !== undefined || r.erro?.codigo === 'nao_encontrado').toBe(true)
    for (const pid of helpers) expect(alive(pid)).toBe(false)
  })

  test('helpers that opened another build than the one checked (a month swapped in meanwhile) are stopped: never two months in one output', async () => {
    const helpers = partAnswers('cnpj', 'jsonl', dataDir, 2, '/outra/base/busca.sqlite')
    expect(helpers).rejects.toThrow('o cadastro em uso mudou (um mês novo entrou) enquanto a consulta começava; rode de novo')
    await helpers.catch(() => {})
    // The same build: they answer.
    const base = await cnpjBase(dataDir)
    const same = await partAnswers('cnpj', 'jsonl', dataDir, 2, base.build)
    expect((await same.ask(['33683111000280', '33683111000107'])).map((a) => [a.encontrado, a.erro?.codigo ?? null])).toEqual([[true, null], [false, 'nao_encontrado']])
    await same.close()
    await base.close()
  })

  test('consultar killed outright: its helpers go with it', async () => {
    const { proc, helpers } = await longRun('morte-pai')
    proc.kill('SIGKILL')
    await proc.exited
    for (let i = 0; i < 100 && helpers.some(alive); i++) await Bun.sleep(20)
    expect(helpers.filter(alive)).toEqual([])
  })
})

