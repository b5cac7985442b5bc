import {toWebRequest} from '@modelcontextprotocol/node'
import type {IncomingMessage, ServerResponse} from 'node:http'

import {jsonRpcErrorResponse} from './error-response.js'

/** What a client whose body is too large can do. */
export const SEND_LESS = 'Send less in one request: split a large edit or input into several calls.'

/** A web-standard request handler (the SDK's `handler.fetch` shape). */
export type WebHandler = (request: Request) => Promise<Response>

/** A Node `(req, res, parsedBody?)` handler that resolves once the answer is written or the client left. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>

/**
 * Serves Node requests through a web-standard handler: the Node request becomes a `Request`
 * (the SDK's `toWebRequest`: body read up to `maxBodyBytes`, or `parsedBody` used as is), and the
 * `Response` is written back to `res`.
 *
 * Unlike the SDK's `toNodeHandler`, this bridge:
 * - sends an event stream's status line and headers as soon as the stream opens (an SSE client
 *   waits for them; Node would otherwise hold them until the first event or keepalive);
 * - notices at once when the client's socket closes (`res` 'close'): the request's signal aborts
 *   and the response body is cancelled then, not at the next chunk, so the transport releases
 *   what the stream held (a session's one GET stream) while the client reconnects.
 *
 * A body over `maxBodyBytes` gets 413; anything the handler throws is passed to `onerror` and
 * answered 500, both with a JSON-RPC error body.
 */
export function toNodeBridge(handler: WebHandler, options: {maxBodyBytes: number; onerror: (error: Error) => void}): NodeHandler {
  return async (req, res, parsedBody) => {
    if (typeof parsedBody === 'function') parsedBody = undefined // Express's `next`, not a body
    const clientLeft = new AbortController()
    let written = false
    res.on('close', () => {
      if (!written) clientLeft.abort()
    })
    if (res.destroyed) clientLeft.abort()
    let response: Response
    try {
      const request = await toWebRequest(req, parsedBody, {signal: clientLeft.signal, maxRequestBodySize: options.maxBodyBytes})
      response = await handler(request)
    } catch (error) {
      response = failureResponse(error, options)
    }
    try {
      await writeResponse(response, res, clientLeft.signal)
    } finally {
      written = true
    }
  }
}

function failureResponse(error: unknown, options: {maxBodyBytes: number; onerror: (error: Error) => void}): Response {
  if ((error as {name?: unknown}).name === 'RequestBodyTooLargeError') {
    return jsonRpcErrorResponse(
      413,
      `Payload too large: the body is longer than ${options.maxBodyBytes} bytes, the most accepted. ${SEND_LESS}`,
      {connection: 'close'},
    )
  }
  options.onerror(error instanceof Error ? error : new Error(String(error)))
  return jsonRpcErrorResponse(500, 'Internal server error: the request could not be served; the server log says why.')
}

/**
 * Writes a web `Response` to `res`: status and headers first (flushed at once for an event
 * stream), then the body chunk by chunk, waiting for 'drain' when the socket is full. When
 * `clientLeft` aborts, the body is cancelled and writing stops.
 */
async function writeResponse(response: Response, res: ServerResponse, clientLeft: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {}
  for (const [name, value] of response.headers) headers[name] = value
  res.writeHead(response.status, headers)
  if (response.body === null) {
    res.end()
    return
  }
  if (/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) res.flushHeaders()
  const reader = response.body.getReader()
  const cancel = () => void reader.cancel(clientLeft.reason).catch(() => undefined)
  if (clientLeft.aborted) cancel()
  else clientLeft.addEventListener('abort', cancel, {once: true})
  try {
    for (;;) {
      const {done, value} = await reader.read()
      if (done || clientLeft.aborted) break
      if (!res.write(value)) await drained(res, clientLeft)
    }
  } catch {
    // The body failed or was cancelled: the answer ends here.
  } finally {
    clientLeft.removeEventListener('abort', cancel)
    res.end()
  }
}

/** Resolves when `res` can take more data again, or the client left. */
function drained(res: ServerResponse, clientLeft: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (clientLeft.aborted) return resolve()
    const done = () => {
      res.off('drain', done)
      clientLeft.removeEventListener('abort', done)
      resolve()
    }
    res.on('drain', done)
    clientLeft.addEventListener('abort', done, {once: true})
  })
}
