// Text as the government's files publish it: windows-1252 bytes (CSV fixtures, synthetic inputs of
// the benchmarks, municipality tables). The decoding side is src/core/text/csv.ts (decodeText).

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
