/** Plain HTTP requests for checks the MCP clients and fetch cannot make (e.g. a foreign Host). */
import {request} from 'node:http'

/** Status, headers and body of an answer. */
export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * Sends one request with exactly these headers (Host included) and reads the whole answer.
 * @param options.target the request line's target instead of the URL's path (e.g. an absolute-form `http://127.0.0.1/mcp`)
 */
export function rawRequest(
  url: string,
  options: {method?: string; headers?: Record<string, string>; body?: string; target?: string} = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const {hostname, port, pathname, search} = new URL(url)
    const where = {host: hostname.replace(/^\[|\]$/g, ''), port, path: options.target ?? `${pathname}${search}`}
    const req = request({...where, method: options.method ?? 'POST', headers: options.headers}, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, body}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Headers of a well-formed MCP POST. */
export function mcpPostHeaders(token: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token === undefined ? {} : {authorization: `Bearer ${token}`}),
    ...extra,
  }
}

/** A 2025-era `initialize` request body. */
export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'raw', version: '1'}},
})

/** A `tools/list` request body. */
export const TOOLS_LIST_BODY = JSON.stringify({jsonrpc: '2.0', id: 2, method: 'tools/list', params: {}})
