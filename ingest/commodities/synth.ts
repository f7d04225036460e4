// A synthetic ComexStat EXP_AAAA.csv in the exact published format (quoted codes, unquoted metrics,
// `;`, LF, ASCII) at the real size: ~1.5 M rows a year over ~9 000 NCMs, ~200 countries, the
// states and the non-state codes (ZN, ND, EX). For the benchmark; every value is made up.
import { createWriteStream } from 'node:fs'
import { seededRandom } from '../lib/random'

const HEADER = '"CO_ANO";"CO_MES";"CO_NCM";"CO_UNID";"CO_PAIS";"SG_UF_NCM";"CO_VIA";"CO_URF";"QT_ESTAT";"KG_LIQUIDO";"VL_FOB"\n'
const UFS = ['SP', 'MG', 'PR', 'RS', 'MT', 'GO', 'BA', 'SC', 'RJ', 'PA', 'ES', 'MS', 'PE', 'CE', 'MA', 'AM', 'TO', 'RO', 'PI', 'AL', 'RN', 'PB', 'SE', 'DF', 'AC', 'AP', 'RR', 'ZN', 'ND', 'EX']
const VIAS = ['01', '04', '07', '02', '05', '99']
/** Real NCMs of the commodity groups (so the sums are exercised), among thousands of others. */
const COMMODITY_NCMS = ['12019000', '23040010', '23040090', '15071000', '10059010', '09011110', '09011190', '17011400', '17019900', '02023000', '02013000', '02071400', '02071200', '20091200', '20091900', '47032900', '26011100', '26011210', '27090010', '52010020']

export async function writeSyntheticExp(path: string, ano: number, rows = 1_500_000, seed = ano): Promise<{ rows: number; bytes: number }> {
  const rnd = seededRandom(seed)
  const ncms = Array.from({ length: 9000 }, (_, i) => (i < COMMODITY_NCMS.length ? COMMODITY_NCMS[i]! : String(1010000 + Math.floor(rnd() * 96_999_999)).padStart(8, '0').slice(0, 8)))
  const out = createWriteStream(path)
  let bytes = 0
  const write = (s: string) => {
    bytes += s.length
    return out.write(s)
  }
  write(HEADER)
  let buf = ''
  for (let i = 0; i < rows; i++) {
    const mes = String(1 + Math.floor((i / rows) * 12)).padStart(2, '0')
    // Commodities are few NCMs with many rows (many countries and states): skew the pick.
    const ncm = rnd() < 0.12 ? COMMODITY_NCMS[Math.floor(rnd() * COMMODITY_NCMS.length)]! : ncms[Math.floor(rnd() * ncms.length)]!
    const pais = String(Math.floor(rnd() * 900)).padStart(3, '0')
    const kg = Math.floor(rnd() ** 3 * 50_000_000)
    const fob = Math.floor(kg * (0.2 + rnd() * 8))
    buf += `"${ano}";"${mes}";"${ncm}";"10";"${pais}";"${UFS[Math.floor(rnd() * UFS.length)]}";"${VIAS[Math.floor(rnd() * VIAS.length)]}";"0${String(Math.floor(rnd() * 999999)).padStart(6, '0')}";${kg};${kg};${fob}\n`
    if (buf.length > 1 << 20) {
      if (!write(buf)) await new Promise((r) => out.once('drain', r))
      buf = ''
    }
  }
  write(buf)
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())))
  return { rows, bytes }
}
