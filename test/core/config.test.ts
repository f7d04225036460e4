import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig, processCount } from '../../src/core/config'

const PAY_TO = '0x1111111111111111111111111111111111111111'

describe('settings', () => {
  test('defaults', () => {
    const c = loadConfig({ free: true }, {})
    expect(c).toMatchObject({ port: 8080, dataDir: './data', free: true, network: 'eip155:8453', logLevel: 'info' })
  })

  test('environment variables are read, flags win', () => {
    const c = loadConfig({ port: '9000' }, { PORT: '7000', DADOSBR_FREE: 'true', DADOSBR_DATA: '/srv/d' })
    expect(c).toMatchObject({ port: 9000, free: true, dataDir: '/srv/d' })
  })

  test('a bad value stops the start with one line naming the setting', () => {
    expect(() => loadConfig({ free: true }, { PORT: 'abc' })).toThrow(ConfigError)
    expect(() => loadConfig({ free: true }, { PORT: 'abc' })).toThrow(/^configuração inválida: --port \/ PORT: /)
    expect(() => loadConfig({ free: true }, { X402_NETWORK: 'eip155:1' })).toThrow(/--network \/ X402_NETWORK/)
    expect(() => loadConfig({}, { DADOSBR_GRATIS: 'talvez' })).toThrow(/--gratis \/ DADOSBR_GRATIS/)
    expect(() => loadConfig({}, { DADOSBR_FREE: 'talvez' })).toThrow(/--gratis \/ DADOSBR_GRATIS/) // the old variable, read for one more release
  })

  test('without --gratis, the payment settings are required', () => {
    expect(() => loadConfig({}, {})).toThrow(/--pay-to \/ X402_PAY_TO: é obrigatório para cobrar; use --gratis/)
    expect(() => loadConfig({}, { X402_PAY_TO: PAY_TO })).toThrow(/falta o facilitador/)
    expect(() => loadConfig({}, { X402_PAY_TO: 'abc' })).toThrow(/X402_PAY_TO: deve ser um endereço EVM/)
    const remote = loadConfig({}, { X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: 'http://127.0.0.1:4021/', X402_FACILITATOR_HEADERS: '{"Authorization":"Bearer x"}' })
    expect(remote.facilitatorUrl).toBe('http://127.0.0.1:4021')
    expect(remote.facilitatorHeaders).toEqual({ Authorization: 'Bearer x' })
    const own = loadConfig({}, { X402_PAY_TO: PAY_TO, X402_RPC_URL: 'http://127.0.0.1:8545', X402_FACILITATOR_PRIVATE_KEY: '0x' + 'ab'.repeat(32) })
    expect(own.rpcUrl).toBe('http://127.0.0.1:8545')
    expect(() => loadConfig({}, { X402_PAY_TO: PAY_TO, X402_RPC_URL: 'http://127.0.0.1:8545' })).toThrow(/X402_FACILITATOR_PRIVATE_KEY/)
    expect(() => loadConfig({}, { X402_PAY_TO: PAY_TO, X402_FACILITATOR_HEADERS: 'nope', X402_FACILITATOR_URL: 'http://x' })).toThrow(/X402_FACILITATOR_HEADERS: deve ser um objeto JSON/)
  })

  test('serving processes: one per core up to 8 by default, 1 when settling on chain, the setting wins', () => {
    const free = loadConfig({ free: true }, {})
    expect([1, 2, 6, 8, 64].map((cores) => processCount(free, cores))).toEqual([1, 2, 6, 8, 8])
    expect(processCount(loadConfig({ free: true }, { DADOSBR_PROCESSOS: '3' }), 64)).toBe(3)
    expect(processCount(loadConfig({ free: true, processes: '1' }, { DADOSBR_PROCESSOS: '3' }), 64)).toBe(1)
    const remote = loadConfig({}, { X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: 'http://127.0.0.1:4021' })
    expect(processCount(remote, 4)).toBe(4)
    const ownEnv = { X402_PAY_TO: PAY_TO, X402_RPC_URL: 'http://127.0.0.1:8545', X402_FACILITATOR_PRIVATE_KEY: '0x' + 'ab'.repeat(32) }
    expect(processCount(loadConfig({}, ownEnv), 4)).toBe(1)
    expect(processCount(loadConfig({ processes: '1' }, ownEnv), 4)).toBe(1)
    expect(() => loadConfig({ processes: '2' }, ownEnv)).toThrow('configuração inválida: --processos / DADOSBR_PROCESSOS: a liquidação própria envia as transações de uma conta só e usa 1 processo; para mais, use um facilitador remoto')
    // --gratis serves nothing paid: the settlement key, if set, is not used.
    expect(processCount(loadConfig({ free: true }, ownEnv), 4)).toBe(4)
    // Off Linux, SO_REUSEPORT does not spread connections: one process, and asking for more is refused.
    expect(processCount(free, 8, 'darwin')).toBe(1)
    expect(processCount(loadConfig({ free: true, processes: '1' }, {}), 8, 'darwin')).toBe(1)
    expect(() => processCount(loadConfig({ free: true, processes: '2' }, {}), 8, 'darwin')).toThrow('configuração inválida: --processos / DADOSBR_PROCESSOS: vários processos na mesma porta só no Linux (aqui: darwin)')
    for (const bad of ['0', '65', '1.5', 'dois']) expect(() => loadConfig({ free: true }, { DADOSBR_PROCESSOS: bad })).toThrow(/^configuração inválida: --processos \/ DADOSBR_PROCESSOS: /)
  })
})
