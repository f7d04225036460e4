// Writing the lists in their published bytes (fixtures, tests, the benchmark's full-size files):
// cp1252, `;`, every field quoted with `""` escapes, CRLF; the MTE list unquoted. The headers are
// the published ones, typos and en dash included.
import { deflateRawSync } from 'node:zlib'

/** Unicode → windows-1252 bytes (the en dash U+2013 is 0x96, the right quote U+2019 is 0x92). */
const CP1252 = (() => {
  const map = new Map<string, number>()
  const decoded = new TextDecoder('windows-1252').decode(Uint8Array.from({ length: 256 }, (_, i) => i))
  for (let i = 0; i < 256; i++) map.set(decoded[i]!, i)
  return map
})()

export function encodeCp1252(text: string): Uint8Array {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const b = CP1252.get(text[i]!)
    if (b === undefined) throw new Error(`caractere fora do cp1252: ${JSON.stringify(text[i])}`)
    out[i] = b
  }
  return out
}

/** One CGU line: every field quoted, `""` inside. */
export const cguLine = (fields: string[]) => fields.map((f) => `"${f.replace(/"/g, '""')}"`).join(';')

/** A CGU CSV: header and rows, CRLF after every line (the last included). */
export const cguCsv = (header: readonly string[], rows: string[][]) => [header, ...rows].map((r) => cguLine([...r]) + '\r\n').join('')

export const CEIS_HEADER = [
  'CADASTRO', 'CÓDIGO DA SANÇÃO', 'TIPO DE PESSOA', 'CPF OU CNPJ DO SANCIONADO', 'NOME DO SANCIONADO', 'NOME INFORMADO PELO ÓRGÃO SANCIONADOR',
  'RAZÃO SOCIAL - CADASTRO RECEITA', 'NOME FANTASIA - CADASTRO RECEITA', 'NÚMERO DO PROCESSO', 'CATEGORIA DA SANÇÃO', 'DATA INÍCIO SANÇÃO',
  'DATA FINAL SANÇÃO', 'DATA PUBLICAÇÃO', 'PUBLICAÇÃO', 'DETALHAMENTO DO MEIO DE PUBLICAÇÃO', 'DATA DO TRÂNSITO EM JULGADO', 'ABRAGÊNCIA DA SANÇÃO',
  'ÓRGÃO SANCIONADOR', 'UF ÓRGÃO SANCIONADOR', 'ESFERA ÓRGÃO SANCIONADOR', 'FUNDAMENTAÇÃO LEGAL', 'DATA ORIGEM INFORMAÇÃO', 'ORIGEM INFORMAÇÕES', 'OBSERVAÇÕES',
] as const

/** CNEP: CEIS plus VALOR DA MULTA between the category and the start date. */
export const CNEP_HEADER = [...CEIS_HEADER.slice(0, 10), 'VALOR DA MULTA', ...CEIS_HEADER.slice(10)] as const

export const CEPIM_HEADER = ['CNPJ ENTIDADE', 'NOME ENTIDADE', 'NÚMERO CONVÊNIO', 'ÓRGÃO CONCEDENTE', 'MOTIVO DO IMPEDIMENTO'] as const

export const ACORDOS_HEADER = [
  'ID DO ACORDO', 'CNPJ DO SANCIONADO', 'RAZÃO SOCIAL – CADASTRO RECEITA', 'NOME FANTASIA – CADASTRO RECEITA', 'DATA DE INÍCIO DO ACORDO',
  'DATA DE FIM DO ACORDO', 'SITUAÇÃO DO ACORDO DE LENIÊNICA', 'DATA DA INFORMAÇÃO', 'NÚMERO DO PROCESSO', 'TERMOS DO ACORDO', 'ÓRGÃO SANCIONADOR',
] as const

export const EFEITOS_HEADER = ['ID DO ACORDO', 'EFEITO DO ACORDO DE LENIENCIA', 'COMPLEMENTO'] as const

export const MTE_HEADER = [
  'ID', 'Ano da ação fiscal', 'UF', 'Empregador', 'CNPJ/CPF', 'Estabelecimento', 'Trabalhadores envolvidos', 'CNAE',
  'Decisão administrativa de procedência', 'Inclusão no Cadastro de Empregadores',
] as const

/** The MTE list: unquoted `;`, CRLF between lines and none after the last (as published). */
export const mteCsv = (lines: string[][]) => [[...MTE_HEADER], ...lines].map((r) => r.join(';')).join('\r\n')

/** dd/mm/yyyy of an ISO date. */
export const br = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`

/** CNPJ as the MTE writes it: 00.000.000/0000-00. */
export const punctuated = (c: string) => `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`

/**
 * A small zip holding several files (the leniency zip holds two CSVs; an XLSX is a zip of XML
 * parts): deflated, sizes in the local headers, UTF-8 names.
 */
export async function writeZipFiles(path: string, files: { name: string; content: Uint8Array | string }[]): Promise<void> {
  const u16 = (n: number) => { const b = Buffer.alloc(2); b.writeUInt16LE(n); return b }
  const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n >>> 0); return b }
  const [time, date] = [0x6000, 0x5b21]
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const file of files) {
    const data = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content)
    const packed = deflateRawSync(data)
    const name = Buffer.from(file.name, 'utf8')
    const crc = Bun.hash.crc32(data) >>> 0
    const head = Buffer.concat([u32(0x04034b50), u16(20), u16(0x0800), u16(8), u16(time), u16(date), u32(crc), u32(packed.length), u32(data.length), u16(name.length), u16(0), name])
    central.push(Buffer.concat([u32(0x02014b50), u16(20), u16(20), u16(0x0800), u16(8), u16(time), u16(date), u32(crc), u32(packed.length), u32(data.length),
      u16(name.length), u16(0), u16(0), u16(0), u16(0), u32(0), u32(offset), name]))
    parts.push(head, packed)
    offset += head.length + packed.length
  }
  const cd = Buffer.concat(central)
  await Bun.write(path, Buffer.concat([...parts, cd, u32(0x06054b50), u16(0), u16(0), u16(files.length), u16(files.length), u32(cd.length), u32(offset), u16(0)]))
}
