// The Receita Federal's municipality table (TOM ↔ IBGE), an upstream of two builds: the registry
// (the IBGE code of each establishment's municipality) and the deforestation alerts (which come by
// IBGE code). Its parser is ingest/lib/municipios-rfb.ts.
import { defineUpstream } from './upstream'

export const RFB_MUNICIPIOS = defineUpstream(
  'RFB_MUNICIPIOS_URL',
  'https://www.gov.br/receitafederal/dados/municipios.csv',
  'tabela de municípios da Receita Federal (código TOM do CNPJ ↔ código IBGE), municipios.csv',
)

/** The name the table is kept under (in a --from folder, beside the zips or the DETER files). */
export const MUNICIPIOS_ARQUIVO = 'municipios.csv'
