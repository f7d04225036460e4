// The chains' rules are data (regras/*.json): where each link's number comes from, how old it may
// be, the bands that turn it into points, and the scales that turn the sums into words. This
// module checks them when loaded (a malformed rule stops the server at start, never a request)
// and is all the code that knows their shape; the engine (motor.ts) applies them.
import { z } from 'zod'
import { passos } from './caminho'
import cafe from './regras/cafe_kc.json'
import capital from './regras/capital_br.json'
import energia from './regras/energia_br.json'
import soja from './regras/soja_zs.json'

export const FONTES = ['commodities/clima', 'commodities/hidrologia', 'commodities/exportacoes', 'mercado/cambio', 'fundos/fluxos', 'cadeias/termica', 'cadeias/bandeira'] as const
export type FonteId = (typeof FONTES)[number]

const pontos = z.number().int().min(-10).max(10)

/** One band: `abaixo_de` (value < x), `ate` (value ≤ x), `igual` (a text value), or `demais` (anything else, last). */
export const Faixa = z.union([
  z.object({ abaixo_de: z.number(), pontos }).strict(),
  z.object({ ate: z.number(), pontos }).strict(),
  z.object({ igual: z.string(), pontos }).strict(),
  z.object({ demais: z.literal(true), pontos }).strict(),
])
export type Faixa = z.infer<typeof Faixa>

export const Contribuicao = z.union([
  z.object({ faixas: z.array(Faixa).min(1) }).strict(),
  z
    .object({ por_periodo: z.array(z.object({ meses: z.array(z.number().int().min(1).max(12)).min(1), faixas: z.array(Faixa).min(1) }).strict()).min(1) })
    .strict()
    .describe('faixas por mês de avaliada_em (Brasília): cada mês em exatamente um período'),
])
export type Contribuicao = z.infer<typeof Contribuicao>

/** A condition on a field of the same answer: equal to a value, or below a number. */
const Condicao = z.union([
  z.object({ campo: z.string(), igual: z.union([z.boolean(), z.number(), z.string()]) }).strict(),
  z.object({ campo: z.string(), abaixo_de: z.number() }).strict(),
])
export type Condicao = z.infer<typeof Condicao>

const Origem = z
  .object({
    fonte: z.enum(FONTES).describe('de onde vem: a rota (familia/nome) ou a fonte própria das cadeias (cadeias/termica, cadeias/bandeira)'),
    campo: z.string().optional().describe('o campo da resposta com o valor'),
    media_de: z.array(z.string()).min(1).optional().describe('o valor é a média destes campos (todos precisam ter valor)'),
    razao_pct: z.object({ soma_de: z.string(), dividido_por: z.string() }).strict().optional().describe('o valor é Σ soma_de ÷ dividido_por × 100'),
    data: z.string().describe('o campo com a data do valor (dia, mês ou instante)'),
    fonte_em: z.string().default('fonte').describe('o campo com a `fonte` da resposta que vale para este elo'),
    detalhes: z.record(z.string(), z.string()).optional().describe('outros campos da mesma resposta mostrados com o elo, só como contexto (rótulo → campo)'),
    incompleto_se: z
      .array(Condicao)
      .min(1)
      .optional()
      .describe('o valor foi calculado sobre dados incompletos quando alguma destas condições vale (ex. menos dias observados que a janela do indicador): o elo fica parcial'),
    valor_incompleto: z
      .enum(['minimo', 'desconhecido'])
      .optional()
      .describe('o que um valor incompleto diz do valor completo: minimo = ele só pode ser maior ou igual (uma soma de chuva numa janela menor, uma estiagem que chega ao limite da janela); desconhecido (o padrão) = nada'),
  })
  .strict()
  .refine((o) => [o.campo, o.media_de, o.razao_pct].filter((x) => x !== undefined).length === 1, 'origem: exatamente um de campo, media_de ou razao_pct')
  .refine((o) => o.valor_incompleto === undefined || o.incompleto_se !== undefined, 'origem: valor_incompleto só com incompleto_se')
export type Origem = z.infer<typeof Origem>

export const IdadeMaxima = z.union([z.object({ dias: z.number().int().min(0) }).strict(), z.object({ meses: z.number().int().min(0) }).strict(), z.object({ horas: z.number().positive() }).strict()])
export type IdadeMaxima = z.infer<typeof IdadeMaxima>

export const EloRegra = z
  .object({
    id: z.string().regex(/^[a-z0-9_]+$/),
    indicador: z.string(),
    unidade: z.string(),
    origem: Origem,
    idade_maxima: IdadeMaxima.describe('quanto o dado pode ser mais velho que avaliada_em (dias ou meses de calendário em Brasília, ou horas)'),
    depende_de: z.array(z.string()).optional().describe('elos que este usa: se um deles não vale, este também não'),
    nivel: Contribuicao.optional(),
    direcao: Contribuicao.optional(),
  })
  .strict()
export type EloRegra = z.infer<typeof EloRegra>

const Escala = z
  .object({
    nome: z.string(),
    faixas: z
      .array(z.union([z.object({ ate: z.number().int(), valor: z.string() }).strict(), z.object({ demais: z.literal(true), valor: z.string() }).strict()]))
      .min(2)
      .describe('a soma dos pontos vira o primeiro valor cujo `ate` (≤) ela não passa; `demais` é o último'),
  })
  .strict()
export type Escala = z.infer<typeof Escala>

export const Regra = z
  .object({
    cadeia: z.string().regex(/^[a-z0-9_]+$/),
    versao: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    titulo: z.string(),
    descricao: z.string(),
    nivel: Escala,
    direcao: Escala,
    elos: z.array(EloRegra).min(1),
    limites: z.array(z.string()).min(1),
  })
  .strict()
export type Regra = z.infer<typeof Regra>

/** The checks zod cannot say: band order and coverage, periods covering the year, known dependencies and paths. */
export function checarRegra(r: Regra): void {
  const where = (s: string) => `regra ${r.cadeia}: ${s}`
  const checarFaixas = (faixas: Faixa[], onde: string) => {
    const ultima = faixas[faixas.length - 1]!
    const textuais = faixas.filter((f) => 'igual' in f)
    if (faixas.slice(0, -1).some((f) => 'demais' in f)) throw new Error(where(`${onde}: "demais" só na última faixa`))
    if (!('demais' in ultima) && textuais.length !== faixas.length) throw new Error(where(`${onde}: a última faixa numérica deve ser { "demais": true }`))
    if (textuais.length && textuais.length < faixas.length - ('demais' in ultima ? 1 : 0)) throw new Error(where(`${onde}: faixas de texto e numéricas misturadas`))
    let limite = -Infinity
    for (const f of faixas) {
      const x = 'abaixo_de' in f ? f.abaixo_de : 'ate' in f ? f.ate : null
      if (x === null) continue
      if (x < limite || (x === limite && 'abaixo_de' in f)) throw new Error(where(`${onde}: limites das faixas fora de ordem crescente`))
      limite = x
    }
    if (new Set(textuais.map((f) => (f as { igual: string }).igual)).size !== textuais.length) throw new Error(where(`${onde}: valor de texto repetido`))
  }
  const checarContribuicao = (c: Contribuicao, onde: string) => {
    if ('faixas' in c) return checarFaixas(c.faixas, onde)
    const meses = c.por_periodo.flatMap((p) => p.meses).sort((a, b) => a - b)
    if (meses.join(',') !== '1,2,3,4,5,6,7,8,9,10,11,12') throw new Error(where(`${onde}: os períodos devem cobrir cada mês do ano uma vez`))
    c.por_periodo.forEach((p, i) => checarFaixas(p.faixas, `${onde}, período ${i + 1}`))
  }
  const ids = new Set<string>()
  for (const e of r.elos) {
    if (ids.has(e.id)) throw new Error(where(`elo ${e.id} repetido`))
    ids.add(e.id)
    if (!e.nivel && !e.direcao) throw new Error(where(`elo ${e.id} não conta no nível nem na direção`))
    if (e.nivel) checarContribuicao(e.nivel, `elo ${e.id}, nível`)
    if (e.direcao) checarContribuicao(e.direcao, `elo ${e.id}, direção`)
    for (const c of [e.origem.campo, e.origem.data, e.origem.fonte_em, ...(e.origem.media_de ?? []), e.origem.razao_pct?.soma_de, e.origem.razao_pct?.dividido_por, ...Object.values(e.origem.detalhes ?? {}), ...(e.origem.incompleto_se ?? []).map((c) => c.campo)]) if (c !== undefined) passos(c)
  }
  for (const e of r.elos) for (const d of e.depende_de ?? []) if (!ids.has(d) || d === e.id) throw new Error(where(`elo ${e.id} depende de ${d}, que não é outro elo da regra`))
  for (const escala of [r.nivel, r.direcao]) {
    const f = escala.faixas
    if (!('demais' in f[f.length - 1]!) || f.slice(0, -1).some((x) => 'demais' in x)) throw new Error(where(`escala "${escala.nome}": só a última faixa é "demais"`))
    const tetos = f.slice(0, -1).map((x) => (x as { ate: number }).ate)
    if (tetos.some((t, i) => i > 0 && t <= tetos[i - 1]!)) throw new Error(where(`escala "${escala.nome}": limites fora de ordem crescente`))
  }
}

export function carregarRegra(json: unknown, nome: string): Regra {
  const parsed = Regra.safeParse(json)
  if (!parsed.success) throw new Error(`regra ${nome} inválida: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  checarRegra(parsed.data)
  if (parsed.data.cadeia !== nome) throw new Error(`regra ${nome}: o arquivo diz cadeia "${parsed.data.cadeia}"`)
  return parsed.data
}

export const CADEIAS = ['energia_br', 'cafe_kc', 'soja_zs', 'capital_br'] as const
export type CadeiaId = (typeof CADEIAS)[number]

export const REGRAS: Record<CadeiaId, Regra> = {
  energia_br: carregarRegra(energia, 'energia_br'),
  cafe_kc: carregarRegra(cafe, 'cafe_kc'),
  soja_zs: carregarRegra(soja, 'soja_zs'),
  capital_br: carregarRegra(capital, 'capital_br'),
}
