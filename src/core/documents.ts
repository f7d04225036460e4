// CNPJ and CPF arithmetic: pure functions, no I/O. Shared by the free tools and by
// every route that takes a CNPJ, so an invalid number is rejected the same way everywhere.

/**
 * CNPJ characters are valued at (ASCII code - 48): '0'..'9' -> 0..9, 'A'..'Z' -> 17..42.
 * This is the rule of IN RFB 2.229/2024 for alphanumeric CNPJs and reduces to the
 * classic algorithm for all-digit ones. The two check digits stay numeric.
 */
function cnpjCheckDigit(body: string): number {
  let sum = 0
  let weight = 2
  for (let i = body.length - 1; i >= 0; i--) {
    sum += (body.charCodeAt(i) - 48) * weight
    weight = weight === 9 ? 2 : weight + 1
  }
  const rest = sum % 11
  return rest < 2 ? 0 : 11 - rest
}

const CNPJ_PUNCTUATION = /[.\/\-\s]/g
const CNPJ_SHAPE = /^[0-9A-Z]{12}[0-9]{2}$/

export type InvalidReason = 'formato_invalido' | 'digito_verificador_invalido'

export type CnpjCheck =
  | { valido: true; cnpj: string }
  | { valido: false; motivo: InvalidReason; cnpj: string }

/** Strips the usual punctuation (. / - and spaces) and upper-cases letters. */
export function normalizeCnpj(input: string): string {
  return input.replace(CNPJ_PUNCTUATION, '').toUpperCase()
}

export function checkCnpj(input: string): CnpjCheck {
  const cnpj = normalizeCnpj(input)
  if (!CNPJ_SHAPE.test(cnpj)) return { valido: false, motivo: 'formato_invalido', cnpj }
  // All-equal numbers (00000000000000, 11111111111111...) pass the arithmetic but are never issued.
  if (/^(.)\1{13}$/.test(cnpj)) return { valido: false, motivo: 'digito_verificador_invalido', cnpj }
  const first = cnpjCheckDigit(cnpj.slice(0, 12))
  const second = cnpjCheckDigit(cnpj.slice(0, 12) + first)
  if (cnpj.slice(12) !== `${first}${second}`) return { valido: false, motivo: 'digito_verificador_invalido', cnpj }
  return { valido: true, cnpj }
}

/** NN.NNN.NNN/NNNN-NN for a 14-character normalized CNPJ. */
export function formatCnpj(cnpj: string): string {
  return `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12, 14)}`
}

/** Appends the two check digits to a 12-character base (used by the synthetic dump generator and tests). */
export function completeCnpj(base12: string): string {
  const first = cnpjCheckDigit(base12)
  return `${base12}${first}${cnpjCheckDigit(base12 + first)}`
}

const CPF_PUNCTUATION = /[.\-\s]/g

export type CpfCheck =
  | { valido: true; mascarado: string }
  | { valido: false; motivo: InvalidReason; mascarado: string | null }

/**
 * Validates a CPF and returns only its masked form (***NNNNNN**, the same digits the
 * Receita Federal publishes for partners). The full number never leaves this function.
 */
export function checkCpf(input: string): CpfCheck {
  const cpf = input.replace(CPF_PUNCTUATION, '')
  if (!/^[0-9]{11}$/.test(cpf)) return { valido: false, motivo: 'formato_invalido', mascarado: null }
  const mascarado = `***${cpf.slice(3, 9)}**`
  if (/^(\d)\1{10}$/.test(cpf)) return { valido: false, motivo: 'digito_verificador_invalido', mascarado }
  for (const length of [9, 10]) {
    let sum = 0
    for (let i = 0; i < length; i++) sum += Number(cpf[i]) * (length + 1 - i)
    const digit = ((sum * 10) % 11) % 10
    if (digit !== Number(cpf[length])) return { valido: false, motivo: 'digito_verificador_invalido', mascarado }
  }
  return { valido: true, mascarado }
}
