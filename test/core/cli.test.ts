import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts')
const run = (args: string[], env: Record<string, string> = {}) => {
  const r = Bun.spawnSync([process.execPath, CLI, ...args], { env: { PATH: process.env.PATH!, ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

describe('dadosbr command line', () => {
  for (const args of [['--help'], ['serve', '--help'], ['ingest', '--help'], ['synth', '--help'], ['ingest', 'cnpj', '--help'], ['synth', 'cnpj', '--help'], ['_indice-de-nomes', '--help']]) {
    test(`${args.join(' ')} prints help and exits 0`, () => {
      const r = run(args)
      expect(r.code).toBe(0)
      expect(r.out).toContain('Uso: dadosbr')
    })
  }

  test('serve without --free and without payment settings refuses to start, in one line', () => {
    const r = run(['serve', '--port', '0'])
    expect(r.code).toBe(2)
    expect(r.err).toBe('dadosbr: configuração inválida: --pay-to / X402_PAY_TO: é obrigatório para cobrar; use --free para servir sem cobrar\n')
  })

  test('a bad environment value names the setting', () => {
    const r = run(['serve', '--free'], { PORT: '99999' })
    expect(r.code).toBe(2)
    expect(r.err).toStartWith('dadosbr: configuração inválida: --port / PORT:')
  })

  test('unknown command and unknown option', () => {
    expect(run(['deploy']).err).toBe("dadosbr: comando desconhecido 'deploy'; veja dadosbr --help\n")
    expect(run(['serve', '--frre']).err).toBe('dadosbr serve: opção desconhecida: --frre (veja --help)\n')
    expect(run(['ingest', 'cpf']).err).toBe('dadosbr ingest: base desconhecida: cpf (disponível: cnpj)\n')
    expect(run(['_indice-de-nomes', '--partes', '/tmp']).err).toBe('dadosbr _indice-de-nomes: --partes, --saida e --tmp são obrigatórios\n')
  })

  test('a bad --memoria stops the ingest before any work, in one line', () => {
    const r = run(['ingest', 'cnpj', '--from', '/nonexistent', '--month', '2026-08', '--memoria', 'muita'], { UV_THREADPOOL_SIZE: '8' })
    expect(r.code).toBe(1)
    expect(r.err).toBe('dadosbr ingest: limite de memória inválido: muita (use, por exemplo, 5GB ou 800MB)\n')
  })

  test('the internal index command is not listed in the help', () => {
    expect(run(['--help']).out).not.toContain('_indice-de-nomes')
  })

  test('serve --free starts, says payments are off in its first line, and answers', async () => {
    const port = 30000 + Math.floor(Math.random() * 20000)
    const proc = Bun.spawn([process.execPath, CLI, 'serve', '--free', '--port', String(port), '--host', '127.0.0.1', '--data', '/nonexistent'], { stderr: 'pipe' })
    try {
      let r: Response | undefined
      for (let i = 0; i < 100 && !r; i++) {
        r = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined)
        if (!r) await Bun.sleep(50)
      }
      expect(r?.status).toBe(200)
      expect(((await r!.json()) as { pagamentos: string }).pagamentos).toBe('desligados')
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
    const log = await new Response(proc.stderr).text()
    expect(log.split('\n')[0]).toContain('pagamentos DESLIGADOS (--free)')
    expect(log).toContain('encerrando')
  })
})
