// Live BTC/BRL and USDT/BRL from the public tickers of three Brazilian exchanges, and BTC/USD from
// two global ones: each quote as the exchange gave it, and the median per pair. Fetched at request
// time with a 15 s cache (a sub-minute feed: src/core/feeds, waitOnStaleMs); a request never waits
// past the bound, and when every exchange fails the last good copy is served with its age.
import { FeedFailure, type FeedDef, type FeedFetchContext } from '../../core/feeds/feed'
import { COINBASE, FOXBIT, KRAKEN, MERCADO_BITCOIN, NOVADAX } from './upstreams'
import { decimal, isRecord, readJson } from './json'

export type Par = 'btc_brl' | 'usdt_brl' | 'btc_usd'

export interface Cotacao {
  fonte: string
  /** Last trade price. */
  preco: number
  /** Best bid and ask, when the ticker has them. */
  compra: number | null
  venda: number | null
  /** The exchange's own time for the ticker (ISO 8601), when it gives one. */
  horario: string | null
}

export interface ParCotado {
  /** Median of the quotes' last prices. */
  mediana: number
  cotacoes: Cotacao[]
}

export interface CriptoDados {
  pares: Record<Par, ParCotado | null>
  /** Each exchange (and pair) that failed in this refresh. */
  falhas: { fonte: string; erro: string }[]
}

interface Quoted extends Cotacao {
  par: Par
}

const iso = (ms: number) => (Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null)

function price(value: unknown, what: string): number {
  const n = decimal(value)
  if (n === null || n <= 0) throw new Error(`${what}: preço fora do formato (${JSON.stringify(value)?.slice(0, 40)})`)
  return n
}
const optional = (value: unknown) => {
  const n = decimal(value)
  return n !== null && n > 0 ? n : null
}

/** Mercado Bitcoin v4 `GET /api/v4/tickers?symbols=BTC-BRL,USDT-BRL`: [{pair, last, buy, sell, date (s)}], prices as strings. */
export function parseMercadoBitcoin(body: unknown): Quoted[] {
  if (!Array.isArray(body)) throw new Error('Mercado Bitcoin: resposta não é a lista de tickers')
  const out: Quoted[] = []
  for (const row of body) {
    if (!isRecord(row)) continue
    const par = row.pair === 'BTC-BRL' ? 'btc_brl' : row.pair === 'USDT-BRL' ? 'usdt_brl' : null
    if (!par) continue
    out.push({ par, fonte: 'Mercado Bitcoin', preco: price(row.last, 'Mercado Bitcoin'), compra: optional(row.buy), venda: optional(row.sell), horario: iso(Number(row.date) * 1000) })
  }
  if (!out.length) throw new Error('Mercado Bitcoin: nenhum dos pares BTC-BRL, USDT-BRL na resposta')
  return out
}

/** Foxbit REST v3 `GET /rest/v3/markets/{btcbrl|usdtbrl}/ticker/24hr`: {data:[{market_symbol, last_trade:{price,date}, best:{bid:{price}, ask:{price}}}]}. */
export function parseFoxbit(body: unknown, par: Par): Quoted {
  const symbol = par === 'btc_brl' ? 'btcbrl' : 'usdtbrl'
  const rows = isRecord(body) && Array.isArray(body.data) ? body.data : null
  const row = rows?.find((r) => isRecord(r) && r.market_symbol === symbol)
  if (!isRecord(row)) throw new Error(`Foxbit: mercado ${symbol} ausente da resposta`)
  const last = isRecord(row.last_trade) ? row.last_trade : {}
  const best = isRecord(row.best) ? row.best : {}
  const bid = isRecord(best.bid) ? best.bid.price : null
  const ask = isRecord(best.ask) ? best.ask.price : null
  return { par, fonte: 'Foxbit', preco: price(last.price, 'Foxbit'), compra: optional(bid), venda: optional(ask), horario: typeof last.date === 'string' ? iso(Date.parse(last.date)) : null }
}

/** NovaDAX `GET /v1/market/ticker?symbol=BTC_BRL`: {code:"A10000", data:{lastPrice, bid, ask, timestamp (ms)}, message}. */
export function parseNovadax(body: unknown, par: Par): Quoted {
  if (!isRecord(body) || body.code !== 'A10000' || !isRecord(body.data)) {
    const msg = isRecord(body) ? `${body.code ?? ''} ${body.message ?? ''}`.trim() : ''
    throw new Error(`NovaDAX: resposta de erro${msg ? ` (${msg})` : ''}`)
  }
  const d = body.data
  return { par, fonte: 'NovaDAX', preco: price(d.lastPrice, 'NovaDAX'), compra: optional(d.bid), venda: optional(d.ask), horario: iso(Number(d.timestamp)) }
}

/** Coinbase `GET /v2/prices/BTC-USD/spot`: {data:{amount:"89269.46", base:"BTC", currency:"USD"}}. */
export function parseCoinbase(body: unknown): Quoted {
  const d = isRecord(body) && isRecord(body.data) ? body.data : null
  if (!d || d.base !== 'BTC' || d.currency !== 'USD') throw new Error('Coinbase: resposta sem o preço BTC-USD')
  return { par: 'btc_usd', fonte: 'Coinbase', preco: price(d.amount, 'Coinbase'), compra: null, venda: null, horario: null }
}

/** Kraken `GET /0/public/Ticker?pair=XBTUSD`: {error:[], result:{XXBTZUSD:{a:[ask,..], b:[bid,..], c:[last, vol]}}}. */
export function parseKraken(body: unknown): Quoted {
  if (!isRecord(body)) throw new Error('Kraken: resposta fora do formato')
  if (Array.isArray(body.error) && body.error.length) throw new Error(`Kraken: ${body.error.join(', ')}`)
  const result = isRecord(body.result) ? body.result : {}
  const t = Object.values(result)[0]
  if (!isRecord(t) || !Array.isArray(t.c)) throw new Error('Kraken: resposta sem o ticker XBTUSD')
  const first = (v: unknown) => (Array.isArray(v) ? v[0] : null)
  return { par: 'btc_usd', fonte: 'Kraken', preco: price(first(t.c), 'Kraken'), compra: optional(first(t.b)), venda: optional(first(t.a)), horario: null }
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const get = async (ctx: FeedFetchContext, url: string, what: string) => readJson(await ctx.fetch(url, { headers: { accept: 'application/json' } }), what)

/** Every ticker asked in one refresh: each source with its own failure. */
function sources(ctx: FeedFetchContext): { fonte: string; run: () => Promise<Quoted[]> }[] {
  const foxbit = (par: Par, m: string) => async () => [parseFoxbit(await get(ctx, `${ctx.url(FOXBIT)}/rest/v3/markets/${m}/ticker/24hr`, 'Foxbit'), par)]
  const novadax = (par: Par, s: string) => async () => [parseNovadax(await get(ctx, `${ctx.url(NOVADAX)}/v1/market/ticker?symbol=${s}`, 'NovaDAX'), par)]
  return [
    { fonte: 'Mercado Bitcoin', run: async () => parseMercadoBitcoin(await get(ctx, `${ctx.url(MERCADO_BITCOIN)}/api/v4/tickers?symbols=BTC-BRL,USDT-BRL`, 'Mercado Bitcoin')) },
    { fonte: 'Foxbit (BTC/BRL)', run: foxbit('btc_brl', 'btcbrl') },
    { fonte: 'Foxbit (USDT/BRL)', run: foxbit('usdt_brl', 'usdtbrl') },
    { fonte: 'NovaDAX (BTC/BRL)', run: novadax('btc_brl', 'BTC_BRL') },
    { fonte: 'NovaDAX (USDT/BRL)', run: novadax('usdt_brl', 'USDT_BRL') },
    { fonte: 'Coinbase', run: async () => [parseCoinbase(await get(ctx, `${ctx.url(COINBASE)}/v2/prices/BTC-USD/spot`, 'Coinbase'))] },
    { fonte: 'Kraken', run: async () => [parseKraken(await get(ctx, `${ctx.url(KRAKEN)}/0/public/Ticker?pair=XBTUSD`, 'Kraken'))] },
  ]
}

export const CRIPTO_FEED: FeedDef<CriptoDados> = {
  name: 'mercado-cripto',
  dataset: 'mercado',
  base: 'Mercado Bitcoin, Foxbit e NovaDAX (BRL); Coinbase e Kraken (USD)',
  upstreams: [MERCADO_BITCOIN, FOXBIT, NOVADAX, COINBASE, KRAKEN],
  intervalMinutes: 0.25,
  timeoutMs: 4000,
  waitOnStaleMs: 800,
  async fetch(_key, ctx) {
    const list = sources(ctx)
    const results = await Promise.allSettled(list.map((s) => s.run()))
    const quotes: Quoted[] = []
    const falhas: CriptoDados['falhas'] = []
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') quotes.push(...r.value)
      else falhas.push({ fonte: list[i]!.fonte, erro: r.reason instanceof Error ? r.reason.message : String(r.reason) })
    })
    const pair = (par: Par): ParCotado | null => {
      const cotacoes = quotes.filter((q) => q.par === par).map(({ par: _, ...q }) => q)
      return cotacoes.length ? { mediana: median(cotacoes.map((q) => q.preco)), cotacoes } : null
    }
    const pares = { btc_brl: pair('btc_brl'), usdt_brl: pair('usdt_brl'), btc_usd: pair('btc_usd') }
    // No Brazilian exchange answered: that is an outage (the last good copy stays), not a copy to serve.
    // Each failure is kept with the error, so /v1/mercado/cambio lists them while it serves the older copy.
    if (!pares.btc_brl && !pares.usdt_brl) throw new FeedFailure(`nenhuma corretora brasileira respondeu: ${falhas.map((f) => `${f.fonte}: ${f.erro}`).join('; ')}`, falhas)
    return { pares, falhas }
  },
}
