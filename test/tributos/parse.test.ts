// The Tabela NCM reader (ingest/tributos/parse.ts) on files in the portal's real layouts: the
// bundled excerpt (2025 values, current layout), rows of the 2026 raw download, the 2022 layout;
// and what it refuses.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { dataBr, lerTabelaNcm, limparDescricao, TabelaNcmError } from '../../ingest/tributos/parse'

const FIX = join(import.meta.dir, 'fixtures')
const bytes = (p: string) => new Uint8Array(readFileSync(join(FIX, p)))
const enc = (s: string) => new TextEncoder().encode(s)

describe('lerTabelaNcm', () => {
  test('the bundled excerpt: header, every level, descriptions cleaned and kept as published', () => {
    const t = lerTabelaNcm(bytes('tributos-amostra/Tabela_NCM_Vigente_20250513.json'), '2026-11-24')
    expect([t.vigencia, t.referencia, t.ato, t.linhas.length, t.descartadas]).toEqual(['Vigente em 13/05/2025', '2025-05-13', 'Resolução Camex nº 641/2024', 196, { codigo_invalido: 0, fora_de_vigencia: 0, repetidas: 0 }])
    const por = new Map(t.linhas.map((l) => [l.codigo, l]))
    expect(por.get('10063021')).toEqual({ codigo: '10063021', descricao: 'Polido ou brunido', descricao_original: 'Polido ou brunido', inicio: '2022-04-01', fim: null, ato: 'Res Camex 272/2021' })
    expect(por.get('1006302')!.descricao).toBe('Não parboilizado')
    expect(por.get('02071100')!.descricao_original).toBe('-- Não cortadas em pedaços, frescas ou refrigeradas')
    expect(por.get('02071100')!.descricao).toBe('Não cortadas em pedaços, frescas ou refrigeradas')
    expect(por.get('0207')!.descricao).toBe('Carnes e miudezas, comestíveis, frescas, refrigeradas ou congeladas, das aves da posição 01.05.')
    expect(por.get('02071')!.descricao_original).toBe('- De aves da espécie <i>Gallus domesticus</i>:')
    expect(por.get('02071')!.descricao).toBe('De aves da espécie Gallus domesticus:')
    expect(t.linhas.map((l) => l.codigo.length).filter((n, i, a) => a.indexOf(n) === i).sort()).toEqual([2, 4, 5, 6, 7, 8])
  })

  test('rows of the raw 2026 download: escaped HTML and apostrophes, "Res Gecex"', () => {
    const t = lerTabelaNcm(bytes('real/Tabela_NCM_Vigente_20261005-trechos.json'), '2026-11-24')
    expect([t.referencia, t.ato]).toEqual(['2026-10-05', 'Resolução Gecex nº 926/2026'])
    const l = t.linhas.find((x) => x.codigo === '0105')!
    expect(l.descricao_original).toBe("Aves da espécie <i>Gallus domesticus</i>, patos, gansos, perus, peruas e galinhas-d'angola (pintadas), das espécies domésticas, vivos.")
    expect(l.descricao).toBe("Aves da espécie Gallus domesticus, patos, gansos, perus, peruas e galinhas-d'angola (pintadas), das espécies domésticas, vivos.")
    expect(t.linhas.find((x) => x.codigo === '01051500')).toMatchObject({ descricao: "Galinhas-d'angola (pintadas)", ato: 'Res Gecex 272/2021' })
  })

  test('the 2022 layout: pretty-printed, no "Ato", act fields without _Ini and a zero-padded number', () => {
    const t = lerTabelaNcm(bytes('real/ncm-2022-formato-antigo.json'), '2026-11-24')
    expect([t.vigencia, t.referencia, t.ato, t.linhas.map((l) => l.codigo)]).toEqual(['04/02/2022', '2022-02-04', null, ['01', '0101', '01012', '01012100', '01012900']])
    expect(t.linhas[3]).toEqual({ codigo: '01012100', descricao: 'Reprodutores de raça pura', descricao_original: '-- Reprodutores de raça pura', inicio: '2022-04-01', fim: null, ato: 'Res Camex 272/2021' })
  })

  test('a byte order mark is accepted', () => {
    const raw = bytes('real/Tabela_NCM_Vigente_20261005-trechos.json')
    expect(lerTabelaNcm(new Uint8Array([0xef, 0xbb, 0xbf, ...raw])).linhas.length).toBe(7)
  })

  test('codes of impossible lengths, ended codes and repeated codes are dropped and counted', () => {
    const row = (c: string, fim = '31/12/9999', ini = '01/04/2022') => ({ Codigo: c, Descricao: `d${c}`, Data_Inicio: ini, Data_Fim: fim, Tipo_Ato_Ini: 'Res Gecex', Numero_Ato_Ini: '272', Ano_Ato_Ini: '2021' })
    const doc = { Data_Ultima_Atualizacao_NCM: 'Vigente em 01/10/2026', Ato: 'x', Nomenclaturas: [row('01'), row('010'), row('0101.21.001'), row('AB.CD'), row('0101.21.00', '31/12/2025'), row('0101.29.00'), row('0101.29.00', '31/12/9999', '01/01/2026'), null] }
    const t = lerTabelaNcm(enc(JSON.stringify(doc)), '2026-11-24')
    expect(t.linhas.map((l) => [l.codigo, l.inicio])).toEqual([['01', '2022-04-01'], ['01012900', '2026-01-01']])
    expect(t.descartadas).toEqual({ codigo_invalido: 4, fora_de_vigencia: 1, repetidas: 1 })
  })

  test('refuses what is not the table, saying what it got', () => {
    const err = (b: Uint8Array) => {
      try {
        lerTabelaNcm(b)
      } catch (e) {
        expect(e).toBeInstanceOf(TabelaNcmError)
        return (e as Error).message
      }
      throw new Error('aceitou')
    }
    expect(err(enc('<html><body>Portal em manutenção</body></html>'))).toContain('não é JSON válido')
    expect(err(enc('<html><body>Portal em manutenção</body></html>'))).toContain('"<html><body>Portal em manutenção</body><"')
    const full = bytes('tributos-amostra/Tabela_NCM_Vigente_20250513.json')
    expect(err(full.subarray(0, 20_000))).toContain('não é JSON válido')
    expect(err(enc('[1,2]'))).toContain('esperado um objeto')
    expect(err(enc('{"Data_Ultima_Atualizacao_NCM":"Vigente em 01/10/2026"}'))).toContain('falta a lista "Nomenclaturas"')
    expect(err(enc('{"Data_Ultima_Atualizacao_NCM":"hoje","Nomenclaturas":[]}'))).toContain('data da tabela ilegível')
    expect(err(new Uint8Array([0x7b, 0xe9, 0x7d]))).toContain('não é texto UTF-8')
  })
})

describe('value rules', () => {
  test('limparDescricao', () => {
    expect(limparDescricao('-- <i>Aedes</i> aegypti:')).toBe('Aedes aegypti:')
    expect(limparDescricao('- Sucos &amp; polpas &#233; &#xe9;')).toBe('Sucos & polpas é é')
    expect(limparDescricao('Outros')).toBe('Outros')
    expect(limparDescricao('  ---  Outras   peças ')).toBe('Outras peças')
  })

  test('dataBr', () => {
    expect([dataBr('01/04/2022'), dataBr('31/12/9999'), dataBr('31/02/2022'), dataBr('2022-04-01'), dataBr(null)]).toEqual(['2022-04-01', null, null, null, null])
  })
})
