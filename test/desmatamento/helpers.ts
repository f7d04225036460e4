import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildDesmatamento } from '../../ingest/desmatamento/load'
import { DATASET } from '../../src/datasets/desmatamento/layout'
import { municipioObjeto } from '../../src/datasets/desmatamento/service'
import { openDesmatamentoFiles, type DesmatamentoFiles } from '../../src/datasets/desmatamento/store'
import { tempDir } from '../temp'

/** The bundled sample: real DETER alerts (Amazon and Cerrado) plus the constructed ones its README lists. */
export const SAMPLE = join(import.meta.dir, 'fixtures', 'desmatamento-amostra')

export function copySample(): string {
  const dir = tempDir('dadosbr-desm-src-')
  for (const f of readdirSync(SAMPLE)) copyFileSync(join(SAMPLE, f), join(dir, f))
  return dir
}

export function openBuild(dataDir: string): DesmatamentoFiles {
  return openDesmatamentoFiles(join(dataDir, DATASET, 'current'))
}

/** A municipality's answer (without fonte) from the build in use of dataDir. */
export function answer(dataDir: string, ibge: string) {
  const files = openBuild(dataDir)
  try {
    return municipioObjeto(files, ibge)
  } finally {
    files.db.close()
  }
}

export async function buildSample(dir = SAMPLE, dataDir = tempDir('dadosbr-desm-data-')): Promise<string> {
  await buildDesmatamento({ dir, dataDir, force: true, quiet: true })
  return dataDir
}
