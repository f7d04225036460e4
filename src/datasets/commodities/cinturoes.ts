// The crop belts and crops, kept as data (cinturoes.json): adding a belt is a line there.
import data from './cinturoes.json'

export type CulturaId = keyof typeof data.culturas

export interface Cultura {
  nome: string
  en: string
  /** Frost flag threshold: the 72-hour minimum air temperature (2 m, shelter height) at or below which the crop is at risk. */
  geada_limiar_c: number
  /** Months (1-12) of the cycle in which a dry spell counts in the briefing; outside them dry days are the normal dry season. */
  meses_seca: number[]
}

export interface Cinturao {
  id: string
  nome: string
  uf: string
  municipio: string
  latitude: number
  longitude: number
  culturas: CulturaId[]
}

export const CULTURAS: Record<CulturaId, Cultura> = data.culturas
export const CINTUROES: Cinturao[] = data.cinturoes as Cinturao[]

/** The belts growing a crop (the briefing and the causal chains read these). */
export const cinturoesDe = (cultura: CulturaId) => CINTUROES.filter((c) => c.culturas.includes(cultura))
