import { defineUpstream } from '../../core/upstream'

/** The monthly zips: <base>/<pasta do segmento>/<AAAAMM><CHAVE>.zip (e.g. .../Bancos_comerciais-multiplos-caixa/202405BANCOS.zip). */
export const BCB_INSTITUICOES = defineUpstream(
  'BCB_INSTITUICOES_URL',
  'https://www.bcb.gov.br/content/estabilidadefinanceira/relacao_instituicoes_funcionamento',
  'relação mensal de instituições em funcionamento no país (Banco Central), um zip por segmento',
)
