// IBGE municipality codes: 7 digits, the 2 of the UF first and a check digit last. Shared by every
// route that takes one (the registry search's municipio_ibge, the deforestation routes).

/**
 * Codes the IBGE assigned whose last digit does not follow the check-digit rule: every one of the
 * 5,571 municipalities of the IBGE list (ingest/desmatamento/microrregioes-ibge.json) passes the
 * rule except these nine, which are real and must be accepted.
 */
const EXCEPTIONS = new Set(['2201919', '2201988', '2202251', '2611533', '3117836', '3152131', '4305871', '5203939', '5203962'])

/** The UF prefixes in use (11 RO ... 53 DF). */
const UF_PREFIX = /^(1[1-7]|2[1-9]|3[1-35]|4[1-3]|5[0-3])\d{5}$/

/**
 * The check digit of the first six digits: weights 1, 2, 1, 2, 1, 2; a product of two digits
 * counts as the sum of its digits; the digit completes the sum to a multiple of 10.
 */
export function ibgeCheckDigit(six: string): number {
  let sum = 0
  for (let i = 0; i < 6; i++) {
    const p = (six.charCodeAt(i) - 48) * (i % 2 ? 2 : 1)
    sum += p > 9 ? p - 9 : p
  }
  return (10 - (sum % 10)) % 10
}

export type IbgeCheck = { valido: true } | { valido: false; motivo: 'formato_invalido' | 'uf_invalida' | 'digito_invalido' }

/** Whether a text is an IBGE municipality code: 7 digits, a UF's prefix, its check digit (or one of the nine exceptions). */
export function checkIbge(code: string): IbgeCheck {
  if (!/^\d{7}$/.test(code)) return { valido: false, motivo: 'formato_invalido' }
  if (!UF_PREFIX.test(code)) return { valido: false, motivo: 'uf_invalida' }
  if (ibgeCheckDigit(code) !== code.charCodeAt(6) - 48 && !EXCEPTIONS.has(code)) return { valido: false, motivo: 'digito_invalido' }
  return { valido: true }
}
