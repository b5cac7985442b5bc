import type {ServerResponse} from 'node:http'

/** The JSON-RPC error body ak's HTTP refusals carry (no request id: the request was not read). */
export function jsonRpcErrorBody(message: string): string {
  return JSON.stringify({jsonrpc: '2.0', error: {code: -32_000, message}, id: null})
}

/** A web-standard refusal: `status` with a JSON-RPC error body saying what was wrong, plus any extra headers. */
export function jsonRpcErrorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(jsonRpcErrorBody(message), {status, headers: {'content-type': 'application/json', ...headers}})
}

/** Answers a Node request with `status` and a JSON-RPC error body, plus any extra headers. */
export function writeJsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = jsonRpcErrorBody(message)
  res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers})
  res.end(body)
}
