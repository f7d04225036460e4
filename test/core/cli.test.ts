import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { alive, childrenOf, startServe, until } from '../serve-process'
import { tempDir } from '../temp'
import { INGESTS } from '../../ingest/registry'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const run = (args: string[], env: Record<string, string> = {}) => {
  const r = Bun.spawnSync([process.execPath, CLI, ...args], { env: { PATH: process.env.PATH!, ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

describe('dadosbr command line', () => {
  for (const args of [['--help'], ['serve', '--help'], ['ingest', '--help'], ['atualizar', '--help'], ['synth', '--help'], ['ingest', 'cnpj', '--help'], ['synth', 'cnpj', '--help'], ['historico', '--help'], ['historico', 'cnpj', '--help'], ['_indice-de-nomes', '--help']]) {
    test(`${args.join(' ')} prints help and exits 0`, () => {
      const r = run(args)
      expect(r.code).toBe(0)
      expect(r.out).toContain('Uso: dadosbr')
    })
  }

  test('serve without --gratis and without payment settings refuses to start, in one line', () => {
    const r = run(['serve', '--port', '0'])
    expect(r.code).toBe(2)
    expect(r.err).toBe('dadosbr: configuração inválida: --pay-to / X402_PAY_TO: é obrigatório para cobrar; use --gratis para servir sem cobrar\n')
  })

  test('a bad environment value names the setting', () => {
    const r = run(['serve', '--gratis'], { PORT: '99999' })
    expect(r.code).toBe(2)
    expect(r.err).toStartWith('dadosbr: configuração inválida: --port / PORT:')
  })

  test('old flag and variable spellings still work for one release, with a one-line warning', () => {
    const r = run(['serve', '--free', '--prewarm', '0'], { PORT: '99999' })
    expect(r.err.split('\n').slice(0, 2)).toEqual([
      'dadosbr serve: aviso: --free agora se escreve --gratis; a forma antiga sai na próxima versão',
      'dadosbr serve: aviso: --prewarm agora se escreve --pre-leitura; a forma antiga sai na próxima versão',
    ])
    expect(r.err).toContain('configuração inválida: --port / PORT:') // --free was taken: no payment setting is asked for
    const env = run(['serve'], { PORT: '99999', DADOSBR_FREE: '1' })
    expect(env.err).toStartWith('dadosbr: configuração inválida: --port / PORT:')
  })

  test('unknown command and unknown option', () => {
    expect(run(['deploy']).err).toBe("dadosbr: comando desconhecido 'deploy'; veja dadosbr --help\n")
    expect(run(['serve', '--frre']).err).toBe('dadosbr serve: opção desconhecida: --frre (veja --help)\n')
    expect(run(['ingest', 'cpf']).err).toBe(`dadosbr ingest: base desconhecida: cpf (disponíveis: ${INGESTS.map((i) => i.name).join(', ')}, todas)\n`)
    expect(run(['_indice-de-nomes', '--partes', '/tmp']).err).toBe('dadosbr _indice-de-nomes: --partes, --saida e --tmp são obrigatórios\n')
  })

  test('a bad --memoria stops the ingest before any work, in one line', () => {
    const r = run(['ingest', 'cnpj', '--from', '/nonexistent', '--mes', '2026-08', '--memoria', 'muita'], { UV_THREADPOOL_SIZE: '8' })
    expect(r.code).toBe(1)
    expect(r.err).toBe('dadosbr ingest: limite de memória inválido: muita (use, por exemplo, 5GB ou 800MB)\n')
  })

  test('ingest <base> --amostra builds the bundled sample quietly, with no source given; todas builds every one; --se-preciso skips', () => {
    const data = tempDir('dadosbr-amostra-')
    const first = run(['ingest', 'todas', '--amostra', '--data', data, '--quiet'], { UV_THREADPOOL_SIZE: '8' })
    expect(first.code).toBe(0)
    expect(first.err).toMatch(/^base CNPJ 2026-08 pronta em [\d.]+ s: empresas=\d+ estabelecimentos=\d+ /)
    expect(first.err).not.toMatch(/malformada|aviso|erro/i)
    const again = run(['ingest', 'cnpj', '--amostra', '--se-preciso', '--data', data], { UV_THREADPOOL_SIZE: '8' })
    expect(again.err).toBe(`base CNPJ 2026-08 já está em ${data}/cnpj/current: nada a fazer\n`)
  })

  test('the internal index command is not listed in the help', () => {
    expect(run(['--help']).out).not.toContain('_indice-de-nomes')
  })

  test('serve --gratis starts, says payments are off in its first line, and answers', async () => {
    const server = startServe(['--port', '0', '--data', '/nonexistent'])
    try {
      const { port } = await server.announced
      const r = await fetch(`http://127.0.0.1:${port}/v1/health`)
      expect(r.status).toBe(200)
      expect(((await r.json()) as { pagamentos: string }).pagamentos).toBe('desligados')
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
      await server.read
    }
    expect(server.log.text.split('\n')[0]).toContain('pagamentos DESLIGADOS (--gratis)')
    expect(server.log.text).toContain('encerrando')
  })
})

describe('serve with several processes', () => {
  const start = (args: string[]) => startServe(['--data', '/nonexistent', ...args])

  test('--processos 2: both processes answer on one port, a dead one is restarted, SIGTERM stops them all', async () => {
    const server = start(['--port', '0', '--processos', '2', '--log', 'debug'])
    const proc = server.proc
    try {
      const { port, processes } = await server.announced
      expect(processes).toBe(2)
      const [first] = await until(() => (childrenOf(proc.pid).length === 1 ? childrenOf(proc.pid) : undefined), 'o segundo processo')
      // Fresh connections, spread by the kernel (SO_REUSEPORT) over both processes' sockets.
      const answered = async () => {
        for (let i = 0; i < 40; i++) expect((await fetch(`http://127.0.0.1:${port}/v1/health`, { headers: { connection: 'close' } })).status).toBe(200)
      }
      // An extra process says when it has opened the data and joined the port (its start, then its restart).
      const joined = () => server.log.text.match(new RegExp(`INFO ouvindo na porta ${port} processo=1\\n`, 'g'))?.length ?? 0
      await until(() => (joined() === 1 ? true : undefined), 'o segundo processo na porta')
      await answered()
      process.kill(first!, 'SIGKILL')
      const [second] = await until(() => childrenOf(proc.pid).find((p) => p !== first) !== undefined ? childrenOf(proc.pid) : undefined, 'o processo reiniciado')
      expect(second).not.toBe(first)
      await until(() => (joined() === 2 ? true : undefined), 'o processo reiniciado na porta')
      await answered()
      proc.kill('SIGTERM')
      expect(await proc.exited).toBe(0)
      expect(alive(second!)).toBe(false)
    } finally {
      proc.kill('SIGKILL')
    }
    await server.read
    const log = server.log.text
    // Request lines of the extra process carry its number; those of the first carry none.
    expect(log).toMatch(/DEBUG pedido metodo=GET status=200 ms=[\d.]+ processo=1\n/)
    expect(log).toMatch(/DEBUG pedido metodo=GET status=200 ms=[\d.]+\n/)
    expect(log).toMatch(/WARN processo de atendimento saiu; reiniciando processo=1 saida=\d+ em_s=1\n/)
    expect(log.match(/ouvindo em/g)).toHaveLength(1)
  }, 30_000)

  test('an extra process whose first process was killed outright exits by itself, even killed before it got going', async () => {
    const { proc, announced } = start(['--port', '0', '--processos', '2'])
    await announced
    const [child] = await until(() => (childrenOf(proc.pid).length === 1 ? childrenOf(proc.pid) : undefined), 'o segundo processo')
    proc.kill('SIGKILL')
    await proc.exited
    await until(() => (alive(child!) ? undefined : true), 'o fim do processo órfão', 5000)
  }, 20_000)

  test('a port already in use stops the start in one line, alone or with several processes (nothing joins it silently)', async () => {
    const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', reusePort: true, fetch: () => new Response('outro') })
    try {
      for (const processes of ['1', '2']) {
        const r = run(['serve', '--gratis', '--host', '127.0.0.1', '--data', '/nonexistent', '--port', String(holder.port), '--processos', processes, '--log', 'warn'])
        expect(r.code).toBe(1)
        expect(r.err).toBe(`dadosbr serve: a porta ${holder.port} de 127.0.0.1 já está em uso: pare o outro serviço ou escolha outra porta com --port\n`)
      }
    } finally {
      holder.stop(true)
    }
  }, 20_000)
})
