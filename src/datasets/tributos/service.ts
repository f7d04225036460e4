// The tax-reform answers as plain functions: the NCM lookup over an open build, the annex search
// and the calendar over the data the program carries.
import { ANEXOS, dispositivo, REGIME_DESCRICAO, type AnexoDados, type ItemDados, type ReferenciaDados, type RegimeAnexo } from './anexos'
import { indiceBusca } from './busca'
import { ancestrais, formatarNcm, nivelNcm } from './codigos'
import { CALENDARIO, EXTINCOES, REGRAS, type Ano } from './data/calendario'
import { ANO_MAX, ANO_MIN, type NcmResultadoT } from './model'
import { regimePrincipal, type Alcance, type Avaliacao } from './regimes'
import { subitensDe, type TributosFiles } from './store'

const LEI = 'Lei Complementar nº 214, de 16 de janeiro de 2025, com as alterações da LC 227/2026'

type Fonte = ReturnType<typeof fonteNova>

/** One fonte object per build (and one without a build): the same object answers every request. */
const fontes = new WeakMap<TributosFiles, Fonte>()
let fonteSemBase: Fonte | null = null

export function fonte(files: TributosFiles | null): Fonte {
  if (!files) return (fonteSemBase ??= fonteNova(null))
  let f = fontes.get(files)
  if (!f) fontes.set(files, (f = fonteNova(files)))
  return f
}

function fonteNova(files: TributosFiles | null) {
  return {
    base: 'LC 214/2025' as const,
    lei: LEI,
    anexos_versao: ANEXOS.versao,
    texto_conferido_em: ANEXOS.texto_conferido_em,
    tabela_ncm: files ? { vigencia: files.tabela.vigencia, referencia: files.tabela.referencia, ato: files.tabela.ato, completa: files.tabela.completa } : null,
  }
}

/** The current calendar year in Brasília (UTC-3), kept within 2026-2033. */
export function anoPadrao(now = new Date()): number {
  const ano = new Date(now.getTime() - 3 * 3600_000).getUTCFullYear()
  return Math.min(ANO_MAX, Math.max(ANO_MIN, ano))
}

function regimeResumo(regime: RegimeAnexo | 'aliquota_padrao') {
  return { codigo: regime, ...REGIME_DESCRICAO[regime] }
}

function grupoDe(anexo: AnexoDados, item: ItemDados): string | null {
  const dot = item.item.indexOf('.')
  if (dot < 0) return null
  const pai = item.item.slice(0, dot)
  return anexo.itens.find((i) => i.item === pai)?.texto ?? null
}

function referencia(r: ReferenciaDados) {
  return { texto: r.texto, codigo: r.codigo, nivel: r.nivel, exceto: r.exceto === true, alinea: r.alinea ?? null }
}

function itemBase(anexo: AnexoDados, item: ItemDados) {
  const alt = anexo.regime_alternativo
  return {
    anexo: anexo.anexo,
    item: item.item,
    dispositivo: dispositivo(anexo, item.item),
    assunto: anexo.assunto,
    regime: regimeResumo(anexo.regime!),
    texto: item.texto,
    grupo: grupoDe(anexo, item),
    codigos_texto: item.codigos_texto ?? null,
    condicoes: [...item.condicoes, ...(anexo.condicoes ?? [])],
    regime_alternativo: alt ? { codigo: 'aliquota_zero' as const, descricao: REGIME_DESCRICAO.aliquota_zero.descricao, dispositivo: `LC 214/2025, ${alt.artigo}`, condicao: alt.condicao } : null,
    verificado: item.verificado,
    nota: item.nota ?? null,
  }
}

function itemNcm(a: Alcance, cobre: 'todo' | 'parte', principal: boolean) {
  return { ...itemBase(a.anexo, a.item), referencia: referencia(a.ref), cobre, principal }
}

const pct = (n: number) => Math.round(n * 1e6) / 1e6

const transicoes = new Map<string, ReturnType<typeof transicaoNova>>()

/** The year's taxes, with the CBS/IBS rate this code's principal regime leaves (when the law fixes the year's rate): one object per year and reduction. */
function transicao(ano: Ano, reducao: number | null) {
  const key = `${ano.ano}:${reducao}`
  let t = transicoes.get(key)
  if (!t) transicoes.set(key, (t = transicaoNova(ano, reducao)))
  return t
}

function transicaoNova(ano: Ano, reducao: number | null) {
  return {
    ano: ano.ano,
    fase: ano.fase,
    resumo: ano.resumo,
    tributos: ano.tributos.map((t) => {
      const ibsCbs = t.codigo === 'cbs' || t.codigo === 'ibs_estadual' || t.codigo === 'ibs_municipal'
      const aplicavel = ibsCbs && t.aliquota_percentual !== null && reducao !== null ? pct(t.aliquota_percentual * (1 - reducao / 100)) : null
      return { ...t, aliquota_aplicavel_percentual: aplicavel }
    }),
    regras: REGRAS,
  }
}

const OBS_NOMENCLATURA =
  'Os códigos dos Anexos seguem a NCM aprovada pela Resolução Gecex nº 272/2021; reclassificações posteriores não mudam o tratamento dado pela lei (LC 214/2025, art. 492, § 2º).'

function porRegime(files: TributosFiles, subitens: string[]) {
  const grupos = new Map<string, { regime: ReturnType<typeof regimeResumo>; codigos: string[]; dispositivos: Set<string> }>()
  for (const c of subitens) {
    const av = files.avaliacoes.get(c)!
    const r = regimePrincipal(av)
    const g = grupos.get(r) ?? { regime: regimeResumo(r), codigos: [], dispositivos: new Set<string>() }
    g.codigos.push(formatarNcm(c))
    const p = av.beneficios[0]
    if (p) g.dispositivos.add(dispositivo(p.anexo, p.item.item))
    grupos.set(r, g)
  }
  const ordem = ['aliquota_zero', 'reducao_60', 'aliquota_padrao']
  return [...grupos.entries()]
    .sort((a, b) => ordem.indexOf(a[0]) - ordem.indexOf(b[0]))
    .map(([, g]) => ({ regime: g.regime, subitens: g.codigos.length, codigos: g.codigos, dispositivos: [...g.dispositivos] }))
}

/**
 * The annex items that reach a code, from the annexes alone (no table): those reaching all of it
 * (todo, with the exceptions and ressalvas that leave it out), and those reaching only part of it
 * (references below a short code). cobre says whether an item reaching it whole still leaves a part
 * out (an exception or a ressalvaed Annex inside the code).
 */
function alcanceNosAnexos(files: TributosFiles, codigo: string) {
  const todo = files.indice.avaliar(codigo)
  const abaixo = codigo.length < 8 ? files.indice.abaixo(codigo) : []
  const vistos = new Set(todo.beneficios.map((b) => b.item))
  const partes: Alcance[] = []
  for (const a of abaixo) if (a.anexo.regime !== 'imposto_seletivo' && !vistos.has(a.item)) (vistos.add(a.item), partes.push(a))
  const seletivoPartes = abaixo.filter((a) => a.anexo.regime === 'imposto_seletivo' && !todo.seletivo.some((s) => s.item === a.item))
  const ressalvados = new Set(abaixo.map((a) => a.anexo.anexo))
  const cobre = (b: Alcance): 'todo' | 'parte' =>
    b.item.ncm.some((r) => r.exceto && r.codigo.length > codigo.length && r.codigo.startsWith(codigo) && (!r.alinea || !b.ref.alinea || r.alinea === b.ref.alinea)) ||
    b.item.exceto_anexos?.some((x) => ressalvados.has(x))
      ? 'parte'
      : 'todo'
  return { todo, partes, seletivoPartes, cobre }
}

const OBS_PRODUTO = 'O regime vale para o produto descrito no item e nas condições dele; o código NCM sozinho não basta quando a descrição restringe o produto (ex. "pão francês" dentro de 1905.90.90).'
const OBS_SUBITEM_AUSENTE = 'consulte o código de 8 dígitos do produto.'

/** What /v1/tributos/ncm/{codigo} answers for a code (digits) and a year. */
export function consultarNcm(files: TributosFiles, codigo: string, ano: number): NcmResultadoT {
  const anoDados = CALENDARIO.find((a) => a.ano === ano)!
  const no = files.porCodigo.get(codigo)
  const hierarquia = ancestrais(codigo)
    .map((c) => files.porCodigo.get(c))
    .filter((n) => n !== undefined)
    .map((n) => ({ codigo: n.codigo, formatado: formatarNcm(n.codigo), nivel: nivelNcm(n.codigo)!, descricao: n.descricao }))
  const ncm = {
    codigo,
    formatado: formatarNcm(codigo),
    nivel: nivelNcm(codigo)!,
    existe: no !== undefined,
    descricao: no?.descricao ?? null,
    hierarquia,
    vigencia: no ? { inicio: no.inicio, fim: no.fim, ato: no.ato } : null,
  }
  const subitens = !no ? [] : codigo.length === 8 ? [codigo] : subitensDe(files, codigo)
  const observacoes: string[] = []
  let regime: NcmResultadoT['regime']
  let fundamentos: ReturnType<typeof itemNcm>[]
  let exclusoes: NcmResultadoT['exclusoes']
  let desdobramento: NcmResultadoT['desdobramento'] = null
  let seletivo: NcmResultadoT['imposto_seletivo']
  let reducao: number | null

  const exclusao = (e: Avaliacao['exclusoes'][number]) => ({ anexo: e.anexo.anexo, item: e.item.item, dispositivo: dispositivo(e.anexo, e.item.item), motivo: e.motivo, por: e.por, texto: e.item.texto })
  const regimeDoItem = (p: Alcance, itens: Alcance[]) => ({
    codigo: p.anexo.regime as Exclude<RegimeAnexo, 'imposto_seletivo'>,
    ...REGIME_DESCRICAO[p.anexo.regime!],
    dispositivo: dispositivo(p.anexo, p.item.item),
    depende_do_produto: new Set(itens.map((b) => b.anexo.regime)).size > 1,
    condicoes: [...p.item.condicoes, ...(p.anexo.condicoes ?? [])],
  })
  const PADRAO = { codigo: 'aliquota_padrao' as const, ...REGIME_DESCRICAO.aliquota_padrao, dispositivo: null, depende_do_produto: false, condicoes: [] }

  if (!no) {
    observacoes.push(
      `O código ${formatarNcm(codigo)} não consta da tabela NCM carregada (${files.tabela.vigencia}${files.tabela.completa ? '' : ', um trecho da tabela vigente: o código pode existir fora dele'}). Confira o código: a tabela só tem códigos de 2, 4, 5, 6, 7 e 8 dígitos que existem; ${hierarquia.length ? `o nível mais próximo que existe nela é ${hierarquia[hierarquia.length - 1]!.formatado}.` : 'nem o capítulo existe nela.'}`,
    )
  }

  if (no && codigo.length === 8) {
    const av = files.avaliacoes.get(codigo)!
    const p = av.beneficios[0]
    regime = p ? regimeDoItem(p, av.beneficios) : PADRAO
    reducao = REGIME_DESCRICAO[regimePrincipal(av)].reducao_percentual
    fundamentos = av.beneficios.map((b, i) => itemNcm(b, 'todo', i === 0))
    exclusoes = av.exclusoes.map(exclusao)
    seletivo = { incide: av.seletivo.length ? 'sim' : 'nao', fundamentos: av.seletivo.map((s) => itemNcm(s, 'todo', false)), observacao: null }
    if (p) observacoes.push(OBS_PRODUTO)
    if (p?.anexo.aviso) observacoes.push(p.anexo.aviso)
    if (regime.depende_do_produto) observacoes.push('Mais de um item cita este código com regimes diferentes: o principal é o da referência mais específica (e, empatando, o de maior redução); os demais valem quando o produto é o que eles descrevem.')
  } else if (no && subitens.length) {
    // A code above the subitems of the table: the items that reach it whole, the ones that reach
    // part of it, and the subitems grouped by their principal regime.
    const { todo, partes, seletivoPartes, cobre } = alcanceNosAnexos(files, codigo)
    desdobramento = porRegime(files, subitens)
    const unico = desdobramento.length === 1 ? desdobramento[0]! : null
    fundamentos = [...todo.beneficios.map((b, i) => itemNcm(b, cobre(b), unico !== null && i === 0)), ...partes.map((b) => itemNcm(b, 'parte', false))]
    exclusoes = todo.exclusoes.map(exclusao)
    const regimeCodigo = unico ? (unico.regime.codigo as RegimeAnexo | 'aliquota_padrao') : null
    regime = unico
      ? { codigo: regimeCodigo as 'aliquota_zero' | 'reducao_60' | 'aliquota_padrao', ...REGIME_DESCRICAO[regimeCodigo!], dispositivo: unico.dispositivos.length === 1 ? unico.dispositivos[0]! : null, depende_do_produto: new Set(fundamentos.map((f) => f.regime.codigo)).size > 1, condicoes: [] }
      : { codigo: 'varia_por_subitem', descricao: 'Os subitens deste código têm regimes diferentes: veja desdobramento e consulte o código de 8 dígitos', reducao_percentual: null, dispositivo: null, depende_do_produto: true, condicoes: [] }
    reducao = unico ? unico.regime.reducao_percentual : null
    const comIs = subitens.filter((c) => files.avaliacoes.get(c)!.seletivo.length > 0).length
    seletivo = {
      incide: comIs === 0 ? 'nao' : comIs === subitens.length ? 'sim' : 'em_parte',
      fundamentos: [...todo.seletivo.map((s) => itemNcm(s, cobre(s), false)), ...seletivoPartes.map((s) => itemNcm(s, 'parte', false))],
      observacao: comIs && comIs < subitens.length ? `${comIs} de ${subitens.length} subitens deste código estão no Anexo XVII.` : null,
    }
    observacoes.push(`Código de ${codigo.length} dígitos: o regime é o de cada subitem de 8 dígitos abaixo dele (${subitens.length} na tabela carregada).`)
  } else {
    // The table does not say which subitems the code has (it is not in the table, or an excerpt has
    // none below it): the annexes alone, which cite codes by prefix, answer what they cover, and
    // what they cannot settle without the table is said to be unknown, never a firm "no".
    const { todo, partes, seletivoPartes, cobre } = alcanceNosAnexos(files, codigo)
    const p = todo.beneficios[0]
    const firme = p !== undefined && !partes.length && cobre(p) === 'todo'
    const nenhum = !todo.beneficios.length && !partes.length
    fundamentos = [...todo.beneficios.map((b, i) => itemNcm(b, cobre(b), firme && i === 0)), ...partes.map((b) => itemNcm(b, 'parte', false))]
    exclusoes = todo.exclusoes.map(exclusao)
    if (firme) {
      regime = regimeDoItem(p, todo.beneficios)
      reducao = regime.reducao_percentual
      observacoes.push(OBS_PRODUTO)
      if (p.anexo.aviso) observacoes.push(p.anexo.aviso)
    } else if (nenhum && no) {
      regime = PADRAO
      reducao = 0
    } else {
      regime = { codigo: 'indeterminado', descricao: 'Regime indeterminado: sem os subitens deste código na tabela NCM carregada, os Anexos não bastam para dizê-lo (veja observacoes)', reducao_percentual: null, dispositivo: null, depende_do_produto: false, condicoes: [] }
      reducao = null
      observacoes.push(
        nenhum
          ? 'Nenhum item dos Anexos cita este código, nem um nível acima ou abaixo dele: se ele existir, IBS e CBS às alíquotas-padrão.'
          : `Itens dos Anexos alcançam só parte deste código (veja fundamentos, cobre "parte") e a tabela NCM carregada não tem os subitens dele: ${OBS_SUBITEM_AUSENTE}`,
      )
    }
    const isFundamentos = [...todo.seletivo.map((s) => itemNcm(s, cobre(s), false)), ...seletivoPartes.map((s) => itemNcm(s, 'parte', false))]
    const isInteiro = todo.seletivo.length > 0 && !seletivoPartes.length && todo.seletivo.every((s) => cobre(s) === 'todo')
    const incide = isInteiro ? 'sim' : isFundamentos.length ? 'em_parte' : no ? 'nao' : 'indeterminado'
    seletivo = {
      incide,
      fundamentos: isFundamentos,
      observacao:
        incide === 'em_parte'
          ? `Itens do Anexo XVII alcançam só parte deste código e a tabela NCM carregada não tem os subitens dele: ${OBS_SUBITEM_AUSENTE}`
          : incide === 'indeterminado'
            ? 'O código não consta da tabela NCM carregada e nenhum item do Anexo XVII o cita, nem um nível acima ou abaixo dele: se ele existir, o Imposto Seletivo não incide; confira o código.'
            : null,
    }
    if (no) observacoes.push(`A tabela NCM carregada não tem subitens de 8 dígitos abaixo de ${formatarNcm(codigo)} (${files.tabela.completa ? 'código sem desdobramento' : 'é um trecho da tabela vigente'}): o regime vem só dos Anexos.`)
  }
  if (seletivo.fundamentos.some((f) => f.anexo === 'XVII' && (f.item === 'III' || f.item === 'IV')))
    seletivo.observacao = [seletivo.observacao, 'Produtos fumígenos e bebidas alcoólicas estão sujeitos ao Imposto Seletivo quando acondicionados em embalagem primária destinada ao consumidor final (art. 409, § 2º).'].filter(Boolean).join(' ')
  if (ano < 2027 && (seletivo.incide === 'sim' || seletivo.incide === 'em_parte')) observacoes.push('O Imposto Seletivo só é cobrado a partir de 2027.')
  observacoes.push(OBS_NOMENCLATURA)
  return { ncm, ano, regime, fundamentos, exclusoes, desdobramento, imposto_seletivo: seletivo, transicao: transicao(anoDados, reducao), observacoes, fonte: fonte(files) }
}

/** Serialized forms of the shared parts of the answers (transicao, fonte), made once. */
const jsonDe = new WeakMap<object, string>()
function jsonCompartilhado(o: object): string {
  let j = jsonDe.get(o)
  if (j === undefined) jsonDe.set(o, (j = JSON.stringify(o)))
  return j
}

/**
 * consultarNcm as the JSON text sent: the code's own part serialized per request, the year's
 * transition and the source (most of the bytes, the same for many codes) spliced in from their
 * serialization made once.
 */
export function consultarNcmJson(files: TributosFiles, codigo: string, ano: number): string {
  const { transicao: t, observacoes, fonte: f, ...proprio } = consultarNcm(files, codigo, ano)
  const head = JSON.stringify(proprio)
  return `${head.slice(0, -1)},"transicao":${jsonCompartilhado(t)},"observacoes":${JSON.stringify(observacoes)},"fonte":${jsonCompartilhado(f)}}`
}

/** What /v1/tributos/busca answers. */
export function buscar(files: TributosFiles | null, termo: string, limite: number) {
  const r = (files?.busca ?? indiceBusca()).buscar(termo, limite)
  return {
    termo,
    tipo: r.tipo,
    palavras: r.palavras,
    total: r.total,
    limite,
    resultados: r.achados.map(({ anexo, item, encontrado_em }) => ({
      ...itemBase(anexo, item),
      encontrado_em,
      ncm_citados: item.ncm.map(referencia),
      nbs_citados: item.nbs.map(referencia),
      exceto_anexos: item.exceto_anexos ?? [],
    })),
    fonte: fonte(files),
  }
}

const calendarios = new WeakMap<Fonte, ReturnType<typeof calendarioNovo>>()

/** What /v1/tributos/calendario answers: one object per build. */
export function calendario(files: TributosFiles | null) {
  const f = fonte(files)
  let c = calendarios.get(f)
  if (!c) calendarios.set(f, (c = calendarioNovo(f)))
  return c
}

function calendarioNovo(f: Fonte) {
  return { anos: CALENDARIO, extincoes: EXTINCOES, regras: REGRAS, fonte: f }
}

/** The calendar as the JSON text sent, serialized once per build. */
export function calendarioJson(files: TributosFiles | null): string {
  return jsonCompartilhado(calendario(files))
}
