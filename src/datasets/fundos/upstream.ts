// The CVM's open-data server for funds: a setting with the real default (the ingest reads it;
// listed here so --help and the docs name it with the dataset).
import { defineUpstream } from '../../core/upstream'

export const CVM_FI_UPSTREAM = defineUpstream('CVM_FI_URL', 'https://dados.cvm.gov.br/dados/FI', 'dados abertos de fundos da CVM: informes diários, cadastro e carteiras')
