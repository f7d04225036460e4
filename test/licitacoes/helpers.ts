import { licitacoesIngest } from '../../ingest/licitacoes/command'
import { tempDir } from '../temp'

/** A data directory with this dataset's bundled sample, built by `dadosbr ingest licitacoes --amostra`'s code. */
export async function sampleDir(): Promise<string> {
  const dataDir = tempDir('licitacoes-amostra-')
  await licitacoesIngest.sample({ flags: {}, dataDir, quiet: true, log: () => {} }, false)
  return dataDir
}
