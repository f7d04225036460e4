// Every upstream the commodities dataset reads, each a setting with the real default (src/core/upstream.ts).
import { defineUpstream } from '../../core/upstream'

export const OPEN_METEO = defineUpstream('OPEN_METEO_URL', 'https://api.open-meteo.com', 'previsão do tempo Open-Meteo (/v1/forecast): chuva e temperatura dos cinturões agrícolas')
export const OPEN_METEO_ARQUIVO = defineUpstream('OPEN_METEO_ARCHIVE_URL', 'https://archive-api.open-meteo.com', 'histórico Open-Meteo (/v1/archive, reanálise ERA5, ~5 dias de atraso): chuva observada')
export const INPE_QUEIMADAS = defineUpstream('INPE_QUEIMADAS_URL', 'https://dataserver-coids.inpe.br/queimadas/queimadas/focos/csv', 'arquivos CSV de focos de queimadas do INPE (diario/Brasil/focos_diario_br_AAAAMMDD.csv)')
export const ONS_EAR = defineUpstream('ONS_EAR_URL', 'https://ons-aws-prod-opendata.s3.amazonaws.com/dataset/ear_subsistema_di', 'dados abertos do ONS: energia armazenada diária por subsistema (EAR_DIARIO_SUBSISTEMA_AAAA.csv)')
export const COMEXSTAT = defineUpstream('COMEXSTAT_URL', 'https://balanca.economia.gov.br/balanca/bd/comexstat-bd/ncm', 'arquivos da balança comercial (ComexStat/MDIC) por NCM: EXP_AAAA.csv')
