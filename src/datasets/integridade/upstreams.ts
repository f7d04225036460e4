// The integrity lists' upstreams: settings with the real defaults (the ingest downloads from them;
// listed by the server's --help and the docs).
import { defineUpstream } from '../../core/upstream'

export const CGU_DOWNLOADS = defineUpstream('CGU_DOWNLOADS_URL', 'https://portaldatransparencia.gov.br/download-de-dados', 'downloads diários do Portal da Transparência (CEIS, CNEP, CEPIM, acordos de leniência)')

export const MTE_CADASTRO = defineUpstream(
  'MTE_CADASTRO_URL',
  'https://www.gov.br/trabalho-e-emprego/pt-br/assuntos/inspecao-do-trabalho/areas-de-atuacao/cadastro_de_empregadores.csv',
  'cadastro de empregadores do MTE (trabalho análogo ao de escravo), CSV',
)
