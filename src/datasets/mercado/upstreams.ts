// Every upstream the markets dataset reads, each a setting with the real default (src/core/upstream.ts).
import { defineUpstream } from '../../core/upstream'

export const BCB_SGS = defineUpstream('BCB_SGS_URL', 'https://api.bcb.gov.br/dados/serie', 'séries temporais do Banco Central (SGS: Selic meta 432, IPCA 433 e 13522)')
export const BCB_OLINDA = defineUpstream('BCB_OLINDA_URL', 'https://olinda.bcb.gov.br/olinda/servico', 'serviços OData do Banco Central (PTAX e Focus)')

export const MERCADO_BITCOIN = defineUpstream('MERCADO_BITCOIN_URL', 'https://api.mercadobitcoin.net', 'API pública do Mercado Bitcoin (tickers v4)')
export const FOXBIT = defineUpstream('FOXBIT_URL', 'https://api.foxbit.com.br', 'API pública da Foxbit (REST v3)')
export const NOVADAX = defineUpstream('NOVADAX_URL', 'https://api.novadax.com', 'API pública da NovaDAX (market ticker)')
export const COINBASE = defineUpstream('COINBASE_URL', 'https://api.coinbase.com', 'preço à vista BTC-USD da Coinbase')
export const KRAKEN = defineUpstream('KRAKEN_URL', 'https://api.kraken.com', 'ticker XBTUSD da Kraken')
