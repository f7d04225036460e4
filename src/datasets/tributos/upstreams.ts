import { defineUpstream } from '../../core/upstream'

/** The public API of the Portal Único Siscomex's classification module; the table is <base>/nomenclatura/download/json?perfil=PUBLICO. */
export const SISCOMEX_CLASSIF = defineUpstream(
  'SISCOMEX_CLASSIF_URL',
  'https://portalunico.siscomex.gov.br/classif/api/publico',
  'Tabela NCM vigente do Portal Único Siscomex (JSON com códigos, descrições e vigências)',
)

/** Path of the table's download under the base URL. */
export const TABELA_NCM_PATH = '/nomenclatura/download/json?perfil=PUBLICO'
