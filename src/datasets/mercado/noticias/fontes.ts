// The news feeds polled every 15 minutes. Each default outlet's address is a setting of its own
// (a mirror, a proxy or a local recording can stand in); MERCADO_NOTICIAS_FONTES chooses which run
// and adds others: a comma- or newline-separated list of default ids and `Veículo=https://...` pairs.
import { defineUpstream, UpstreamConfigError, upstreamUrl, type UpstreamSetting } from '../../../core/upstream'

export interface Veiculo {
  id: string
  veiculo: string
  upstream: UpstreamSetting
}

const outlet = (id: string, veiculo: string, env: string, url: string, formato: string): Veiculo => ({
  id,
  veiculo,
  upstream: defineUpstream(env, url, `feed de ${veiculo} (${formato})`),
})

/** Real public feeds of major Brazilian financial, economic and crypto outlets (docs/mercado.md says how each was chosen). */
export const VEICULOS_PADRAO: Veiculo[] = [
  outlet('infomoney', 'InfoMoney', 'NOTICIAS_INFOMONEY_URL', 'https://www.infomoney.com.br/feed/', 'RSS 2.0, WordPress'),
  outlet('folha-mercado', 'Folha de S.Paulo', 'NOTICIAS_FOLHA_URL', 'https://feeds.folha.uol.com.br/mercado/rss091.xml', 'RSS 0.91, ISO-8859-1'),
  outlet('g1-economia', 'g1', 'NOTICIAS_G1_URL', 'https://g1.globo.com/rss/g1/economia/', 'RSS 2.0'),
  outlet('exame', 'Exame', 'NOTICIAS_EXAME_URL', 'https://exame.com/feed/', 'RSS 2.0, WordPress'),
  outlet('agencia-brasil', 'Agência Brasil', 'NOTICIAS_AGENCIA_BRASIL_URL', 'https://agenciabrasil.ebc.com.br/rss/economia/feed.xml', 'RSS 2.0'),
  outlet('poder360', 'Poder360', 'NOTICIAS_PODER360_URL', 'https://www.poder360.com.br/feed/', 'RSS 2.0, WordPress'),
  outlet('money-times', 'Money Times', 'NOTICIAS_MONEY_TIMES_URL', 'https://www.moneytimes.com.br/feed/', 'RSS 2.0, WordPress'),
  outlet('cointelegraph', 'Cointelegraph Brasil', 'NOTICIAS_COINTELEGRAPH_URL', 'https://br.cointelegraph.com/rss', 'RSS 2.0'),
  outlet('portal-do-bitcoin', 'Portal do Bitcoin', 'NOTICIAS_PORTAL_DO_BITCOIN_URL', 'https://portaldobitcoin.uol.com.br/feed/atom/', 'Atom 1.0, WordPress'),
]

export const FONTES_ENV = 'MERCADO_NOTICIAS_FONTES'

export interface FeedConfigurado {
  id: string
  veiculo: string
  url: string
}

/** The feed's address as configured: the setting (validated http/https) kept as written, trailing slash included (WordPress feeds end in /). */
function addressOf(u: UpstreamSetting, env: Record<string, string | undefined>): string {
  upstreamUrl(u, env)
  return env[u.env]?.trim() || u.padrao
}

/** The feeds to poll, in order: MERCADO_NOTICIAS_FONTES when set, else every default outlet. */
export function feedsConfigurados(env: Record<string, string | undefined> = process.env): FeedConfigurado[] {
  const list = env[FONTES_ENV]?.trim()
  if (!list) return VEICULOS_PADRAO.map((v) => ({ id: v.id, veiculo: v.veiculo, url: addressOf(v.upstream, env) }))
  const out: FeedConfigurado[] = []
  for (const entry of list.split(/[,\n]/).map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=')
    if (eq < 0) {
      const v = VEICULOS_PADRAO.find((d) => d.id === entry)
      if (!v) throw new UpstreamConfigError(`configuração inválida: ${FONTES_ENV}: '${entry}' não é um veículo padrão (${VEICULOS_PADRAO.map((d) => d.id).join(', ')}) nem um par Veículo=https://...`)
      out.push({ id: v.id, veiculo: v.veiculo, url: addressOf(v.upstream, env) })
      continue
    }
    const veiculo = entry.slice(0, eq).trim()
    const url = entry.slice(eq + 1).trim()
    let ok = false
    try {
      ok = ['http:', 'https:'].includes(new URL(url).protocol)
    } catch {}
    if (!veiculo || !ok) throw new UpstreamConfigError(`configuração inválida: ${FONTES_ENV}: '${entry}' deve ser Veículo=https://endereço-do-feed`)
    out.push({ id: veiculo.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''), veiculo, url })
  }
  return out
}
