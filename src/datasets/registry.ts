// Every dataset of the service. Adding one = a folder under src/datasets/ (and ingest/,
// test/) plus one line here; the registry test checks the rest.
import type { Dataset } from '../core/dataset'
import { bcb } from './bcb'
import { cadeias } from './cadeias'
import { commodities } from './commodities'
import { cnpj } from './cnpj'
import { desmatamento } from './desmatamento'
import { ferramentas } from './ferramentas'
import { fundos } from './fundos'
import { integridade } from './integridade'
import { licitacoes } from './licitacoes'
import { empresa } from './empresa'
import { mercado } from './mercado'
import { pacotes } from './pacotes'
import { tributos } from './tributos'

export const DATASETS: Dataset[] = [ferramentas, cnpj, licitacoes, integridade, fundos, bcb, mercado, commodities, empresa, tributos, desmatamento, cadeias, pacotes]
