// IBGE codes checked by arithmetic alone, with no table: the state codes and the municipality
// code's check digit. Shared by every route that takes an IBGE municipality code.

/** IBGE state codes (the first two digits of a municipality or microregion code) and their UF. */
export const UF_POR_CODIGO: Record<string, string> = {
  '11': 'RO', '12': 'AC', '13': 'AM', '14': 'RR', '15': 'PA', '16': 'AP', '17': 'TO', '21': 'MA', '22': 'PI', '23': 'CE', '24': 'RN',
  '25': 'PB', '26': 'PE', '27': 'AL', '28': 'SE', '29': 'BA', '31': 'MG', '32': 'ES', '33': 'RJ', '35': 'SP', '41': 'PR', '42': 'SC',
  '43': 'RS', '50': 'MS', '51': 'MT', '52': 'GO', '53': 'DF',
}

/**
 * Real municipalities whose codes IBGE issued with a seventh digit the rule below does not give
 * (the list the NF-e layout's validation carries as exceptions). Checked against the whole IBGE
 * municipality table the project holds (5,571 codes): these nine, and only these, fail the rule
 * (test/core/ibge.test.ts).
 */
const FORA_DA_REGRA = new Set([
  '2201919', // Bom Princípio do Piauí/PI
  '2201988', // Brejo do Piauí/PI
  '2202251', // Canavieira/PI
  '2611533', // Quixaba/PE
  '3117836', // Cônego Marinho/MG
  '3152131', // Ponto Chique/MG
  '4305871', // Coronel Barros/RS
  '5203939', // Buriti de Goiás/GO
  '5203962', // Buritinópolis/GO
])

/**
 * The seventh digit of an IBGE municipality code from its first six: weights 1, 2, 1, 2, 1, 2; a
 * product of two digits counts as the sum of its digits; the digit is what takes the sum to the
 * next multiple of 10.
 */
export function digitoIbge(seis: string): number {
  let soma = 0
  for (let i = 0; i < 6; i++) {
    const p = (seis.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 2)
    soma += p > 9 ? p - 9 : p
  }
  return (10 - (soma % 10)) % 10
}

export type IbgeCheck = { valido: true } | { valido: false; motivo: 'formato_invalido' | 'uf_inexistente' | 'digito_verificador_invalido' }

/** Whether a text can be an IBGE municipality code: 7 digits, the check digit right (or one of IBGE's exceptions), a state's code first. */
export function checkIbgeMunicipio(value: string): IbgeCheck {
  if (!/^\d{7}$/.test(value)) return { valido: false, motivo: 'formato_invalido' }
  if (digitoIbge(value) !== value.charCodeAt(6) - 48 && !FORA_DA_REGRA.has(value)) return { valido: false, motivo: 'digito_verificador_invalido' }
  if (!(value.slice(0, 2) in UF_POR_CODIGO)) return { valido: false, motivo: 'uf_inexistente' }
  return { valido: true }
}
