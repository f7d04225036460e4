// The one error envelope of the service: { erro: { codigo, mensagem } }.
// Every codigo the service can emit is listed here, so the OpenAPI document and
// the tests read the same catalogue the code throws from.

export const ERROR_CODES = {
  parametro_invalido: { status: 400, descricao: 'Um parâmetro de caminho ou de consulta não atende às regras documentadas.' },
  cnpj_invalido: { status: 400, descricao: 'O CNPJ do caminho não tem formato válido ou seus dígitos verificadores não conferem.' },
  ncm_invalido: { status: 400, descricao: 'O código NCM do caminho não tem de 4 a 8 dígitos (pontos permitidos entre eles).' },
  parametro_desconhecido: { status: 400, descricao: 'A consulta traz um parâmetro que a rota não aceita.' },
  parametro_repetido: { status: 400, descricao: 'Um parâmetro de consulta aparece mais de uma vez.' },
  filtro_obrigatorio: { status: 400, descricao: 'A busca exige ao menos um filtro.' },
  pagamento_invalido: { status: 400, descricao: 'O pagamento apresentado quebra uma regra do x402 que não se resolve pagando de novo (ex.: identificador de pagamento fora do formato); nada é cobrado.' },
  pagamento_exigido: { status: 402, descricao: 'Rota paga chamada sem pagamento válido (protocolo x402).' },
  nao_encontrado: { status: 404, descricao: 'O recurso pedido não existe na base carregada.' },
  rota_inexistente: { status: 404, descricao: 'Nenhuma rota neste caminho.' },
  metodo_nao_permitido: { status: 405, descricao: 'A rota existe, mas só aceita GET e HEAD.' },
  pagamento_conflitante: { status: 409, descricao: 'O identificador de pagamento (payment-identifier) já foi usado com outro pagamento ou outra chamada, ou o pedido dele ainda está em andamento; nada é cobrado.' },
  uri_muito_longa: { status: 414, descricao: 'O endereço pedido passa de 8 KiB.' },
  erro_interno: { status: 500, descricao: 'Falha inesperada do servidor; foi registrada no log.' },
  dados_indisponiveis: { status: 503, descricao: 'O arquivo de dados desta rota não está carregado (rode a ingestão), ou a resposta não teria nenhum dado (nenhuma cópia da fonte ainda, todas as partes de um pacote faltando): nada é cobrado.' },
  pagamento_indisponivel: { status: 503, descricao: 'O facilitador de pagamentos não responde; nada é cobrado nem servido.' },
} as const

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorBody {
  erro: { codigo: string; mensagem: string }
}

/** Thrown anywhere in request handling; the server turns it into the envelope. */
export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly codigo: ErrorCode,
    mensagem: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(mensagem)
    this.status = ERROR_CODES[codigo].status
  }
}

export function errorBody(codigo: string, mensagem: string): ErrorBody {
  return { erro: { codigo, mensagem } }
}

/**
 * A body a route serializes itself, as text or UTF-8 bytes (its answer is mostly JSON stored at
 * build time: parsing it to objects and stringifying them again halved a lookup route's
 * throughput). Sent as is; tests (checkResponses) still parse and validate it.
 */
export class JsonText {
  constructor(
    readonly text: string | Uint8Array,
    /** The value it was written from, when at hand: read by checks on the answer (semDados) without parsing it again. */
    readonly source?: unknown,
  ) {}
  parse(): unknown {
    return JSON.parse(typeof this.text === 'string' ? this.text : new TextDecoder().decode(this.text))
  }
}

/** CORS: a browser client must read the 402 challenge and send the signed payment back (NOTES §2). */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE',
}
const JSON_TYPE = 'application/json; charset=utf-8'
/**
 * The headers of a plain 200 answer, built once: a shared Headers is copied by the Response at a
 * third of the cost of an object literal, and with CORS already in it the server sets nothing after.
 */
const OK_HEADERS = new Headers({ 'content-type': JSON_TYPE, ...CORS_HEADERS })

export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  const text = body instanceof JsonText ? (body.text as BodyInit) : JSON.stringify(body)
  if (status === 200 && !headers) return new Response(text, { headers: OK_HEADERS })
  return new Response(text, { status, headers: { 'content-type': JSON_TYPE, ...CORS_HEADERS, ...headers } })
}

export function errorResponse(err: ApiError): Response {
  return jsonResponse(errorBody(err.codigo, err.message), err.status, err.headers)
}
