// One sentence, in Portuguese, for an answer whose data is older than its source promises: what it
// is, how old, and why (the last attempt's error, a refresh under way, the bundled sample). Built from
// the source's record (its `fonte`), so the words never disagree with the fields beside them.
import type { Fonte } from './feed'

/** 45 s, 12 min, 5 h, 302 dias. */
export function idadeEmPalavras(segundos: number): string {
  if (segundos < 120) return `${segundos} s`
  if (segundos < 2 * 3600) return `${Math.round(segundos / 60)} min`
  if (segundos < 2 * 86_400) return `${Math.round(segundos / 3600)} h`
  return `${Math.round(segundos / 86_400)} dias`
}

const intervalo = (minutos: number) => (minutos < 1 ? `${Math.round(minutos * 60)} s` : minutos < 120 ? `${minutos} min` : minutos % 1440 === 0 ? `${minutos / 1440} ${minutos === 1440 ? 'dia' : 'dias'}` : `${Math.round(minutos / 60)} h`)

/** The warning for data of `nome` served with this `fonte`, or null when it is within its promise. */
export function avisoDaFonte(nome: string, fonte: Fonte): string | null {
  const falhou = fonte.ultimo_erro ? `a última consulta falhou (${fonte.ultimo_erro})` : null
  if (fonte.status === 'ok') return null
  if (fonte.status === 'fonte_indisponivel') return `${nome}: nenhuma cópia obtida ainda${falhou ? `; ${falhou}` : ''}.`
  const idade = `${fonte.consultado_em} (há ${idadeEmPalavras(fonte.defasagem_segundos ?? 0)})`
  if (fonte.status === 'amostra') return `${nome}: amostra embutida no programa, gravada em ${idade}: não são dados atuais${falhou ? `; ${falhou}` : ''}.`
  return `${nome}: dados de ${idade}, mais velhos que o prometido (${intervalo(fonte.atualiza_a_cada_minutos)}); ${falhou ?? 'a atualização ainda não terminou'}.`
}
