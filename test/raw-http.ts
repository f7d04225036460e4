// A raw HTTP/1.x client over a TCP socket: sends bytes exactly as given (request lines and Host
// headers no fetch would send) and reads until the server closes. For the fault-injection tests
// and benchmarks, which must see what the server writes on the wire.
import { connect } from 'node:net'

export interface RawAnswer {
  /** The whole answer as received (latin-1). */
  raw: string
  /** 0 when nothing came back. */
  status: number
  headers: Record<string, string>
  body: string
}

/** Parses one HTTP/1.x answer (the first in `raw`). */
export function parseAnswer(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n')
  const head = end < 0 ? raw : raw.slice(0, end)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = end < 0 ? '' : raw.slice(end + 4)
  if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']))
  return { raw, status: Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: Buffer.from(body, 'latin1').toString('utf8') }
}

/**
 * Writes `request` to 127.0.0.1:`port` and collects the answer until the server closes the
 * connection (send `Connection: close`, or HTTP/1.0) or `timeoutMs` passes.
 */
export function rawRequest(port: number, request: string | Uint8Array, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let raw = ''
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(parseAnswer(raw))
    }
    const timer = setTimeout(done, timeoutMs)
    socket.on('data', (d) => (raw += d.toString('latin1')))
    socket.on('close', done)
    socket.on('error', done)
    socket.write(request)
  })
}
