import { defineUpstream } from '../../core/upstream'

/** TerraBrasilis file delivery: <base>/deter-amz/shape and <base>/deter-cerrado-nb/shape answer the public shapefile zips. */
export const DETER_DOWNLOAD = defineUpstream(
  'DETER_URL',
  'https://terrabrasilis.dpi.inpe.br/file-delivery/download',
  'alertas DETER do INPE (TerraBrasilis): shapefiles públicos da Amazônia (deter-amz) e do Cerrado (deter-cerrado-nb)',
)

/** The Receita Federal's municipality table (TOM ↔ IBGE codes), shared with the registry's build. */
export { RFB_MUNICIPIOS } from '../../core/municipios-rfb'

/** The two DETER projects: path under DETER_URL and the name the zip is saved under. */
export const DETER_PROJETOS = {
  amazonia: { caminho: 'deter-amz/shape', arquivo: 'deter-amz-public.zip' },
  cerrado: { caminho: 'deter-cerrado-nb/shape', arquivo: 'deter-cerrado-nb-public.zip' },
} as const
