// News feeds as the outlets publish them: charset from BOM, header or prolog (ISO-8859-1 with cp1252
// quotes inside, UTF-8 declared over Latin-1 bytes), RSS 0.91/2.0 and Atom, entities and CDATA HTML,
// items without date, in the future, with a relative link; the same story in two outlets merged once.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeFeed } from '../../src/datasets/mercado/noticias/charset'
import { feedsConfigurados, VEICULOS_PADRAO } from '../../src/datasets/mercado/noticias/fontes'
import { canonicalLink, mergeStories, type NoticiaClassificada } from '../../src/datasets/mercado/noticias/merge'
import { parseItems } from '../../src/datasets/mercado/noticias/parse'

const FEEDS = join(import.meta.dir, 'fixtures', 'feeds')
const bytes = (f: string) => new Uint8Array(readFileSync(join(FEEDS, f)))
const NOW = Date.parse('2026-01-29T15:30:00Z')

describe('charset', () => {
  test('ISO-8859-1 in the prolog, no charset in the header: Latin-1 letters and the cp1252 quotes and dash the outlet meant', () => {
    const d = decodeFeed(bytes('folha-iso-8859-1.xml'), 'text/xml')
    expect(d.charset).toBe('iso-8859-1')
    expect(d.text).toContain('<title>Dólar cai 1,4% e fecha a R$ 5,20, menor nível desde maio de 2024</title>')
    expect(d.text).toContain('“alívio” segue – diz analista')
  })

  test('a header saying UTF-8 over Latin-1 bytes: decoded as cp1252 and said so', () => {
    const d = decodeFeed(bytes('declarado-utf8-bytes-latin1.xml'), 'application/rss+xml; charset=UTF-8')
    expect(d.charset).toBe('windows-1252 (declarado utf-8, bytes não são utf-8)')
    expect(d.text).toContain('Inflação desacelera e ações de varejo sobem')
  })

  test('a UTF-8 byte-order mark wins, and is not left in the text', () => {
    const d = decodeFeed(bytes('utf8-com-bom.xml'), 'text/xml; charset=iso-8859-1')
    expect(d.charset).toBe('utf-8 (BOM)')
    expect(d.text.startsWith('<?xml')).toBe(true)
    expect(d.text).toContain('Câmbio: real é a moeda')
  })

  test('a header saying ISO-8859-1 over a file that declares and is UTF-8: the header is wrong', () => {
    const d = decodeFeed(bytes('wordpress-rss.xml'), 'text/xml; charset=ISO-8859-1')
    expect(d.charset).toBe('utf-8 (o cabeçalho dizia iso-8859-1)')
    expect(d.text).toContain('Veículo Exemplo')
  })
})

describe('parse', () => {
  test('RSS 0.91 in ISO-8859-1: exact items; the item without title is dropped; entities decoded', () => {
    const { formato, itens } = parseItems(decodeFeed(bytes('folha-iso-8859-1.xml'), 'text/xml').text, NOW)
    expect(formato).toBe('rss 0.9')
    expect(itens).toEqual([
      {
        titulo: 'Dólar cai 1,4% e fecha a R$ 5,20, menor nível desde maio de 2024',
        resumo: 'Moeda recua com fluxo estrangeiro & IPCA-15 abaixo do esperado; “alívio” segue – diz analista',
        link: 'https://www1.folha.uol.com.br/mercado/2026/01/dolar-cai-e-fecha-a-r-520.shtml',
        publicado_em: '2026-01-27T20:21:00.000Z',
      },
      {
        titulo: 'Companhia Exemplo de Energia S.A. anuncia lucro recorde no trimestre',
        resumo: 'Resultado fictício de teste.',
        link: 'https://www1.folha.uol.com.br/mercado/2026/01/companhia-exemplo-lucro.shtml',
        publicado_em: '2026-01-27T12:05:00.000Z',
      },
    ])
  })

  test('WordPress RSS: CDATA HTML and &nbsp; to plain text, the "O post ... apareceu primeiro em" footer cut; no date is null; a future date is null; a relative link resolved against the site', () => {
    const { itens } = parseItems(decodeFeed(bytes('wordpress-rss.xml'), null).text, NOW)
    expect(itens.map((i) => [i.titulo, i.resumo, i.publicado_em])).toEqual([
      ['Dólar fecha em queda de 1,41%, a R$ 5,2056, no menor patamar desde 2024', 'O dólar à vista recuou 1,41% nesta terça-feira – a moeda fechou a R$ 5,2056 .', '2026-01-27T20:40:12.000Z'],
      ['Bitcoin recua para US$ 88 mil antes da decisão do Fed', 'Sem data no feed.', null],
      ['Notícia do futuro', null, null],
      ['Item sem link', null, null],
      ['Notícia antiga demais', null, '2026-01-05T12:00:00.000Z'],
    ])
    expect(itens[3]!.link).toBe('https://exemplo.com.br/relativo/')
    expect(itens[0]!.link).toBe('https://exemplo.com.br/mercados/dolar-fecha-em-queda-2701/?utm_source=rss&utm_medium=rss')
  })

  test('WordPress Atom: html titles with entities, summary, published date', () => {
    const { formato, itens } = parseItems(decodeFeed(bytes('wordpress-atom.xml'), 'application/atom+xml; charset=UTF-8').text, NOW)
    expect(formato).toBe('atom 1.0')
    expect(itens[0]).toEqual({
      titulo: 'Bitcoin cai abaixo de US$ 88 mil – liquidações somam US$ 1 bilhão',
      resumo: 'As liquidações “derrubaram” o mercado […]',
      link: 'https://cripto.exemplo.com.br/bitcoin-cai-abaixo-de-88-mil/',
      publicado_em: '2026-01-28T18:31:00.000Z',
    })
  })

  test('an HTML page is not a feed', () => {
    expect(() => parseItems(decodeFeed(bytes('pagina-html.html'), 'text/html').text, NOW)).toThrow('não é um feed RSS ou Atom legível')
  })
})

describe('merge', () => {
  const item = (veiculo: string, titulo: string, link: string, publicado_em: string | null, relevancia = 5): NoticiaClassificada => ({
    id: canonicalLink(link),
    veiculo,
    titulo,
    resumo: null,
    link,
    publicado_em,
    tema: 'cambio',
    sentimento: 'positivo',
    relevancia,
    classificador: 'lexico',
  })

  test('the same story from two outlets is one item: the first to publish leads, the other is listed; relevance +1 per other outlet', () => {
    const merged = mergeStories(
      [
        item('Folha de S.Paulo', 'Dólar cai 1,4% e fecha a R$ 5,20, menor nível desde maio de 2024', 'https://www1.folha.uol.com.br/a.shtml', '2026-01-27T20:21:00.000Z'),
        item('Portal Cripto Exemplo', 'Dólar cai 1,4% e fecha a R$ 5,20, o menor nível desde maio de 2024', 'https://cripto.exemplo.com.br/b/', '2026-01-27T21:02:00.000Z', 6),
        item('Veículo Exemplo', 'Bitcoin recua para US$ 88 mil antes da decisão do Fed', 'https://exemplo.com.br/c/', '2026-01-28T10:00:00.000Z', 4),
      ],
      10,
    )
    expect(merged.map((m) => [m.veiculo, m.relevancia, m.outras_fontes.map((o) => o.veiculo)])).toEqual([
      ['Veículo Exemplo', 4, []],
      ['Folha de S.Paulo', 7, ['Portal Cripto Exemplo']],
    ])
  })

  test('alike titles days apart, or twice in the same outlet, stay apart; the same link (tracking query aside) is one item', () => {
    const merged = mergeStories(
      [
        item('A', 'Dólar fecha em alta a R$ 5,40 com cautela fiscal', 'https://a.com/1', '2026-01-20T20:00:00.000Z'),
        item('B', 'Dólar fecha em alta a R$ 5,40 com cautela fiscal', 'https://b.com/1', '2026-01-27T20:00:00.000Z'),
        item('B', 'Dólar fecha em alta a R$ 5,40 com cautela fiscal hoje', 'https://b.com/2', '2026-01-27T21:00:00.000Z'),
        item('C', 'Outro título qualquer', 'https://b.com/1?utm_source=rss', '2026-01-27T22:00:00.000Z'),
      ],
      10,
    )
    expect(merged.map((m) => [m.veiculo, m.link, m.outras_fontes.length])).toEqual([
      ['B', 'https://b.com/2', 0],
      ['B', 'https://b.com/1', 1],
      ['A', 'https://a.com/1', 0],
    ])
  })
})

describe('the list of feeds (MERCADO_NOTICIAS_FONTES)', () => {
  test('unset: every default outlet, each address its own setting, trailing slash kept', () => {
    const list = feedsConfigurados({})
    expect(list.map((f) => f.id)).toEqual(VEICULOS_PADRAO.map((v) => v.id))
    expect(list[0]).toEqual({ id: 'infomoney', veiculo: 'InfoMoney', url: 'https://www.infomoney.com.br/feed/' })
    expect(feedsConfigurados({ NOTICIAS_INFOMONEY_URL: 'http://127.0.0.1:9/x/' })[0]!.url).toBe('http://127.0.0.1:9/x/')
  })

  test('default ids and Veículo=URL pairs, comma or newline separated', () => {
    expect(feedsConfigurados({ MERCADO_NOTICIAS_FONTES: 'folha-mercado,\n Valor Econômico=https://valor.globo.com/rss/valor ' })).toEqual([
      { id: 'folha-mercado', veiculo: 'Folha de S.Paulo', url: 'https://feeds.folha.uol.com.br/mercado/rss091.xml' },
      { id: 'valor-economico', veiculo: 'Valor Econômico', url: 'https://valor.globo.com/rss/valor' },
    ])
  })

  test('an unknown id or a bad pair says what is accepted', () => {
    expect(() => feedsConfigurados({ MERCADO_NOTICIAS_FONTES: 'infomoney,bloomberg' })).toThrow(
      "configuração inválida: MERCADO_NOTICIAS_FONTES: 'bloomberg' não é um veículo padrão (infomoney, folha-mercado, g1-economia, exame, agencia-brasil, poder360, money-times, cointelegraph, portal-do-bitcoin) nem um par Veículo=https://...",
    )
    expect(() => feedsConfigurados({ MERCADO_NOTICIAS_FONTES: 'X=ftp://x' })).toThrow("'X=ftp://x' deve ser Veículo=https://endereço-do-feed")
  })
})
