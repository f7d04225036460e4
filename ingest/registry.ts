// Every dataset `dadosbr ingest` can build, each from its own folder under ingest/. A dataset
// declares its command (flags, what it downloads) and its bundled sample: the real-format files
// (or upstream recordings, for polled sources) that `--amostra` builds from through the same code,
// embedded in the executable so `dadosbr ingest <base> --amostra` works anywhere. The command's
// type lives in ingest/lib/dataset.ts, so the datasets never import this list.
import { bcbIngest } from './bcb/command'
import { cadeiasIngest } from './cadeias/command'
import { cnpjIngest } from './cnpj/command'
import { commoditiesIngest, exportacoesIngest } from './commodities/command'
import { desmatamentoIngest } from './desmatamento/command'
import { fundosIngest } from './fundos/command'
import { integridadeIngest } from './integridade/command'
import type { IngestDataset } from './lib/dataset'
import { licitacoesIngest } from './licitacoes/command'
import { mercadoIngest } from './mercado/command'
import { tributosIngest } from './tributos/command'

export const INGESTS: IngestDataset[] = [cnpjIngest, licitacoesIngest, integridadeIngest, fundosIngest, bcbIngest, mercadoIngest, exportacoesIngest, commoditiesIngest, tributosIngest, desmatamentoIngest, cadeiasIngest]

export function ingestNamed(name: string): IngestDataset | undefined {
  return INGESTS.find((i) => i.name === name)
}
