// What `dadosbr exportar` writes for each small dataset: its tables, what each column means and
// where it comes from. A table or column a build has and its spec does not list is still exported,
// marked undocumented (and the export test fails until the dictionary says what it is); `omitir`
// leaves out what is the server's internal layout, not data (binary running sums, ranked id lists).
import type { ColumnNote } from './dictionary'
import type { Target } from './sqlite'

export type ColumnSpec = ColumnNote | readonly [significado: string, origem: string, tipo: Target]

export interface TableSpec {
  tabela: string
  descricao: string
  colunas: Record<string, ColumnSpec>
  /** Columns left out, and why (for the dictionary's notes). */
  omitir?: Record<string, string>
}

export interface DatasetExportSpec {
  /** The SQLite file of the build (one per dataset here), or a JSON file flattened by `sql`. */
  arquivo: string
  tabelas: TableSpec[]
  /** Whole tables left out, and why. */
  omitir?: Record<string, string>
  /** For a JSON build: DuckDB SQL over read_json($arquivo) per table (the table name as key). */
  sql?: Record<string, string>
}

const RESPOSTA = (rota: string) => `a resposta de ${rota} para esta chave, em JSON (o mesmo corpo que a API devolve)`
const DERIVADA = (de: string) => `derivada: ${de}`

export const EXPORT_SPECS: Record<string, DatasetExportSpec> = {
  bcb: {
    arquivo: 'bcb.sqlite',
    tabelas: [
      { tabela: 'instituicoes', descricao: 'Uma linha por raiz de CNPJ presente nas listas do Banco Central.', colunas: {
        raiz: ['raiz do CNPJ (8 dígitos)', 'listas do BCB: CNPJ (8 primeiros dígitos)'],
        corpo: [RESPOSTA('/v1/bcb/instituicao/{cnpj}'), DERIVADA('as cinco listas mensais (bancos, cooperativas, consórcios, demais instituições, conglomerados)')],
      } },
      { tabela: 'segmentos', descricao: 'As listas lidas: mês de referência e registros de cada uma.', colunas: {
        lista: ['nome da lista (bancos, cooperativas, consorcios, demais_instituicoes, conglomerados)', 'nome do zip da relação mensal'],
        referencia: ['data de referência da lista', 'título ou nome do arquivo da lista'],
        registros: ['linhas da lista carregadas', DERIVADA('contagem na carga')],
      } },
    ],
  },
  integridade: {
    arquivo: 'integridade.sqlite',
    tabelas: [
      { tabela: 'apontamentos', descricao: 'Uma linha por registro de empresa nas listas de integridade (pessoas físicas são contadas e descartadas, nunca guardadas).', colunas: {
        raiz: ['raiz do CNPJ (8 dígitos)', DERIVADA('CNPJ do sancionado ou do empregador')],
        lista: ['lista: ceis, cnep, cepim, trabalho_escravo, acordos_leniencia', 'arquivo de origem (CGU: CEIS, CNEP, CEPIM, acordos de leniência; MTE: cadastro de empregadores)'],
        ordem: ['ordem do registro dentro da raiz e da lista', DERIVADA('carga')],
        cnpj: ['CNPJ do estabelecimento apontado (14 dígitos)', 'CGU: CPF OU CNPJ DO SANCIONADO (acordos: CNPJ DO SANCIONADO); MTE: CNPJ/CPF'],
        fim: ['data final da sanção ou do acordo (vazia quando sem prazo)', 'CGU: DATA FINAL SANÇÃO; acordos: DATA DE FIM DO ACORDO', 'DATE'],
        situacao: ['situação do registro quando a lista a publica (acordos de leniência)', 'CGU acordos: SITUAÇÃO DO ACORDO DE LENIÊNICA (grafia do arquivo)'],
        corpo: ['o registro completo, em JSON, como /v1/integridade/consulta/{cnpj} o mostra', DERIVADA('colunas do arquivo de origem, em português')],
      } },
      { tabela: 'listas', descricao: 'As listas lidas: data de referência e registros de empresas.', colunas: {
        lista: ['nome da lista', 'arquivo de origem'],
        referencia: ['data do arquivo da lista', 'data do arquivo diário da CGU ou da publicação do MTE', 'DATE'],
        registros: ['registros de empresas carregados', DERIVADA('contagem na carga')],
      } },
    ],
  },
  licitacoes: {
    arquivo: 'contratos.sqlite',
    tabelas: [
      { tabela: 'contratos', descricao: 'Uma linha por contrato publicado no PNCP.', colunas: {
        id: ['identificador interno do contrato', DERIVADA('carga')],
        numero: ['número de controle do contrato no PNCP', 'PNCP: numeroControlePNCP'],
        cnpj_fornecedor: ['CNPJ do fornecedor (14 dígitos)', 'PNCP: niFornecedor'],
        orgao: ['id do órgão contratante (tabela orgaos)', DERIVADA('PNCP: orgaoEntidade')],
        unidade: ['id da unidade contratante (tabela unidades)', DERIVADA('PNCP: unidadeOrgao')],
        tipo: ['id do tipo de contrato (tabela tipos)', DERIVADA('PNCP: tipoContrato.nome')],
        objeto: ['objeto do contrato, como o PNCP o escreveu (quebras de linha como \\n, CRLF normalizado; só as pontas aparadas)', 'PNCP: objetoContrato'],
        valor_inicial: ['valor inicial em reais', 'PNCP: valorInicial'],
        valor_global: ['valor global em reais (com aditivos publicados)', 'PNCP: valorGlobal'],
        data_assinatura: ['data de assinatura', 'PNCP: dataAssinatura', 'DATE'],
        vigencia_inicio: ['início da vigência', 'PNCP: dataVigenciaInicio', 'DATE'],
        vigencia_fim: ['fim da vigência', 'PNCP: dataVigenciaFim', 'DATE'],
      } },
      { tabela: 'orgaos', descricao: 'Órgãos contratantes.', colunas: {
        id: ['identificador interno', DERIVADA('carga')],
        cnpj: ['CNPJ do órgão', 'PNCP: orgaoEntidade.cnpj'],
        razao_social: ['razão social do órgão', 'PNCP: orgaoEntidade.razaoSocial'],
        esfera: ['esfera: federal, estadual, municipal, distrital', 'PNCP: orgaoEntidade.esferaId'],
        poder: ['poder: executivo, legislativo, judiciario', 'PNCP: orgaoEntidade.poderId'],
      } },
      { tabela: 'unidades', descricao: 'Unidades contratantes dos órgãos.', colunas: {
        id: ['identificador interno', DERIVADA('carga')],
        chave: ['CNPJ do órgão e código da unidade, separados por |', DERIVADA('PNCP: orgaoEntidade.cnpj + unidadeOrgao.codigoUnidade')],
        nome: ['nome da unidade', 'PNCP: unidadeOrgao.nomeUnidade'],
        municipio: ['município da unidade', 'PNCP: unidadeOrgao.municipioNome'],
        uf: ['UF da unidade', 'PNCP: unidadeOrgao.ufSigla'],
      } },
      { tabela: 'tipos', descricao: 'Tipos de contrato.', colunas: { id: ['identificador interno', DERIVADA('carga')], nome: ['tipo de contrato', 'PNCP: tipoContrato.nome'] } },
      { tabela: 'fornecedores', descricao: 'Totais por raiz de fornecedor.', colunas: {
        raiz: ['raiz do CNPJ do fornecedor', DERIVADA('PNCP: niFornecedor')],
        total: ['contratos do fornecedor', DERIVADA('contagem')],
        valor: ['soma dos valores globais (o inicial quando não há global) em décimos de milésimo de real (inteiro: divida por 10 000)', DERIVADA('PNCP: valorGlobal, valorInicial')],
        orgaos: ['órgãos distintos que contrataram o fornecedor', DERIVADA('contagem')],
      } },
      { tabela: 'meta', descricao: 'Estado da sincronização (desde, sincronizado_ate, formato).', colunas: { chave: ['nome do dado', DERIVADA('carga')], valor: ['valor', DERIVADA('carga')] } },
    ],
  },
  fundos: {
    arquivo: 'fundos.sqlite',
    omitir: { sqlite_stat1: 'estatísticas do SQLite' },
    tabelas: [
      { tabela: 'fluxo_dia', descricao: 'Captação, resgates e patrimônio por dia e classificação ANBIMA/CVM.', colunas: {
        data: ['dia do informe', 'CVM inf_diario: DT_COMPTC', 'DATE'],
        classificacao: ['classificação da classe (Ações, Renda Fixa, Multimercado, Cambial...)', 'CVM registro_classe / cad_fi: classificação'],
        captacao: ['captação do dia em reais, somada nas classes', 'CVM inf_diario: CAPTC_DIA'],
        resgates: ['resgates do dia em reais, somados nas classes', 'CVM inf_diario: RESG_DIA'],
        patrimonio_liquido: ['patrimônio líquido em reais, somado nas classes', 'CVM inf_diario: VL_PATRIM_LIQ'],
        classes: ['classes que informaram no dia', DERIVADA('contagem')],
      } },
      { tabela: 'consulta', descricao: 'A ficha de cada fundo ou classe por CNPJ.', colunas: {
        cnpj: ['CNPJ do fundo ou da classe', 'CVM: CNPJ_FUNDO_CLASSE / CNPJ_FUNDO'], corpo: [RESPOSTA('/v1/fundos/consulta/{cnpj}'), DERIVADA('cadastro e informes da CVM')],
      } },
      { tabela: 'classe', descricao: 'As classes ranqueadas, com sua ficha.', colunas: {
        id: ['identificador interno (usado em ranking.classe)', DERIVADA('carga')], cnpj: ['CNPJ da classe', 'CVM: CNPJ_FUNDO_CLASSE'], corpo: ['a ficha da classe em JSON, como aparece no ranking', DERIVADA('cadastro e informes da CVM')],
      }, omitir: { fluxos: 'somas acumuladas binárias, índice interno do servidor' } },
      { tabela: 'ranking', descricao: 'As posições de cada ranking pré-calculado.', colunas: {
        por: ['critério: patrimonio, captacao ou cotistas', DERIVADA('rota /v1/fundos/ranking')],
        classificacao: ['classificação filtrada (* = todas)', DERIVADA('rota /v1/fundos/ranking')],
        inicio: ['início da janela, em dias úteis antes do dia consolidado', DERIVADA('carga')],
        posicao: ['posição no ranking (0 = primeiro)', DERIVADA('carga')],
        classe: ['id da classe (tabela classe)', DERIVADA('carga')],
      } },
      { tabela: 'carteira', descricao: 'Carteira de ações e BDRs de cada fundo por competência (CDA).', colunas: {
        cnpj: ['CNPJ do fundo', 'CVM cda_fi: CNPJ_FUNDO_CLASSE'], competencia: ['mês da carteira (AAAA-MM)', 'CVM cda_fi: DT_COMPTC'], corpo: [RESPOSTA('/v1/fundos/carteira/{cnpj}'), DERIVADA('CVM cda_fi_BLC_4 (ações, BDRs)')],
      } },
      { tabela: 'movimentacao', descricao: 'Compras e vendas de cada ação pelos fundos, por competência.', colunas: {
        competencia: ['mês (AAAA-MM)', 'CVM cda_fi: DT_COMPTC'], posicao: ['ordem da ação na competência', DERIVADA('carga')], corpo: ['ticker, ISIN, compras e vendas da ação no mês, em JSON', DERIVADA('CVM cda_fi_BLC_4: QT_AQUIS_NEGOC, VL_AQUIS_NEGOC, QT_VENDA_NEGOC, VL_VENDA_NEGOC')],
      } },
      { tabela: 'meta', descricao: 'Cobertura da base (dias, competências, classificações), valores em JSON.', colunas: { chave: ['nome do dado', DERIVADA('carga')], valor: ['valor em JSON', DERIVADA('carga')] } },
    ],
  },
  desmatamento: {
    arquivo: 'desmatamento.sqlite',
    omitir: { rankings: 'listas ranqueadas em binário, índice interno do servidor (a tabela municipios tem os totais)' },
    tabelas: [
      { tabela: 'municipios', descricao: 'Uma linha por município, com os alertas DETER desde o corte.', colunas: {
        ibge: ['código IBGE do município (7 dígitos)', 'Receita: municipios.csv (CÓDIGO DO MUNICÍPIO - IBGE)'],
        tom: ['código TOM da Receita (o de estabelecimentos.municipio no cadastro)', 'Receita: municipios.csv (CÓDIGO DO MUNICÍPIO - TOM)'],
        nome: ['nome do município', 'Receita: municipios.csv'],
        uf: ['UF', 'Receita: municipios.csv (UF)'],
        microrregiao: ['código IBGE da microrregião', 'IBGE: microrregiões'],
        alertas: ['alertas DETER desde o corte', DERIVADA('DETER: polígonos por GEOCODIBGE')],
        area_km2: ['área dos alertas em km²', 'DETER: AREAMUNKM'],
        area_desmatamento_km2: ['área dos alertas de desmatamento (classes de corte raso e degradação com perda) em km²', DERIVADA('DETER: AREAMUNKM por CLASSNAME')],
      } },
      { tabela: 'respostas', descricao: 'A resposta pronta de cada município.', colunas: { ibge: ['código IBGE do município', 'Receita: municipios.csv'], corpo: [RESPOSTA('/v1/desmatamento/municipio/{ibge}'), DERIVADA('DETER')] } },
      { tabela: 'microrregioes', descricao: 'Totais por microrregião do IBGE.', colunas: {
        codigo: ['código IBGE da microrregião', 'IBGE: microrregiões'], nome: ['nome da microrregião', 'IBGE: microrregiões'], uf: ['UF', 'IBGE: microrregiões'], corpo: ['os totais da microrregião em JSON', DERIVADA('DETER')],
      } },
      { tabela: 'resumo', descricao: 'Dados gerais da base (fonte, referência, contagens), em JSON.', colunas: { chave: ['nome do dado', DERIVADA('carga')], corpo: ['valor em JSON', DERIVADA('carga')] } },
    ],
  },
  tributos: {
    arquivo: 'ncm.sqlite',
    tabelas: [
      { tabela: 'ncm', descricao: 'A tabela NCM vigente, um código por linha (capítulos, posições, subposições, itens).', colunas: {
        codigo: ['código NCM sem pontos (2 a 8 dígitos)', 'Siscomex Tabela NCM: Codigo'],
        descricao: ['descrição sem os travessões de nível', DERIVADA('Siscomex Tabela NCM: Descricao')],
        descricao_original: ['descrição como publicada', 'Siscomex Tabela NCM: Descricao'],
        inicio: ['início da vigência', 'Siscomex Tabela NCM: Data_Inicio', 'DATE'],
        fim: ['fim da vigência (vazio: vigente)', 'Siscomex Tabela NCM: Data_Fim', 'DATE'],
        ato: ['ato legal que criou o código', 'Siscomex Tabela NCM: Tipo_Ato_Ini, Numero_Ato_Ini, Ano_Ato_Ini'],
      } },
      { tabela: 'meta', descricao: 'Cabeçalho da tabela publicada.', colunas: { chave: ['campo do cabeçalho', 'Siscomex Tabela NCM'], valor: ['valor', 'Siscomex Tabela NCM'] } },
    ],
  },
  exportacoes: {
    arquivo: 'exportacoes.json',
    sql: {
      exportacoes: `SELECT g.id AS grupo, g.nome AS nome, g.en AS nome_ingles, array_to_string(g.ncm_prefixos, ',') AS ncm_prefixos, s.mes AS mes,
        s.fob_usd::BIGINT AS fob_usd, s.kg_liquido::BIGINT AS kg_liquido, s.fob_usd_ano_anterior::BIGINT AS fob_usd_ano_anterior,
        s.kg_liquido_ano_anterior::BIGINT AS kg_liquido_ano_anterior, s.variacao_fob_pct::DOUBLE AS variacao_fob_pct, s.variacao_kg_pct::DOUBLE AS variacao_kg_pct
        FROM (SELECT unnest(grupos) AS g FROM read_json($arquivo, maximum_object_size = 67108864)), unnest(g.serie) AS u(s) ORDER BY grupo, mes`,
    },
    tabelas: [
      { tabela: 'exportacoes', descricao: 'Exportações brasileiras por grupo de commodity e mês (13 meses).', colunas: {
        grupo: ['identificador do grupo (soja, milho, cafe...)', DERIVADA('grupos de NCM do dadosbr')],
        nome: ['nome do grupo', DERIVADA('grupos de NCM do dadosbr')],
        nome_ingles: ['nome do grupo em inglês', DERIVADA('grupos de NCM do dadosbr')],
        ncm_prefixos: ['prefixos de NCM somados no grupo, separados por vírgula', DERIVADA('grupos de NCM do dadosbr')],
        mes: ['mês (AAAA-MM)', 'ComexStat EXP_AAAA.csv: CO_ANO, CO_MES'],
        fob_usd: ['valor FOB em dólares', 'ComexStat EXP_AAAA.csv: VL_FOB'],
        kg_liquido: ['peso líquido em kg', 'ComexStat EXP_AAAA.csv: KG_LIQUIDO'],
        fob_usd_ano_anterior: ['valor FOB do mesmo mês do ano anterior', 'ComexStat EXP_AAAA.csv: VL_FOB'],
        kg_liquido_ano_anterior: ['peso líquido do mesmo mês do ano anterior', 'ComexStat EXP_AAAA.csv: KG_LIQUIDO'],
        variacao_fob_pct: ['variação do FOB sobre o ano anterior, em %', DERIVADA('fob_usd e fob_usd_ano_anterior')],
        variacao_kg_pct: ['variação do peso sobre o ano anterior, em %', DERIVADA('kg_liquido e kg_liquido_ano_anterior')],
      } },
    ],
  },
}
